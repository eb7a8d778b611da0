// Sequences and optionals folded at import, BatchNormalization in training mode, If and
// Loop decided at import: each against plain loops on random data, and what they refuse.
#include "onnx_test_util.h"

using namespace tensorir;
using Catch::Matchers::Contains;
using onnx_test::attr;
using onnx_test::bool_scalar;
using onnx_test::check_close;
using onnx_test::dims;
using onnx_test::graph_attr;
using onnx_test::int64_scalar;
using onnx_test::ModelBuilder;
using onnx_test::run;

namespace {

// A Loop over x [4] of `trips` iterations: v starts as x and each iteration adds x; the
// body goes on while i < stop, or with `mod` while i % 100 < stop (a Mod, which the import
// computes by compiling it). With `scan`, a scan output of each iteration's v.
ModelBuilder add_loop(int64_t trips, int64_t stop, bool scan, bool mod) {
  ModelBuilder mb(13);
  mb.input("x", dims({4}));
  mb.initializer("m", int64_scalar(trips));
  mb.initializer("go", bool_scalar(true));
  mb.initializer("stop", int64_scalar(stop));
  if (mod) mb.initializer("hundred", int64_scalar(100));
  std::vector<std::string> outs = {"v_final"}, body_outs = {"c_out", "v_out"};
  if (scan) outs.push_back("scan"), body_outs.push_back("s_out");
  ::onnx::NodeProto &n = mb.node("Loop", {"m", "go", "x"}, outs);
  graph_attr(n, "body", {{"i", ::onnx::TensorProto::INT64}, {"c", ::onnx::TensorProto::BOOL}, {"v", 1}}, body_outs,
             [&](ModelBuilder &g) {
               if (mod) g.node("Mod", {"i", "hundred"}, {"r"});
               g.node("Less", {mod ? "r" : "i", "stop"}, {"c_out"});
               g.node("Add", {"v", "x"}, {"v_out"});
               if (scan) g.node("Identity", {"v_out"}, {"s_out"});
             });
  mb.output("v_final", dims({4}));
  if (scan) mb.output("scan", {});
  return mb;
}

// x[:, begin:end] of a row-major [rows, cols] matrix.
std::vector<float> columns(const std::vector<float> &x, int64_t cols, int64_t begin, int64_t end) {
  std::vector<float> out;
  for (size_t r = 0; r < x.size() / size_t(cols); ++r)
    for (int64_t k = begin; k < end; ++k) out.push_back(x[r * size_t(cols) + size_t(k)]);
  return out;
}

}  // namespace

TEST_CASE("converters: a sequence split, edited, read and joined at import", "[onnx][converters]") {
  const NDArray x = NDArray::random({3, 4}, Float(32), 1), y = NDArray::random({3, 2}, Float(32), 2);
  ModelBuilder mb(13);
  mb.input("x", dims({3, 4}));
  mb.input("y", dims({3, 2}));
  mb.initializer("three", int64_scalar(3));
  mb.initializer("one", int64_scalar(1));
  mb.initializer("zero", int64_scalar(0));
  mb.initializer("last", int64_scalar(-1));
  attr(mb.node("SplitToSequence", {"x", "three"}, {"parts"}), "axis", int64_t{1});  // x[:, 0:3], x[:, 3:4]
  mb.node("SequenceInsert", {"parts", "y", "one"}, {"s1"});                         // x[:, 0:3], y, x[:, 3:4]
  mb.node("SequenceErase", {"s1", "zero"}, {"s2"});                                 // y, x[:, 3:4]
  attr(mb.node("ConcatFromSequence", {"s2"}, {"joined"}), "axis", int64_t{1});
  mb.node("SequenceAt", {"s2", "last"}, {"at"});
  mb.node("SequenceLength", {"s1"}, {"len"});
  mb.node("Identity", {"s2"}, {"s3"});
  mb.node("SequenceAt", {"s3", "zero"}, {"first"});
  mb.output("joined", dims({3, 3}));
  mb.output("at", dims({3, 1}));
  mb.output("len", {}, ::onnx::TensorProto::INT64);
  mb.output("first", dims({3, 2}));
  const graph::Outputs out = run(mb, {{"x", x}, {"y", y}});
  const std::vector<float> xv = x.to_vector<float>(), yv = y.to_vector<float>();
  std::vector<float> joined;
  for (int r = 0; r < 3; ++r) {
    for (int k = 0; k < 2; ++k) joined.push_back(yv[size_t(r * 2 + k)]);
    joined.push_back(xv[size_t(r * 4 + 3)]);
  }
  check_close(out.at(0), joined);
  check_close(out.at(1), columns(xv, 4, 3, 4));
  CHECK(out.at(2).to_vector<int64_t>() == std::vector<int64_t>{3});
  check_close(out.at(3), yv);
}

