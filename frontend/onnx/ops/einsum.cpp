// Einsum onto transposes, reshapes, sums and matrix products. Each operand first loses
// its repeated labels (the diagonal, a strided slice of the two dimensions flattened) and
// the labels no one else reads (summed); then the operands are contracted pairwise from
// the left, each pair as one matrix product: [batch, rows, K] x [batch, K, columns], a
// dense when there is no batch. An ellipsis dimension of 1 facing a larger one
// broadcasts: that operand drops it. Labels are ints: a letter's code, or kEllipsis + i for
// the ellipsis's dimension i counted from the left of the widest one.
#include <algorithm>
#include <cctype>
#include <set>

#include "frontend/onnx/ops/ops_util.h"

namespace tensorir::onnx::detail {

namespace {

constexpr int kEllipsis = 1000;
constexpr int kDots = -1;  // "..." in a parsed term

// An operand during lowering: its node, one label and one size per dimension.
struct Term {
  graph::NodeRef node;
  std::vector<int> labels;
  std::vector<int64_t> shape;
};

// The labels of one term of the equation, "..." as kDots.
std::vector<int> parse_term(const std::string &s, const std::string &eq) {
  std::vector<int> out;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s.compare(i, 3, "...") == 0) {
      TIR_USER_CHECK(std::find(out.begin(), out.end(), kDots) == out.end())
          << "equation '" << eq << "': a term has two ellipses";
      out.push_back(kDots);
      i += 2;
      continue;
    }
    TIR_USER_CHECK(std::isalpha(static_cast<unsigned char>(s[i])))
        << "equation '" << eq << "': '" << s[i] << "' is not a letter";
    out.push_back(s[i]);
  }
  return out;
}

// A term's labels with its ellipsis spelled out as the last `count` of `width` ellipsis
// labels (ellipses align on the right, as NumPy broadcasts).
std::vector<int> expand(const std::vector<int> &term, int count, int width) {
  std::vector<int> out;
  for (int l : term) {
    if (l != kDots) {
      out.push_back(l);
      continue;
    }
    for (int j = width - count; j < width; ++j) out.push_back(kEllipsis + j);
  }
  return out;
}

int64_t product(const std::vector<int64_t> &s, size_t from, size_t to) {
  int64_t p = 1;
  for (size_t i = from; i < to; ++i) p *= s[i];
  return p;
}

void transpose(Context &c, Term &t, const std::vector<int> &order) {
  std::vector<int64_t> perm, shape;
  for (int l : order) {
    const size_t i = size_t(std::find(t.labels.begin(), t.labels.end(), l) - t.labels.begin());
    perm.push_back(int64_t(i));
    shape.push_back(t.shape[i]);
  }
  bool identity = true;
  for (size_t i = 0; i < perm.size(); ++i) identity = identity && perm[i] == int64_t(i);
  if (!identity) t.node = c.make("transpose", {t.node}, {{"axes", perm}});
  t.labels = order;
  t.shape = shape;
}

graph::NodeRef reshape(Context &c, const Term &t, const std::vector<int64_t> &shape) {
  return shape == t.shape ? t.node : c.make("reshape", {t.node}, {{"shape", shape}});
}

// Replaces each label that appears twice by the diagonal of its two dimensions: both
// moved last and flattened, every (n + 1)-th element.
void take_diagonals(Context &c, Term &t) {
  for (size_t i = 0; i < t.labels.size(); ++i) {
    const auto twin = std::find(t.labels.begin() + long(i) + 1, t.labels.end(), t.labels[i]);
    if (twin == t.labels.end()) continue;
    const size_t j = size_t(twin - t.labels.begin());
    const int64_t n = t.shape[i];
    TIR_USER_CHECK(t.shape[j] == n) << "label '" << char(t.labels[i]) << "' has sizes " << n << " and " << t.shape[j];
    Term d;  // t's other dimensions, then the label once
    std::vector<int64_t> perm;
    for (size_t k = 0; k < t.labels.size(); ++k) {
      if (k == i || k == j) continue;
      perm.push_back(int64_t(k));
      d.labels.push_back(t.labels[k]);
      d.shape.push_back(t.shape[k]);
    }
    perm.insert(perm.end(), {int64_t(i), int64_t(j)});
    std::vector<int64_t> flat = d.shape, strides(d.shape.size() + 1, 1);
    flat.push_back(n * n);
    strides.back() = n + 1;
    graph::NodeRef x = c.make("reshape", {c.make("transpose", {t.node}, {{"axes", perm}})}, {{"shape", flat}});
    d.node =
        c.make("slice", {x}, {{"begin", std::vector<int64_t>(flat.size(), 0)}, {"end", flat}, {"strides", strides}});
    d.labels.push_back(t.labels[i]);
    d.shape.push_back(n);
    t = d;
    return take_diagonals(c, t);
  }
}

