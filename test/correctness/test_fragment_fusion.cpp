// Fragment-shader kernels ("opengl -mode=fragment", the codegen of "webgl"): element-wise epilogues
// computed in the pass of the reduction they read, unrolled reductions, and reads whose
// texel and channel the index arithmetic decides, on odd shapes, against plain C++.
#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include <tensorir/ops/nn.h>
#include <tensorir/ops/schedule.h>

#include "correctness/reference.h"

using namespace tensorir;
using namespace tensorir::testing;

#if TENSORIR_WITH_OPENGL

namespace {

#define FUSION_TARGETS GENERATE(as<std::string>{}, "opengl -mode=fragment", "opengl -mode=fragment -pack=0")

NDArray on_gl(const NDArray &a) { return a.to(Device::opengl()); }

// The fragment shaders of a module (each pass's source starts with its version line).
size_t passes(const Module &m) {
  std::string src = m.source("glsl");
  size_t count = 0;
  for (size_t p = src.find("#version 300 es"); p != std::string::npos; p = src.find("#version 300 es", p + 1))
    ++count;
  return count;
}

// out[n, f, y, x] = relu(sum conv(I, W) + bias[f] + res[n, f, y, x]) with zero padding
// read through a guard and clamped indices (as the operator library pads).
struct ConvCase {
  int N, C, H, W, K, R, S, stride, pad;
  int OH() const { return (H + 2 * pad - R) / stride + 1; }
  int OW() const { return (W + 2 * pad - S) / stride + 1; }
};

void check_conv_epilogue(const std::string &target, const ConvCase &c, uint64_t seed, unsigned web_passes = 1) {
  INFO("target " << target << ", C=" << c.C << " H=" << c.H << " W=" << c.W << " K=" << c.K << " R=" << c.R
                 << " stride=" << c.stride);
  const int OH = c.OH(), OW = c.OW();
  Tensor I = placeholder({c.N, c.C, c.H, c.W}, Float(32), "I");
  Tensor Wt = placeholder({c.K, c.C, c.R, c.S}, Float(32), "Wt");
  Tensor B = placeholder({c.K}, Float(32), "B");
  Tensor Res = placeholder({c.N, c.K, OH, OW}, Float(32), "Res");
  IterVar rc = reduce_axis({0, c.C}, "rc"), ry = reduce_axis({0, c.R}, "ry"), rx = reduce_axis({0, c.S}, "rx");
  Tensor Conv = compute(
      {c.N, c.K, OH, OW},
      [&](Var n, Var f, Var y, Var x) {
        Expr iy = y * c.stride + ry - c.pad, ix = x * c.stride + rx - c.pad;
        Expr inside = iy >= 0 && iy < c.H && ix >= 0 && ix < c.W;
        Expr cy = min(max(iy, 0), c.H - 1), cx = min(max(ix, 0), c.W - 1);
        return sum(if_then_else(inside, I(n, rc, cy, cx), 0.0f) * Wt(f, rc, ry, rx), {rc, ry, rx});
      },
      "Conv");
  Tensor Out = compute(
      {c.N, c.K, OH, OW},
      [&](Var n, Var f, Var y, Var x) { return max(Conv(n, f, y, x) + B(f) + Res(n, f, y, x), 0.0f); }, "Out");
  Module m = build(create_schedule({Out}), {I, Wt, B, Res, Out}, target, "conv_relu");
  // The convolution and its epilogue are one pass (on webgl, where texel rows are rows
  // of the output, computing several texels per fragment, and one that interleaves them).
  const bool web = target.rfind("webgl", 0) == 0;
  CHECK(passes(m) == (web ? web_passes : 1u));
  auto on_device = [&](const NDArray &a) { return web ? a : on_gl(a); };

  NDArray in = NDArray::random({c.N, c.C, c.H, c.W}, Float(32), seed);
  NDArray w = NDArray::random({c.K, c.C, c.R, c.S}, Float(32), seed + 1);
  NDArray b = NDArray::random({c.K}, Float(32), seed + 2);
  NDArray res = NDArray::random({c.N, c.K, OH, OW}, Float(32), seed + 3);
  NDArray out = NDArray::empty({c.N, c.K, OH, OW}, Float(32), web ? Device::cpu() : Device::opengl());
  m("conv_relu")(on_device(in), on_device(w), on_device(b), on_device(res), out);
  std::vector<float> iv = in.to_vector<float>(), wv = w.to_vector<float>(), bv = b.to_vector<float>(),
                     rv = res.to_vector<float>(), ref;
  for (int n = 0; n < c.N; ++n)
    for (int f = 0; f < c.K; ++f)
      for (int y = 0; y < OH; ++y)
        for (int x = 0; x < OW; ++x) {
          double acc = 0;
          for (int ch = 0; ch < c.C; ++ch)
            for (int r = 0; r < c.R; ++r)
              for (int s = 0; s < c.S; ++s) {
                int iy = y * c.stride + r - c.pad, ix = x * c.stride + s - c.pad;
                if (iy < 0 || iy >= c.H || ix < 0 || ix >= c.W) continue;
                acc += double(iv[((size_t(n) * c.C + ch) * c.H + iy) * c.W + ix]) *
                       wv[((size_t(f) * c.C + ch) * c.R + r) * c.S + s];
              }
          acc += bv[f] + rv[((size_t(n) * c.K + f) * OH + y) * OW + x];
          ref.push_back(float(std::max(acc, 0.0)));
        }
  check_close<float>(out.to(Device::cpu()).to_vector<float>(), ref, Tolerance{1e-5, 1e-5});
}

}  // namespace

