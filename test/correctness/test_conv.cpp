// Direct NCHW convolution written as one compute (padding through select) and as a
// pad stage plus a conv stage, and max pooling with a padding condition; all against
// naive loops.
#include <algorithm>
#include <cstdint>
#include <limits>
#include <vector>

#include "correctness/reference.h"

using namespace tensorir;
using namespace tensorir::testing;

namespace {

struct ConvCase {
  int N, C, H, W, K, R, S, stride, ph, pw;
  int OH() const { return (H + 2 * ph - R) / stride + 1; }
  int OW() const { return (W + 2 * pw - S) / stride + 1; }
};

// The input index clamped into the tensor: select may evaluate both sides, so the
// padded branch must still read inside the buffer.
Expr clamp(Expr e, int size) {
  return min(max(e, 0), size - 1);
}

template <typename T>
std::vector<T> conv_reference(const ConvCase &p, const std::vector<T> &in, const std::vector<T> &w) {
  const int OH = p.OH(), OW = p.OW();
  std::vector<T> out(size_t(p.N) * p.K * OH * OW);
  for (int n = 0; n < p.N; ++n)
    for (int f = 0; f < p.K; ++f)
      for (int y = 0; y < OH; ++y)
        for (int x = 0; x < OW; ++x) {
          T acc = 0;
          for (int c = 0; c < p.C; ++c)
            for (int r = 0; r < p.R; ++r)
              for (int s = 0; s < p.S; ++s) {
                int iy = y * p.stride + r - p.ph, ix = x * p.stride + s - p.pw;
                if (iy < 0 || iy >= p.H || ix < 0 || ix >= p.W) continue;
                acc += in[((size_t(n) * p.C + c) * p.H + iy) * p.W + ix] *
                       w[((size_t(f) * p.C + c) * p.R + r) * p.S + s];
              }
          out[((size_t(n) * p.K + f) * OH + y) * OW + x] = acc;
        }
  return out;
}

template <typename T>
Tolerance conv_tolerance(int terms) {
  if constexpr (std::is_same_v<T, float>)
    return {2e-6 * terms, 1e-5};
  else if constexpr (std::is_same_v<T, double>)
    return {1e-14 * terms, 1e-12};
  else
    return {0, 0};
}

template <typename T>
NDArray conv_input(const std::vector<int64_t> &shape, uint64_t seed) {
  return std::is_integral_v<T> ? random_array<T>(shape, seed, -10.0, 10.0) : random_array<T>(shape, seed);
}

template <typename T>
void check_direct_conv(const ConvCase &p) {
  const Type t = dtype_of<T>();
  const int OH = p.OH(), OW = p.OW();
  Tensor I = placeholder({p.N, p.C, p.H, p.W}, t, "I");
  Tensor Wt = placeholder({p.K, p.C, p.R, p.S}, t, "Wt");
  IterVar rc = reduce_axis({0, p.C}, "rc"), ry = reduce_axis({0, p.R}, "ry"),
          rx = reduce_axis({0, p.S}, "rx");
  Tensor O = compute(
      {p.N, p.K, OH, OW},
      [&](Var n, Var f, Var y, Var x) {
        Expr iy = y * p.stride + ry - p.ph;
        Expr ix = x * p.stride + rx - p.pw;
        Expr inside = iy >= 0 && iy < p.H && ix >= 0 && ix < p.W;
        Expr v = select(inside, I(n, rc, clamp(iy, p.H), clamp(ix, p.W)), 0);
        return sum(v * Wt(f, rc, ry, rx), {rc, ry, rx});
      },
      "conv");
  Kernel k = build_kernel({O}, {I, Wt, O}, "conv2d");
  INFO("lowered:\n" << k.lowered);
  NDArray in = conv_input<T>({p.N, p.C, p.H, p.W}, 301), w = conv_input<T>({p.K, p.C, p.R, p.S}, 302);
  NDArray out = NDArray::empty({p.N, p.K, OH, OW}, t);
  k(in, w, out);
  check_close<T>(out, conv_reference(p, in.to_vector<T>(), w.to_vector<T>()),
                 conv_tolerance<T>(p.C * p.R * p.S));
}

}  // namespace

TEMPLATE_TEST_CASE("direct conv2d with stride 2 and padding 1 as one compute matches naive loops",
                   "[correctness][conv]", float, double, int32_t) {
  check_direct_conv<TestType>({1, 3, 13, 13, 4, 3, 3, 2, 1, 1});
}