TEST_CASE("converters: SplitToSequence without split drops the axis, ConcatFromSequence stacks", "[onnx][converters]") {
  const NDArray x = NDArray::random({3, 4}, Float(32), 3);
  ModelBuilder mb(13);
  mb.input("x", dims({3, 4}));
  mb.initializer("two", int64_scalar(2));
  ::onnx::NodeProto &split = mb.node("SplitToSequence", {"x"}, {"rows"});
  attr(split, "keepdims", int64_t{0});
  mb.node("SequenceAt", {"rows", "two"}, {"row2"});
  mb.node("SequenceConstruct", {"x", "x"}, {"pair"});
  ::onnx::NodeProto &stack = mb.node("ConcatFromSequence", {"pair"}, {"stacked"});
  attr(stack, "axis", int64_t{-1});
  attr(stack, "new_axis", int64_t{1});
  mb.output("row2", dims({4}));
  mb.output("stacked", dims({3, 4, 2}));
  const graph::Outputs out = run(mb, {{"x", x}});
  const std::vector<float> xv = x.to_vector<float>();
  CHECK(out.at(0).shape() == std::vector<int64_t>{4});
  check_close(out.at(0), std::vector<float>(xv.begin() + 8, xv.end()));
  std::vector<float> stacked;
  for (float v : xv) stacked.insert(stacked.end(), {v, v});
  CHECK(out.at(1).shape() == std::vector<int64_t>{3, 4, 2});
  check_close(out.at(1), stacked);
}

TEST_CASE("converters: sequences refuse run-time positions, bad positions and graph outputs", "[onnx][converters]") {
  auto model = [](const std::string &position, bool computed, bool output_sequence) {
    ModelBuilder mb(13);
    mb.input("x", dims({2}));
    if (computed)
      mb.input("pos", {}, ::onnx::TensorProto::INT64);
    else
      mb.initializer("pos", int64_scalar(std::stoll(position)));
    mb.node("SequenceConstruct", {"x", "x"}, {"s"});
    mb.node("SequenceAt", {"s", "pos"}, {"y"});
    mb.output(output_sequence ? "s" : "y", dims({2}));
    return mb;
  };
  CHECK_NOTHROW(tensorir::onnx::import_bytes(model("-2", false, false).bytes()));
  REQUIRE_THROWS_WITH(tensorir::onnx::import_bytes(model("2", false, false).bytes()),
                      Contains("position 2 is out of range"));
  REQUIRE_THROWS_AS(tensorir::onnx::import_bytes(model("0", true, false).bytes()), tensorir::onnx::UnsupportedError);
  REQUIRE_THROWS_AS(tensorir::onnx::import_bytes(model("0", false, true).bytes()), tensorir::onnx::UnsupportedError);
}

TEST_CASE("converters: Optional, OptionalHasElement and OptionalGetElement at import", "[onnx][converters]") {
  const NDArray x = NDArray::random({2, 3}, Float(32), 4);
  ModelBuilder mb(15);
  mb.input("x", dims({2, 3}));
  mb.node("Optional", {"x"}, {"opt"});
  mb.node("Optional", {}, {"none"});
  mb.node("OptionalHasElement", {"opt"}, {"has"});
  mb.node("OptionalHasElement", {"none"}, {"has_none"});
  mb.node("OptionalGetElement", {"opt"}, {"got"});
  mb.node("Neg", {"got"}, {"neg"});
  mb.output("has", {}, ::onnx::TensorProto::BOOL);
  mb.output("has_none", {}, ::onnx::TensorProto::BOOL);
  mb.output("neg", dims({2, 3}));
  const graph::Outputs out = run(mb, {{"x", x}});
  CHECK(out.at(0).to_vector<uint8_t>() == std::vector<uint8_t>{1});
  CHECK(out.at(1).to_vector<uint8_t>() == std::vector<uint8_t>{0});
  std::vector<float> neg = x.to_vector<float>();
  for (float &v : neg) v = -v;
  check_close(out.at(2), neg);

  ModelBuilder empty(15);
  empty.input("x", dims({2}));
  empty.node("Optional", {}, {"none"});
  empty.node("OptionalGetElement", {"none"}, {"y"});
  empty.output("y", dims({2}));
  REQUIRE_THROWS_WITH(tensorir::onnx::import_bytes(empty.bytes()), Contains("is empty"));
}

TEST_CASE("converters: BatchNormalization in training mode", "[onnx][converters]") {
  const int64_t n = 2, ch = 3, hw = 5;
  const NDArray x = NDArray::random({n, ch, hw}, Float(32), 5), scale = NDArray::random({ch}, Float(32), 6),
                bias = NDArray::random({ch}, Float(32), 7), mean = NDArray::random({ch}, Float(32), 8),
                var = NDArray::random({ch}, Float(32), 9, 0.5, 2);
  ModelBuilder mb(15);
  for (const char *name : {"scale", "bias", "mean", "var"}) mb.input(name, dims({ch}));
  mb.input("x", dims({n, ch, hw}));
  ::onnx::NodeProto &bn = mb.node("BatchNormalization", {"x", "scale", "bias", "mean", "var"}, {"y", "rm", "rv"});
  attr(bn, "training_mode", int64_t{1});
  attr(bn, "momentum", 0.8f);
  attr(bn, "epsilon", 1e-3f);
  mb.output("y", dims({n, ch, hw}));
  mb.output("rm", dims({ch}));
  mb.output("rv", dims({ch}));
  const graph::Outputs out = run(mb, {{"x", x}, {"scale", scale}, {"bias", bias}, {"mean", mean}, {"var", var}});
  const std::vector<float> xv = x.to_vector<float>(), sv = scale.to_vector<float>(), bv = bias.to_vector<float>(),
                           mv = mean.to_vector<float>(), vv = var.to_vector<float>();
  std::vector<double> y(xv.size()), rm, rv;
  for (int64_t c = 0; c < ch; ++c) {
    double s = 0, sq = 0;
    for (int64_t b = 0; b < n; ++b)
      for (int64_t i = 0; i < hw; ++i) s += xv[size_t((b * ch + c) * hw + i)];
    const double m = s / double(n * hw);
    for (int64_t b = 0; b < n; ++b)
      for (int64_t i = 0; i < hw; ++i) sq += std::pow(xv[size_t((b * ch + c) * hw + i)] - m, 2);
    const double v = sq / double(n * hw);
    for (int64_t b = 0; b < n; ++b)
      for (int64_t i = 0; i < hw; ++i) {
        const size_t k = size_t((b * ch + c) * hw + i);
        y[k] = (xv[k] - m) / std::sqrt(v + 1e-3) * sv[size_t(c)] + bv[size_t(c)];
      }
    rm.push_back(mv[size_t(c)] * 0.8 + m * 0.2);
    rv.push_back(vv[size_t(c)] * 0.8 + v * 0.2);
  }
  check_close(out.at(0), y, 1e-4, 1e-5);
  check_close(out.at(1), rm, 1e-4, 1e-6);
  check_close(out.at(2), rv, 1e-4, 1e-6);
}

