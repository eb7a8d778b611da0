// Helpers of the tuning tests: the reference convolution of a workload, the packing of
// operands into the layouts a task's kernel takes, and running a task's kernel.
#pragma once
#include <tensorir/autotune.h>
#include <tensorir/build.h>
#include <tensorir/ops/winograd.h>
#include <tensorir/runtime/ndarray.h>

#include <catch2/catch.hpp>
#include <cmath>
#include <nlohmann/json.hpp>
#include <random>
#include <vector>

#include "graph/graph_test_util.h"
#include "reference/layers.h"

namespace tensorir::autotune_test {

using graph_test::max_rel_error;

using nlohmann::json;

// n values uniform in [-1, 1).
inline std::vector<float> random_vector(size_t n, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<float> u(-1.f, 1.f);
  std::vector<float> v(n);
  for (float &x : v) x = u(rng);
  return v;
}

// A batch-1 convolution of square kernels, strides and padding, as the reference layer
// (test/reference) computes them.
struct ConvCase {
  int64_t N, C, H, W, K, R, S, groups, stride, pad;
  int64_t OH() const { return (H + 2 * pad - R) / stride + 1; }
  int64_t OW() const { return (W + 2 * pad - S) / stride + 1; }
};

// The convolution a conv2d workload key describes.
inline ConvCase conv_case(const std::string &workload) {
  const json j = json::parse(workload);
  const auto d = j["inputs"][0]["shape"].get<std::vector<int64_t>>();
  const auto w = j["inputs"][1]["shape"].get<std::vector<int64_t>>();
  const json &a = j["attrs"];
  const auto st = a["strides"].get<std::vector<int64_t>>(), pa = a["padding"].get<std::vector<int64_t>>(),
             di = a["dilation"].get<std::vector<int64_t>>();
  REQUIRE((d[0] == 1 && w[2] == w[3] && st[0] == st[1] && pa[0] == pa[1] && di == std::vector<int64_t>{1, 1}));
  return {d[0], d[1], d[2], d[3], w[0], w[2], w[3], a["groups"].get<int64_t>(), st[0], pa[0]};
}

// NCHW data, OIHW weight -> NCHW, by the reference layer.
inline std::vector<float> conv_reference(const ConvCase &c, const std::vector<float> &x, const std::vector<float> &w) {
  const reference::NamedTensor weight{"w", {c.K, c.C / c.groups, c.R, c.S}, w};
  return reference::conv2d({c.C, c.H, c.W, x}, weight, c.stride, c.pad, c.groups).data;
}

// NCHW [N][C][H][W] -> NCHW<b>c [N][C/b][H][W][b].
inline std::vector<float> block_data(const std::vector<float> &x, int64_t N, int64_t C, int64_t HW, int64_t b) {
  std::vector<float> out(x.size());
  for (int64_t n = 0; n < N; ++n)
    for (int64_t c = 0; c < C; ++c)
      for (int64_t p = 0; p < HW; ++p) out[size_t(((n * (C / b) + c / b) * HW + p) * b + c % b)] = x[size_t((n * C + c) * HW + p)];
  return out;
}

// The inverse of block_data.
inline std::vector<float> unblock_data(const std::vector<float> &x, int64_t N, int64_t C, int64_t HW, int64_t b) {
  std::vector<float> out(x.size());
  for (int64_t n = 0; n < N; ++n)
    for (int64_t c = 0; c < C; ++c)
      for (int64_t p = 0; p < HW; ++p) out[size_t((n * C + c) * HW + p)] = x[size_t(((n * (C / b) + c / b) * HW + p) * b + c % b)];
  return out;
}

// OIHW [K][Cg][R][S] -> [K'/co][Cg/ci][R][S][ci][co], K padded with zeros to whole blocks.
inline std::vector<float> pack_weight(const std::vector<float> &w, int64_t K, int64_t Cg, int64_t RS, int64_t ci,
                                      int64_t co) {
  std::vector<float> out(size_t((K + co - 1) / co * co * Cg * RS));
  for (int64_t k = 0; k < K; ++k)
    for (int64_t c = 0; c < Cg; ++c)
      for (int64_t p = 0; p < RS; ++p)
        out[size_t((((k / co) * (Cg / ci) + c / ci) * RS + p) * ci * co + (c % ci) * co + k % co)] =
            w[size_t((k * Cg + c) * RS + p)];
  return out;
}

inline std::vector<int64_t> shape_of(const BuildArg &a) {
  std::vector<int64_t> s;
  for (const Expr &e : a.tensor().shape()) s.push_back(*as_const_int(e));
  return s;
}

// Builds `inst` for `target` (a CPU target), runs it on `inputs` and returns its result.
inline std::vector<float> run_instance(const autotune::Instance &inst, const std::vector<std::vector<float>> &inputs,
                                       const std::string &target = "llvm") {
  Module m = build(inst.schedule, inst.args, target, inst.name);
  std::vector<NDArray> arrays;
  for (size_t i = 0; i < inputs.size(); ++i) arrays.push_back(NDArray::from_vector(inputs[i], shape_of(inst.args[i])));
  const std::vector<int64_t> out_shape = shape_of(inst.args.back());
  NDArray out = NDArray::empty(out_shape, Float(32));
  std::vector<Arg> args(arrays.begin(), arrays.end());
  args.emplace_back(out);
  m(inst.name).call(args);
  return out.to_vector<float>();
}

// OIHW [K][C][3][3] -> Winograd's transformed weight U [alpha][alpha][K/b][C][b] of shape
// `us`: G g G^T by plain loops.
inline std::vector<float> winograd_weight(const std::vector<float> &w, const std::vector<int64_t> &us) {
  const ops::WinogradMatrices t = ops::winograd_matrices(int(us[0]) - 2);
  const int64_t a = us[0], b = us[4], K = us[2] * b, C = us[3];
  std::vector<float> out(size_t(a * a * K * C));
  for (int64_t k = 0; k < K; ++k)
    for (int64_t c = 0; c < C; ++c)
      for (int64_t i = 0; i < a; ++i)
        for (int64_t j = 0; j < a; ++j) {
          double sum = 0;
          for (int64_t p = 0; p < 3; ++p)
            for (int64_t q = 0; q < 3; ++q)
              sum += t.G[size_t(i * 3 + p)] * w[size_t(((k * C + c) * 3 + p) * 3 + q)] * t.G[size_t(j * 3 + q)];
          out[size_t((((i * a + j) * (K / b) + k / b) * C + c) * b + k % b)] = float(sum);
        }
  return out;
}

// Runs conv2d instance `inst` of case `c` on NCHW data `x` and OIHW weight `w`, each given
// in the layout its kernel takes (blocked data, packed or Winograd-transformed weight);
// returns the result as NCHW.
inline std::vector<float> run_conv_instance(const autotune::Instance &inst, const ConvCase &c,
                                            const std::vector<float> &x, const std::vector<float> &w) {
  REQUIRE(inst.args.size() == 3);
  const std::vector<int64_t> ds = shape_of(inst.args[0]), ws = shape_of(inst.args[1]), os = shape_of(inst.args[2]);
  const std::vector<float> data = ds.size() == 5 ? block_data(x, c.N, c.C, c.H * c.W, ds[4]) : x;
  std::vector<float> weight = w;
  if (ws.size() == 6) weight = pack_weight(w, c.K, c.C / c.groups, c.R * c.S, ws[4], ws[5]);
  if (ws.size() == 5) weight = winograd_weight(w, ws);
  std::vector<float> got = run_instance(inst, {data, weight});
  return os.size() == 5 ? unblock_data(got, c.N, c.K, c.OH() * c.OW(), os[4]) : got;
}

}  // namespace tensorir::autotune_test