TEST_CASE("fragment fusion: conv + bias + residual + relu is one pass on odd shapes", "[opengl][fragment][fusion]") {
  const std::string target = FUSION_TARGETS;
  // Rows a multiple of 4 wide; 14 x 14 and 7 x 7 planes (texels straddle rows, and for
  // 7 x 7 channels); stride 2; channel counts that do not divide into blocks of 4; a
  // 5 x 5 window; a single output channel.
  check_conv_epilogue(target, {1, 8, 8, 8, 4, 3, 3, 1, 1}, 10);
  check_conv_epilogue(target, {1, 12, 14, 14, 8, 3, 3, 1, 1}, 20);
  check_conv_epilogue(target, {2, 6, 7, 7, 5, 3, 3, 1, 1}, 30);
  check_conv_epilogue(target, {1, 5, 15, 13, 3, 3, 3, 2, 1}, 40);
  check_conv_epilogue(target, {1, 3, 11, 9, 2, 5, 5, 2, 2}, 50);
  check_conv_epilogue(target, {1, 7, 6, 10, 1, 1, 1, 1, 0}, 60);
}

TEST_CASE("fragment fusion: a dense layer with bias and an odd reduction length", "[opengl][fragment][fusion]") {
  const std::string target = FUSION_TARGETS;
  for (int K : {37, 64, 300}) {
    INFO("target " << target << ", K=" << K);
    const int M = 3, N = 10;
    Tensor X = placeholder({M, K}, Float(32), "X"), Wt = placeholder({N, K}, Float(32), "W");
    Tensor B = placeholder({N}, Float(32), "B");
    IterVar k = reduce_axis({0, K}, "k");
    Tensor D = compute({M, N}, [&](Var i, Var j) { return sum(X(i, k) * Wt(j, k), {k}); }, "D");
    Tensor Y = compute({M, N}, [&](Var i, Var j) { return D(i, j) + B(j); }, "Y");
    Module m = build(create_schedule({Y}), {X, Wt, B, Y}, target, "dense");
    CHECK(passes(m) == 1);
    NDArray x = NDArray::random({M, K}, Float(32), 70), w = NDArray::random({N, K}, Float(32), 71),
            b = NDArray::random({N}, Float(32), 72);
    NDArray y = NDArray::empty({M, N}, Float(32), Device::opengl());
    m("dense")(on_gl(x), on_gl(w), on_gl(b), y);
    std::vector<float> xv = x.to_vector<float>(), wv = w.to_vector<float>(), bv = b.to_vector<float>(), ref;
    for (int i = 0; i < M; ++i)
      for (int j = 0; j < N; ++j) {
        double acc = bv[j];
        for (int kk = 0; kk < K; ++kk) acc += double(xv[i * K + kk]) * wv[j * K + kk];
        ref.push_back(float(acc));
      }
    check_close<float>(y.to(Device::cpu()).to_vector<float>(), ref, Tolerance{1e-5, 1e-5});
  }
}

