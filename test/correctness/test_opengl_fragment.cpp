// Target "opengl -mode=fragment": every kernel runs as fragment shaders on the headless
// OpenGL context (Mesa llvmpipe here) and is compared with the CPU (the LLVM build of
// the same schedule, or plain loops). Without an OpenGL context every test fails.
#include <Eigen/Dense>
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "correctness/reference.h"

using namespace tensorir;
using namespace tensorir::testing;

#if TENSORIR_WITH_OPENGL

namespace {

const char *kFragment = "opengl -mode=fragment";
// Computed tensors packed four elements per RGBA texel (the default), and one per texel.
#define FRAGMENT_TARGETS GENERATE(as<std::string>{}, "opengl -mode=fragment", "opengl -mode=fragment -pack=0")

NDArray on_gl(const NDArray &a) { return a.to(Device::opengl()); }
NDArray on_cpu(const NDArray &a) { return a.to(Device::cpu()); }

std::vector<int64_t> const_shape(const Tensor &t) {
  std::vector<int64_t> s;
  for (const Expr &d : t.shape()) {
    const int64_t *v = as_const_int(d);
    REQUIRE(v != nullptr);
    s.push_back(*v);
  }
  return s;
}

// A schedule and its arguments (placeholders are inputs, computed tensors outputs).
struct Program {
  Schedule schedule;
  std::vector<Tensor> args;
};

std::vector<BuildArg> build_args(const std::vector<Tensor> &ts) { return {ts.begin(), ts.end()}; }

// Builds the program twice, for the CPU and for fragment shaders, runs both on the same
// random inputs and compares every output (integers exactly).
void check_against_cpu(const std::string &target, const std::function<Program()> &make, const std::string &name,
                       uint64_t seed, Tolerance tol = {1e-6, 2e-5}, double low = -1.0, double high = 1.0) {
  INFO("target " << target);
  Program cpu = make(), gl = make();
  Module cpu_m = build(cpu.schedule, build_args(cpu.args), "llvm", name);
  Module gl_m = build(gl.schedule, build_args(gl.args), target, name);
  std::vector<Arg> cpu_args, gl_args;
  std::vector<std::pair<NDArray, NDArray>> outputs;  // (cpu, gl)
  for (const Tensor &t : cpu.args) {
    std::vector<int64_t> shape = const_shape(t);
    if (t.op().as<PlaceholderOpNode>()) {
      NDArray a = NDArray::random(shape, t.dtype(), seed++, low, high);
      cpu_args.push_back(a);
      gl_args.push_back(on_gl(a));
    } else {
      NDArray c = NDArray::empty(shape, t.dtype()), g = NDArray::empty(shape, t.dtype(), Device::opengl());
      cpu_args.push_back(c);
      gl_args.push_back(g);
      outputs.emplace_back(c, g);
    }
  }
  cpu_m(name).call(cpu_args);
  gl_m(name).call(gl_args);
  INFO("shaders:\n" << gl_m.source("glsl"));
  for (auto &[c, g] : outputs) {
    NDArray back = on_cpu(g);
    if (c.dtype() == Float(32))
      check_close<float>(back.to_vector<float>(), c.to_vector<float>(), tol);
    else
      check_close<int32_t>(back.to_vector<int32_t>(), c.to_vector<int32_t>(), Tolerance{0, 0});
  }
}

Program simple(std::vector<Tensor> args) {
  std::vector<Tensor> outs;
  for (const Tensor &t : args)
    if (!t.op().as<PlaceholderOpNode>()) outs.push_back(t);
  return {create_schedule(outs), std::move(args)};
}

}  // namespace

TEST_CASE("fragment: element-wise float32 arithmetic with a partial last texture row",
          "[opengl][fragment][elementwise]") {
  const std::string target = FRAGMENT_TARGETS;
  for (int64_t n : {1, 7, 1000, 4099}) {
    INFO("n = " << n);
    check_against_cpu(target,
        [&] {
          Tensor A = placeholder({n}, Float(32), "A"), B = placeholder({n}, Float(32), "B");
          Tensor C = compute({n}, [&](Var i) { return A(i) * B(i) - A(i) / (B(i) * B(i) + 1.0f) + 0.5f; }, "C");
          return simple({A, B, C});
        },
        "ew_f32", 10 + n);
  }
}