TEST_CASE("converters: If converts the branch its known condition takes", "[onnx][converters]") {
  const NDArray x = NDArray::random({2, 3}, Float(32), 10);
  auto model = [](bool cond, bool computed) {
    ModelBuilder mb(13);
    mb.input("x", dims({2, 3}));
    if (computed)
      mb.input("cond", {}, ::onnx::TensorProto::BOOL);
    else
      mb.initializer("cond", bool_scalar(cond));
    ::onnx::NodeProto &n = mb.node("If", {"cond"}, {"y"});
    graph_attr(n, "then_branch", {}, {"t"}, [](ModelBuilder &g) { g.node("Add", {"x", "x"}, {"t"}); });
    graph_attr(n, "else_branch", {}, {"e"}, [](ModelBuilder &g) { g.node("Mul", {"x", "x"}, {"e"}); });
    mb.output("y", dims({2, 3}));
    return mb;
  };
  const std::vector<float> xv = x.to_vector<float>();
  std::vector<float> twice, square;
  for (float v : xv) {
    twice.push_back(v + v);
    square.push_back(v * v);
  }
  check_close(run(model(true, false), {{"x", x}}).at(0), twice);
  check_close(run(model(false, false), {{"x", x}}).at(0), square);
  REQUIRE_THROWS_AS(tensorir::onnx::import_bytes(model(true, true).bytes()), tensorir::onnx::UnsupportedError);
}

TEST_CASE("converters: Loop unrolled at import, with a scan output and an early exit", "[onnx][converters]") {
  const NDArray x = NDArray::random({4}, Float(32), 11);
  auto model = [](int64_t trips, int64_t stop) { return add_loop(trips, stop, true, false); };
  const std::vector<float> xv = x.to_vector<float>();
  for (auto [trips, stop, iterations] : {std::tuple{3, 10, 3}, std::tuple{5, 1, 2}}) {
    INFO("trip count " << trips << ", stop after iteration " << stop);
    const graph::Outputs out = run(model(trips, stop), {{"x", x}});
    std::vector<float> last, scan;
    for (int it = 1; it <= iterations; ++it) {
      last.clear();
      for (float v : xv) last.push_back(v * float(it + 1));
      scan.insert(scan.end(), last.begin(), last.end());
    }
    check_close(out.at(0), last);
    CHECK(out.at(1).shape() == std::vector<int64_t>{iterations, 4});
    check_close(out.at(1), scan);
  }
  REQUIRE_THROWS_AS(tensorir::onnx::import_bytes(model(0, 1).bytes()),
                    tensorir::onnx::UnsupportedError);  // an empty scan output
}

TEST_CASE("converters: a Loop's condition computed from constants through Mod is computed at import",
          "[onnx][converters][fold]") {
  // The body goes on while i % 100 < stop: Mod has no host folding, so each iteration's
  // condition is computed by compiling it; more iterations than the import computes are refused.
  const NDArray x = NDArray::random({4}, Float(32), 13);
  auto model = [](int64_t trips, int64_t stop) { return add_loop(trips, stop, false, true); };
  std::vector<float> want;
  for (float v : x.to_vector<float>()) want.push_back(v * 3);  // iterations 0 and 1 ran
  check_close(run(model(5, 1), {{"x", x}}).at(0), want);
  REQUIRE_THROWS_WITH(tensorir::onnx::import_bytes(model(90, 100).bytes()),
                      Contains("the body's condition is computed from constants, but computing it at import failed") &&
                          Contains("more than 64 values computed at import"));
}

