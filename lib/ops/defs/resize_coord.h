// Where output coordinate x of a Resize falls in the input, along one axis of `in`
// elements resized to `out` at `scale`: one formula for resize2d's kernels (T = Expr,
// `c` making constants of the kernel's float type) and for weights computed on the host
// (T = double, `c` the identity), such as the ONNX importer's antialiasing filters.
#pragma once
#include <cmath>
#include <cstdint>
#include <string>

namespace tensorir::ops::defs {

template <typename T, typename Const>
T resize_source_coord(T xf, const std::string &mode, double scale, int64_t in, int64_t out, Const c) {
  // As in ONNX, align_corners, pytorch_half_pixel and half_pixel_symmetric use the resized
  // length in * scale, which is not rounded to the output's length when the scale was
  // given. ONNX's scales are float32, and so is their product there: 5 x 0.2f is 1
  // (1.00000003 in double). A product that is whole in float32 is taken as such; others
  // (1.7 x 4, or a scale from sizes) in double.
  const float single = float(in) * float(scale);
  const double resized = single == std::floor(single) ? double(single) : double(in) * scale;
  const bool one = std::fabs(resized - 1) < 1e-9;
  if (mode == "asymmetric") return xf / c(scale);
  if (mode == "tf_half_pixel_for_nn") return (xf + c(0.5)) / c(scale);
  if (mode == "align_corners") return one ? c(0) : xf * c(double(in - 1) / (resized - 1));
  if (mode == "pytorch_half_pixel" && one) return c(0);
  if (mode == "half_pixel_symmetric") {
    // Half-pixel, shifted so that the rounding of the output's length is shared out
    // evenly at both ends: about the centre of the input.
    const double offset = double(in) / 2 * (1 - double(out) / resized);
    return c(offset) + (xf + c(0.5)) / c(scale) - c(0.5);
  }
  return (xf + c(0.5)) / c(scale) - c(0.5);  // half_pixel, pytorch_half_pixel
}

}  // namespace tensorir::ops::defs