TEST_CASE("fragment: int32 floor division, modulo, min, max and select match the CPU",
          "[opengl][fragment][elementwise][int]") {
  const std::string target = FRAGMENT_TARGETS;
  check_against_cpu(target,
      [] {
        Tensor A = placeholder({13, 17}, Int(32), "A"), B = placeholder({13, 17}, Int(32), "B");
        Tensor C = compute(
            {13, 17},
            [&](Var i, Var j) {
              Expr b = select(B(i, j) == 0, 7, B(i, j));
              return A(i, j) / b + (A(i, j) % b) * 3 + max(A(i, j), b) - min(i - j, 2) + (i - 6) / 4 +
                     (j - 9) % 5;
            },
            "C");
        return simple({A, B, C});
      },
      "ew_i32", 20, {}, -100.0, 100.0);
}

TEST_CASE("fragment: mixed int32 and float32 tensors with casts", "[opengl][fragment][elementwise][int]") {
  const std::string target = FRAGMENT_TARGETS;
  check_against_cpu(target,
      [] {
        Tensor A = placeholder({40, 3}, Int(32), "A"), X = placeholder({40, 3}, Float(32), "X");
        Tensor F = compute({40, 3}, [&](Var i, Var j) { return cast(Float(32), A(i, j)) * X(i, j); }, "F");
        Tensor I = compute({40, 3}, [&](Var i, Var j) { return cast(Int(32), X(i, j) * 10.0f) + A(i, j); }, "I");
        return simple({A, X, F, I});
      },
      "mixed", 30, {}, -50.0, 50.0);
}

TEST_CASE("fragment: intrinsics stay within 1e-5 of the CPU's libm", "[opengl][fragment][intrinsics]") {
  const std::string target = FRAGMENT_TARGETS;
  const int n = 2000;
  NDArray x = NDArray::random({n}, Float(32), 41, -1.0, 1.0);
  std::vector<float> xv = x.to_vector<float>();
  struct Intrinsic {
    const char *name;
    std::function<Expr(Expr)> op;
    std::function<double(double)> ref;
    double scale, shift;  // inputs x * scale + shift
  };
  std::vector<Intrinsic> cases = {
      {"exp", [](Expr v) { return exp(v); }, [](double v) { return std::exp(v); }, 8, 0},
      {"log", [](Expr v) { return log(v); }, [](double v) { return std::log(v); }, 50, 50.01},
      {"sqrt", [](Expr v) { return sqrt(v); }, [](double v) { return std::sqrt(v); }, 50, 50},
      {"rsqrt", [](Expr v) { return rsqrt(v); }, [](double v) { return 1.0 / std::sqrt(v); }, 50, 50.01},
      {"tanh", [](Expr v) { return tanh(v); }, [](double v) { return std::tanh(v); }, 6, 0},
      {"tanh near 0", [](Expr v) { return tanh(v); }, [](double v) { return std::tanh(v); }, 0.01, 0},
      {"sigmoid", [](Expr v) { return sigmoid(v); }, [](double v) { return 1.0 / (1.0 + std::exp(-v)); }, 20, 0},
      {"erf", [](Expr v) { return erf(v); }, [](double v) { return std::erf(v); }, 4, 0},
      {"erf near 0", [](Expr v) { return erf(v); }, [](double v) { return std::erf(v); }, 0.01, 0},
      {"floor", [](Expr v) { return floor(v); }, [](double v) { return std::floor(v); }, 7, 0},
      {"ceil", [](Expr v) { return ceil(v); }, [](double v) { return std::ceil(v); }, 7, 0},
      {"fabs", [](Expr v) { return fabs(v); }, [](double v) { return std::fabs(v); }, 3, 0},
      {"pow", [](Expr v) { return pow(v, 2.5f); }, [](double v) { return std::pow(v, 2.5); }, 2, 2.01},
      {"pow of a negative base", [](Expr v) { return pow(v, 3.0f); }, [](double v) { return std::pow(v, 3.0); }, 4, 0},
  };
  for (const Intrinsic &c : cases) {
    INFO("intrinsic " << c.name);
    Tensor X = placeholder({n}, Float(32), "X");
    Tensor Y = compute({n}, [&](Var i) { return c.op(X(i) * float(c.scale) + float(c.shift)); }, "Y");
    Module m = build(create_schedule({Y}), {X, Y}, target, "intrin");
    NDArray y = NDArray::empty({n}, Float(32), Device::opengl());
    m("intrin")(on_gl(x), y);
    std::vector<double> ref;
    for (float v : xv) ref.push_back(c.ref(double(float(float(v * float(c.scale)) + float(c.shift)))));
    check_close<float>(on_cpu(y).to_vector<float>(), ref, Tolerance{1e-6, 1e-5});
  }
}

