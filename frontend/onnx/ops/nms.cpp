// NonMaxSuppression of boxes and scores known at import, computed then: how many boxes
// survive decides the result's shape, so boxes computed at run time make the node a
// boundary between the stages a Session runs (stages.h).
#include <algorithm>
#include <cmath>
#include <numeric>

#include "frontend/onnx/ops/ops_util.h"

namespace tensorir::onnx::detail {

namespace {

struct Box {
  double y0, x0, y1, x1;  // corners, ordered
  double area() const { return (y1 - y0) * (x1 - x0); }
};

// Box i of batch b from `v` ([y1, x1, y2, x2] in any corner order, or with `center`
// [x_center, y_center, width, height]).
Box box(const std::vector<double> &v, size_t at, bool center) {
  const double *p = &v[at];
  if (center) return {p[1] - p[3] / 2, p[0] - p[2] / 2, p[1] + p[3] / 2, p[0] + p[2] / 2};
  return {std::min(p[0], p[2]), std::min(p[1], p[3]), std::max(p[0], p[2]), std::max(p[1], p[3])};
}

double iou(const Box &a, const Box &b) {
  const double h = std::min(a.y1, b.y1) - std::max(a.y0, b.y0), w = std::min(a.x1, b.x1) - std::max(a.x0, b.x0);
  if (h <= 0 || w <= 0 || a.area() <= 0 || b.area() <= 0) return 0;
  return h * w / (a.area() + b.area() - h * w);
}

void nms(Context &c) {
  const std::vector<double> boxes = to_doubles(data_value(c, 0, "boxes")),
                            scores = to_doubles(data_value(c, 1, "scores"));
  TIR_USER_CHECK(c.rank(0) == 3 && c.shape(0)[2] == 4) << "boxes " << shape_str(c.shape(0)) << " must be [B, N, 4]";
  const int64_t batches = c.shape(0)[0], n = c.shape(0)[1];
  TIR_USER_CHECK(c.rank(1) == 3 && c.shape(1)[0] == batches && c.shape(1)[2] == n)
      << "scores " << shape_str(c.shape(1)) << " must be [" << batches << ", classes, " << n << "]";
  const int64_t classes = c.shape(1)[1];
  const int64_t max_out = c.has_input(2) ? c.ints(2, "max_output_boxes_per_class").at(0) : 0;
  const double threshold = c.has_input(3) ? to_doubles(c.value(3, "iou_threshold")).at(0) : 0.0;
  const bool by_score = c.has_input(4);
  const double min_score = by_score ? to_doubles(c.value(4, "score_threshold")).at(0) : 0.0;
  const bool center = c.attrs().i("center_point_box", 0) != 0;
  std::vector<int64_t> out;  // [b, class, box] triples
  for (int64_t b = 0; b < batches; ++b)
    for (int64_t k = 0; k < classes; ++k) {
      const double *s = scores.data() + size_t((b * classes + k) * n);
      std::vector<int64_t> order(static_cast<size_t>(n));
      std::iota(order.begin(), order.end(), 0);
      // Highest first, NaN last: a strict weak order, which sorting needs.
      std::stable_sort(order.begin(), order.end(), [&](int64_t i, int64_t j) {
        return s[i] > s[j] || (!std::isnan(s[i]) && std::isnan(s[j]));
      });
      std::vector<Box> kept;
      for (int64_t i : order) {
        if (int64_t(kept.size()) >= max_out || (by_score && !(s[i] > min_score))) break;
        const Box candidate = box(boxes, size_t((b * n + i) * 4), center);
        bool suppressed = false;
        for (const Box &other : kept) suppressed = suppressed || iou(candidate, other) > threshold;
        if (suppressed) continue;
        kept.push_back(candidate);
        out.insert(out.end(), {b, k, i});
      }
    }
  if (out.empty()) return empty_output(c, 0, {0, 3}, Int(64));
  c.set_output(0, from_int64s(out, {int64_t(out.size() / 3), 3}));
}

const bool registered = [] {
  register_converter({"NonMaxSuppression", 10, kLatest, nullptr, nms});
  return true;
}();

}  // namespace

}  // namespace tensorir::onnx::detail
