// Window functions: HannWindow, HammingWindow and BlackmanWindow, whose size must be
// known at import: the window is computed here and becomes a known value.
#include <cmath>

#include "frontend/onnx/ops/ops_util.h"

namespace tensorir::onnx::detail {

namespace {

// a0 - a1 cos(2 pi n / N) + a2 cos(4 pi n / N) for n in [0, size), N = size when
// periodic, else size - 1 (symmetric).
void window(Context &c, double a0, double a1, double a2) {
  const std::vector<int64_t> size = c.ints(0, "size");
  TIR_USER_CHECK(size.size() == 1 && size[0] >= 0) << "size must be one non-negative number";
  const Type t = onnx_dtype(c.attrs().i("output_datatype", ::onnx::TensorProto::FLOAT), "output_datatype");
  const int64_t n = size[0];
  if (n == 0) unsupported("an empty window");
  check_host_size({n}, t);
  const double period = c.attrs().i("periodic", 1) ? double(n) : double(n - 1);
  std::vector<double> w(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) {
    // A window of one element (period 0) is 1, as the formula's limit.
    const double x = period == 0 ? 0.0 : 2.0 * M_PI * double(i) / period;
    w[size_t(i)] = a0 - a1 * std::cos(x) + a2 * std::cos(2 * x);
  }
  c.set_output(0, from_doubles(w, {n}, t));
}

const bool registered = [] {
  register_converter({"HannWindow", 17, kLatest, nullptr, [](Context &c) { window(c, 0.5, 0.5, 0.0); }});
  register_converter(
      {"HammingWindow", 17, kLatest, nullptr, [](Context &c) { window(c, 25.0 / 46.0, 21.0 / 46.0, 0.0); }});
  register_converter({"BlackmanWindow", 17, kLatest, nullptr, [](Context &c) { window(c, 0.42, 0.5, 0.08); }});
  return true;
}();

}  // namespace

}  // namespace tensorir::onnx::detail