TEST_CASE("fragment: integer abs and a float scalar argument", "[opengl][fragment][intrinsics][int]") {
  const std::string target = FRAGMENT_TARGETS;
  Tensor A = placeholder({100}, Int(32), "A");
  Var alpha("alpha", Float(32));
  Tensor B = compute({100}, [&](Var i) { return cast(Float(32), abs(A(i))) * alpha; }, "B");
  Module m = build(create_schedule({B}), {A, alpha, B}, target, "absscale");
  NDArray a = NDArray::random({100}, Int(32), 51, -1000, 1000);
  NDArray b = NDArray::empty({100}, Float(32), Device::opengl());
  m("absscale")(on_gl(a), 0.25, b);
  std::vector<float> ref;
  for (int32_t v : a.to_vector<int32_t>()) ref.push_back(float(std::abs(v)) * 0.25f);
  check_close<float>(on_cpu(b).to_vector<float>(), ref);
}

TEST_CASE("fragment: broadcasting a row, a column and a scalar tensor", "[opengl][fragment][broadcast]") {
  const std::string target = FRAGMENT_TARGETS;
  check_against_cpu(target,
      [] {
        Tensor A = placeholder({23, 31}, Float(32), "A"), R = placeholder({31}, Float(32), "R"),
               Cl = placeholder({23, 1}, Float(32), "Cl"), S = placeholder({}, Float(32), "S");
        Tensor O = compute(
            {23, 31}, [&](Var i, Var j) { return A(i, j) * R(j) + Cl(i, 0) - S(std::vector<Expr>{}); }, "O");
        return simple({A, R, Cl, S, O});
      },
      "bcast", 60);
}

TEST_CASE("fragment: sum, max and min over one axis and over several", "[opengl][fragment][reduce]") {
  const std::string target = FRAGMENT_TARGETS;
  check_against_cpu(target,
      [] {
        Tensor A = placeholder({9, 21, 5}, Float(32), "A");
        IterVar k = reduce_axis({0, 21}, "k"), k2 = reduce_axis({0, 21}, "k2"), l = reduce_axis({0, 5}, "l"),
                m1 = reduce_axis({0, 21}, "m1"), m2 = reduce_axis({0, 5}, "m2");
        Tensor S = compute({9, 5}, [&](Var i, Var j) { return sum(A(i, k, j), {k}); }, "S");
        Tensor Mx = compute({9}, [&](Var i) { return max(A(i, k2, l), {k2, l}); }, "Mx");
        Tensor Mn = compute({9}, [&](Var i) { return min(A(i, m1, m2), {m1, m2}); }, "Mn");
        return simple({A, S, Mx, Mn});
      },
      "reduce", 70);
}

TEST_CASE("fragment: a conditional reduction and one with a non-zero start", "[opengl][fragment][reduce]") {
  const std::string target = FRAGMENT_TARGETS;
  check_against_cpu(target,
      [] {
        Tensor A = placeholder({16, 16}, Float(32), "A");
        Tensor I = placeholder({16, 16}, Int(32), "I");
        IterVar k = reduce_axis({0, 16}, "k"), q = reduce_axis({3, 11}, "q"), r = reduce_axis({0, 16}, "r");
        // Lower-triangular row sums, only of positive values.
        Tensor T = compute({16}, [&](Var i) { return sum(A(i, k), {k}, k <= i && A(i, k) > 0.0f); }, "T");
        Tensor P = compute({16}, [&](Var i) { return prod(A(i, q) + 1.5f, {q}); }, "P");
        Tensor C = compute({16}, [&](Var i) { return sum(I(i, r), {r}, I(i, r) % 2 == 0); }, "C");
        return simple({A, I, T, P, C});
      },
      "condreduce", 80, {1e-6, 2e-5}, -10.0, 10.0);
}

