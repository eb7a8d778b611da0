// DFT as one matrix product: the signal axis moved next to the (real, imaginary) axis,
// every (sample, part) pair of a row mapped onto every (frequency, part) pair by a
// constant matrix of cosines and sines computed at import.
#include <cmath>

#include "frontend/onnx/ops/ops_util.h"

namespace tensorir::onnx::detail {

namespace {

using Shape = std::vector<int64_t>;

// The weight [bins * 2, n * parts] of the transform of n samples (each `parts` values:
// real, or real and imaginary) of a signal of `length` (shorter: zero-padded, longer:
// truncated) onto `bins` frequencies: X[k] = sum x[t] e^(-+2 pi i k t / length).
NDArray dft_weight(int64_t n, int64_t parts, int64_t length, int64_t bins, bool inverse) {
  std::vector<double> w(size_t(bins * 2 * n * parts), 0.0);
  const double sign = inverse ? 1 : -1, scale = inverse ? 1.0 / double(length) : 1.0;
  for (int64_t k = 0; k < bins; ++k)
    for (int64_t t = 0; t < std::min(n, length); ++t) {
      const double theta = 2 * M_PI * double((k * t) % length) / double(length);
      const double re = std::cos(theta) * scale, im = sign * std::sin(theta) * scale;
      auto at = [&](int64_t out_part, int64_t in_part) -> double & {
        return w[size_t(((k * 2 + out_part) * n + t) * parts + in_part)];
      };
      at(0, 0) = re;  // (a + bi)(re + im i) = (a re - b im) + (a im + b re) i
      at(1, 0) = im;
      if (parts == 2) {
        at(0, 1) = -im;
        at(1, 1) = re;
      }
    }
  return from_doubles(w, {bins * 2, n * parts}, Float(32));
}

void dft(Context &c) {
  need_float32(c, 0);
  const Shape in = c.shape(0);
  const int rank = c.rank(0);
  TIR_USER_CHECK(rank >= 3 && (in.back() == 1 || in.back() == 2))
      << "input " << shape_str(in) << " must be [batch, ..., signal, 1 or 2]";
  // In [-rank, -2] or [1, rank - 2]: never the last (complex) axis, nor the batch axis.
  const int64_t a = c.attrs().i("axis", 1);
  const int axis = int(a < 0 ? a + rank : a);
  TIR_USER_CHECK(axis >= 1 && axis <= rank - 2) << "axis " << a << " is out of range for rank " << rank;
  const bool inverse = c.attrs().i("inverse", 0) != 0, onesided = c.attrs().i("onesided", 0) != 0;
  if (onesided && inverse) unsupported("onesided with inverse");
  const int64_t n = in[size_t(axis)], parts = in.back();
  const int64_t length = c.has_input(1) ? c.ints(1, "dft_length").at(0) : n;
  TIR_USER_CHECK(length > 0) << "dft_length " << length << " must be positive";
  const int64_t bins = onesided ? length / 2 + 1 : length;
  // [..., signal, parts] with the signal axis last but one, then rows of n * parts.
  Shape perm, moved;
  for (int i = 0; i < rank - 1; ++i)
    if (i != axis) perm.push_back(i);
  perm.push_back(axis);
  perm.push_back(rank - 1);
  int64_t rows = 1;
  for (size_t i = 0; i + 2 < perm.size(); ++i) {
    moved.push_back(in[size_t(perm[i])]);
    rows *= in[size_t(perm[i])];
  }
  graph::NodeRef x = c.node(0);
  if (axis != rank - 2) x = c.make("transpose", {x}, {{"axes", perm}});
  x = c.make("reshape", {x}, {{"shape", Shape{rows, n * parts}}});
  graph::NodeRef w = c.constant(dft_weight(n, parts, length, bins, inverse), "dft_matrix");
  graph::NodeRef y = c.make("dense", {x, w});
  moved.push_back(bins);
  moved.push_back(2);
  if (axis == rank - 2) return void(c.output(0, "reshape", {y}, {{"shape", moved}}));
  y = c.make("reshape", {y}, {{"shape", moved}});
  Shape back(perm.size(), 0);  // the inverse of perm
  for (size_t i = 0; i < perm.size(); ++i) back[size_t(perm[i])] = int64_t(i);
  c.output(0, "transpose", {y}, {{"axes", back}});
}

const bool registered = [] {
  register_converter({"DFT", 17, kLatest, nullptr, dft});
  return true;
}();

}  // namespace

}  // namespace tensorir::onnx::detail