TEST_CASE("fragment fusion: a reduction read elsewhere than at the consumer's index keeps its pass",
          "[opengl][fragment][fusion]") {
  const std::string target = FUSION_TARGETS;
  INFO("target " << target);
  const int M = 9, K = 6;
  Tensor A = placeholder({M, K}, Float(32), "A");
  IterVar k = reduce_axis({0, K}, "k");
  Tensor S = compute({M}, [&](Var i) { return sum(A(i, k), {k}); }, "S");
  // Reversed: each element reads another's sum, so S is computed once, in its own pass.
  Tensor R = compute({M}, [&](Var i) { return S(M - 1 - i) * 2.0f + S(i); }, "R");
  Module m = build(create_schedule({R}), {A, R}, target, "rev");
  CHECK(passes(m) == 2);
  NDArray a = NDArray::random({M, K}, Float(32), 80);
  NDArray r = NDArray::empty({M}, Float(32), Device::opengl());
  m("rev")(on_gl(a), r);
  std::vector<float> av = a.to_vector<float>(), sums, ref;
  for (int i = 0; i < M; ++i) {
    double s = 0;
    for (int kk = 0; kk < K; ++kk) s += av[i * K + kk];
    sums.push_back(float(s));
  }
  for (int i = 0; i < M; ++i) ref.push_back(sums[M - 1 - i] * 2.0f + sums[i]);
  check_close<float>(r.to(Device::cpu()).to_vector<float>(), ref, Tolerance{1e-5, 1e-5});
}

namespace {

// A blocked convolution as the graph compiles it for "webgl" (NCHW4c data, OIHW4i4o
// weights, ops::conv2d_packed_direct) with a bias + residual + relu epilogue, run
// natively; each fragment of its pass computes up to -draw-buffers texels of a row.
struct BlockedCase {
  int C, H, W, K, R, stride, pad;
  int OH() const { return (H + 2 * pad - R) / stride + 1; }
  int OW() const { return (W + 2 * pad - R) / stride + 1; }
};

void check_blocked_conv(const std::string &target, const BlockedCase &c, int render_targets, uint64_t seed) {
  INFO("target " << target << ", C=" << c.C << " H=" << c.H << " W=" << c.W << " K=" << c.K << " R=" << c.R
                 << " stride=" << c.stride);
  const int CB = c.C / 4, KB = c.K / 4, OH = c.OH(), OW = c.OW();
  Tensor I = placeholder({1, CB, c.H, c.W, 4}, Float(32), "I");
  Tensor Wt = placeholder({KB, CB, c.R, c.R, 4, 4}, Float(32), "Wt");
  Tensor B = placeholder({1, KB, 1, 1, 4}, Float(32), "B");
  Tensor Res = placeholder({1, KB, OH, OW, 4}, Float(32), "Res");
  ops::Conv2dAttrs a;
  a.strides = {c.stride, c.stride};
  a.padding = {c.pad, c.pad};
  Tensor Conv = ops::conv2d_packed_direct(I, Wt, a, true, "Conv");
  Tensor Out = compute(
      {1, KB, OH, OW, 4},
      [&](Var n, Var k, Var y, Var x, Var o) {
        return max(Conv(n, k, y, x, o) + B(0, k, 0, 0, o) + Res(n, k, y, x, o), 0.0f);
      },
      "Out");
  Module m = build(ops::schedule_generic({Out}), {I, Wt, B, Res, Out}, target, "blocked_conv");
  // One pass with a render target per texel of the fragment, and one that interleaves them.
  const std::string src = m.source("glsl");
  CHECK(passes(m) == (render_targets > 1 ? 2u : 1u));
  CHECK(src.find("layout(location = " + std::to_string(render_targets - 1) + ")") != std::string::npos);
  CHECK(src.find("layout(location = " + std::to_string(render_targets) + ")") == std::string::npos);

  NDArray in = NDArray::random({1, CB, c.H, c.W, 4}, Float(32), seed);
  NDArray w = NDArray::random({KB, CB, c.R, c.R, 4, 4}, Float(32), seed + 1);
  NDArray b = NDArray::random({1, KB, 1, 1, 4}, Float(32), seed + 2);
  NDArray res = NDArray::random({1, KB, OH, OW, 4}, Float(32), seed + 3);
  NDArray out = NDArray::empty({1, KB, OH, OW, 4}, Float(32));
  m("blocked_conv")(in, w, b, res, out);
  std::vector<float> iv = in.to_vector<float>(), wv = w.to_vector<float>(), bv = b.to_vector<float>(),
                     rv = res.to_vector<float>(), ref;
  for (int k = 0; k < c.K; ++k)
    for (int y = 0; y < OH; ++y)
      for (int x = 0; x < OW; ++x) {
        double acc = 0;
        for (int ch = 0; ch < c.C; ++ch)
          for (int r = 0; r < c.R; ++r)
            for (int s = 0; s < c.R; ++s) {
              int iy = y * c.stride + r - c.pad, ix = x * c.stride + s - c.pad;
              if (iy < 0 || iy >= c.H || ix < 0 || ix >= c.W) continue;
              acc += double(iv[((size_t(ch / 4) * c.H + iy) * c.W + ix) * 4 + ch % 4]) *
                     wv[((((size_t(k / 4) * CB + ch / 4) * c.R + r) * c.R + s) * 4 + ch % 4) * 4 + k % 4];
            }
        acc += bv[k] + rv[((size_t(k / 4) * OH + y) * OW + x) * 4 + k % 4];
        ref.push_back(float(std::max(acc, 0.0)));
      }
  // ref is in NCHW order; the result is NCHW4c.
  std::vector<float> got = out.to_vector<float>(), ordered;
  for (int k = 0; k < c.K; ++k)
    for (int y = 0; y < OH; ++y)
      for (int x = 0; x < OW; ++x) ordered.push_back(got[((size_t(k / 4) * OH + y) * OW + x) * 4 + k % 4]);
  check_close<float>(ordered, ref, Tolerance{1e-5, 1e-5});
}

}  // namespace

