// Plain loops over windows of 1 to 3 spatial dimensions, written from ONNX's definitions
// without any tensorir code: convolution, transposed convolution and pooling of
// [N, C, d1 .. dk] float data, accumulated in double.
#pragma once
#include <cstdint>
#include <utility>
#include <vector>

namespace tensorir::reference {

// Sliding windows over k spatial dimensions; pads: k values before, then k after.
struct WindowParams {
  WindowParams() = default;
  WindowParams(std::vector<int64_t> s, std::vector<int64_t> d, std::vector<int64_t> p, int64_t g = 1,
               std::vector<int64_t> op = {})
      : strides(std::move(s)), dilation(std::move(d)), pads(std::move(p)), groups(g), output_padding(std::move(op)) {}
  std::vector<int64_t> strides, dilation, pads;
  int64_t groups = 1;                  // convolutions
  std::vector<int64_t> output_padding; // transposed convolutions (empty: zeros)
};

// x [N, C, d...] with weight [K, C / groups, k...] -> [N, K, o...] (its shape in *shape).
std::vector<double> conv_nd(const std::vector<float> &x, const std::vector<int64_t> &xs, const std::vector<float> &w,
                            const std::vector<int64_t> &ws, const WindowParams &p, std::vector<int64_t> *shape);

// The transposed convolution: x [N, C, d...], weight [C, K / groups, k...] -> [N, K, o...],
// every input element times the weight added where its window lands, the full result then
// trimmed by the pads and extended by the output padding.
std::vector<double> conv_transpose_nd(const std::vector<float> &x, const std::vector<int64_t> &xs,
                                      const std::vector<float> &w, const std::vector<int64_t> &ws,
                                      const WindowParams &p, std::vector<int64_t> *shape);

struct PoolParams {
  enum Kind { kMax, kAvg, kLp, kSum };
  PoolParams(Kind k, std::vector<int64_t> kern, WindowParams w, bool ceil = false, bool include_pad = false)
      : kind(k), kernel(std::move(kern)), window(std::move(w)), ceil_mode(ceil), count_include_pad(include_pad) {}
  Kind kind;
  std::vector<int64_t> kernel;
  WindowParams window;
  bool ceil_mode = false, count_include_pad = false;
  int64_t p = 2;               // kLp
  int64_t storage_order = 0;   // kMax's indices: 1 flattens the spatial dimensions column-major
};

struct PoolResult {
  std::vector<int64_t> shape;
  std::vector<double> values;
  std::vector<int64_t> indices;  // kMax: the flattened index of the first maximum of each window
};

// Padding never takes part, but an average with count_include_pad counts the explicit
// padding in its divisor. ceil_mode adds the last partial windows that start inside the
// input or its padding before.
PoolResult pool_nd(const std::vector<float> &x, const std::vector<int64_t> &xs, const PoolParams &p);

}  // namespace tensorir::reference
