// DFT and STFT as matrix products: the signal axis moved next to the (real, imaginary)
// axis, every (sample, part) pair of a row mapped onto every (frequency, part) pair by a
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
  check_host_size({bins, 2, n, parts}, Float(32), "the DFT matrix");
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

// Opset 17: [batch, signal..., 1 or 2] with the axis an attribute (1 by default); from
// opset 20 any [signal..., 1 or 2] with the axis an optional input (-2 by default).
void dft(Context &c, int version) {
  need_float32(c, 0);
  const Shape in = c.shape(0);
  const int rank = c.rank(0);
  TIR_USER_CHECK(rank >= (version >= 20 ? 2 : 3) && (in.back() == 1 || in.back() == 2))
      << "input " << shape_str(in) << " must be [" << (version >= 20 ? "" : "batch, ") << "..., signal, 1 or 2]";
  int64_t a = c.attrs().i("axis", 1);
  if (version >= 20) {
    a = -2;
    if (c.num_inputs() > 2 && c.has_input(2)) {
      const Shape v = c.ints(2, "axis");
      TIR_USER_CHECK(v.size() == 1) << "axis '" << c.input_name(2) << "' has " << v.size() << " values, not one";
      a = v[0];
    }
  }
  // In [-rank, -2] or [0, rank - 2]: never the last (complex) axis.
  const int axis = int(a < 0 ? a + rank : a);
  TIR_USER_CHECK(a >= -rank && axis >= 0 && axis <= rank - 2) << "axis " << a << " is out of range for rank " << rank;
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
  c.output(0, "transpose", {y}, {{"axes", inverse_permutation(perm)}});
}

// STFT: the frames of the signal [batch, length, 1 or 2], frame_step apart, stacked into
// rows and transformed by one dense product whose matrix has a known window folded in.
void stft(Context &c) {
  need_float32(c, 0);
  const Shape in = c.shape(0);
  TIR_USER_CHECK(c.rank(0) == 3 && (in[2] == 1 || in[2] == 2))
      << "signal " << shape_str(in) << " must be [batch, length, 1 or 2]";
  const int64_t batch = in[0], length = in[1], parts = in[2];
  const int64_t step = c.ints(1, "frame_step").at(0);
  const bool windowed = c.has_input(2);
  if (windowed) need_float32(c, 2);
  TIR_USER_CHECK(!windowed || c.rank(2) == 1) << "window " << shape_str(c.shape(2)) << " must be a vector";
  TIR_USER_CHECK(windowed || c.has_input(3)) << "STFT needs a window or a frame_length";
  const int64_t frame = c.has_input(3) ? c.ints(3, "frame_length").at(0) : c.shape(2)[0];
  TIR_USER_CHECK(step > 0 && frame > 0 && frame <= length)
      << "frame_step " << step << " and frame_length " << frame << " do not fit a signal of " << length;
  TIR_USER_CHECK(!windowed || c.shape(2)[0] == frame) << "the window's length differs from frame_length " << frame;
  const bool onesided = c.attrs().i("onesided", 1) != 0;
  if (onesided && parts == 2) unsupported("onesided with a complex signal");
  const int64_t frames = (length - frame) / step + 1, bins = onesided ? frame / 2 + 1 : frame;
  NDArray w = dft_weight(frame, parts, frame, bins, false);
  if (windowed && c.known(2)) {  // every column of sample t times window[t]
    const std::vector<double> win = to_doubles(c.value(2, "window"));
    std::vector<double> wv = to_doubles(w);
    for (size_t i = 0; i < wv.size(); ++i) wv[i] *= win[(i % size_t(frame * parts)) / size_t(parts)];
    w = from_doubles(wv, w.shape(), Float(32));
  }
  std::vector<graph::NodeRef> rows;
  graph::NodeRef x = c.node(0);
  for (int64_t f = 0; f < frames; ++f) {
    graph::NodeRef r = c.make("slice", {x},
                              {{"begin", Shape{0, f * step, 0}},
                               {"end", Shape{batch, f * step + frame, parts}},
                               {"strides", Shape{1, 1, 1}}});
    rows.push_back(c.make("reshape", {r}, {{"shape", Shape{batch, 1, frame * parts}}}));
  }
  graph::NodeRef all = rows.size() == 1 ? rows[0] : c.make("concatenate", rows, {{"axis", int64_t{1}}});
  if (windowed && !c.known(2)) {  // a window computed at run time multiplies the frames
    all = c.make("reshape", {all}, {{"shape", Shape{batch * frames, frame, parts}}});
    all = c.make("multiply", {all, c.make("reshape", {c.node(2)}, {{"shape", Shape{frame, 1}}})});
  }
  all = c.make("reshape", {all}, {{"shape", Shape{batch * frames, frame * parts}}});
  graph::NodeRef y = c.make("dense", {all, c.constant(w, "dft_matrix")});
  c.output(0, "reshape", {y}, {{"shape", Shape{batch, frames, bins, 2}}});
}

