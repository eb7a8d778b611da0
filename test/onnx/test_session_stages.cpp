// onnx::Session running a model in stages around nodes that need values it computes
// (NonMaxSuppression of computed boxes, NonZero of a computed mask): against plain loops
// (a greedy NMS, a scan for non-zero elements) on random data, the compile cache of the
// stage after, and the errors.
#include <tensorir/frontend/onnx.h>

#include <algorithm>
#include <cmath>
#include <numeric>

#include "onnx/onnx_test_util.h"

using namespace tensorir;
using namespace tensorir::onnx_test;
using Catch::Matchers::Contains;
namespace tonnx = tensorir::onnx;

namespace {

constexpr int64_t kBoxes = 30, kClasses = 2, kMaxPerClass = 4;
constexpr float kIou = 0.3f, kMinScore = 0.55f;

// boxes = Relu(x) [1, kBoxes, 4], scores = Sigmoid(s) [1, kClasses, kBoxes]; sel = NMS;
// picked = the selected boxes (Gather of sel's third column); total = ReduceSum(x), which
// does not depend on the NMS. `batch` names x's and s's first dimension when symbolic.
std::string nms_model(bool symbolic_batch = false) {
  ModelBuilder mb(13);
  const Dim batch = symbolic_batch ? Dim(std::string("batch")) : Dim(int64_t{1});
  mb.input("x", {batch, kBoxes, int64_t{4}});
  mb.input("s", {batch, kClasses, kBoxes});
  mb.initializer("max_out", NDArray::from_vector<int64_t>({kMaxPerClass}, {1}));
  mb.initializer("iou", NDArray::from_vector<float>({kIou}, {1}));
  mb.initializer("min_score", NDArray::from_vector<float>({kMinScore}, {1}));
  mb.initializer("two", NDArray::from_vector<int64_t>({2}, {}));
  mb.node("Relu", {"x"}, {"boxes"});
  mb.node("Sigmoid", {"s"}, {"scores"});
  mb.node("NonMaxSuppression", {"boxes", "scores", "max_out", "iou", "min_score"}, {"sel"}, "nms");
  attr(mb.node("Gather", {"sel", "two"}, {"box_index"}), "axis", int64_t{1});
  attr(mb.node("Gather", {"boxes", "box_index"}, {"picked"}), "axis", int64_t{1});
  attr(mb.node("ReduceSum", {"x"}, {"total"}), "keepdims", int64_t{0});
  mb.output("sel", {}, ::onnx::TensorProto::INT64);
  mb.output("picked");
  mb.output("total");
  return mb.bytes();
}

// Greedy NMS as ONNX defines it, corners [y1, x1, y2, x2]: per class, boxes by descending
// score above the threshold, each kept unless it overlaps a kept one by more than kIou.
std::vector<int64_t> reference_nms(const std::vector<float> &boxes, const std::vector<float> &scores) {
  auto iou = [&](int64_t a, int64_t b) {
    const float *p = &boxes[size_t(a * 4)], *q = &boxes[size_t(b * 4)];
    auto lo = [](float u, float v) { return std::min(u, v); };
    auto hi = [](float u, float v) { return std::max(u, v); };
    const double ay0 = lo(p[0], p[2]), ay1 = hi(p[0], p[2]), ax0 = lo(p[1], p[3]), ax1 = hi(p[1], p[3]);
    const double by0 = lo(q[0], q[2]), by1 = hi(q[0], q[2]), bx0 = lo(q[1], q[3]), bx1 = hi(q[1], q[3]);
    const double h = std::min(ay1, by1) - std::max(ay0, by0), w = std::min(ax1, bx1) - std::max(ax0, bx0);
    const double area_a = (ay1 - ay0) * (ax1 - ax0), area_b = (by1 - by0) * (bx1 - bx0);
    if (h <= 0 || w <= 0 || area_a <= 0 || area_b <= 0) return 0.0;
    return h * w / (area_a + area_b - h * w);
  };
  std::vector<int64_t> out;
  for (int64_t k = 0; k < kClasses; ++k) {
    std::vector<int64_t> order(kBoxes);
    std::iota(order.begin(), order.end(), 0);
    const float *s = &scores[size_t(k * kBoxes)];
    std::stable_sort(order.begin(), order.end(), [&](int64_t a, int64_t b) { return s[a] > s[b]; });
    std::vector<int64_t> kept;
    for (int64_t i : order) {
      if (int64_t(kept.size()) == kMaxPerClass || !(s[i] > kMinScore)) break;
      bool suppressed = false;
      for (int64_t j : kept) suppressed = suppressed || iou(i, j) > kIou;
      if (!suppressed) {
        kept.push_back(i);
        out.insert(out.end(), {0, k, i});
      }
    }
  }
  return out;
}

// The coordinates of the boxes that `sel` ([batch, class, box] triples) selects, in order.
std::vector<double> selected_boxes(const std::vector<float> &boxes, const std::vector<int64_t> &sel) {
  std::vector<double> out;
  for (size_t r = 0; r < sel.size() / 3; ++r)
    for (int c = 0; c < 4; ++c) out.push_back(boxes[size_t(sel[r * 3 + 2] * 4 + c)]);
  return out;
}

// One run of the NMS model on seeded data against the reference; returns how many boxes
// were selected.
int64_t check_nms_run(tonnx::Session &session, uint64_t seed) {
  const NDArray x = NDArray::random({1, kBoxes, 4}, Float(32), seed, -1.0, 10.0);
  const NDArray s = NDArray::random({1, kClasses, kBoxes}, Float(32), seed + 1, -3.0, 3.0);
  std::vector<float> boxes = x.to_vector<float>(), scores = s.to_vector<float>();
  for (float &v : boxes) v = std::max(v, 0.0f);
  for (float &v : scores) v = 1.0f / (1.0f + std::exp(-v));
  const std::vector<int64_t> want = reference_nms(boxes, scores);
  REQUIRE(!want.empty());
  const graph::Outputs out = session.run({{"x", x}, {"s", s}});
  const NDArray sel = out["sel"];
  const int64_t count = int64_t(want.size() / 3);
  REQUIRE(sel.shape() == std::vector<int64_t>{count, 3});
  CHECK(sel.to_vector<int64_t>() == want);
  REQUIRE(out["picked"].shape() == std::vector<int64_t>{1, count, 4});
  check_close(out["picked"], selected_boxes(boxes, want));
  const std::vector<float> xs = x.to_vector<float>();
  check_close(out["total"], std::vector<double>{std::accumulate(xs.begin(), xs.end(), 0.0)}, 1e-4, 1e-3);
  return count;
}

// A detector's last steps after its NMS: det = [the selected boxes x scale, class] (Gather,
// Mul, Cast, Unsqueeze, Concat), num = det's row count (Shape, Gather), proj = the
// selected boxes x w (MatMul), corners = the scaled boxes as [2 x count, 2] (Reshape of
// [-1, 2]), count_f = num as float (Cast, Relu), hot = the classes one-hot (OneHot),
// flat = the selected boxes through Unsqueeze and Flatten at axis 2. soft = Softmax(boxes
// + count_f), computed after the NMS and so by a graph node on an empty run too (the
// softmax of the boxes, which a shift does not change): first = its first `count` rows
// (Slice), top = its `count` largest per column (TopK values and indices), part = its
// first `count` rows again (Split into count and the rest), tiled = it repeated `count`
// times (Tile). largest = the selected boxes' largest coordinate (ReduceMax: -inf of
// none), sums = each box's coordinates summed (ReduceSum over axis 1), total = all of
// them summed (ReduceSum: 0 of none), framed = a row of sevens on either side of the
// boxes (Pad with a constant_value), gram = boxes^T x boxes (MatMul: zeros, sums of no
// products, of none), gram_c = 2 gram + 0.5 C (Gemm with beta and a bias C).
// `refused` adds an output: one that an empty selection cannot give, "ReduceMean" (the
// mean coordinate), "Pad" (the first and last box repeated: mode edge) or "Gather" (the
// first box), or "Einsum" (the column sums, ij->j: zeros of none).
constexpr float kScale[4] = {2.f, 3.f, 2.f, 3.f};
std::string detector_model(const NDArray &w, const std::string &refused = "") {
  ModelBuilder mb(13);
  mb.input("x", {int64_t{1}, kBoxes, int64_t{4}});
  mb.input("s", {int64_t{1}, kClasses, kBoxes});
  mb.initializer("max_out", NDArray::from_vector<int64_t>({kMaxPerClass}, {1}));
  mb.initializer("iou", NDArray::from_vector<float>({kIou}, {1}));
  mb.initializer("min_score", NDArray::from_vector<float>({kMinScore}, {1}));
  mb.initializer("zero", NDArray::from_vector<int64_t>({0}, {}));
  mb.initializer("one", NDArray::from_vector<int64_t>({1}, {}));
  mb.initializer("two", NDArray::from_vector<int64_t>({2}, {}));
  mb.initializer("axis0", NDArray::from_vector<int64_t>({0}, {1}));
  mb.initializer("axis1", NDArray::from_vector<int64_t>({1}, {1}));
  mb.initializer("scale", NDArray::from_vector<float>(std::vector<float>(kScale, kScale + 4), {4}));
  mb.initializer("w", w);
  mb.node("Relu", {"x"}, {"boxes"});
  mb.node("Sigmoid", {"s"}, {"scores"});
  mb.node("NonMaxSuppression", {"boxes", "scores", "max_out", "iou", "min_score"}, {"sel"}, "nms");
  attr(mb.node("Gather", {"sel", "one"}, {"cls"}), "axis", int64_t{1});
  attr(mb.node("Gather", {"sel", "two"}, {"idx"}), "axis", int64_t{1});
  mb.node("Squeeze", {"boxes", "axis0"}, {"boxes2"});
  attr(mb.node("Gather", {"boxes2", "idx"}, {"picked"}), "axis", int64_t{0});
  mb.node("Mul", {"picked", "scale"}, {"scaled"});
  attr(mb.node("Cast", {"cls"}, {"cls_f"}), "to", int64_t{::onnx::TensorProto::FLOAT});
  mb.node("Unsqueeze", {"cls_f", "axis1"}, {"cls_col"});
  attr(mb.node("Concat", {"scaled", "cls_col"}, {"det"}), "axis", int64_t{1});
  mb.node("Shape", {"det"}, {"det_shape"});
  attr(mb.node("Gather", {"det_shape", "zero"}, {"num"}), "axis", int64_t{0});
  mb.node("MatMul", {"picked", "w"}, {"proj"});
  mb.initializer("pairs", NDArray::from_vector<int64_t>({-1, 2}, {2}));
  mb.node("Reshape", {"scaled", "pairs"}, {"corners"});
  attr(mb.node("Cast", {"num"}, {"num_f"}), "to", int64_t{::onnx::TensorProto::FLOAT});
  mb.node("Relu", {"num_f"}, {"count_f"});
  mb.initializer("depth", NDArray::from_vector<int64_t>({kClasses}, {}));
  mb.initializer("off_on", NDArray::from_vector<float>({0.f, 1.f}, {2}));
  attr(mb.node("OneHot", {"cls", "depth", "off_on"}, {"hot"}), "axis", int64_t{-1});
  mb.node("Unsqueeze", {"picked", "axis0"}, {"picked3"});
  attr(mb.node("Flatten", {"picked3"}, {"flat"}), "axis", int64_t{2});
  mb.node("Add", {"boxes2", "count_f"}, {"shifted"});
  mb.node("Softmax", {"shifted"}, {"soft"});
  mb.node("Unsqueeze", {"num", "axis0"}, {"end"});
  mb.node("Slice", {"soft", "axis0", "end", "axis0"}, {"first"});
  attr(mb.node("TopK", {"soft", "end"}, {"top", "top_index"}), "axis", int64_t{0});
  mb.initializer("all", NDArray::from_vector<int64_t>({kBoxes}, {1}));
  mb.node("Sub", {"all", "end"}, {"rest"});
  attr(mb.node("Concat", {"end", "rest"}, {"parts"}), "axis", int64_t{0});
  attr(mb.node("Split", {"soft", "parts"}, {"part", "rest_part"}), "axis", int64_t{0});
  mb.initializer("once", NDArray::from_vector<int64_t>({1}, {1}));
  attr(mb.node("Concat", {"end", "once"}, {"reps"}), "axis", int64_t{0});
  mb.node("Tile", {"soft", "reps"}, {"tiled"});
  attr(mb.node("ReduceMax", {"picked"}, {"largest"}), "keepdims", int64_t{0});
  attr(mb.node("ReduceSum", {"picked", "axis1"}, {"sums"}), "keepdims", int64_t{0});
  attr(mb.node("ReduceSum", {"picked"}, {"total"}), "keepdims", int64_t{0});
  mb.output("det");
  mb.output("num", {}, ::onnx::TensorProto::INT64);
  mb.output("proj");
  mb.output("corners");
  mb.output("count_f");
  mb.output("hot");
  mb.output("flat");
  mb.output("first");
  mb.output("top");
  mb.output("top_index", {}, ::onnx::TensorProto::INT64);
  mb.output("part");
  mb.output("tiled");
  mb.output("largest");
  mb.output("sums");
  mb.output("total");
  mb.initializer("pads", NDArray::from_vector<int64_t>({1, 0, 1, 0}, {4}));
  mb.initializer("seven", NDArray::from_vector<float>({7.0f}, {}));
  mb.node("Pad", {"picked", "pads", "seven"}, {"framed"});
  mb.output("framed");
  if (refused == "ReduceMean") attr(mb.node("ReduceMean", {"picked"}, {"extra"}, "extra"), "keepdims", int64_t{0});
  if (refused == "Pad") attr(mb.node("Pad", {"picked", "pads"}, {"extra"}, "extra"), "mode", std::string("edge"));
  attr(mb.node("Transpose", {"picked"}, {"picked_t"}), "perm", std::vector<int64_t>{1, 0});
  mb.node("MatMul", {"picked_t", "picked"}, {"gram"});
  mb.output("gram");
  mb.initializer("bias", NDArray::from_vector<float>({1.f, 2.f, 3.f, 4.f}, {4}));
  ::onnx::NodeProto &gemm = mb.node("Gemm", {"picked_t", "picked", "bias"}, {"gram_c"});
  attr(gemm, "alpha", 2.0f);
  attr(gemm, "beta", 0.5f);
  mb.output("gram_c");
  if (refused == "Einsum") attr(mb.node("Einsum", {"picked"}, {"extra"}, "extra"), "equation", std::string("ij->j"));
  if (refused == "Gather") attr(mb.node("Gather", {"picked", "zero"}, {"extra"}, "extra"), "axis", int64_t{0});
  if (!refused.empty()) mb.output("extra");
  return mb.bytes();
}

// boxes^T x boxes for boxes [n, 4] as rows of `picked`: [4, 4], zeros for none.
std::vector<double> gram_of(const std::vector<double> &picked) {
  std::vector<double> gram(16, 0.0);
  for (size_t r = 0; r < picked.size() / 4; ++r)
    for (int i = 0; i < 4; ++i)
      for (int j = 0; j < 4; ++j) gram[size_t(i * 4 + j)] += picked[r * 4 + size_t(i)] * picked[r * 4 + size_t(j)];
  return gram;
}

// One run of detector_model against the reference NMS and plain loops; how many boxes it
// selected. `score_low` and `score_high` bound the scores before the sigmoid.
int64_t check_detector_run(tonnx::Session &session, const NDArray &w, uint64_t seed, double score_low,
                           double score_high) {
  const NDArray x = NDArray::random({1, kBoxes, 4}, Float(32), seed, -1.0, 10.0);
  const NDArray s = NDArray::random({1, kClasses, kBoxes}, Float(32), seed + 1, score_low, score_high);
  std::vector<float> boxes = x.to_vector<float>(), scores = s.to_vector<float>();
  for (float &v : boxes) v = std::max(v, 0.0f);
  for (float &v : scores) v = 1.0f / (1.0f + std::exp(-v));
  const std::vector<int64_t> sel = reference_nms(boxes, scores);
  const int64_t count = int64_t(sel.size() / 3);
  const std::vector<float> wv = w.to_vector<float>();
  std::vector<double> det, proj, corners, hot;
  // The softmax of each box, and per column the boxes by descending value.
  std::vector<double> soft;
  for (int64_t b = 0; b < kBoxes; ++b) {
    const float *row = &boxes[size_t(b * 4)];
    double total = 0;
    for (int c = 0; c < 4; ++c) total += std::exp(double(row[c]));
    for (int c = 0; c < 4; ++c) soft.push_back(std::exp(double(row[c])) / total);
  }
  std::vector<std::vector<int64_t>> order(4, std::vector<int64_t>(kBoxes));
  for (int c = 0; c < 4; ++c) {
    std::iota(order[c].begin(), order[c].end(), 0);
    std::stable_sort(order[c].begin(), order[c].end(),
                     [&](int64_t a, int64_t b) { return soft[size_t(a * 4 + c)] > soft[size_t(b * 4 + c)]; });
  }
  std::vector<double> first(soft.begin(), soft.begin() + count * 4), top, tiled;
  std::vector<int64_t> top_index;
  for (int64_t r = 0; r < count; ++r)
    for (int c = 0; c < 4; ++c) {
      top_index.push_back(order[c][size_t(r)]);
      top.push_back(soft[size_t(order[c][size_t(r)] * 4 + c)]);
    }
  for (int64_t t = 0; t < count; ++t) tiled.insert(tiled.end(), soft.begin(), soft.end());
  for (int64_t r = 0; r < count; ++r) {
    const float *box = &boxes[size_t(sel[size_t(r * 3 + 2)] * 4)];
    for (int c = 0; c < 4; ++c) det.push_back(double(box[c]) * kScale[c]);
    corners.insert(corners.end(), det.end() - 4, det.end());
    for (int64_t k = 0; k < kClasses; ++k) hot.push_back(sel[size_t(r * 3 + 1)] == k ? 1.0 : 0.0);
    det.push_back(double(sel[size_t(r * 3 + 1)]));
    for (int j = 0; j < 3; ++j) {
      double acc = 0;
      for (int c = 0; c < 4; ++c) acc += double(box[c]) * wv[size_t(c * 3 + j)];
      proj.push_back(acc);
    }
  }
  const graph::Outputs out = session.run({{"x", x}, {"s", s}});
  REQUIRE(out["det"].shape() == std::vector<int64_t>{count, 5});
  CHECK(out["det"].dtype() == Float(32));
  check_close(out["det"], det);
  REQUIRE(out["num"].shape().empty());
  CHECK(out["num"].to_vector<int64_t>() == std::vector<int64_t>{count});
  REQUIRE(out["proj"].shape() == std::vector<int64_t>{count, 3});
  CHECK(out["proj"].dtype() == Float(32));
  check_close(out["proj"], proj, 1e-4, 1e-5);
  REQUIRE(out["corners"].shape() == std::vector<int64_t>{2 * count, 2});
  check_close(out["corners"], corners);
  REQUIRE(out["count_f"].shape().empty());
  check_close(out["count_f"], std::vector<double>{double(count)});
  REQUIRE(out["hot"].shape() == std::vector<int64_t>{count, kClasses});
  CHECK(out["hot"].dtype() == Float(32));
  check_close(out["hot"], hot);
  REQUIRE(out["flat"].shape() == std::vector<int64_t>{count, 4});
  check_close(out["flat"], selected_boxes(boxes, sel));
  for (const char *name : {"first", "part"}) {
    INFO(name);
    REQUIRE(out[name].shape() == std::vector<int64_t>{count, 4});
    check_close(out[name], first);
  }
  REQUIRE(out["top"].shape() == std::vector<int64_t>{count, 4});
  check_close(out["top"], top);
  REQUIRE(out["top_index"].shape() == std::vector<int64_t>{count, 4});
  CHECK(out["top_index"].dtype() == Int(64));
  CHECK(out["top_index"].to_vector<int64_t>() == top_index);
  REQUIRE(out["tiled"].shape() == std::vector<int64_t>{kBoxes * count, 4});
  check_close(out["tiled"], tiled);
  const std::vector<double> picked = selected_boxes(boxes, sel);
  std::vector<double> sums;
  for (int64_t r = 0; r < count; ++r) sums.push_back(std::accumulate(&picked[size_t(r * 4)], &picked[size_t(r * 4 + 4)], 0.0));
  REQUIRE(out["largest"].shape().empty());
  if (count) check_close(out["largest"], std::vector<double>{*std::max_element(picked.begin(), picked.end())});
  else CHECK(out["largest"].to_vector<float>() == std::vector<float>{-INFINITY});  // ONNX's max of none
  REQUIRE(out["sums"].shape() == std::vector<int64_t>{count});
  check_close(out["sums"], sums);
  REQUIRE(out["total"].shape().empty());
  check_close(out["total"], std::vector<double>{std::accumulate(sums.begin(), sums.end(), 0.0)}, 1e-4, 1e-5);
  std::vector<double> framed(4, 7.0);
  framed.insert(framed.end(), picked.begin(), picked.end());
  framed.insert(framed.end(), 4, 7.0);
  REQUIRE(out["framed"].shape() == std::vector<int64_t>{count + 2, 4});
  check_close(out["framed"], framed);
  REQUIRE(out["gram"].shape() == std::vector<int64_t>{4, 4});
  check_close(out["gram"], gram_of(picked), 1e-4, 1e-4);
  std::vector<double> gram_c = gram_of(picked);
  for (size_t e = 0; e < gram_c.size(); ++e) gram_c[e] = 2 * gram_c[e] + 0.5 * double(e % 4 + 1);
  REQUIRE(out["gram_c"].shape() == std::vector<int64_t>{4, 4});
  check_close(out["gram_c"], gram_c, 1e-4, 1e-4);
  return count;
}

}  // namespace

