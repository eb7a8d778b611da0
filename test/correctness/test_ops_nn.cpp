// The operator library's neural-network ops (ops/nn.h) and their schedules against plain
// C++ loops in double precision, on random data with odd sizes.
#include <tensorir/ops/nn.h>
#include <tensorir/ops/schedule.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "correctness/reference.h"
#include "correctness/target_runner.h"

using namespace tensorir;
using namespace tensorir::testing;
using Catch::Contains;

namespace {

using Shape = std::vector<int64_t>;

// Builds `s` for `target`, calls it with `inputs` and a fresh output of out's shape,
// and returns the output.
NDArray run(const Schedule &s, const std::vector<Tensor> &ins, const Tensor &out, const std::vector<NDArray> &inputs,
            const std::string &target = "llvm") {
  std::vector<BuildArg> args(ins.begin(), ins.end());
  args.push_back(out);
  Shape shape;
  for (const Expr &d : out.shape()) shape.push_back(*as_const_int(d));
  std::vector<Arg> host(inputs.begin(), inputs.end());
  host.push_back(NDArray::empty(shape, out.dtype()));
  INFO("lowered:\n" << lowered_text(s, args, "op"));
  return run_on_target(target, s, args, "op", host).back();
}

NDArray run_generic(const std::vector<Tensor> &ins, const Tensor &out, const std::vector<NDArray> &inputs,
                    const std::string &target = "llvm") {
  return run(ops::schedule_generic({out}), ins, out, inputs, target);
}

struct ConvCase {
  int N, C, H, W, K, R, S;
  ops::Conv2dAttrs a;
  int OH() const { return (H + 2 * a.padding[0] - a.dilation[0] * (R - 1) - 1) / a.strides[0] + 1; }
  int OW() const { return (W + 2 * a.padding[1] - a.dilation[1] * (S - 1) - 1) / a.strides[1] + 1; }
};

std::vector<double> conv_ref(const ConvCase &p, const std::vector<float> &in, const std::vector<float> &w) {
  const int OH = p.OH(), OW = p.OW(), cg = p.C / p.a.groups, kg = p.K / p.a.groups;
  std::vector<double> out(size_t(p.N) * p.K * OH * OW);
  for (int n = 0; n < p.N; ++n)
    for (int k = 0; k < p.K; ++k)
      for (int y = 0; y < OH; ++y)
        for (int x = 0; x < OW; ++x) {
          double acc = 0;
          for (int rc = 0; rc < cg; ++rc)
            for (int r = 0; r < p.R; ++r)
              for (int s = 0; s < p.S; ++s) {
                const int c = (k / kg) * cg + rc;
                const int iy = y * p.a.strides[0] + r * p.a.dilation[0] - p.a.padding[0];
                const int ix = x * p.a.strides[1] + s * p.a.dilation[1] - p.a.padding[1];
                if (iy < 0 || iy >= p.H || ix < 0 || ix >= p.W) continue;
                acc += double(in[((size_t(n) * p.C + c) * p.H + iy) * p.W + ix]) *
                       w[((size_t(k) * cg + rc) * p.R + r) * p.S + s];
              }
          out[((size_t(n) * p.K + k) * OH + y) * OW + x] = acc;
        }
  return out;
}

enum class ConvKind { Generic, Direct, Blocked };

void check_conv(const ConvCase &p, ConvKind kind, const std::string &target = "llvm") {
  Tensor I = placeholder({p.N, p.C, p.H, p.W}, Float(32), "data");
  Tensor Wt = placeholder({p.K, p.C / p.a.groups, p.R, p.S}, Float(32), "weight");
  Tensor O = kind == ConvKind::Blocked ? ops::conv2d_nchwc(I, Wt, p.a) : ops::conv2d(I, Wt, p.a);
  Schedule s = kind == ConvKind::Generic ? ops::schedule_generic({O}) : ops::schedule_conv2d_llvm(O);
  NDArray in = random_array<float>({p.N, p.C, p.H, p.W}, 401);
  NDArray w = random_array<float>({p.K, p.C / p.a.groups, p.R, p.S}, 402);
  NDArray out = run(s, {I, Wt}, O, {in, w}, target);
  REQUIRE(out.shape() == Shape{p.N, p.K, p.OH(), p.OW()});
  const double terms = double(p.C / p.a.groups) * p.R * p.S;
  check_close<float>(out, conv_ref(p, in.to_vector<float>(), w.to_vector<float>()), {2e-6 * terms, 1e-5});
}

ops::Conv2dAttrs attrs(std::array<int, 2> strides, std::array<int, 2> padding, std::array<int, 2> dilation = {1, 1},
                       int groups = 1) {
  ops::Conv2dAttrs a;
  a.strides = strides;
  a.padding = padding;
  a.dilation = dilation;
  a.groups = groups;
  return a;
}

std::vector<float> host(const NDArray &a) { return a.to_vector<float>(); }

}  // namespace