// MelWeightMatrix, computed at import: triangles on the mel scale (2595 log10(1 + f / 700))
// between num_mel_bins + 2 points from lower_edge_hertz on, spaced (upper - lower) /
// (num_mel_bins + 2) on that scale as ONNX's reference does, each point f rounded down to
// the bin (dft_length + 1) f / sample_rate; each triangle peaks at 1.
void mel_weight_matrix(Context &c) {
  const int64_t mels = c.ints(0, "num_mel_bins").at(0), length = c.ints(1, "dft_length").at(0),
                rate = c.ints(2, "sample_rate").at(0);
  const double low = to_doubles(c.value(3, "lower_edge_hertz")).at(0),
               high = to_doubles(c.value(4, "upper_edge_hertz")).at(0);
  TIR_USER_CHECK(mels > 0 && length > 0 && rate > 0 && low >= 0 && low < high)
      << "num_mel_bins " << mels << ", dft_length " << length << ", sample_rate " << rate << " and edges " << low
      << " to " << high << " do not fit";
  const Type dtype = onnx_dtype(c.attrs().i("output_datatype", ::onnx::TensorProto::FLOAT), "output_datatype");
  const int64_t bins = length / 2 + 1;
  check_host_size({bins, mels}, dtype);
  auto mel = [](double f) { return 2595 * std::log10(1 + f / 700); };
  const double mel_low = mel(low), step = (mel(high) - mel_low) / double(mels + 2);
  std::vector<int64_t> point;
  for (int64_t i = 0; i < mels + 2; ++i) {
    const double hz = 700 * (std::pow(10.0, (mel_low + double(i) * step) / 2595) - 1);
    point.push_back(int64_t(std::floor(double(length + 1) * hz / double(rate))));
  }
  std::vector<double> w(size_t(bins * mels), 0.0);
  auto at = [&](int64_t bin, int64_t m) -> double & {
    TIR_USER_CHECK(bin >= 0 && bin < bins) << "upper_edge_hertz " << high << " is past the DFT's last bin";
    return w[size_t(bin * mels + m)];
  };
  for (int64_t m = 0; m < mels; ++m) {
    const int64_t left = point[size_t(m)], center = point[size_t(m + 1)], right = point[size_t(m + 2)];
    if (center == left) at(center, m) = 1;
    for (int64_t b = left; b <= center && center > left; ++b) at(b, m) = double(b - left) / double(center - left);
    for (int64_t b = center; b < right; ++b) at(b, m) = double(right - b) / double(right - center);
  }
  c.set_output(0, from_doubles(w, {bins, mels}, dtype));
}

const bool registered = [] {
  register_converter({"DFT", 17, 19, nullptr, [](Context &c) { dft(c, 17); }});
  register_converter({"DFT", 20, kLatest, [](const Attributes &a) { return attribute_now_input(a, "axis", 20, 2); },
                      [](Context &c) { dft(c, 20); }});
  register_converter({"MelWeightMatrix", 17, kLatest, nullptr, mel_weight_matrix});
  register_converter({"STFT", 17, kLatest, nullptr, stft});
  return true;
}();

}  // namespace

}  // namespace tensorir::onnx::detail