TEST_CASE("a Session runs NonMaxSuppression of computed boxes between stages, and the nodes after it",
          "[onnx][session][stages]") {
  tonnx::Session session = tonnx::Session::from_bytes(nms_model(), "llvm");
  CHECK(session.staged());
  CHECK(session.shape_inputs().empty());
  std::set<int64_t> counts;
  for (uint64_t seed : {1, 2, 3, 4, 5, 6}) counts.insert(check_nms_run(session, seed * 10));
  // The stage before compiles once; the one after once per number of selected boxes.
  CHECK(session.compiles() == 1 + counts.size());
  CHECK_THROWS_WITH(session.prepare({{"x", NDArray::empty({1, kBoxes, 4}, Float(32))},
                                     {"s", NDArray::empty({1, kClasses, kBoxes}, Float(32))}}),
                    Contains("runs in stages around node 'nms' (NonMaxSuppression)") && Contains("Session::run"));
  // import() itself still refuses the node, naming the value it needs.
  try {
    tonnx::import_bytes(nms_model());
    FAIL("import accepted NonMaxSuppression of computed boxes");
  } catch (const tonnx::UnsupportedError &e) {
    REQUIRE(e.nodes().size() == 1);
    CHECK(e.nodes()[0].value == "boxes");
    CHECK_THAT(e.what(), Contains("Session"));
  }
}