TEST_CASE("ops conv2d with stride, padding, dilation and groups matches naive loops", "[correctness][ops][conv]") {
  const std::vector<ConvCase> cases = {
      {2, 5, 11, 9, 4, 3, 3, attrs({2, 2}, {1, 1})},                 // stride 2, batch 2
      {1, 6, 10, 13, 4, 3, 2, attrs({1, 2}, {2, 1}, {2, 1}, 2)},    // dilation, 2 groups
      {1, 8, 9, 9, 8, 3, 3, attrs({1, 1}, {1, 1}, {1, 1}, 8)},      // depthwise
      {1, 6, 7, 7, 12, 5, 5, attrs({2, 2}, {2, 2}, {1, 1}, 6)},     // depthwise, multiplier 2
      {1, 7, 6, 5, 3, 1, 1, attrs({1, 1}, {0, 0})},                 // 1x1, no padding
      {1, 6, 10, 16, 10, 3, 3, attrs({1, 1}, {1, 1})},              // vectors of 16 columns
      {2, 8, 8, 8, 8, 3, 3, attrs({1, 1}, {1, 1}, {1, 1}, 8)},      // depthwise, vectors of 8
  };
  for (size_t i = 0; i < cases.size(); ++i) {
    INFO("case " << i);
    check_conv(cases[i], ConvKind::Generic);
    check_conv(cases[i], ConvKind::Direct);  // schedule_conv2d_llvm on plain conv2d
  }
}

TEST_CASE("ops conv2d_nchwc with the tuned CPU schedule matches naive loops", "[correctness][ops][conv]") {
  check_conv({1, 3, 13, 11, 5, 3, 3, attrs({2, 2}, {1, 1})}, ConvKind::Blocked);       // blocks of 3 and 5
  check_conv({2, 32, 9, 10, 48, 3, 3, attrs({1, 1}, {1, 1})}, ConvKind::Blocked);      // 16-channel blocks
  check_conv({1, 24, 8, 9, 40, 3, 2, attrs({1, 2}, {2, 0}, {2, 1})}, ConvKind::Blocked);  // dilation, 8-blocks
  check_conv({1, 32, 9, 9, 32, 3, 3, attrs({1, 1}, {1, 1})}, ConvKind::Generic);
}

TEST_CASE("ops conv2d tuned schedule at ResNet shapes", "[correctness][ops][conv][resnet]") {
  ConvCase layer{1, 64, 56, 56, 64, 3, 3, attrs({1, 1}, {1, 1})};
  check_conv(layer, ConvKind::Blocked);
  ConvCase stem{1, 3, 112, 112, 64, 7, 7, attrs({2, 2}, {3, 3})};  // the 224x224 stem at half size
  check_conv(stem, ConvKind::Blocked);
}