TEST_CASE("converters: DFT forward, one-sided, padded and inverse against the sums", "[onnx][converters]") {
  struct Case {
    std::vector<int64_t> shape;
    int64_t axis, length;  // length 0: no dft_length input
    bool onesided, inverse;
  };
  for (const Case &t : {Case{{2, 5, 2}, 1, 0, false, false}, Case{{2, 6, 1}, 1, 8, true, false},
                        Case{{1, 3, 4, 2}, 2, 3, false, true}, Case{{2, 3, 4, 1}, -2, 0, false, false}}) {
    INFO("shape " << shape_str(t.shape) << " axis " << t.axis << " length " << t.length);
    const NDArray x = NDArray::random(t.shape, Float(32), 12);
    const int rank = int(t.shape.size()), axis = int(t.axis < 0 ? t.axis + rank : t.axis);
    const int64_t n = t.shape[size_t(axis)], parts = t.shape.back(), len = t.length ? t.length : n;
    const int64_t bins = t.onesided ? len / 2 + 1 : len;
    ModelBuilder mb(17);
    mb.input("x", dims(t.shape));
    std::vector<std::string> in = {"x"};
    if (t.length) {
      mb.initializer("len", int64_scalar(t.length));
      in.push_back("len");
    }
    ::onnx::NodeProto &node = mb.node("DFT", in, {"y"});
    attr(node, "axis", t.axis);
    attr(node, "onesided", int64_t{t.onesided});
    attr(node, "inverse", int64_t{t.inverse});
    std::vector<int64_t> out_shape = t.shape;
    out_shape[size_t(axis)] = bins;
    out_shape.back() = 2;
    mb.output("y", dims(out_shape));
    const NDArray y = run(mb, {{"x", x}}).at(0);
    REQUIRE(y.shape() == out_shape);
    // Outer dimensions before the axis, inner ones between it and the last.
    int64_t outer = 1, inner = 1;
    for (int i = 0; i < axis; ++i) outer *= t.shape[size_t(i)];
    for (int i = axis + 1; i < rank - 1; ++i) inner *= t.shape[size_t(i)];
    const std::vector<float> xv = x.to_vector<float>();
    std::vector<double> want;
    for (int64_t o = 0; o < outer; ++o)
      for (int64_t k = 0; k < bins; ++k)
        for (int64_t m = 0; m < inner; ++m) {
          double re = 0, im = 0;
          for (int64_t s = 0; s < std::min(n, len); ++s) {
            const size_t at = size_t(((o * n + s) * inner + m) * parts);
            const double a = xv[at], b = parts == 2 ? xv[at + 1] : 0.0;
            const double theta = (t.inverse ? 2 : -2) * M_PI * double(k * s) / double(len);
            re += a * std::cos(theta) - b * std::sin(theta);
            im += a * std::sin(theta) + b * std::cos(theta);
          }
          const double scale = t.inverse ? 1.0 / double(len) : 1.0;
          want.push_back(re * scale);
          want.push_back(im * scale);
        }
    check_close(y, want, 1e-4, 1e-5);
  }
}

TEST_CASE("converters: TfIdfVectorizer counts skip-grams of integer tokens, weighted by mode", "[onnx][converters]") {
  const int64_t rows = 2, len = 9;
  std::vector<int64_t> tokens;
  uint32_t seed = 7;
  for (int64_t i = 0; i < rows * len; ++i) tokens.push_back((seed = seed * 1103515245u + 12345u) >> 16 & 3);
  // Unigrams 2, 3; bigrams (0 1), (1 1), (3 0); the trigram (1 2 0). Output positions shuffled.
  const std::vector<int64_t> pool = {2, 3, 0, 1, 1, 1, 3, 0, 1, 2, 0}, counts = {0, 2, 8}, indexes = {5, 0, 2, 4, 1, 3};
  const std::vector<std::vector<int64_t>> grams = {{2}, {3}, {0, 1}, {1, 1}, {3, 0}, {1, 2, 0}};
  const std::vector<float> weights = {0.5f, 2, 1.5f, 3, 0.25f, 4};
  for (const std::string mode : {"TF", "IDF", "TFIDF"}) {
    INFO("mode " << mode);
    ModelBuilder mb(9);
    mb.input("x", dims({rows, len}), ::onnx::TensorProto::INT64);
    ::onnx::NodeProto &n = mb.node("TfIdfVectorizer", {"x"}, {"y"});
    attr(n, "min_gram_length", int64_t{1});
    attr(n, "max_gram_length", int64_t{3});
    attr(n, "max_skip_count", int64_t{2});
    attr(n, "mode", mode);
    attr(n, "ngram_counts", counts);
    attr(n, "ngram_indexes", indexes);
    attr(n, "pool_int64s", pool);
    auto *w = n.add_attribute();
    w->set_name("weights");
    w->set_type(::onnx::AttributeProto::FLOATS);
    for (float v : weights) w->add_floats(v);
    mb.output("y", dims({rows, 6}));
    const NDArray y = run(mb, {{"x", NDArray::from_vector(tokens, {rows, len})}}).at(0);
    std::vector<double> want(size_t(rows * 6), 0.0);
    for (int64_t r = 0; r < rows; ++r)
      for (size_t g = 0; g < grams.size(); ++g) {
        const int64_t size = int64_t(grams[g].size());
        double count = 0;
        for (int64_t skip = 0; skip <= (size == 1 ? 0 : 2); ++skip)
          for (int64_t at = 0; at + (size - 1) * (skip + 1) < len; ++at) {
            bool match = true;
            for (int64_t t = 0; t < size; ++t)
              match = match && tokens[size_t(r * len + at + t * (skip + 1))] == grams[g][size_t(t)];
            count += match;
          }
        const double v = mode == "TF" ? count : mode == "IDF" ? (count > 0) * weights[g] : count * weights[g];
        want[size_t(r * 6 + indexes[g])] = v;
      }
    check_close(y, want);
  }
  ModelBuilder strings(9);
  strings.input("x", dims({3}), ::onnx::TensorProto::INT64);
  ::onnx::NodeProto &n = strings.node("TfIdfVectorizer", {"x"}, {"y"});
  attr(n, "mode", std::string("TF"));
  attr(n, "pool_strings", std::string("a"));
  strings.output("y", dims({1}));
  REQUIRE_THROWS_WITH(tensorir::onnx::import_bytes(strings.bytes()), Contains("pool_strings"));
}