TEST_CASE("a Session finds the stages once a symbolic batch is bound, at the first run",
          "[onnx][session][stages]") {
  tonnx::Session session = tonnx::Session::from_bytes(nms_model(true), "llvm");
  CHECK(!session.staged());  // the import stops at the symbolic input
  check_nms_run(session, 7);
  CHECK(session.staged());
  check_nms_run(session, 8);
}

TEST_CASE("a Session runs NonZero of a computed mask between stages, an all-zero one giving empty results",
          "[onnx][session][stages]") {
  // vals = y[y > 0] (NonZero, Transpose, GatherND), squared; the reductions of the int64
  // indices: the largest and smallest, their product and each row's sum.
  ModelBuilder mb(13);
  mb.input("y", {int64_t{4}, int64_t{7}});
  mb.initializer("zero", NDArray::from_vector<float>({0.0f}, {}));
  mb.node("Greater", {"y", "zero"}, {"mask"});
  mb.node("NonZero", {"mask"}, {"nz"}, "where");
  attr(mb.node("Transpose", {"nz"}, {"nzt"}), "perm", std::vector<int64_t>{1, 0});
  mb.node("GatherND", {"y", "nzt"}, {"vals"});
  mb.node("Mul", {"vals", "vals"}, {"sq"});
  mb.initializer("axis1", NDArray::from_vector<int64_t>({1}, {1}));
  for (const char *op : {"ReduceMax", "ReduceMin", "ReduceProd"}) {
    attr(mb.node(op, {"nz"}, {op}), "keepdims", int64_t{0});
    mb.output(op, {}, ::onnx::TensorProto::INT64);
  }
  attr(mb.node("ReduceSum", {"nz", "axis1"}, {"row_sums"}), "keepdims", int64_t{0});
  // The same indices as uint64 and int8: the extremes of those types for none.
  attr(mb.node("Cast", {"nz"}, {"nz_u64"}), "to", int64_t{::onnx::TensorProto::UINT64});
  attr(mb.node("ReduceMin", {"nz_u64"}, {"min_u64"}), "keepdims", int64_t{0});
  attr(mb.node("Cast", {"nz"}, {"nz_i8"}), "to", int64_t{::onnx::TensorProto::INT8});
  attr(mb.node("ReduceMax", {"nz_i8"}, {"max_i8"}), "keepdims", int64_t{1});
  mb.output("min_u64", {}, ::onnx::TensorProto::UINT64);
  mb.output("max_i8", {}, ::onnx::TensorProto::INT8);
  mb.output("nz", {}, ::onnx::TensorProto::INT64);
  mb.output("sq");
  mb.output("row_sums", {}, ::onnx::TensorProto::INT64);
  // The reductions of the indices, from loops: of none, ONNX's int64 values for no
  // elements (the lowest for max, the highest for min, 1, 0).
  auto check_reductions = [](const graph::Outputs &out, const std::vector<int64_t> &rows,
                             const std::vector<int64_t> &cols) {
    int64_t hi = INT64_MIN, lo = INT64_MAX, prod = 1;
    for (const std::vector<int64_t> *v : {&rows, &cols})
      for (int64_t i : *v) {
        hi = std::max(hi, i);
        lo = std::min(lo, i);
        prod *= i;
      }
    for (const auto &[name, want] : {std::pair{"ReduceMax", hi}, {"ReduceMin", lo}, {"ReduceProd", prod}}) {
      INFO(name);
      REQUIRE(out[name].shape().empty());
      CHECK(out[name].to_vector<int64_t>() == std::vector<int64_t>{want});
    }
    REQUIRE(out["min_u64"].shape().empty());
    CHECK(out["min_u64"].to_vector<uint64_t>() == std::vector<uint64_t>{rows.empty() ? UINT64_MAX : uint64_t(lo)});
    REQUIRE(out["max_i8"].shape() == std::vector<int64_t>{1, 1});  // keepdims
    CHECK(out["max_i8"].to_vector<int8_t>() == std::vector<int8_t>{rows.empty() ? int8_t(-128) : int8_t(hi)});
    REQUIRE(out["row_sums"].shape() == std::vector<int64_t>{2});
    CHECK(out["row_sums"].to_vector<int64_t>() == std::vector<int64_t>{std::accumulate(rows.begin(), rows.end(), int64_t{0}),
                                                                       std::accumulate(cols.begin(), cols.end(), int64_t{0})});
  };
  tonnx::Session session = tonnx::Session::from_bytes(mb.bytes(), "llvm");
  for (uint64_t seed : {3, 4, 5}) {
    const NDArray y = NDArray::random({4, 7}, Float(32), seed, -1.0, 1.0);
    const std::vector<float> v = y.to_vector<float>();
    std::vector<int64_t> rows, cols;
    std::vector<double> sq;
    for (int64_t i = 0; i < 28; ++i)
      if (v[size_t(i)] > 0) {
        rows.push_back(i / 7);
        cols.push_back(i % 7);
        sq.push_back(double(v[size_t(i)]) * v[size_t(i)]);
      }
    REQUIRE(!rows.empty());
    const graph::Outputs out = session.run({{"y", y}});
    std::vector<int64_t> want = rows;
    want.insert(want.end(), cols.begin(), cols.end());
    REQUIRE(out["nz"].shape() == std::vector<int64_t>{2, int64_t(rows.size())});
    CHECK(out["nz"].to_vector<int64_t>() == want);
    check_close(out["sq"], sq);
    check_reductions(out, rows, cols);
  }
  // Nothing above zero: nz is [2, 0], and the nodes after it give an empty result.
  const NDArray negative = NDArray::random({4, 7}, Float(32), 6, -1.0, -0.1);
  const graph::Outputs out = session.run({{"y", negative}});
  CHECK(out["nz"].shape() == std::vector<int64_t>{2, 0});
  CHECK(out["nz"].dtype() == Int(64));
  CHECK(out["sq"].shape() == std::vector<int64_t>{0});
  CHECK(out["sq"].dtype() == Float(32));
  check_reductions(out, {}, {});
}