// Sums over the labels of t that are not in `keep`.
void sum_out(Context &c, Term &t, const std::set<int> &keep) {
  std::vector<int64_t> axes;
  std::vector<int> labels;
  std::vector<int64_t> shape;
  for (size_t i = 0; i < t.labels.size(); ++i) {
    if (keep.count(t.labels[i])) {
      labels.push_back(t.labels[i]);
      shape.push_back(t.shape[i]);
    } else {
      axes.push_back(int64_t(i));
    }
  }
  if (axes.empty()) return;
  t.node = c.make("reduce_sum", {t.node}, {{"axes", axes}, {"keepdims", int64_t{0}}});
  t.labels = labels;
  t.shape = shape;
}

bool has(const Term &t, int l) { return std::find(t.labels.begin(), t.labels.end(), l) != t.labels.end(); }

// a times b, summed over their common labels that are not in `keep`.
Term contract(Context &c, Term a, Term b, const std::set<int> &keep) {
  std::set<int> keep_a = keep, keep_b = keep;
  keep_a.insert(b.labels.begin(), b.labels.end());
  keep_b.insert(a.labels.begin(), a.labels.end());
  sum_out(c, a, keep_a);
  sum_out(c, b, keep_b);
  std::vector<int> batch, rows, inner, cols;
  for (int l : a.labels) (has(b, l) ? (keep.count(l) ? batch : inner) : rows).push_back(l);
  for (int l : b.labels)
    if (!has(a, l)) cols.push_back(l);
  auto concat = [](std::vector<int> x, const std::vector<int> &y, const std::vector<int> &z) {
    x.insert(x.end(), y.begin(), y.end());
    x.insert(x.end(), z.begin(), z.end());
    return x;
  };
  transpose(c, a, concat(batch, rows, inner));
  const size_t nb = batch.size(), nr = rows.size();
  const int64_t bt = product(a.shape, 0, nb), m = product(a.shape, nb, nb + nr),
                k = product(a.shape, nb + nr, a.shape.size());
  Term out;
  out.labels = concat(batch, rows, cols);
  out.shape.assign(a.shape.begin(), a.shape.begin() + long(nb + nr));
  if (batch.empty()) {
    transpose(c, b, concat({}, cols, inner));  // dense's weight [N, K]
    const int64_t n = product(b.shape, 0, cols.size());
    out.shape.insert(out.shape.end(), b.shape.begin(), b.shape.begin() + long(cols.size()));
    out.node = c.make("dense", {reshape(c, a, {m, k}), reshape(c, b, {n, k})});
    out.node = reshape(c, Term{out.node, {}, {m, n}}, out.shape);
    return out;
  }
  transpose(c, b, concat(batch, inner, cols));
  const int64_t n = product(b.shape, nb + inner.size(), b.shape.size());
  out.shape.insert(out.shape.end(), b.shape.begin() + long(nb + inner.size()), b.shape.end());
  out.node = c.make("batch_matmul", {reshape(c, a, {bt, m, k}), reshape(c, b, {bt, k, n})});
  out.node = reshape(c, Term{out.node, {}, {bt, m, n}}, out.shape);
  return out;
}

// The operands, each with a label per dimension, and the output's labels.
struct Equation {
  std::vector<Term> ops;
  std::vector<int> out;
  std::map<int, int64_t> sizes;  // each label's
};