TEST_CASE("direct conv2d with a rectangular kernel and batch 2 and uneven padding", "[correctness][conv]") {
  check_direct_conv<float>({2, 5, 9, 11, 3, 5, 3, 1, 2, 1});
}

TEST_CASE("direct conv2d 1x1 without padding", "[correctness][conv]") {
  check_direct_conv<float>({1, 16, 7, 7, 8, 1, 1, 1, 0, 0});
}

TEST_CASE("conv2d as a padding stage followed by a convolution stage", "[correctness][conv][pipeline]") {
  const ConvCase p{1, 3, 13, 13, 4, 3, 3, 2, 1, 1};
  const int OH = p.OH(), OW = p.OW();
  Tensor I = placeholder({p.N, p.C, p.H, p.W}, Float(32), "I");
  Tensor Wt = placeholder({p.K, p.C, p.R, p.S}, Float(32), "Wt");
  Tensor Pad = compute(
      {p.N, p.C, p.H + 2 * p.ph, p.W + 2 * p.pw},
      [&](Var n, Var c, Var y, Var x) {
        Expr inside = y >= p.ph && y < p.H + p.ph && x >= p.pw && x < p.W + p.pw;
        return select(inside, I(n, c, clamp(y - p.ph, p.H), clamp(x - p.pw, p.W)), 0.0f);
      },
      "Pad");
  IterVar rc = reduce_axis({0, p.C}, "rc"), ry = reduce_axis({0, p.R}, "ry"),
          rx = reduce_axis({0, p.S}, "rx");
  Tensor O = compute(
      {p.N, p.K, OH, OW},
      [&](Var n, Var f, Var y, Var x) {
        return sum(Pad(n, rc, y * p.stride + ry, x * p.stride + rx) * Wt(f, rc, ry, rx), {rc, ry, rx});
      },
      "conv");
  Kernel k = build_kernel({O}, {I, Wt, O}, "pad_conv");
  INFO("lowered:\n" << k.lowered);
  NDArray in = random_array<float>({p.N, p.C, p.H, p.W}, 311),
          w = random_array<float>({p.K, p.C, p.R, p.S}, 312);
  NDArray out = NDArray::empty({p.N, p.K, OH, OW}, Float(32));
  k(in, w, out);
  check_close<float>(out, conv_reference(p, in.to_vector<float>(), w.to_vector<float>()),
                     conv_tolerance<float>(p.C * p.R * p.S));
}

TEST_CASE("3x3 max pooling with stride 2 skips the padding through a reduction condition",
          "[correctness][conv][reduce][condition]") {
  const int N = 2, C = 3, H = 13, W = 10, OH = (H + 2 - 3) / 2 + 1, OW = (W + 2 - 3) / 2 + 1;
  Tensor I = placeholder({N, C, H, W}, Float(32), "I");
  IterVar ry = reduce_axis({0, 3}, "ry"), rx = reduce_axis({0, 3}, "rx");
  Tensor P = compute(
      {N, C, OH, OW},
      [&](Var n, Var c, Var y, Var x) {
        Expr iy = y * 2 + ry - 1, ix = x * 2 + rx - 1;
        Expr inside = iy >= 0 && iy < H && ix >= 0 && ix < W;
        return max(I(n, c, clamp(iy, H), clamp(ix, W)), {ry, rx}, inside);
      },
      "pool");
  Kernel k = build_kernel({P}, {I, P}, "maxpool");
  INFO("lowered:\n" << k.lowered);
  NDArray in = random_array<float>({N, C, H, W}, 321);
  NDArray out = NDArray::empty({N, C, OH, OW}, Float(32));
  k(in, out);
  std::vector<float> iv = in.to_vector<float>(), ref(size_t(N) * C * OH * OW);
  for (int n = 0; n < N; ++n)
    for (int c = 0; c < C; ++c)
      for (int y = 0; y < OH; ++y)
        for (int x = 0; x < OW; ++x) {
          float m = std::numeric_limits<float>::lowest();
          for (int r = 0; r < 3; ++r)
            for (int s = 0; s < 3; ++s) {
              int iy = y * 2 + r - 1, ix = x * 2 + s - 1;
              if (iy >= 0 && iy < H && ix >= 0 && ix < W)
                m = std::max(m, iv[((n * C + c) * H + iy) * W + ix]);
            }
          ref[((n * C + c) * OH + y) * OW + x] = m;
        }
  check_close<float>(out, ref, {0, 0});
}