TEST_CASE("a detector that selects no box returns empty results, the nodes after its NMS computed on the host",
          "[onnx][session][stages]") {
  const NDArray w = NDArray::random({4, 3}, Float(32), 9);
  tonnx::Session session = tonnx::Session::from_bytes(detector_model(w), "llvm");
  CHECK(session.staged());
  CHECK(check_detector_run(session, w, 10, -3.0, 3.0) > 0);
  const int64_t compiles = session.compiles();
  // Scores below -20 are below kMinScore after the sigmoid: no box at all.
  CHECK(check_detector_run(session, w, 20, -30.0, -20.0) == 0);
  // No stage compiled for the empty run: one graph for the host's computation of the
  // outputs that do not depend on the boxes (the Softmax of all of them).
  CHECK(session.compiles() == compiles + 1);
  CHECK(check_detector_run(session, w, 30, -3.0, 3.0) > 0);
}

TEST_CASE("a node after the boundary that would compute elements from an empty value is an error of that run",
          "[onnx][session][stages]") {
  const NDArray w = NDArray::random({4, 3}, Float(32), 9);
  const NDArray x = NDArray::random({1, kBoxes, 4}, Float(32), 40, -1.0, 10.0);
  const NDArray s = NDArray::random({1, kClasses, kBoxes}, Float(32), 41, -3.0, 3.0);
  std::vector<float> boxes = x.to_vector<float>(), scores = s.to_vector<float>();
  for (float &v : boxes) v = std::max(v, 0.0f);
  for (float &v : scores) v = 1.0f / (1.0f + std::exp(-v));
  const std::vector<int64_t> sel = reference_nms(boxes, scores);
  const int64_t count = int64_t(sel.size() / 3);
  REQUIRE(count > 0);
  const std::vector<double> picked = selected_boxes(boxes, sel);
  const std::vector<double> mean = {std::accumulate(picked.begin(), picked.end(), 0.0) / double(picked.size())};
  std::vector<double> edges(picked.begin(), picked.begin() + 4);  // Pad edge
  edges.insert(edges.end(), picked.begin(), picked.end());
  edges.insert(edges.end(), picked.end() - 4, picked.end());
  std::vector<double> column_sums(4, 0.0);
  for (size_t e = 0; e < picked.size(); ++e) column_sums[e % 4] += picked[e];
  const NDArray none = NDArray::random({1, kClasses, kBoxes}, Float(32), 42, -30.0, -20.0);
  // The mean coordinate of no box (ONNX leaves it undefined), the edges of none, and the
  // first of no box (an index out of range, an error of the model on that run).
  const std::vector<double> first(picked.begin(), picked.begin() + 4);
  const std::map<std::string, std::pair<const std::vector<double> *, std::string>> cases = {
      {"ReduceMean", {&mean, "read 'sel', empty this run (a dimension of 0), and cannot be computed from it: "
                             "node 'extra' (ReduceMean): the mean of no elements"}},
      {"Pad", {&edges, "read 'sel', empty this run (a dimension of 0), and cannot be computed from it: "
                       "node 'extra' (Pad): mode edge of an empty input"}},
      {"Gather", {&first, "computed on the host as 'sel' is empty this run (a dimension of 0), failed: "
                          "node 'extra' (Gather): "}}};
  for (const auto &[op, expected] : cases) {
    INFO(op);
    tonnx::Session session = tonnx::Session::from_bytes(detector_model(w, op), "llvm");
    check_close(session.run({{"x", x}, {"s", s}})["extra"], *expected.first);
    try {
      session.run({{"x", x}, {"s", none}});
      FAIL("an empty selection gave " << op << " a result");
    } catch (const tonnx::UnsupportedError &e) {
      FAIL("an UnsupportedError, which says the model cannot be imported: " << e.what());
    } catch (const Error &e) {
      CHECK_THAT(e.what(), Contains("the nodes after node 'nms' (NonMaxSuppression)") && Contains(expected.second));
      CHECK_THAT(e.what(), !Contains("onnx: onnx:") && !Contains(": onnx: "));
    }
  }
  // Einsum's column sums of no boxes: sums of nothing, zeros.
  tonnx::Session einsum = tonnx::Session::from_bytes(detector_model(w, "Einsum"), "llvm");
  check_close(einsum.run({{"x", x}, {"s", s}})["extra"], column_sums);
  check_close(einsum.run({{"x", x}, {"s", none}})["extra"], std::vector<double>(4, 0.0));
}