TEST_CASE("converters: STFT of real and complex signals, with a known or computed window", "[onnx][converters]") {
  struct Case {
    int64_t parts;
    bool onesided, window, window_known;
  };
  const int64_t batch = 2, length = 17, step = 3, frame = 6, frames = (length - frame) / step + 1;
  for (const Case &t : {Case{1, true, true, true}, Case{1, true, true, false}, Case{2, false, false, false}}) {
    INFO("parts " << t.parts << (t.window ? t.window_known ? " known window" : " computed window" : " no window"));
    const NDArray x = NDArray::random({batch, length, t.parts}, Float(32), 13),
                  window = NDArray::random({frame}, Float(32), 14, 0, 1);
    const int64_t bins = t.onesided ? frame / 2 + 1 : frame;
    ModelBuilder mb(17);
    mb.input("x", dims({batch, length, t.parts}));
    mb.initializer("step", int64_scalar(step));
    mb.initializer("frame", int64_scalar(frame));
    std::map<std::string, NDArray> feed = {{"x", x}};
    if (t.window && t.window_known) mb.initializer("window", window);
    if (t.window && !t.window_known) {
      mb.input("window", dims({frame}));
      feed["window"] = window;
    }
    attr(mb.node("STFT", {"x", "step", t.window ? "window" : "", "frame"}, {"y"}), "onesided", int64_t{t.onesided});
    mb.output("y", dims({batch, frames, bins, 2}));
    const NDArray y = run(mb, feed).at(0);
    REQUIRE(y.shape() == std::vector<int64_t>{batch, frames, bins, 2});
    const std::vector<float> xv = x.to_vector<float>(), wv = window.to_vector<float>();
    std::vector<double> want;
    for (int64_t b = 0; b < batch; ++b)
      for (int64_t f = 0; f < frames; ++f)
        for (int64_t k = 0; k < bins; ++k) {
          double re = 0, im = 0;
          for (int64_t s = 0; s < frame; ++s) {
            const size_t at = size_t((b * length + f * step + s) * t.parts);
            const double scale = t.window ? wv[size_t(s)] : 1.0;
            const double a = xv[at] * scale, bi = t.parts == 2 ? xv[at + 1] * scale : 0.0;
            const double theta = -2 * M_PI * double(k * s) / double(frame);
            re += a * std::cos(theta) - bi * std::sin(theta);
            im += a * std::sin(theta) + bi * std::cos(theta);
          }
          want.push_back(re);
          want.push_back(im);
        }
    check_close(y, want, 1e-4, 1e-5);
  }
}

TEST_CASE("converters: MelWeightMatrix at import: triangles between points on the mel scale", "[onnx][converters]") {
  auto model = [](double low, double high) {
    ModelBuilder mb(17);
    mb.initializer("mels", int64_scalar(5));
    mb.initializer("length", int64_scalar(32));
    mb.initializer("rate", int64_scalar(16000));
    mb.initializer("low", NDArray::from_vector(std::vector<float>{float(low)}, {}));
    mb.initializer("high", NDArray::from_vector(std::vector<float>{float(high)}, {}));
    mb.node("MelWeightMatrix", {"mels", "length", "rate", "low", "high"}, {"w"});
    mb.output("w", dims({17, 5}));
    return mb;
  };
  const NDArray w = run(model(100, 6000), {}).at(0);
  REQUIRE(w.shape() == std::vector<int64_t>{17, 5});
  // Points spaced (mel(high) - mel(low)) / (5 + 2) apart, as bins of 33 / 16000 Hz.
  auto mel = [](double f) { return 2595 * std::log10(1 + f / 700); };
  std::vector<int64_t> p;
  for (int i = 0; i < 7; ++i) {
    const double m = mel(100) + i * (mel(6000) - mel(100)) / 7;
    p.push_back(int64_t(33 * 700 * (std::pow(10, m / 2595) - 1) / 16000));
  }
  std::vector<double> want(17 * 5, 0.0);
  for (int m = 0; m < 5; ++m)
    for (int64_t b = 0; b < 17; ++b) {
      double &v = want[size_t(b * 5 + m)];
      if (b == p[size_t(m + 1)])
        v = 1;
      else if (b >= p[size_t(m)] && b < p[size_t(m + 1)])
        v = double(b - p[size_t(m)]) / double(p[size_t(m + 1)] - p[size_t(m)]);
      else if (b > p[size_t(m + 1)] && b < p[size_t(m + 2)])
        v = double(p[size_t(m + 2)] - b) / double(p[size_t(m + 2)] - p[size_t(m + 1)]);
    }
  check_close(w, want);
  REQUIRE_THROWS_WITH(tensorir::onnx::import_bytes(model(6000, 100).bytes()), Contains("do not fit"));
}

