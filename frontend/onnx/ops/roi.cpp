// RoiAlign with regions known at import: each output element is an average of bilinear
// samples of the input, so the whole operator is one constant linear map, applied to
// every channel at once as a dense product over (batch, y, x).
#include <cmath>

#include "frontend/onnx/ops/ops_util.h"

namespace tensorir::onnx::detail {

namespace {

using Shape = std::vector<int64_t>;

std::string check_roi_align(const Attributes &a) {
  if (a.s("mode", "avg") != "avg") return "mode '" + a.s("mode", "avg") + "' is not supported (avg only)";
  const std::string t = a.s("coordinate_transformation_mode", "half_pixel");
  if (t != "half_pixel" && t != "output_half_pixel")
    return "coordinate_transformation_mode '" + t + "' is not supported";
  return "";
}

// Adds w times the bilinear weights of point (y, x) of an h x w plane to `row` (h * w).
void add_bilinear(std::vector<double> &row, int64_t h, int64_t w, double y, double x, double weight) {
  if (y < -1 || y > double(h) || x < -1 || x > double(w)) return;  // outside: zero
  y = std::max(y, 0.0);
  x = std::max(x, 0.0);
  int64_t y0 = int64_t(y), x0 = int64_t(x), y1 = y0 + 1, x1 = x0 + 1;
  if (y0 >= h - 1) y = double(y0 = y1 = h - 1);
  if (x0 >= w - 1) x = double(x0 = x1 = w - 1);
  const double ly = y - double(y0), lx = x - double(x0);
  row[size_t(y0 * w + x0)] += weight * (1 - ly) * (1 - lx);
  row[size_t(y0 * w + x1)] += weight * (1 - ly) * lx;
  row[size_t(y1 * w + x0)] += weight * ly * (1 - lx);
  row[size_t(y1 * w + x1)] += weight * ly * lx;
}

void roi_align(Context &c) {
  need_float32(c, 0);
  TIR_USER_CHECK(c.rank(0) == 4) << "input " << shape_str(c.shape(0)) << " must be [N, C, H, W]";
  const Shape xs = c.shape(0);
  const int64_t n = xs[0], ch = xs[1], h = xs[2], w = xs[3];
  const std::vector<double> rois = to_doubles(data_value(c, 1, "rois"));
  const std::vector<int64_t> batch = to_int64s(data_value(c, 2, "batch_indices"));
  const int64_t count = int64_t(batch.size());
  TIR_USER_CHECK(c.shape(1) == (Shape{count, 4}))
      << "rois " << shape_str(c.shape(1)) << " must be [" << count << ", 4]";
  const Attributes &a = c.attrs();
  const int64_t ph = a.i("output_height", 1), pw = a.i("output_width", 1), ratio = a.i("sampling_ratio", 0);
  const double scale = a.f("spatial_scale", 1.0f);
  // Before opset 16 there is no attribute: the output_half_pixel behaviour.
  const bool half_pixel = c.opset() >= 16 && a.s("coordinate_transformation_mode", "half_pixel") == "half_pixel";
  TIR_USER_CHECK(ph > 0 && pw > 0 && ratio >= 0)
      << "output size " << ph << " x " << pw << " or sampling_ratio " << ratio << " is not positive";
  // [count * ph * pw, n * h * w]: output (roi, bin y, bin x) from input (batch, y, x).
  const int64_t plane = h * w;
  check_host_size({count, ph, pw, n, plane}, Float(32), "the constant of bilinear weights");
  std::vector<double> m(size_t(count * ph * pw * n * plane), 0.0);
  for (int64_t r = 0; r < count; ++r) {
    TIR_USER_CHECK(batch[size_t(r)] >= 0 && batch[size_t(r)] < n)
        << "batch index " << batch[size_t(r)] << " is out of range";
    const double off = half_pixel ? 0.5 : 0.0;
    const double x0 = rois[size_t(r * 4)] * scale - off, y0 = rois[size_t(r * 4 + 1)] * scale - off;
    double rw = rois[size_t(r * 4 + 2)] * scale - off - x0, rh = rois[size_t(r * 4 + 3)] * scale - off - y0;
    if (!half_pixel) {
      rw = std::max(rw, 1.0);
      rh = std::max(rh, 1.0);
    }
    const double bh = rh / double(ph), bw = rw / double(pw);
    // Adaptive: ceil(extent / bins), none for an empty (or NaN) ROI, clamped before the
    // conversion (beyond int64 undefined) for the check below to refuse.
    auto adaptive = [](double v) { return !(v > 0) ? int64_t{0} : int64_t(std::ceil(std::min(v, 0x1p40))); };
    const int64_t gh = ratio > 0 ? ratio : adaptive(rh / double(ph)), gw = ratio > 0 ? ratio : adaptive(rw / double(pw));
    // The samples are summed at import: as many as a tensor computed there may hold.
    TIR_USER_CHECK(double(ph) * double(pw) * double(gh) * double(gw) <= double(kMaxHostElements))
        << "ROI " << r << " would take " << gh << " x " << gw << " samples in each of " << ph << " x " << pw
        << " bins, more than the " << kMaxHostElements << " that tensorir computes at import; "
        << "check sampling_ratio and the ROI's size";
    const double weight = 1.0 / double(std::max<int64_t>(gh * gw, 1));
    for (int64_t i = 0; i < ph; ++i)
      for (int64_t j = 0; j < pw; ++j) {
        std::vector<double> row(size_t(plane), 0.0);
        for (int64_t iy = 0; iy < gh; ++iy)
          for (int64_t ix = 0; ix < gw; ++ix)
            add_bilinear(row, h, w, y0 + double(i) * bh + (double(iy) + 0.5) * bh / double(gh),
                         x0 + double(j) * bw + (double(ix) + 0.5) * bw / double(gw), weight);
        double *dst = &m[size_t(((r * ph + i) * pw + j) * n * plane + batch[size_t(r)] * plane)];
        for (int64_t k = 0; k < plane; ++k) dst[k] = row[size_t(k)];
      }
  }
  // x as [C, N * H * W], times the map, gives [C, roi * ph * pw].
  graph::NodeRef x = c.make("transpose", {c.node(0)}, {{"axes", Shape{1, 0, 2, 3}}});
  x = c.make("reshape", {x}, {{"shape", Shape{ch, n * plane}}});
  graph::NodeRef map = c.constant(from_doubles(m, {count * ph * pw, n * plane}, Float(32)), "bilinear");
  graph::NodeRef y = c.make("reshape", {c.make("dense", {x, map})}, {{"shape", Shape{ch, count, ph, pw}}});
  c.output(0, "transpose", {y}, {{"axes", Shape{1, 0, 2, 3}}});
}

const bool registered = [] {
  register_converter({"RoiAlign", 10, kLatest, check_roi_align, roi_align});
  return true;
}();

}  // namespace

}  // namespace tensorir::onnx::detail