TEST_CASE("a node computed between stages that cannot be is an error of that run, naming it",
          "[onnx][session][stages]") {
  // NonZero of a scalar computed at run time: refused when its value is known.
  ModelBuilder mb(13);
  mb.input("y", {});
  mb.node("Relu", {"y"}, {"r"});
  mb.node("NonZero", {"r"}, {"nz"}, "where");
  mb.output("nz", {}, ::onnx::TensorProto::INT64);
  tonnx::Session session = tonnx::Session::from_bytes(mb.bytes(), "llvm");
  CHECK_THROWS_WITH(session.run({{"y", NDArray::from_vector<float>({2.0f}, {})}}),
                    Contains("node 'where' (NonZero)") && Contains("between stages") && Contains("a scalar input"));
}

TEST_CASE("an ordinary import computes from empty values what ONNX defines, returns empty outputs, and refuses the rest",
          "[onnx][session][stages]") {
  // NonZero of a constant of zeros ([1, 0]), summed (0) and added to the input: y itself.
  ModelBuilder mb(13);
  mb.input("y", {int64_t{2}});
  mb.initializer("zeros", NDArray::from_vector<float>({0.0f, 0.0f}, {2}));
  mb.node("NonZero", {"zeros"}, {"nz"}, "where");
  attr(mb.node("Cast", {"nz"}, {"nz_f"}), "to", int64_t{::onnx::TensorProto::FLOAT});
  attr(mb.node("ReduceSum", {"nz_f"}, {"total"}), "keepdims", int64_t{0});
  mb.node("Add", {"y", "total"}, {"out"});
  mb.output("out");
  const NDArray y = NDArray::from_vector<float>({1.5f, -2}, {2});
  CHECK(graph::build(tonnx::import_bytes(mb.bytes()), "llvm").run({{"y", y}}).at(0).to_vector<float>() ==
        std::vector<float>{1.5f, -2});
  // TopK of k = 0 of the input: an empty output of the compiled model, next to a full one.
  ModelBuilder top(13);
  top.input("y", {int64_t{2}});
  top.initializer("k", NDArray::from_vector<int64_t>({0}, {1}));
  top.node("TopK", {"y", "k"}, {"v", "i"}, "none");
  top.node("Neg", {"y"}, {"minus"});
  top.output("v");
  top.output("i", {}, ::onnx::TensorProto::INT64);
  top.output("minus");
  tonnx::Session session = tonnx::Session::from_bytes(top.bytes(), "llvm");
  CHECK_FALSE(session.staged());
  const graph::Outputs out = session.run({{"y", y}});
  CHECK(out["v"].shape() == std::vector<int64_t>{0});
  CHECK(out["v"].dtype() == Float(32));
  CHECK(out["i"].shape() == std::vector<int64_t>{0});
  CHECK(out["i"].dtype() == Int(64));
  CHECK(out["minus"].to_vector<float>() == std::vector<float>{-1.5f, 2});
  // The mean of no elements, which ONNX leaves undefined: refused, naming the node.
  ModelBuilder mean(13);
  mean.input("y", {int64_t{2}});
  mean.initializer("zeros", NDArray::from_vector<float>({0.0f, 0.0f}, {2}));
  mean.node("NonZero", {"zeros"}, {"nz"}, "where");
  attr(mean.node("Cast", {"nz"}, {"nz_f"}), "to", int64_t{::onnx::TensorProto::FLOAT});
  attr(mean.node("ReduceMean", {"nz_f"}, {"avg"}, "average"), "keepdims", int64_t{0});
  mean.node("Add", {"y", "avg"}, {"out"});
  mean.output("out");
  try {
    tonnx::import_bytes(mean.bytes());
    FAIL("the mean of no elements was imported");
  } catch (const tonnx::UnsupportedError &e) {
    REQUIRE(e.nodes().size() == 1);
    CHECK(e.nodes()[0].node == "average");
    CHECK_THAT(e.nodes()[0].reason, Contains("mean"));
  }
}