TEST_CASE("webgl: a blocked convolution computes several texels of a row per fragment", "[webgl][fragment][fusion]") {
  // Rows whose length the texels per fragment divide (8, 16) and do not (7, 14, 5: the
  // last fragment of a row computes texels past its end); stride 2; 1 x 1 and 5 x 5
  // windows; rows that are one plane row (W) or a whole plane (H * W, small planes).
  for (int targets : {1, 2, 4, 8}) {
    const std::string target = targets == 4 ? "webgl" : "webgl -draw-buffers=" + std::to_string(targets);
    check_blocked_conv(target, {8, 16, 16, 8, 3, 1, 1}, targets, 100);
    check_blocked_conv(target, {4, 7, 7, 8, 3, 1, 1}, targets, 110);
    check_blocked_conv(target, {8, 14, 14, 4, 3, 2, 1}, targets, 120);
    check_blocked_conv(target, {4, 10, 10, 4, 1, 2, 0}, targets, 130);
    check_blocked_conv(target, {4, 9, 13, 4, 5, 1, 2}, targets, 140);
  }
  // Textures of at most 8 texels a side.
  check_blocked_conv("webgl -max-texture-size=8", {4, 4, 4, 4, 3, 1, 1}, 4, 150);
}

TEST_CASE("webgl: a plain NCHW convolution computes several texels of a row per fragment",
          "[webgl][fragment][fusion]") {
  // Rows of 3 texels of 4 elements (a fragment's 4 texels pass the row's end) and of 4;
  // texel rows that are whole planes of one texel per plane row (the texels of a fragment
  // are neighbours along y); and a plane whose elements do not fill texels by rows, one
  // texel per fragment.
  check_conv_epilogue("webgl", {1, 5, 12, 12, 6, 3, 3, 1, 1}, 150, 2);
  check_conv_epilogue("webgl -draw-buffers=8", {2, 3, 9, 16, 5, 3, 3, 1, 1}, 160, 2);
  check_conv_epilogue("webgl", {1, 3, 8, 4, 2, 3, 3, 1, 1}, 170, 2);
  check_conv_epilogue("webgl", {1, 4, 17, 33, 3, 3, 3, 2, 1}, 180, 1);
}

TEST_CASE("webgl: -draw-buffers must be 1, 2, 4 or 8", "[webgl][fragment]") {
  Tensor A = placeholder({4, 4}, Float(32), "A");
  Tensor R = compute({4, 4}, [&](Var i, Var j) { return A(i, j) + 1.0f; }, "R");
  for (const char *bad : {"webgl -draw-buffers=3", "webgl -draw-buffers=16", "webgl -draw-buffers=0"})
    CHECK_THROWS_WITH(build(create_schedule({R}), {A, R}, bad, "plus_one"),
                      Catch::Matchers::Contains("draw-buffers"));
}

#endif  // TENSORIR_WITH_OPENGL