TEST_CASE("fragment: argmax returns the index and the value", "[opengl][fragment][reduce][argmax]") {
  const std::string target = FRAGMENT_TARGETS;
  check_against_cpu(target,
      [] {
        Tensor X = placeholder({37, 53}, Float(32), "X");
        IterVar k = reduce_axis({0, 53}, "k");
        auto argmax = argmax_reducer();
        auto outs = compute({37}, [&](Var i) { return argmax({Expr(k.var()), X(i, k)}, {k}); }, "am");
        return Program{create_schedule({outs[0], outs[1]}), {X, outs[0], outs[1]}};
      },
      "argmax", 90);
}

TEST_CASE("fragment: reductions longer than one shader loop are split into partial passes",
          "[opengl][fragment][reduce][long]") {
  const std::string target = FRAGMENT_TARGETS;
  INFO("target " << target);
  // 200,003 iterations per element: past the 65,535 a llvmpipe shader may loop in all.
  const int n = 3, k_len = 200003;
  Tensor X = placeholder({n, k_len}, Float(32), "X");
  IterVar k = reduce_axis({0, k_len}, "k"), l = reduce_axis({0, 1000}, "l"), m = reduce_axis({0, 200}, "m");
  Tensor I = compute({n}, [&](Var i) { return sum((k + i) % 7, {k}); }, "I");
  auto argmax = argmax_reducer();
  IterVar k2 = reduce_axis({0, k_len}, "k2");
  auto am = compute({n}, [&](Var i) { return argmax({Expr(k2.var()), X(i, k2)}, {k2}); }, "am");
  // Two axes, 200,000 iterations, with a condition.
  Tensor C = compute({n}, [&](Var i) { return sum(X(i, l * 200 + m), {l, m}, (l + m + i) % 3 != 0); }, "C");
  Module mod = build(create_schedule({I, am[0], am[1], C}), {X, I, am[0], am[1], C}, target, "long");
  NDArray x = NDArray::random({n, k_len}, Float(32), 161);
  NDArray ig = NDArray::empty({n}, Int(32), Device::opengl()), ag = NDArray::empty({n}, Int(32), Device::opengl()),
          vg = NDArray::empty({n}, Float(32), Device::opengl()), cg = NDArray::empty({n}, Float(32), Device::opengl());
  mod("long")(on_gl(x), ig, ag, vg, cg);
  std::vector<float> xv = x.to_vector<float>();
  std::vector<int32_t> iref(n, 0), aref(n, -1);
  std::vector<float> vref(n, -std::numeric_limits<float>::max());
  std::vector<double> cref(n, 0.0);
  for (int i = 0; i < n; ++i) {
    for (int j = 0; j < k_len; ++j) {
      iref[i] += (j + i) % 7;
      if (xv[size_t(i) * k_len + j] > vref[i]) vref[i] = xv[size_t(i) * k_len + j], aref[i] = j;
    }
    for (int a = 0; a < 1000; ++a)
      for (int b = 0; b < 200; ++b)
        if ((a + b + i) % 3 != 0) cref[i] += xv[size_t(i) * k_len + a * 200 + b];
  }
  check_close<int32_t>(on_cpu(ig).to_vector<int32_t>(), iref, Tolerance{0, 0});
  check_close<int32_t>(on_cpu(ag).to_vector<int32_t>(), aref, Tolerance{0, 0});
  check_close<float>(on_cpu(vg).to_vector<float>(), vref, Tolerance{0, 0});
  check_close<float>(on_cpu(cg).to_vector<float>(), cref, Tolerance{1e-2, 1e-5});
  CHECK(mod.source("glsl").find("partial") != std::string::npos);
}

TEST_CASE("fragment: matmul matches Eigen", "[opengl][fragment][matmul]") {
  const std::string target = FRAGMENT_TARGETS;
  const int M = 67, K = 45, N = 53;
  Tensor A = placeholder({M, K}, Float(32), "A"), B = placeholder({K, N}, Float(32), "B");
  IterVar k = reduce_axis({0, K}, "k");
  Tensor C = compute({M, N}, [&](Var i, Var j) { return sum(A(i, k) * B(k, j), {k}); }, "C");
  Schedule s = create_schedule({C});
  // Loop transformations do not change what a fragment computes.
  auto [io, jo, ii, ji] = s[C].tile(C.op().as<ComputeOpNode>()->axis[0], C.op().as<ComputeOpNode>()->axis[1], 8, 8);
  (void)io, (void)jo, (void)ii, (void)ji;
  Module m = build(s, {A, B, C}, target, "matmul");
  NDArray a = NDArray::random({M, K}, Float(32), 101), b = NDArray::random({K, N}, Float(32), 102);
  NDArray c = NDArray::empty({M, N}, Float(32), Device::opengl());
  m("matmul")(on_gl(a), on_gl(b), c);
  using RowMajor = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
  RowMajor ea = Eigen::Map<RowMajor>(a.data_as<float>(), M, K), eb = Eigen::Map<RowMajor>(b.data_as<float>(), K, N);
  RowMajor ec = ea * eb;
  std::vector<float> ref(ec.data(), ec.data() + M * N);
  check_close<float>(on_cpu(c).to_vector<float>(), ref, Tolerance{1e-5, 1e-5});
}