TEST_CASE("a Session stages an If whose branch reads a boundary node's result, and an If of a computed condition",
          "[onnx][session][stages]") {
  // nz = NonZero(Relu(y)); the then-branch (a constant condition) returns Shape(nz); the
  // outer If of cond = ReduceSum(y) > 0 picks 1 or -1.
  ModelBuilder mb(13);
  mb.input("y", {int64_t{6}});
  mb.initializer("yes", NDArray::from_vector<uint8_t>({1}, {}).view({}, Bool()));
  mb.initializer("zero", NDArray::from_vector<float>({0.0f}, {}));
  mb.node("Relu", {"y"}, {"r"});
  mb.node("NonZero", {"r"}, {"nz"}, "where");
  auto branch = [](const std::string &name, const std::string &op, const std::vector<std::string> &in,
                   const std::string &out, const NDArray *value) {
    ::onnx::GraphProto g;
    g.set_name(name);
    ::onnx::NodeProto *n = g.add_node();
    n->set_op_type(op);
    for (const std::string &i : in) n->add_input(i);
    n->add_output(out);
    if (value) {
      auto *a = n->add_attribute();
      a->set_name("value");
      a->set_type(::onnx::AttributeProto::TENSOR);
      *a->mutable_t() = tensor_proto("", *value);
    }
    g.add_output()->set_name(out);
    return g;
  };
  auto add_graph = [](::onnx::NodeProto &n, const std::string &name, const ::onnx::GraphProto &g) {
    auto *a = n.add_attribute();
    a->set_name(name);
    a->set_type(::onnx::AttributeProto::GRAPH);
    *a->mutable_g() = g;
  };
  const NDArray plus = NDArray::from_vector<int64_t>({1}, {1}), minus = NDArray::from_vector<int64_t>({-1}, {1});
  ::onnx::NodeProto &inner = mb.node("If", {"yes"}, {"count"}, "reads_nz");
  add_graph(inner, "then_branch", branch("then", "Shape", {"nz"}, "s", nullptr));
  add_graph(inner, "else_branch", branch("else", "Constant", {}, "s2", &plus));
  attr(mb.node("ReduceSum", {"y"}, {"total"}), "keepdims", int64_t{0});
  mb.node("Greater", {"total", "zero"}, {"cond"});
  ::onnx::NodeProto &outer = mb.node("If", {"cond"}, {"sign"}, "decides");
  add_graph(outer, "then_branch", branch("then", "Constant", {}, "p", &plus));
  add_graph(outer, "else_branch", branch("else", "Constant", {}, "m", &minus));
  mb.output("count", {}, ::onnx::TensorProto::INT64);
  mb.output("sign", {}, ::onnx::TensorProto::INT64);
  tonnx::Session session = tonnx::Session::from_bytes(mb.bytes(), "llvm");
  for (uint64_t seed : {1, 2, 3}) {
    const NDArray y = NDArray::random({6}, Float(32), seed, -1.0, 1.0);
    const std::vector<float> v = y.to_vector<float>();
    const int64_t positive = std::count_if(v.begin(), v.end(), [](float e) { return e > 0; });
    const double total = std::accumulate(v.begin(), v.end(), 0.0);
    REQUIRE(positive > 0);
    const graph::Outputs out = session.run({{"y", y}});
    CHECK(out["count"].to_vector<int64_t>() == std::vector<int64_t>{1, positive});
    CHECK(out["sign"].to_vector<int64_t>() == std::vector<int64_t>{total > 0 ? 1 : -1});
  }
  CHECK_THROWS_WITH(session.run({}), Contains("input 'y'"));
}