TEST_CASE("ops dense with the generic and the CPU schedule matches naive loops", "[correctness][ops][dense]") {
  for (auto [N, K, M] : std::vector<std::array<int, 3>>{{3, 37, 48}, {1, 64, 10}, {5, 17, 13}}) {
    INFO("N " << N << " K " << K << " M " << M);
    Tensor D = placeholder({N, K}, Float(32), "data"), Wt = placeholder({M, K}, Float(32), "weight");
    NDArray d = random_array<float>({N, K}, 411), w = random_array<float>({M, K}, 412);
    std::vector<double> ref(size_t(N) * M);
    auto dv = host(d), wv = host(w);
    for (int i = 0; i < N; ++i)
      for (int j = 0; j < M; ++j)
        for (int k = 0; k < K; ++k) ref[i * M + j] += double(dv[i * K + k]) * wv[j * K + k];
    Tensor O = ops::dense(D, Wt);
    check_close<float>(run_generic({D, Wt}, O, {d, w}), ref, {2e-6 * K, 1e-5});
    Tensor O2 = ops::dense(D, Wt);
    check_close<float>(run(ops::schedule_dense_llvm(O2), {D, Wt}, O2, {d, w}), ref, {2e-6 * K, 1e-5});
  }
}

TEST_CASE("ops activations, bias_add and batch_norm_inference match naive loops", "[correctness][ops][elemwise]") {
  const int N = 2, C = 5, H = 3, W = 7;
  const int total = N * C * H * W;
  Tensor X = placeholder({N, C, H, W}, Float(32), "x");
  NDArray x = random_array<float>({N, C, H, W}, 421, -8.0, 8.0);
  auto xv = host(x);
  auto map_ref = [&](auto f) {
    std::vector<double> r(total);
    for (int i = 0; i < total; ++i) r[i] = f(double(xv[i]), (i / (H * W)) % C);
    return r;
  };
  check_close<float>(run_generic({X}, ops::relu(X), {x}), map_ref([](double v, int) { return std::max(v, 0.0); }));
  check_close<float>(run_generic({X}, ops::clip(X, 0, 6), {x}),
                     map_ref([](double v, int) { return std::clamp(v, 0.0, 6.0); }));
  check_close<float>(run_generic({X}, ops::sigmoid(X), {x}),
                     map_ref([](double v, int) { return 1 / (1 + std::exp(-v)); }), {1e-6, 1e-5});
  check_close<float>(run_generic({X}, ops::tanh(X), {x}), map_ref([](double v, int) { return std::tanh(v); }),
                     {1e-6, 1e-5});

  Tensor B = placeholder({C}, Float(32), "bias");
  NDArray b = random_array<float>({C}, 422);
  auto bv = host(b);
  check_close<float>(run_generic({X, B}, ops::bias_add(X, B), {x, b}),
                     map_ref([&](double v, int c) { return v + bv[c]; }));
  // Along the last axis instead.
  Tensor B2 = placeholder({W}, Float(32), "bias_w");
  NDArray b2 = random_array<float>({W}, 423);
  auto b2v = host(b2);
  std::vector<double> ref2(total);
  for (int i = 0; i < total; ++i) ref2[i] = double(xv[i]) + b2v[i % W];
  check_close<float>(run_generic({X, B2}, ops::bias_add(X, B2, -1), {x, b2}), ref2);

  Tensor G = placeholder({C}, Float(32), "gamma"), Be = placeholder({C}, Float(32), "beta"),
         Mu = placeholder({C}, Float(32), "mean"), V = placeholder({C}, Float(32), "var");
  NDArray g = random_array<float>({C}, 424), be = random_array<float>({C}, 425), mu = random_array<float>({C}, 426),
          v = random_array<float>({C}, 427, 0.1, 2.0);
  auto gv = host(g), bev = host(be), muv = host(mu), vv = host(v);
  check_close<float>(run_generic({X, G, Be, Mu, V}, ops::batch_norm_inference(X, G, Be, Mu, V, 1e-3), {x, g, be, mu, v}),
                     map_ref([&](double val, int c) { return (val - muv[c]) / std::sqrt(vv[c] + 1e-3) * gv[c] + bev[c]; }),
                     {1e-5, 1e-5});
}