TEST_CASE("fragment: conv2d with padding through if_then_else and stride 2", "[opengl][fragment][conv]") {
  const std::string target = FRAGMENT_TARGETS;
  const int N = 2, C = 3, H = 15, W = 14, K = 4, R = 3, S = 3, stride = 2, pad = 1;
  const int OH = (H + 2 * pad - R) / stride + 1, OW = (W + 2 * pad - S) / stride + 1;
  Tensor I = placeholder({N, C, H, W}, Float(32), "I"), Wt = placeholder({K, C, R, S}, Float(32), "Wt");
  IterVar rc = reduce_axis({0, C}, "rc"), ry = reduce_axis({0, R}, "ry"), rx = reduce_axis({0, S}, "rx");
  Tensor O = compute(
      {N, K, OH, OW},
      [&](Var n, Var f, Var y, Var x) {
        Expr iy = y * stride + ry - pad, ix = x * stride + rx - pad;
        Expr inside = iy >= 0 && iy < H && ix >= 0 && ix < W;
        return sum(if_then_else(inside, I(n, rc, iy, ix), 0.0f) * Wt(f, rc, ry, rx), {rc, ry, rx});
      },
      "O");
  Module m = build(create_schedule({O}), {I, Wt, O}, target, "conv");
  NDArray in = NDArray::random({N, C, H, W}, Float(32), 111), w = NDArray::random({K, C, R, S}, Float(32), 112);
  NDArray out = NDArray::empty({N, K, OH, OW}, Float(32), Device::opengl());
  m("conv")(on_gl(in), on_gl(w), out);
  std::vector<float> iv = in.to_vector<float>(), wv = w.to_vector<float>(), ref;
  for (int n = 0; n < N; ++n)
    for (int f = 0; f < K; ++f)
      for (int y = 0; y < OH; ++y)
        for (int x = 0; x < OW; ++x) {
          double acc = 0;
          for (int c = 0; c < C; ++c)
            for (int r = 0; r < R; ++r)
              for (int s = 0; s < S; ++s) {
                int iy = y * stride + r - pad, ix = x * stride + s - pad;
                if (iy < 0 || iy >= H || ix < 0 || ix >= W) continue;
                acc += double(iv[((n * C + c) * H + iy) * W + ix]) * wv[((f * C + c) * R + r) * S + s];
              }
          ref.push_back(float(acc));
        }
  check_close<float>(on_cpu(out).to_vector<float>(), ref, Tolerance{1e-5, 1e-5});
}

TEST_CASE("fragment: a two-stage stencil keeps its intermediate in a texture", "[opengl][fragment][pipeline]") {
  const std::string target = FRAGMENT_TARGETS;
  check_against_cpu(target,
      [] {
        Tensor A = placeholder({30, 40}, Float(32), "A");
        Tensor B = compute({30, 40}, [&](Var i, Var j) { return A(i, j) * A(i, j) - 0.5f; }, "B");
        Tensor C = compute(
            {28, 38},
            [&](Var i, Var j) { return B(i, j + 1) + B(i + 1, j) + B(i + 1, j + 1) * 4.0f + B(i + 2, j + 1) + B(i + 1, j + 2); },
            "C");
        return simple({A, C});
      },
      "stencil", 120);
}

TEST_CASE("fragment: an inlined stage and a computed one in one pipeline", "[opengl][fragment][pipeline]") {
  const std::string target = FRAGMENT_TARGETS;
  check_against_cpu(target,
      [] {
        Tensor A = placeholder({50}, Float(32), "A");
        Tensor B = compute({50}, [&](Var i) { return exp(A(i)); }, "B");
        Tensor Cc = compute({50}, [&](Var i) { return B(i) * 2.0f; }, "Cc");
        IterVar k = reduce_axis({0, 50}, "k");
        Tensor Sm = compute({1}, [&](Var) { return sum(Cc(k), {k}); }, "Sm");
        Tensor D = compute({50}, [&](Var i) { return Cc(i) / Sm(0); }, "D");
        Schedule s = create_schedule({D});
        s[B].compute_inline();
        return Program{s, {A, D}};
      },
      "softmaxish", 130);
}