TEST_CASE("Trilu, ReverseSequence and Unique after a NonZero give empty results when it finds nothing",
          "[onnx][session][stages]") {
  // p = float(NonZero(Relu(y)))^T as [count, 1]: Trilu keeps its lower triangle (the
  // first column), ReverseSequence reverses each column's first element (nothing moves),
  // and Unique of the positions gives them back (sorted, each once).
  ModelBuilder mb(14);
  mb.input("y", {int64_t{6}});
  mb.initializer("col", NDArray::from_vector<int64_t>({-1, 1}, {2}));
  mb.initializer("lens", NDArray::from_vector<int64_t>({1}, {1}));
  mb.node("Relu", {"y"}, {"r"});
  mb.node("NonZero", {"r"}, {"nz"}, "where");
  attr(mb.node("Cast", {"nz"}, {"f"}), "to", int64_t{::onnx::TensorProto::FLOAT});
  mb.node("Reshape", {"f", "col"}, {"p"});
  attr(mb.node("Trilu", {"p"}, {"low"}), "upper", int64_t{0});
  ::onnx::NodeProto &reverse = mb.node("ReverseSequence", {"p", "lens"}, {"rev"});
  attr(reverse, "time_axis", int64_t{0});
  attr(reverse, "batch_axis", int64_t{1});
  mb.node("Unique", {"f"}, {"u", "first", "inverse", "counts"});
  for (const char *name : {"low", "rev", "u"}) mb.output(name);
  for (const char *name : {"first", "inverse", "counts"}) mb.output(name, {}, ::onnx::TensorProto::INT64);
  tonnx::Session session = tonnx::Session::from_bytes(mb.bytes(), "llvm");
  const NDArray y = NDArray::from_vector<float>({0.5f, -1, 2, 0, 3, -2}, {6});
  graph::Outputs out = session.run({{"y", y}});
  CHECK(out["low"].to_vector<float>() == std::vector<float>{0, 2, 4});
  CHECK(out["rev"].to_vector<float>() == std::vector<float>{0, 2, 4});
  CHECK(out["u"].to_vector<float>() == std::vector<float>{0, 2, 4});
  CHECK(out["inverse"].to_vector<int64_t>() == std::vector<int64_t>{0, 1, 2});
  CHECK(out["counts"].to_vector<int64_t>() == std::vector<int64_t>{1, 1, 1});
  out = session.run({{"y", NDArray::from_vector<float>({-0.5f, -1, -2, 0, -3, -2}, {6})}});
  CHECK(out["low"].shape() == std::vector<int64_t>{0, 1});
  CHECK(out["rev"].shape() == std::vector<int64_t>{0, 1});
  CHECK(out["u"].shape() == std::vector<int64_t>{0});
  CHECK(out["u"].dtype() == Float(32));
  for (const char *name : {"first", "inverse", "counts"}) {
    CAPTURE(name);
    CHECK(out[name].shape() == std::vector<int64_t>{0});
    CHECK(out[name].dtype() == Int(64));
  }
}