TEST_CASE("ops pooling matches naive loops", "[correctness][ops][pool]") {
  const int N = 2, C = 3, H = 11, W = 8;
  Tensor X = placeholder({N, C, H, W}, Float(32), "x");
  NDArray x = random_array<float>({N, C, H, W}, 431);
  auto xv = host(x);
  struct PoolCase {
    std::array<int, 2> pool, strides, padding;
  };
  for (PoolCase pc : {PoolCase{{3, 3}, {2, 2}, {1, 1}}, PoolCase{{2, 3}, {1, 2}, {0, 1}}, PoolCase{{2, 2}, {2, 2}, {0, 0}}}) {
    const int OH = (H + 2 * pc.padding[0] - pc.pool[0]) / pc.strides[0] + 1;
    const int OW = (W + 2 * pc.padding[1] - pc.pool[1]) / pc.strides[1] + 1;
    INFO("pool " << pc.pool[0] << "x" << pc.pool[1] << " stride " << pc.strides[0] << "x" << pc.strides[1] << " pad "
                 << pc.padding[0] << "x" << pc.padding[1]);
    std::vector<double> mx, avg_in, avg_ex;
    for (int n = 0; n < N; ++n)
      for (int c = 0; c < C; ++c)
        for (int y = 0; y < OH; ++y)
          for (int xx = 0; xx < OW; ++xx) {
            double m = -std::numeric_limits<double>::infinity(), s = 0;
            int cnt = 0;
            for (int r = 0; r < pc.pool[0]; ++r)
              for (int q = 0; q < pc.pool[1]; ++q) {
                int iy = y * pc.strides[0] + r - pc.padding[0], ix = xx * pc.strides[1] + q - pc.padding[1];
                if (iy < 0 || iy >= H || ix < 0 || ix >= W) continue;
                double v = xv[((n * C + c) * H + iy) * W + ix];
                m = std::max(m, v);
                s += v;
                ++cnt;
              }
            mx.push_back(m);
            avg_in.push_back(s / (pc.pool[0] * pc.pool[1]));
            avg_ex.push_back(s / cnt);
          }
    check_close<float>(run_generic({X}, ops::max_pool2d(X, pc.pool, pc.strides, pc.padding), {x}), mx);
    check_close<float>(run_generic({X}, ops::avg_pool2d(X, pc.pool, pc.strides, pc.padding), {x}), avg_in);
    check_close<float>(run_generic({X}, ops::avg_pool2d(X, pc.pool, pc.strides, pc.padding, false), {x}), avg_ex);
  }
  std::vector<double> gap;
  for (int nc = 0; nc < N * C; ++nc) {
    double s = 0;
    for (int i = 0; i < H * W; ++i) s += xv[nc * H * W + i];
    gap.push_back(s / (H * W));
  }
  Tensor G = ops::global_avg_pool2d(X);
  REQUIRE(*as_const_int(G.shape()[2]) == 1);
  check_close<float>(run_generic({X}, G, {x}), gap);
}

TEST_CASE("ops softmax is stable and matches naive loops along any axis", "[correctness][ops][softmax]") {
  const int A = 3, B = 19, C = 5;
  Tensor X = placeholder({A, B, C}, Float(32), "x");
  // Large values: exp without subtracting the maximum would overflow.
  NDArray x = random_array<float>({A, B, C}, 441, -100.0, 100.0);
  auto xv = host(x);
  for (int axis : {-1, 1, 0}) {
    INFO("axis " << axis);
    const int ax = axis < 0 ? axis + 3 : axis;
    const int dims[3] = {A, B, C};
    const int stride = ax == 2 ? 1 : ax == 1 ? C : B * C;
    std::vector<double> ref(xv.size());
    for (size_t i = 0; i < xv.size(); ++i) {
      const int pos = (int(i) / stride) % dims[ax];
      const size_t base = i - size_t(pos) * stride;
      double m = -1e300, s = 0;
      for (int k = 0; k < dims[ax]; ++k) m = std::max(m, double(xv[base + k * stride]));
      for (int k = 0; k < dims[ax]; ++k) s += std::exp(xv[base + k * stride] - m);
      ref[i] = std::exp(xv[i] - m) / s;
    }
    check_close<float>(run_generic({X}, ops::softmax(X, axis), {x}), ref, {1e-6, 1e-5});
  }
}