TEST_CASE("converters: Scan unrolled at import: running sums, backwards, and batched at opset 8",
          "[onnx][converters]") {
  const int64_t steps = 4, width = 3;
  const NDArray x = NDArray::random({2, steps, width}, Float(32), 15), s0 = NDArray::random({2, width}, Float(32), 16);
  const std::vector<float> xv = x.to_vector<float>(), sv = s0.to_vector<float>();
  auto body = [](::onnx::NodeProto &n) {
    graph_attr(n, "body", {{"s", 1}, {"xt", 1}}, {"s_out", "y"}, [](ModelBuilder &g) {
      g.node("Add", {"s", "xt"}, {"s_out"});
      g.node("Identity", {"s_out"}, {"y"});
    });
    attr(n, "num_scan_inputs", int64_t{1});
  };
  // The running sums of batch b from s0[b], the steps taken backwards or not.
  auto sums = [&](int64_t b, bool backwards) {
    std::vector<float> out, s(sv.begin() + b * width, sv.begin() + (b + 1) * width);
    for (int64_t t = 0; t < steps; ++t) {
      const int64_t at = backwards ? steps - 1 - t : t;
      for (int64_t k = 0; k < width; ++k) s[size_t(k)] += xv[size_t((b * steps + at) * width + k)];
      out.insert(out.end(), s.begin(), s.end());
    }
    return out;
  };
  for (bool backwards : {false, true}) {
    INFO((backwards ? "backwards" : "forwards"));
    ModelBuilder mb(11);
    mb.input("s0", dims({width}));
    mb.input("x", dims({steps, width}));
    ::onnx::NodeProto &n = mb.node("Scan", {"s0", "x"}, {"s", "ys"});
    body(n);
    attr(n, "scan_input_directions", std::vector<int64_t>{backwards});
    mb.output("s", dims({width}));
    mb.output("ys", dims({steps, width}));
    const graph::Outputs out = run(
        mb, {{"s0", NDArray::from_vector(std::vector<float>(sv.begin(), sv.begin() + width), {width})},
             {"x", NDArray::from_vector(std::vector<float>(xv.begin(), xv.begin() + steps * width), {steps, width})}});
    const std::vector<float> want = sums(0, backwards);
    check_close(out.at(0), std::vector<float>(want.end() - width, want.end()));
    check_close(out.at(1), want);
  }
  ModelBuilder batched(8);
  batched.input("s0", dims({2, width}));
  batched.input("x", dims({2, steps, width}));
  body(batched.node("Scan", {"", "s0", "x"}, {"s", "ys"}));
  batched.output("s", dims({2, width}));
  batched.output("ys", dims({2, steps, width}));
  const graph::Outputs out = run(batched, {{"s0", s0}, {"x", x}});
  std::vector<float> last, all;
  for (int64_t b = 0; b < 2; ++b) {
    const std::vector<float> s = sums(b, false);
    last.insert(last.end(), s.end() - width, s.end());
    all.insert(all.end(), s.begin(), s.end());
  }
  check_close(out.at(0), last);
  check_close(out.at(1), all);
}

TEST_CASE("converters: RoiAlign with known regions against bilinear samples", "[onnx][converters]") {
  const int64_t n = 2, ch = 3, h = 6, w = 7, ph = 2, pw = 3;
  const NDArray x = NDArray::random({n, ch, h, w}, Float(32), 17);
  const std::vector<float> xv = x.to_vector<float>();
  const std::vector<float> rois = {0.5f, 1.0f, 5.0f, 4.5f, 2.0f, 0.0f, 6.5f, 5.5f, -1.0f, 3.0f, 3.0f, 8.0f};
  const std::vector<int64_t> batch = {1, 0, 1};
  // The value of plane (b, c) at (y, x), interpolated; zero well outside.
  auto sample = [&](int64_t b, int64_t c, double y, double xx) {
    if (y < -1 || y > double(h) || xx < -1 || xx > double(w)) return 0.0;
    y = std::max(y, 0.0);
    xx = std::max(xx, 0.0);
    auto at = [&](int64_t i, int64_t j) {
      return double(xv[size_t(((b * ch + c) * h + std::min(i, h - 1)) * w + std::min(j, w - 1))]);
    };
    const int64_t i = std::min(int64_t(y), h - 1), j = std::min(int64_t(xx), w - 1);
    const double ly = std::min(y, double(h - 1)) - double(i), lx = std::min(xx, double(w - 1)) - double(j);
    return at(i, j) * (1 - ly) * (1 - lx) + at(i, j + 1) * (1 - ly) * lx + at(i + 1, j) * ly * (1 - lx) +
           at(i + 1, j + 1) * ly * lx;
  };
  for (const std::string mode : {"half_pixel", "output_half_pixel"})
    for (int64_t ratio : {0, 2}) {
      INFO(mode << ", sampling_ratio " << ratio);
      ModelBuilder mb(16);
      mb.input("x", dims({n, ch, h, w}));
      mb.initializer("rois", NDArray::from_vector(rois, {3, 4}));
      mb.initializer("batch", NDArray::from_vector(batch, {3}));
      ::onnx::NodeProto &node = mb.node("RoiAlign", {"x", "rois", "batch"}, {"y"});
      attr(node, "output_height", ph);
      attr(node, "output_width", pw);
      attr(node, "sampling_ratio", ratio);
      attr(node, "spatial_scale", 0.5f);
      attr(node, "coordinate_transformation_mode", mode);
      mb.output("y", dims({3, ch, ph, pw}));
      const NDArray y = run(mb, {{"x", x}}).at(0);
      std::vector<double> want;
      const double off = mode == "half_pixel" ? 0.5 : 0.0;
      for (int64_t r = 0; r < 3; ++r)
        for (int64_t c = 0; c < ch; ++c)
          for (int64_t i = 0; i < ph; ++i)
            for (int64_t j = 0; j < pw; ++j) {
              const double x0 = rois[size_t(r * 4)] * 0.5 - off, y0 = rois[size_t(r * 4 + 1)] * 0.5 - off;
              double rw = rois[size_t(r * 4 + 2)] * 0.5 - off - x0, rh = rois[size_t(r * 4 + 3)] * 0.5 - off - y0;
              if (off == 0) rw = std::max(rw, 1.0), rh = std::max(rh, 1.0);
              const int64_t gh = ratio ? ratio : int64_t(std::ceil(rh / ph)),
                            gw = ratio ? ratio : int64_t(std::ceil(rw / pw));
              double sum = 0;
              for (int64_t iy = 0; iy < gh; ++iy)
                for (int64_t ix = 0; ix < gw; ++ix)
                  sum += sample(batch[size_t(r)], c, y0 + (i + (iy + 0.5) / double(gh)) * rh / ph,
                                x0 + (j + (ix + 0.5) / double(gw)) * rw / pw);
              want.push_back(sum / double(std::max<int64_t>(gh * gw, 1)));
            }
      check_close(y, want, 1e-4, 1e-5);
    }
  ModelBuilder max(16);
  max.input("x", dims({n, ch, h, w}));
  max.initializer("rois", NDArray::from_vector(rois, {3, 4}));
  max.initializer("batch", NDArray::from_vector(batch, {3}));
  attr(max.node("RoiAlign", {"x", "rois", "batch"}, {"y"}), "mode", std::string("max"));
  max.output("y", dims({3, ch, 1, 1}));
  REQUIRE_THROWS_AS(tensorir::onnx::import_bytes(max.bytes()), tensorir::onnx::UnsupportedError);
}