TEST_CASE("empty values through graph operators: outputs by name, reshaped views, and empty batches of a Session",
          "[onnx][session][stages]") {
  // z = x[5:7] along axis 0 is [0, 3, 4]: Relu of it, a Softmax over axis 1 at opset 11
  // (a 2-D view of it), and z itself are empty outputs beside Neg(x).
  ModelBuilder mb(11);
  mb.input("x", dims({2, 3, 4}));
  mb.initializer("s", NDArray::from_vector<int64_t>({5}, {1}));
  mb.initializer("e", NDArray::from_vector<int64_t>({7}, {1}));
  mb.initializer("a", NDArray::from_vector<int64_t>({0}, {1}));
  mb.node("Slice", {"x", "s", "e", "a"}, {"z"});
  mb.node("Relu", {"z"}, {"r"});
  attr(mb.node("Softmax", {"z"}, {"p"}), "axis", int64_t{1});
  mb.node("Neg", {"x"}, {"m"});
  for (const char *name : {"z", "r", "p", "m"}) mb.output(name);
  const NDArray x = NDArray::random({2, 3, 4}, Float(32), 3);
  const graph::Outputs out = graph::build(tonnx::import_bytes(mb.bytes()), "llvm").run({{"x", x}});
  for (const char *name : {"z", "r", "p"}) {
    CAPTURE(name);
    CHECK(out[name].shape() == std::vector<int64_t>{0, 3, 4});
  }
  std::vector<float> minus = x.to_vector<float>();
  for (float &v : minus) v = -v;
  CHECK(out["m"].to_vector<float>() == minus);

  // A batch of 0, then of 2 twice: each shape compiled once, and the input stays data.
  ModelBuilder batch(13);
  batch.input("x", {std::string("n"), int64_t{3}});
  batch.node("Relu", {"x"}, {"y"});
  batch.output("y");
  tonnx::Session session = tonnx::Session::from_bytes(batch.bytes(), "llvm");
  CHECK(session.run({{"x", NDArray::empty({0, 3}, Float(32))}})["y"].shape() == std::vector<int64_t>{0, 3});
  const size_t compiles = session.compiles();
  for (uint64_t seed : {1, 2}) {
    const NDArray v = NDArray::random({2, 3}, Float(32), seed);
    std::vector<float> want = v.to_vector<float>();
    for (float &e : want) e = std::max(e, 0.0f);
    CHECK(session.run({{"x", v}})["y"].to_vector<float>() == want);
  }
  CHECK(session.compiles() == compiles + 1);
  CHECK(session.shape_inputs().empty());
}