#if TENSORIR_WITH_OPENGL
TEST_CASE("ops conv2d, pooling and softmax on OpenGL with the generic schedule", "[correctness][ops][opengl][opencl]") {
  const std::string target = GENERATE(as<std::string>{}, "opengl", "opengl -mode=fragment", "opencl");
  INFO("target " << target);
  check_conv({1, 4, 9, 8, 6, 3, 3, attrs({2, 1}, {1, 1}, {1, 1}, 2)}, ConvKind::Generic, target);
  Tensor X = placeholder({2, 3, 7, 6}, Float(32), "x");
  NDArray x = random_array<float>({2, 3, 7, 6}, 451);
  NDArray mp = run_generic({X}, ops::max_pool2d(X, {3, 3}, {2, 2}, {1, 1}), {x}, target);
  NDArray mp_cpu = run_generic({X}, ops::max_pool2d(X, {3, 3}, {2, 2}, {1, 1}), {x});
  check_close<float>(mp, host(mp_cpu), {0, 0});
  Tensor Y = placeholder({4, 33}, Float(32), "y");
  NDArray y = random_array<float>({4, 33}, 452, -20.0, 20.0);
  NDArray sm = run_generic({Y}, ops::softmax(Y), {y}, target);
  NDArray sm_cpu = run_generic({Y}, ops::softmax(Y), {y});
  check_close<float>(sm, host(sm_cpu), tolerance_for<float>(target));
}
#endif

TEST_CASE("ops report shape mismatches naming the tensors", "[correctness][ops][error]") {
  Tensor I = placeholder({1, 6, 8, 8}, Float(32), "img");
  Tensor W = placeholder({4, 5, 3, 3}, Float(32), "filt");
  REQUIRE_THROWS_WITH(ops::conv2d(I, W, {}),
                      Contains("weight filt has 5 input channels") && Contains("data img has 6 channels"));
  REQUIRE_THROWS_WITH(ops::conv2d(I, W, attrs({1, 1}, {0, 0}, {1, 1}, 4)),
                      Contains("img has 6 channels, which groups = 4 does not divide"));
  Tensor W3 = placeholder({4, 3, 3, 3}, Float(32), "filt3");
  REQUIRE_NOTHROW(ops::conv2d(I, W3, attrs({1, 1}, {0, 0}, {1, 1}, 2)));
  REQUIRE_THROWS_WITH(ops::conv2d_nchwc(I, W3, attrs({1, 1}, {0, 0}, {1, 1}, 2)), Contains("use conv2d"));
  Tensor Big = placeholder({4, 6, 11, 11}, Float(32), "big");
  REQUIRE_THROWS_WITH(ops::conv2d(I, Big, {}), Contains("larger than the padded input img"));
  Tensor D = placeholder({2, 10}, Float(32), "feat"), Dw = placeholder({3, 12}, Float(32), "fc");
  REQUIRE_THROWS_WITH(ops::dense(D, Dw), Contains("data feat has 10 features") && Contains("weight fc expects 12"));
  Tensor bias = placeholder({5}, Float(32), "b");
  REQUIRE_THROWS_WITH(ops::bias_add(I, bias), Contains("b has shape [5] but must be [6]"));
  Tensor bias_i = placeholder({6}, Int(32), "bi");
  REQUIRE_THROWS_WITH(ops::bias_add(I, bias_i), Contains("same dtype"));
  REQUIRE_THROWS_WITH(ops::softmax(I, 4), Contains("axis 4 is out of range for tensor img"));
  REQUIRE_THROWS_WITH(ops::max_pool2d(I, {9, 9}, {1, 1}), Contains("larger than the padded input img"));
  Tensor O = ops::relu(I);
  REQUIRE_THROWS_WITH(ops::schedule_conv2d_llvm(O), Contains("not the output of conv2d"));
  REQUIRE_THROWS_WITH(ops::schedule_dense_llvm(O), Contains("not the output of dense"));
  Var n("n");
  Tensor Sym = placeholder({n, 6, 8, 8}, Float(32), "sym");
  REQUIRE_THROWS_WITH(ops::conv2d(Sym, W3, {}), Contains("sym has a symbolic dimension 0"));
}