TEST_CASE("converters: Compress with a known condition", "[onnx][converters]") {
  const NDArray x = NDArray::random({3, 4}, Float(32), 18);
  const std::vector<float> xv = x.to_vector<float>();
  struct Case {
    std::vector<uint8_t> cond;
    bool has_axis;
    int64_t axis;
  };
  for (const Case &t : {Case{{1, 0, 1}, true, 0}, Case{{0, 1, 1}, true, -1}, Case{{0, 1, 0, 0, 1}, false, 0}}) {
    INFO("axis " << (t.has_axis ? std::to_string(t.axis) : "none"));
    ModelBuilder mb(11);
    mb.input("x", dims({3, 4}));
    NDArray cond = NDArray::empty({int64_t(t.cond.size())}, Bool());
    std::copy(t.cond.begin(), t.cond.end(), static_cast<uint8_t *>(cond.data()));
    mb.initializer("cond", cond);
    ::onnx::NodeProto &n = mb.node("Compress", {"x", "cond"}, {"y"});
    if (t.has_axis) attr(n, "axis", t.axis);
    mb.output("y", {});
    std::vector<float> want;
    if (!t.has_axis) {
      for (size_t i = 0; i < t.cond.size(); ++i)
        if (t.cond[i]) want.push_back(xv[i]);
    } else {
      const int axis = int(t.axis < 0 ? t.axis + 2 : t.axis);
      for (int64_t i = 0; i < 3; ++i)
        for (int64_t j = 0; j < 4; ++j) {
          const size_t along = size_t(axis == 0 ? i : j);
          if (along < t.cond.size() && t.cond[along]) want.push_back(xv[size_t(i * 4 + j)]);
        }
    }
    check_close(run(mb, {{"x", x}}).at(0), want);
  }
  ModelBuilder computed(11);
  computed.input("x", dims({3, 4}));
  computed.input("cond", dims({3}), ::onnx::TensorProto::BOOL);
  attr(computed.node("Compress", {"x", "cond"}, {"y"}), "axis", int64_t{0});
  computed.output("y", {});
  REQUIRE_THROWS_AS(tensorir::onnx::import_bytes(computed.bytes()), tensorir::onnx::UnsupportedError);
}