Equation parse(Context &c, const std::string &eq) {
  const size_t arrow = eq.find("->");
  const std::string lhs = eq.substr(0, arrow);
  std::vector<std::vector<int>> terms;
  for (size_t from = 0;;) {
    const size_t comma = lhs.find(',', from);
    terms.push_back(parse_term(lhs.substr(from, comma - from), eq));
    if (comma == std::string::npos) break;
    from = comma + 1;
  }
  TIR_USER_CHECK(terms.size() == c.num_inputs())
      << "equation '" << eq << "' has " << terms.size() << " operands but the node has " << c.num_inputs() << " inputs";
  // The ellipsis's width, and each operand's labels in full.
  int width = 0;
  std::vector<int> counts;
  for (size_t i = 0; i < terms.size(); ++i) {
    const bool dots = std::count(terms[i].begin(), terms[i].end(), kDots) > 0;
    const int count = c.rank(i) - int(terms[i].size()) + (dots ? 1 : 0);
    TIR_USER_CHECK(count >= 0 && (dots || count == 0))
        << "equation '" << eq << "': operand " << i << " has rank " << c.rank(i) << ", which its term does not fit";
    counts.push_back(count);
    width = std::max(width, count);
  }
  std::vector<Term> ops;
  std::map<int, int64_t> sizes;
  std::map<int, int> uses;
  for (size_t i = 0; i < terms.size(); ++i) {
    TIR_USER_CHECK(c.dtype(i) == c.dtype(0)) << "operands of different types";
    if (c.dtype(i).is_bool()) unsupported("bool operands");
    ops.push_back(Term{c.node(i), expand(terms[i], counts[i], width), c.shape(i)});
    for (size_t d = 0; d < ops[i].labels.size(); ++d) {
      const int l = ops[i].labels[d];
      const int64_t n = ops[i].shape[d];
      ++uses[l];
      auto [it, fresh] = sizes.emplace(l, n);
      if (fresh || it->second == n) continue;
      TIR_USER_CHECK(l >= kEllipsis) << "equation '" << eq << "': label '" << char(l) << "' has sizes " << it->second
                                    << " and " << n;
      TIR_USER_CHECK(n == 1 || it->second == 1)
          << "equation '" << eq << "': ellipsis dimensions of " << it->second << " and " << n << " do not broadcast";
      if (it->second == 1) it->second = n;  // 1 broadcasts to the other (0 included)
    }
  }
  // An ellipsis dimension of 1 that broadcasts is dropped: the others carry its label.
  for (Term &t : ops) {
    Term kept{t.node, {}, {}};
    for (size_t d = 0; d < t.labels.size(); ++d) {
      if (t.shape[d] == 1 && sizes[t.labels[d]] != 1) continue;
      kept.labels.push_back(t.labels[d]);
      kept.shape.push_back(t.shape[d]);
    }
    kept.node = reshape(c, t, kept.shape);
    t = kept;
  }
  // The output: explicit, or the ellipsis then the labels used once, in order.
  std::vector<int> out;
  if (arrow != std::string::npos) {
    out = expand(parse_term(eq.substr(arrow + 2), eq), width, width);
    for (size_t i = 0; i < out.size(); ++i) {
      TIR_USER_CHECK(sizes.count(out[i]))
          << "equation '" << eq << "': output label '" << char(out[i]) << "' is in no operand";
      TIR_USER_CHECK(std::count(out.begin(), out.end(), out[i]) == 1)
          << "equation '" << eq << "': output label '" << char(out[i]) << "' repeats";
    }
  } else {
    for (int j = 0; j < width; ++j) out.push_back(kEllipsis + j);
    for (auto [l, n] : uses)
      if (l < kEllipsis && n == 1) out.push_back(l);
  }
  return {ops, out, sizes};
}

void einsum(Context &c) {
  std::string text;
  for (char ch : c.attrs().s("equation", "")) {
    if (ch != ' ') text += ch;
  }
  Equation eq = parse(c, text);
  std::vector<Term> &ops = eq.ops;
  const std::vector<int> &out = eq.out;
  // An operand of no elements: an empty result, or sums of no products (zeros).
  if (std::any_of(ops.begin(), ops.end(), [](const Term &t) { return element_count(t.shape) == 0; })) {
    std::vector<int64_t> shape;
    for (int l : out) shape.push_back(eq.sizes.at(l));
    return c.set_output(0, host_broadcast_to(scalar(0, c.dtype(0)), shape));
  }
  // The labels read after operand i: the output's and those of the operands after it.
  auto later = [&](size_t i) {
    std::set<int> keep(out.begin(), out.end());
    for (size_t j = i + 1; j < ops.size(); ++j) keep.insert(ops[j].labels.begin(), ops[j].labels.end());
    return keep;
  };
  for (size_t i = 0; i < ops.size(); ++i) {
    take_diagonals(c, ops[i]);
    std::set<int> keep = later(i);
    for (size_t j = 0; j < i; ++j) keep.insert(ops[j].labels.begin(), ops[j].labels.end());
    sum_out(c, ops[i], keep);
  }
  Term r = ops[0];
  for (size_t i = 1; i < ops.size(); ++i) r = contract(c, r, ops[i], later(i));
  transpose(c, r, out);
  if (r.node.id == c.node(0).id) return c.forward(0, 0);  // the identity
  c.set_output(0, r.node);
}

std::string check_einsum(const Attributes &a) { return a.has("equation") ? "" : "the equation attribute is missing"; }

const bool registered = [] {
  register_converter({"Einsum", 12, kLatest, check_einsum, einsum});
  return true;
}();

}  // namespace

}  // namespace tensorir::onnx::detail