TEST_CASE("fragment: cache_write and rfactor stages run as passes of their own", "[opengl][fragment][pipeline]") {
  const std::string target = FRAGMENT_TARGETS;
  check_against_cpu(target,
      [] {
        Tensor A = placeholder({24, 40}, Float(32), "A"), B = placeholder({40, 16}, Float(32), "B");
        IterVar k = reduce_axis({0, 40}, "k");
        Tensor C = compute({24, 16}, [&](Var i, Var j) { return sum(A(i, k) * B(k, j), {k}); }, "C");
        IterVar r = reduce_axis({0, 40}, "r");
        Tensor S = compute({24}, [&](Var i) { return sum(A(i, r), {r}); }, "S");
        Schedule s = create_schedule({C, S});
        s.cache_write(C, "local");
        auto [ro, ri] = s[S].split(r, 8);
        (void)ri;
        s.rfactor(S, ro);
        return Program{s, {A, B, C, S}};
      },
      "cached", 125);
}

TEST_CASE("fragment: an output another output reads, and a gather through int32 indices",
          "[opengl][fragment][pipeline]") {
  const std::string target = FRAGMENT_TARGETS;
  const int n = 300, m = 77;
  Tensor X = placeholder({m}, Float(32), "X");
  Tensor Idx = placeholder({n}, Int(32), "Idx");
  Tensor G = compute({n}, [&](Var i) { return X(Idx(i)) * 3.0f; }, "G");
  Tensor H = compute({n}, [&](Var i) { return G(i) + G(n - 1 - i); }, "H");
  Module mod = build(create_schedule({G, H}), {X, Idx, G, H}, target, "gather");
  NDArray x = NDArray::random({m}, Float(32), 127), idx = NDArray::random({n}, Int(32), 128, 0, m);
  NDArray g = NDArray::empty({n}, Float(32), Device::opengl()), h = NDArray::empty({n}, Float(32), Device::opengl());
  mod("gather")(on_gl(x), on_gl(idx), g, h);
  std::vector<float> xv = x.to_vector<float>(), gref(n), href(n);
  std::vector<int32_t> iv = idx.to_vector<int32_t>();
  for (int i = 0; i < n; ++i) gref[i] = xv[iv[i]] * 3.0f;
  for (int i = 0; i < n; ++i) href[i] = gref[i] + gref[n - 1 - i];
  check_close<float>(on_cpu(g).to_vector<float>(), gref);
  check_close<float>(on_cpu(h).to_vector<float>(), href);
}

TEST_CASE("fragment: symbolic shapes run at two sizes from one build", "[opengl][fragment][symbolic]") {
  const std::string target = FRAGMENT_TARGETS;
  Var n("n"), m("m");
  Tensor A = placeholder({n, m}, Float(32), "A");
  Tensor B = compute({n, m}, [&](Var i, Var j) { return A(i, j) + cast(Float(32), i * m + j) * 0.001f; }, "B");
  IterVar k = reduce_axis({0, m}, "k");
  Tensor S = compute({n}, [&](Var i) { return sum(B(i, k), {k}); }, "S");
  Tensor T = compute({n - 1}, [&](Var i) { return S(i + 1) - S(i); }, "T");
  Module mod = build(create_schedule({T}), {A, T}, target, "sym");
  for (auto [N, M] : std::vector<std::pair<int, int>>{{5, 7}, {130, 33}}) {
    INFO("n = " << N << ", m = " << M);
    NDArray a = NDArray::random({N, M}, Float(32), 141 + N);
    NDArray t = NDArray::empty({N - 1}, Float(32), Device::opengl());
    mod("sym")(on_gl(a), t);
    std::vector<float> av = a.to_vector<float>();
    std::vector<double> s(N, 0.0), ref;
    for (int i = 0; i < N; ++i)
      for (int j = 0; j < M; ++j) s[i] += double(av[i * M + j]) + double(float(i * M + j) * 0.001f);
    for (int i = 0; i + 1 < N; ++i) ref.push_back(s[i + 1] - s[i]);
    check_close<float>(on_cpu(t).to_vector<float>(), ref, Tolerance{1e-4 * M, 1e-5});
  }
}