TEST_CASE("converters: NonMaxSuppression of boxes known at import", "[onnx][converters]") {
  const int64_t batches = 2, classes = 2, n = 8;
  const NDArray corners = NDArray::random({batches, n, 4}, Float(32), 19, 0, 1);
  const NDArray scores = NDArray::random({batches, classes, n}, Float(32), 20, 0, 1);
  const std::vector<float> bv = corners.to_vector<float>(), sv = scores.to_vector<float>();
  // Picks the best remaining box, drops those overlapping it by more than 0.3, repeats.
  auto iou = [&](int64_t b, int64_t i, int64_t j) {
    auto at = [&](int64_t k, int v) { return double(bv[size_t((b * n + k) * 4 + v)]); };
    auto lo = [&](int64_t k, int v) { return std::min(at(k, v), at(k, v + 2)); };
    auto hi = [&](int64_t k, int v) { return std::max(at(k, v), at(k, v + 2)); };
    auto area = [&](int64_t k) { return (hi(k, 0) - lo(k, 0)) * (hi(k, 1) - lo(k, 1)); };
    const double h = std::min(hi(i, 0), hi(j, 0)) - std::max(lo(i, 0), lo(j, 0)),
                 w = std::min(hi(i, 1), hi(j, 1)) - std::max(lo(i, 1), lo(j, 1));
    return h <= 0 || w <= 0 ? 0.0 : h * w / (area(i) + area(j) - h * w);
  };
  std::vector<int64_t> want;
  for (int64_t b = 0; b < batches; ++b)
    for (int64_t c = 0; c < classes; ++c) {
      std::vector<bool> gone(size_t(n), false);
      for (int picked = 0; picked < 3; ++picked) {
        int64_t best = -1;
        for (int64_t i = 0; i < n; ++i) {
          const float s = sv[size_t((b * classes + c) * n + i)];
          if (!gone[size_t(i)] && s > 0.2f && (best < 0 || s > sv[size_t((b * classes + c) * n + best)])) best = i;
        }
        if (best < 0) break;
        want.insert(want.end(), {b, c, best});
        for (int64_t i = 0; i < n; ++i) gone[size_t(i)] = gone[size_t(i)] || i == best || iou(b, best, i) > 0.3;
      }
    }
  REQUIRE(want.size() > 6);  // more than two boxes selected
  ModelBuilder mb(11);
  mb.initializer("boxes", corners);
  mb.initializer("scores", scores);
  mb.initializer("max", int64_scalar(3));
  mb.initializer("iou", NDArray::from_vector(std::vector<float>{0.3f}, {1}));
  mb.initializer("min_score", NDArray::from_vector(std::vector<float>{0.2f}, {1}));
  mb.node("NonMaxSuppression", {"boxes", "scores", "max", "iou", "min_score"}, {"selected"});
  mb.output("selected", {}, ::onnx::TensorProto::INT64);
  const NDArray got = run(mb, {}).at(0);
  CHECK(got.shape() == std::vector<int64_t>{int64_t(want.size() / 3), 3});
  CHECK(got.to_vector<int64_t>() == want);

  // A NaN score ranks below every number: the best box is picked first.
  ModelBuilder with_nan(11);
  with_nan.initializer("boxes", NDArray::from_vector<float>({0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5}, {1, 3, 4}));
  with_nan.initializer("scores", NDArray::from_vector<float>({std::nanf(""), 0.5f, 0.9f}, {1, 1, 3}));
  with_nan.initializer("max", int64_scalar(2));
  with_nan.node("NonMaxSuppression", {"boxes", "scores", "max"}, {"selected"});
  with_nan.output("selected", {}, ::onnx::TensorProto::INT64);
  CHECK(run(with_nan, {}).at(0).to_vector<int64_t>() == std::vector<int64_t>{0, 0, 2, 0, 0, 1});

  ModelBuilder computed(11);
  computed.input("boxes", dims({1, 2, 4}));
  computed.input("scores", dims({1, 1, 2}));
  computed.node("NonMaxSuppression", {"boxes", "scores"}, {"selected"});
  computed.output("selected", {}, ::onnx::TensorProto::INT64);
  REQUIRE_THROWS_AS(tensorir::onnx::import_bytes(computed.bytes()), tensorir::onnx::UnsupportedError);
}

TEST_CASE("converters: Unique of a tensor known at import, flat and along an axis", "[onnx][converters]") {
  // Rows of two small integers: some repeat.
  std::vector<float> xv;
  uint32_t seed = 3;
  for (int i = 0; i < 12; ++i) xv.push_back(float((seed = seed * 1103515245u + 12345u) >> 16 & 1));
  const NDArray x = NDArray::from_vector(xv, {6, 2});
  for (const bool sorted : {true, false})
    for (const bool by_rows : {false, true}) {
      INFO((sorted ? "sorted" : "not sorted") << (by_rows ? ", rows" : ", flat"));
      const size_t width = by_rows ? 2 : 1, count = xv.size() / width;
      auto item = [&](size_t k) {
        return std::vector<float>(xv.begin() + long(k * width), xv.begin() + long((k + 1) * width));
      };
      // Distinct items in order of first appearance, sorted if asked; then where each goes.
      std::vector<size_t> firsts;
      for (size_t k = 0; k < count; ++k) {
        bool seen = false;
        for (size_t f : firsts) seen = seen || item(f) == item(k);
        if (!seen) firsts.push_back(k);
      }
      if (sorted) std::sort(firsts.begin(), firsts.end(), [&](size_t a, size_t b) { return item(a) < item(b); });
      std::vector<float> y;
      std::vector<int64_t> indices, inverse, counts(firsts.size(), 0);
      for (size_t f : firsts) {
        const std::vector<float> it = item(f);
        y.insert(y.end(), it.begin(), it.end());
        indices.push_back(int64_t(f));
      }
      for (size_t k = 0; k < count; ++k)
        for (size_t j = 0; j < firsts.size(); ++j)
          if (item(firsts[j]) == item(k)) {
            inverse.push_back(int64_t(j));
            ++counts[j];
          }
      ModelBuilder mb(11);
      mb.initializer("x", x);
      ::onnx::NodeProto &n = mb.node("Unique", {"x"}, {"y", "indices", "inverse", "counts"});
      attr(n, "sorted", int64_t{sorted});
      if (by_rows) attr(n, "axis", int64_t{-2});
      mb.output("y", {});
      for (const char *name : {"indices", "inverse", "counts"}) mb.output(name, {}, ::onnx::TensorProto::INT64);
      const graph::Outputs out = run(mb, {});
      check_close(out.at(0), y);
      CHECK(out.at(1).to_vector<int64_t>() == indices);
      CHECK(out.at(2).to_vector<int64_t>() == inverse);
      CHECK(out.at(3).to_vector<int64_t>() == counts);
    }
  ModelBuilder computed(11);
  computed.input("x", dims({4}));
  computed.node("Unique", {"x"}, {"y"});
  computed.output("y", {});
  REQUIRE_THROWS_AS(tensorir::onnx::import_bytes(computed.bytes()), tensorir::onnx::UnsupportedError);
}
