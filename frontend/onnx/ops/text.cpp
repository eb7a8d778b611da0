// TfIdfVectorizer of integer tokens: for each n-gram of the pool, the windows of the input
// that match it (each of its n tokens compared at once, for every skip), counted with a
// sum; the counts go to their output positions, weighted, through one constant matrix.
#include "frontend/onnx/ops/ops_util.h"

namespace tensorir::onnx::detail {

namespace {

using Shape = std::vector<int64_t>;

std::string check_tfidf(const Attributes &a) {
  if (a.has("pool_strings")) return "pool_strings (string tokens) is not supported";
  const std::string mode = a.s("mode", "");
  if (mode != "TF" && mode != "IDF" && mode != "TFIDF") return "mode '" + mode + "' is not TF, IDF or TFIDF";
  return "";
}

// [N, G]: how often each of the G n-grams (`grams`, n tokens each, row by row) occurs in
// the rows of x [N, C], the tokens of a match `skip` + 1 apart.
graph::NodeRef count_ngrams(Context &c, graph::NodeRef x, const Shape &xs, const std::vector<int64_t> &grams, int64_t n,
                            int64_t skip) {
  const int64_t rows = xs[0], windows = xs[1] - (n - 1) * (skip + 1), g = int64_t(grams.size()) / n;
  graph::NodeRef match;
  for (int64_t t = 0; t < n; ++t) {
    const int64_t begin = t * (skip + 1);
    graph::NodeRef part = c.make(
        "slice", {x}, {{"begin", Shape{0, begin}}, {"end", Shape{rows, begin + windows}}, {"strides", Shape{1, 1}}});
    part = c.make("reshape", {part}, {{"shape", Shape{rows, 1, windows}}});
    std::vector<int64_t> column;
    for (int64_t j = 0; j < g; ++j) column.push_back(grams[size_t(j * n + t)]);
    graph::NodeRef want = c.constant(from_int64s(column, {1, g, 1}, c.dtype(0)), "pool");
    graph::NodeRef eq = c.make("equal", {part, want});
    match = t == 0 ? eq : c.make("logical_and", {match, eq});
  }
  graph::NodeRef ones = c.make("cast", {match}, {{"dtype", Float(32).str()}});
  return c.make("reduce_sum", {ones}, {{"axes", Shape{2}}, {"keepdims", int64_t{0}}});
}

void tfidf(Context &c) {
  const Attributes &a = c.attrs();
  if (!c.dtype(0).is_int()) unsupported("input of " + c.dtype(0).str() + " (integer tokens only)");
  TIR_USER_CHECK(c.rank(0) == 1 || c.rank(0) == 2) << "input " << shape_str(c.shape(0)) << " must be [C] or [N, C]";
  const int64_t min_n = a.i("min_gram_length", 0), max_n = a.i("max_gram_length", 0),
                max_skip = a.i("max_skip_count", 0);
  const std::vector<int64_t> counts = a.ints("ngram_counts"), indexes = a.ints("ngram_indexes"),
                             pool = a.ints("pool_int64s");
  std::vector<float> weights = a.floats("weights");
  TIR_USER_CHECK(min_n >= 1 && min_n <= max_n && max_skip >= 0 && int64_t(counts.size()) >= max_n)
      << "gram lengths " << min_n << " to " << max_n << ", skip " << max_skip << " and " << counts.size()
      << " ngram_counts do not fit";
  const std::string mode = a.s("mode", "");
  const Shape xs = c.rank(0) == 2 ? c.shape(0) : Shape{1, c.shape(0)[0]};
  graph::NodeRef x = c.rank(0) == 2 ? c.node(0) : c.make("reshape", {c.node(0)}, {{"shape", xs}});
  int64_t width = 0;
  for (int64_t i : indexes) width = std::max(width, i + 1);
  // The pool's n-grams of each length n: elements [counts[n-1], counts[n]) of the pool.
  std::vector<graph::NodeRef> parts;
  std::vector<int64_t> columns;  // the pool's index of each counted n-gram
  int64_t index = 0;
  for (int64_t n = 1; n <= max_n; ++n) {
    const int64_t begin = counts[size_t(n - 1)],
                  end = n < int64_t(counts.size()) ? counts[size_t(n)] : int64_t(pool.size());
    TIR_USER_CHECK(begin >= 0 && begin <= end && end <= int64_t(pool.size()) && (end - begin) % n == 0)
        << "ngram_counts " << shape_str(counts) << " do not fit the pool of " << pool.size();
    const int64_t g = (end - begin) / n;
    if (n >= min_n && g > 0) {
      const std::vector<int64_t> grams(pool.begin() + begin, pool.begin() + end);
      graph::NodeRef sum;
      bool any = false;
      for (int64_t skip = 0; skip <= (n == 1 ? 0 : max_skip); ++skip) {
        if (xs[1] - (n - 1) * (skip + 1) <= 0) break;
        graph::NodeRef k = count_ngrams(c, x, xs, grams, n, skip);
        sum = any ? c.make("add", {sum, k}) : k;
        any = true;
      }
      if (any) {
        parts.push_back(sum);
        for (int64_t j = 0; j < g; ++j) columns.push_back(index + j);
      }
    }
    index += g;
  }
  TIR_USER_CHECK(int64_t(indexes.size()) >= index) << indexes.size() << " ngram_indexes for " << index << " n-grams";
  TIR_USER_CHECK(weights.empty() || weights.size() == indexes.size())
      << weights.size() << " weights for " << indexes.size() << " n-grams";
  Shape out = c.rank(0) == 2 ? Shape{xs[0], width} : Shape{width};
  check_host_size(out, Float(32));  // width is the largest of ngram_indexes
  check_host_size({width, int64_t(columns.size())}, Float(32), "the constant of n-gram positions");
  if (parts.empty())
    return c.set_output(0, from_doubles(std::vector<double>(size_t(element_count(out)), 0.0), out, Float(32)));
  graph::NodeRef n_counts = parts.size() == 1 ? parts[0] : c.make("concatenate", parts, {{"axis", int64_t{1}}});
  if (mode == "IDF") n_counts = c.make("minimum", {n_counts, c.constant(scalar(1, Float(32)), "one")});
  // [width, counted]: each counted n-gram to its output position, with its weight.
  std::vector<double> m(size_t(width) * columns.size(), 0.0);
  for (size_t j = 0; j < columns.size(); ++j) {
    const int64_t to = indexes[size_t(columns[j])];
    TIR_USER_CHECK(to >= 0) << "ngram_indexes must not be negative";
    m[size_t(to) * columns.size() + j] = mode == "TF" || weights.empty() ? 1.0 : weights[size_t(columns[j])];
  }
  graph::NodeRef map = c.constant(from_doubles(m, {width, int64_t(columns.size())}, Float(32)), "positions");
  graph::NodeRef y = c.make("dense", {n_counts, map});
  c.output(0, "reshape", {y}, {{"shape", out}});
}

const bool registered = [] {
  register_converter({"TfIdfVectorizer", 9, kLatest, check_tfidf, tfidf});
  return true;
}();

}  // namespace

}  // namespace tensorir::onnx::detail