TEST_CASE("fragment: a 1 x 5,000,000 tensor wraps over texture rows", "[opengl][fragment][large]") {
  const std::string target = FRAGMENT_TARGETS;
  const int64_t n = 5000000;
  Tensor A = placeholder({1, n}, Float(32), "A");
  Tensor B = compute({1, n}, [&](Var i, Var j) { return A(i, j) * 2.0f + cast(Float(32), j % 1000); }, "B");
  Module m = build(create_schedule({B}), {A, B}, target, "big");
  NDArray a = NDArray::random({1, n}, Float(32), 151);
  NDArray b = NDArray::empty({1, n}, Float(32), Device::opengl());
  m("big")(on_gl(a), b);
  std::vector<float> av = a.to_vector<float>(), got = on_cpu(b).to_vector<float>(), ref(n);
  for (int64_t j = 0; j < n; ++j) ref[j] = av[j] * 2.0f + float(j % 1000);
  check_close<float>(got, ref);
}

TEST_CASE("fragment: source(\"glsl\") gives GLSL ES 3.00 shaders, one per pass", "[opengl][fragment][source]") {
  Tensor A = placeholder({8}, Float(32), "A");
  Tensor B = compute({8}, [&](Var i) { return A(i) + 1.0f; }, "B");
  Tensor C = compute({8}, [&](Var i) { return B(7 - i) * 2.0f; }, "C");
  Module m = build(create_schedule({C}), {A, C}, kFragment, "two");
  std::string src = m.source("glsl");
  size_t count = 0;
  for (size_t p = src.find("#version 300 es"); p != std::string::npos; p = src.find("#version 300 es", p + 1)) ++count;
  CHECK(count == 2);
  CHECK(src.find("texelFetch") != std::string::npos);
  CHECK_THROWS_WITH(m.source("ll"), Catch::Contains("glsl"));
}

TEST_CASE("fragment: what a fragment shader cannot compute is a clear error", "[opengl][fragment][error]") {
  SECTION("float64") {
    Tensor A = placeholder({4}, Float(64), "A");
    Tensor B = compute({4}, [&](Var i) { return A(i) * 2.0; }, "B");
    CHECK_THROWS_WITH(build(create_schedule({B}), {A, B}, kFragment, "f64"),
                      Catch::Contains("float64 is not supported by WebGL/fragment targets"));
  }
  SECTION("an extern call") {
    Tensor A = placeholder({4}, Float(32), "A");
    Tensor B = compute({4}, [&](Var i) { return call_extern(Float(32), "cbrtf", {A(i)}); }, "B");
    CHECK_THROWS_WITH(build(create_schedule({B}), {A, B}, kFragment, "ext"),
                      Catch::Contains("cbrtf") && Catch::Contains("external function"));
  }
  SECTION("a reduction too long for Mesa llvmpipe's loop limit") {
    // 1.2e9 iterations: 73,243 partial results, more than a llvmpipe shader may loop
    // over. Elsewhere the sum is exact; on llvmpipe it must be an error, not garbage.
    IterVar k = reduce_axis({0, 1200000000}, "k");
    Tensor S = compute({1}, [&](Var) { return sum(k % 2, {k}); }, "S");
    try {
      Module m = build(create_schedule({S}), {S}, kFragment, "huge");
      NDArray s = NDArray::empty({1}, Int(32), Device::opengl());
      m("huge")(s);
      CHECK(on_cpu(s).to_vector<int32_t>()[0] == 600000000);
    } catch (const Error &e) {
      CHECK_THAT(e.what(), Catch::Contains("llvmpipe") && Catch::Contains("S"));
    }
  }
  SECTION("arguments on the CPU") {
    Tensor A = placeholder({4}, Float(32), "A");
    Tensor B = compute({4}, [&](Var i) { return A(i) + 1.0f; }, "B");
    Module m = build(create_schedule({B}), {A, B}, kFragment, "dev");
    NDArray a = NDArray::random({4}, Float(32), 1), b = NDArray::empty({4}, Float(32));
    CHECK_THROWS_WITH(m("dev")(a, b), Catch::Contains("opengl"));
  }
}

#endif  // TENSORIR_WITH_OPENGL
