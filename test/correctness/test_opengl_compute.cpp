// Target "opengl": kernels run as GLSL compute shaders on the headless OpenGL context
// (Mesa llvmpipe here), checked against plain C++ loops. Each body also runs on "llvm",
// which checks the test itself. Without an OpenGL context every opengl case fails.
//
// The cases here need what only the compute target has (float64, 8/16-bit, bool and
// uint32 tensors, bound threads, shared memory, many work groups, its loop limit); the
// cases every target runs, the fragment one included, are in test_targets.cpp.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>
#include <limits>
#include <string>
#include <vector>

#include "correctness/reference.h"
#include "correctness/target_runner.h"

using namespace tensorir;
using namespace tensorir::testing;
using Catch::Contains;

#if TENSORIR_WITH_OPENGL

namespace {

// Not "opengl -mode=fragment": these cases need what only compute shaders have.
#define TARGETS GENERATE(as<std::string>{}, "llvm", "opengl", "opencl")
// The GPU compute targets alone: what they print is checked too.
#define GPU_TARGETS GENERATE(as<std::string>{}, "opengl", "opencl")

// The kernels' source, and what a shared array and a barrier look like in it.
struct GpuSource {
  std::string text, shared_float, barrier, group_16x16;
};
GpuSource gpu_source(const Module &m, const std::string &target) {
  if (target == "opencl")
    return {m.source("cl"), "__local float", "barrier(CLK_LOCAL_MEM_FENCE);", "reqd_work_group_size(16, 16, 1)"};
  return {m.source("glsl"), "shared float", "barrier();", "local_size_x = 16, local_size_y = 16"};
}

template <typename T>
std::vector<T> host(const NDArray &a) {
  return a.to_vector<T>();
}

}  // namespace

TEST_CASE("opengl: uint32 division and casts", "[correctness][opengl][opencl]") {
  const std::string target = TARGETS;  // the fragment target stores float32 and int32 only
  INFO("target " << target);
  const int n = 301;
  Tensor A = placeholder({n}, Int(32), "A");
  Tensor U = compute({n}, [&](Var i) { return cast(UInt(32), A(i) + 200) / cast(UInt(32), 3); }, "U");
  NDArray a = random_array<int32_t>({n}, 3, -100, 100);
  auto out = run_on_target(target, create_schedule({U}), {A, U}, "uints", {a, NDArray::empty({n}, UInt(32))});
  auto av = host<int32_t>(a);
  std::vector<uint32_t> u(n);
  for (int i = 0; i < n; ++i) u[i] = uint32_t(av[i] + 200) / 3u;
  check_close<uint32_t>(out[1], u);
}

TEST_CASE("opengl: 0-d results of the default GPU schedule run as one invocation", "[correctness][opengl][opencl]") {
  const std::string target = TARGETS;
  INFO("target " << target);
  // The sum of all of A (0-d: no loop to bind), then A divided by it.
  const int n = 37, m = 5;
  Tensor A = placeholder({n, m}, Float(32), "A");
  IterVar i = reduce_axis({0, n}, "i"), j = reduce_axis({0, m}, "j");
  Tensor S = compute({}, [&](const std::vector<Var> &) { return sum(A(i, j), {i, j}); }, "S");
  Tensor D = compute({n, m}, [&](Var x, Var y) { return A(x, y) / S(); }, "D");
  NDArray a = random_array<float>({n, m}, 11, 0.5, 1.5);
  auto out = run_on_target(target, create_schedule({S, D}), {A, S, D}, "zero_d",
                           {a, NDArray::empty({}, Float(32)), NDArray::empty({n, m}, Float(32))});
  const std::vector<float> av = host<float>(a);
  double total = 0;
  for (float v : av) total += v;
  check_close<float>(out[1], std::vector<float>{float(total)}, {1e-5, 1e-5});
  std::vector<float> ref;
  for (float v : av) ref.push_back(float(v / total));
  check_close<float>(out[2], ref, {1e-5, 1e-7});
}

TEST_CASE("opengl: float64 arithmetic", "[correctness][opengl][opencl]") {
  const std::string target = TARGETS;
  INFO("target " << target);
  const int n = 300;
  Tensor A = placeholder({n}, Float(64), "A");
  Tensor B = compute({n}, [&](Var i) { return sqrt(A(i) * A(i) + 1.0) / 3.0 + floor(A(i) * 10.0) - fabs(A(i)); }, "B");
  NDArray a = random_array<double>({n}, 5);
  auto out = run_on_target(target, create_schedule({B}), {A, B}, "f64", {a, NDArray::empty({n}, Float(64))});
  auto av = host<double>(a);
  std::vector<double> ref(n);
  for (int i = 0; i < n; ++i) ref[i] = std::sqrt(av[i] * av[i] + 1.0) / 3.0 + std::floor(av[i] * 10.0) - std::fabs(av[i]);
  check_close<double>(out[1], ref, {1e-12, 1e-12});
}

TEST_CASE("opengl: 8-bit, 16-bit and bool tensors", "[correctness][opengl][opencl]") {
  const std::string target = TARGETS;
  INFO("target " << target);
  const int n = 203;  // odd: the last word is partly used
  Tensor A = placeholder({n}, Int(8), "A");
  Tensor B = placeholder({n}, UInt(8), "B");
  Tensor H = placeholder({n}, Int(16), "H");
  Tensor S = compute({n}, [&](Var i) { return A(i) + A(i); }, "S");  // wraps around in int8
  Tensor M = compute({n}, [&](Var i) { return B(i) / cast(UInt(8), 3) + cast(UInt(8), 7); }, "M");
  Tensor G = compute({n}, [&](Var i) { return A(i) > cast(Int(8), 0); }, "G");  // bool
  Tensor W = compute({n}, [&](Var i) { return H(i) * cast(Int(16), 3) - cast(Int(16), A(i)); }, "W");
  NDArray a = random_array<int8_t>({n}, 6, -128, 128), b = random_array<uint8_t>({n}, 7, 0, 256);
  NDArray h = random_array<int16_t>({n}, 8, -20000, 20000);
  auto out = run_on_target(target, create_schedule({S, M, G, W}), {A, B, H, S, M, G, W}, "narrow",
                           {a, b, h, NDArray::empty({n}, Int(8)), NDArray::empty({n}, UInt(8)), NDArray::empty({n}, Bool()),
                            NDArray::empty({n}, Int(16))});
  auto av = host<int8_t>(a);
  auto bv = host<uint8_t>(b);
  auto hv = host<int16_t>(h);
  std::vector<int8_t> s(n);
  std::vector<uint8_t> m(n), g(n);
  std::vector<int16_t> w(n);
  for (int i = 0; i < n; ++i) {
    s[i] = static_cast<int8_t>(av[i] + av[i]);
    m[i] = static_cast<uint8_t>(bv[i] / 3 + 7);
    g[i] = av[i] > 0;
    w[i] = static_cast<int16_t>(hv[i] * 3 - av[i]);
  }
  check_close<int8_t>(out[3], s);
  check_close<uint8_t>(out[4], m);
  check_close<uint8_t>(out[5].to_vector<uint8_t>(), g);
  check_close<int16_t>(out[6], w);
}

TEST_CASE("opengl: more work groups than one launch allows", "[correctness][opengl]") {
  // 64 invocations per group: 65538 groups along x, past the usual limit of 65535.
  const int64_t n = 65538LL * 64 - 7;
  Var len("len");
  Tensor A = placeholder({len}, Float(32), "A");
  Tensor B = compute({len}, [&](Var i) { return A(i) + 1.0f; }, "B");
  Module m = build(create_schedule({B}), {A, B}, "opengl", "big");
  std::vector<float> av(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) av[static_cast<size_t>(i)] = static_cast<float>(i % 1000);
  NDArray a = NDArray::from_vector(av, {n}).to(Device::opengl());
  NDArray b = NDArray::empty({n}, Float(32), Device::opengl());
  m("big")(a, b);
  std::vector<float> bv = b.to(Device::cpu()).to_vector<float>();
  int64_t bad = 0;
  for (int64_t i = 0; i < n; ++i) bad += bv[static_cast<size_t>(i)] != static_cast<float>(i % 1000) + 1.0f;
  CHECK(bad == 0);
}

namespace {

// C = A * B with A and B staged through shared memory per 16x16 tile of C: blocks over
// tiles of C, one invocation per element, the reduction split into chunks of 16.
// With k_outer_inside, the chunk loop runs inside the thread loops: the shared tiles
// must still cover what the whole work group reads.
Schedule shared_tiled_matmul(const Tensor &A, const Tensor &B, const Tensor &C, int tile, bool k_outer_inside = false) {
  Schedule s = create_schedule({C});
  Tensor As = s.cache_read(A, "shared", {C});
  Tensor Bs = s.cache_read(B, "shared", {C});
  auto [bi, bj, ti, tj] = s[C].tile(C.axis(0), C.axis(1), tile, tile);
  auto [ko, ki] = s[C].split(C.reduce_axis(0), tile);
  if (k_outer_inside) {
    s[C].reorder({bi, bj, ti, tj, ko, ki});
  } else {
    s[C].reorder({bi, bj, ko, ti, tj, ki});
  }
  s[C].bind(bi, thread_axis("blockIdx.y"));
  s[C].bind(bj, thread_axis("blockIdx.x"));
  s[C].bind(ti, thread_axis("threadIdx.y"));
  s[C].bind(tj, thread_axis("threadIdx.x"));
  for (const Tensor &T : {As, Bs}) {
    s[T].compute_at(s[C], ko);
    // Each invocation of the group copies one element of the tile.
    s[T].bind(s[T]->leaf_iter_vars[0], thread_axis("threadIdx.y"));
    s[T].bind(s[T]->leaf_iter_vars[1], thread_axis("threadIdx.x"));
  }
  return s;
}

// The same tiles of C, with A and B cached at the block loop: a whole strip of K per
// group, copied cooperatively (the strip's columns split by 16 over threadIdx.x).
Schedule shared_strip_matmul(const Tensor &A, const Tensor &B, const Tensor &C, int tile) {
  Schedule s = create_schedule({C});
  Tensor As = s.cache_read(A, "shared", {C});
  Tensor Bs = s.cache_read(B, "shared", {C});
  auto [bi, bj, ti, tj] = s[C].tile(C.axis(0), C.axis(1), tile, tile);
  s[C].bind(bi, thread_axis("blockIdx.y"));
  s[C].bind(bj, thread_axis("blockIdx.x"));
  s[C].bind(ti, thread_axis("threadIdx.y"));
  s[C].bind(tj, thread_axis("threadIdx.x"));
  for (const Tensor &T : {As, Bs}) {
    s[T].compute_at(s[C], bj);
    IterVar rows = s[T]->leaf_iter_vars[0], cols = s[T]->leaf_iter_vars[1];
    auto [ro, ri] = s[T].split(rows, tile);
    auto [co, ci] = s[T].split(cols, tile);
    s[T].reorder({ro, co, ri, ci});
    s[T].bind(ri, thread_axis("threadIdx.y"));
    s[T].bind(ci, thread_axis("threadIdx.x"));
  }
  return s;
}

}  // namespace

TEST_CASE("opengl: shared-memory strips cached at the block loop", "[correctness][opengl][opencl]") {
  const std::string target = GPU_TARGETS;
  INFO("target " << target);
  for (auto [M, N, K] : {std::tuple{64, 64, 64}, std::tuple{48, 80, 96}}) {
    DYNAMIC_SECTION(M << "x" << N << "x" << K) {
      Tensor A = placeholder({M, K}, Float(32), "A");
      Tensor B = placeholder({K, N}, Float(32), "B");
      IterVar k = reduce_axis({0, K}, "k");
      Tensor C = compute({M, N}, [&](Var i, Var j) { return sum(A(i, k) * B(k, j), {k}); }, "C");
      Schedule s = shared_strip_matmul(A, B, C, 16);
      INFO("lowered:\n" << lower(s, {A, B, C}, "strips"));
      Module m = build(s, {A, B, C}, target, "strips");
      const GpuSource src = gpu_source(m, target);
      INFO("source:\n" << src.text);
      CHECK(src.text.find(src.shared_float) != std::string::npos);
      NDArray a = random_array<float>({M, K}, 83), b = random_array<float>({K, N}, 84);
      auto out = call_on_target(m, target, "strips", {a, b, NDArray::empty({M, N}, Float(32))});
      auto av = host<float>(a), bv = host<float>(b);
      std::vector<double> ref(M * N, 0.0);
      for (int i = 0; i < M; ++i)
        for (int j = 0; j < N; ++j)
          for (int kk = 0; kk < K; ++kk) ref[i * N + j] += double(av[i * K + kk]) * bv[kk * N + j];
      check_close<float>(out[2], ref, {2e-6 * K, 1e-5});
    }
  }
}

TEST_CASE("opengl: bound thread indices and a shared-memory tiled matmul", "[correctness][opengl][opencl]") {
  const std::string target = GPU_TARGETS;
  INFO("target " << target);
  for (auto [M, N, K] : {std::tuple{64, 64, 64}, std::tuple{80, 48, 112}, std::tuple{50, 70, 40}})
  for (bool k_outer_inside : {false, true}) {
    DYNAMIC_SECTION(M << "x" << N << "x" << K << (k_outer_inside ? " chunks inside the thread loops" : "")) {
      Tensor A = placeholder({M, K}, Float(32), "A");
      Tensor B = placeholder({K, N}, Float(32), "B");
      IterVar k = reduce_axis({0, K}, "k");
      Tensor C = compute({M, N}, [&](Var i, Var j) { return sum(A(i, k) * B(k, j), {k}); }, "C");
      Schedule s = shared_tiled_matmul(A, B, C, 16, k_outer_inside);
      INFO("lowered:\n" << lower(s, {A, B, C}, "tiled"));
      Module m = build(s, {A, B, C}, target, "tiled");
      const GpuSource src = gpu_source(m, target);
      INFO("source:\n" << src.text);
      CHECK(src.text.find(src.shared_float) != std::string::npos);
      CHECK(src.text.find(src.barrier) != std::string::npos);
      CHECK(src.text.find(src.group_16x16) != std::string::npos);
      NDArray a = random_array<float>({M, K}, 81), b = random_array<float>({K, N}, 82);
      auto out = call_on_target(m, target, "tiled", {a, b, NDArray::empty({M, N}, Float(32))});
      auto av = host<float>(a), bv = host<float>(b);
      std::vector<double> ref(M * N, 0.0);
      for (int i = 0; i < M; ++i)
        for (int j = 0; j < N; ++j)
          for (int kk = 0; kk < K; ++kk) ref[i * N + j] += double(av[i * K + kk]) * bv[kk * N + j];
      check_close<float>(out[2], ref, {2e-6 * K, 1e-5});
    }
  }
}

TEST_CASE("opengl: a local accumulator per invocation (cache_write to local)", "[correctness][opengl][opencl]") {
  const std::string target = GPU_TARGETS;
  INFO("target " << target);
  const int M = 64, N = 96, K = 50;
  Tensor A = placeholder({M, K}, Float(32), "A");
  Tensor B = placeholder({K, N}, Float(32), "B");
  IterVar k = reduce_axis({0, K}, "k");
  Tensor C = compute({M, N}, [&](Var i, Var j) { return sum(A(i, k) * B(k, j), {k}); }, "C");
  Schedule s = create_schedule({C});
  Tensor CL = s.cache_write(C, "local");
  // Each invocation computes a 1x4 strip of C in a local array.
  auto [io, ii] = s[C].split(C.axis(0), 8);
  auto [jo, ji] = s[C].split(C.axis(1), 4);
  auto [jt, jv] = s[C].split(jo, 8);
  s[C].reorder({io, jt, ii, jv, ji});
  s[C].bind(io, thread_axis("blockIdx.y"));
  s[C].bind(jt, thread_axis("blockIdx.x"));
  s[C].bind(ii, thread_axis("threadIdx.y"));
  s[C].bind(jv, thread_axis("threadIdx.x"));
  s[CL].compute_at(s[C], jv);
  INFO("lowered:\n" << lower(s, {A, B, C}, "local_acc"));
  Module m = build(s, {A, B, C}, target, "local_acc");
  INFO("source:\n" << gpu_source(m, target).text);
  NDArray a = random_array<float>({M, K}, 91), b = random_array<float>({K, N}, 92);
  auto out = call_on_target(m, target, "local_acc", {a, b, NDArray::empty({M, N}, Float(32))});
  auto av = host<float>(a), bv = host<float>(b);
  std::vector<double> ref(M * N, 0.0);
  for (int i = 0; i < M; ++i)
    for (int j = 0; j < N; ++j)
      for (int kk = 0; kk < K; ++kk) ref[i * N + j] += double(av[i * K + kk]) * bv[kk * N + j];
  check_close<float>(out[2], ref, {2e-6 * K, 1e-5});
}

TEST_CASE("opengl: vectorized, unrolled and parallel loops run as plain loops", "[correctness][opengl][opencl]") {
  const std::string target = GPU_TARGETS;
  INFO("target " << target);
  const int R = 24, K = 64;
  Tensor A = placeholder({R, K}, Float(32), "A");
  Tensor B = compute({R, K}, [&](Var i, Var j) { return A(i, j) * 3.0f + 1.0f; }, "B");
  Schedule s = create_schedule({B});
  auto [jo, ji] = s[B].split(B.axis(1), 8);
  auto [jo2, jm] = s[B].split(jo, 2);
  s[B].bind(B.axis(0), thread_axis("blockIdx.x"));
  s[B].bind(jo2, thread_axis("threadIdx.x"));
  s[B].unroll(jm);
  s[B].vectorize(ji);
  Module m = build(s, {A, B}, target, "kinds");
  NDArray a = random_array<float>({R, K}, 95);
  auto out = call_on_target(m, target, "kinds", {a, NDArray::empty({R, K}, Float(32))});
  auto av = host<float>(a);
  std::vector<double> ref(R * K);
  for (int i = 0; i < R * K; ++i) ref[i] = av[i] * 3.0 + 1.0;
  check_close<float>(out[1], ref, tolerance_for<float>(target));
}

namespace {

// S(i) = sum over k of A(i, k) * A(i, k), with A of shape (n, m) for symbolic n, m.
struct RowSums {
  Var n{"n"}, m{"m"};
  Tensor A = placeholder({n, m}, Float(32), "A");
  IterVar k = reduce_axis({0, m}, "k");
  Tensor S = compute({n}, [&](Var i) { return sum(A(i, k) * A(i, k), {k}); }, "S");
};

// Small integers: sums of their squares are exact in float32, whatever the order.
std::pair<NDArray, std::vector<double>> row_sums_case(int64_t rows, int64_t cols, uint64_t seed) {
  auto v = random_array<int32_t>({rows * cols}, seed, -3, 4).to_vector<int32_t>();
  std::vector<float> a(v.begin(), v.end());
  std::vector<double> ref(static_cast<size_t>(rows), 0.0);
  for (int64_t i = 0; i < rows; ++i)
    for (int64_t j = 0; j < cols; ++j) ref[size_t(i)] += double(a[size_t(i * cols + j)]) * a[size_t(i * cols + j)];
  return {NDArray::from_vector(a, {rows, cols}), ref};
}

}  // namespace

TEST_CASE("opengl: loops under a loop limit run with several bodies per pass", "[correctness][opengl][loop_limit]") {
  // -loop-limit caps the loop passes of one invocation (as Mesa llvmpipe does at 65535):
  // low limits make the kernels below print their loops with copies of the body, barriers
  // and shared tiles included, on any driver.
  const int M = 64, N = 64, K = 64;
  Tensor A = placeholder({M, K}, Float(32), "A");
  Tensor B = placeholder({K, N}, Float(32), "B");
  IterVar k = reduce_axis({0, K}, "k");
  Tensor C = compute({M, N}, [&](Var i, Var j) { return sum(A(i, k) * B(k, j), {k}); }, "C");
  struct Case {
    const char *name;
    std::function<Schedule()> schedule;
    int limit;
  };
  std::vector<Case> cases{
      {"default schedule", [&] { return create_schedule({C}); }, 20},
      {"shared tiles", [&] { return shared_tiled_matmul(A, B, C, 16); }, 20},
      {"shared tiles, chunks inside the thread loops", [&] { return shared_tiled_matmul(A, B, C, 16, true); }, 20},
      // The chunk loop too, with its barriers in each copy.
      {"shared tiles, down to the chunk loop", [&] { return shared_tiled_matmul(A, B, C, 16); }, 2},
      {"shared strips copied by strided thread loops", [&] { return shared_strip_matmul(A, B, C, 16); }, 40},
  };
  NDArray a = random_array<float>({M, K}, 111), b = random_array<float>({K, N}, 112);
  auto av = host<float>(a), bv = host<float>(b);
  std::vector<double> ref(M * N, 0.0);
  for (int i = 0; i < M; ++i)
    for (int j = 0; j < N; ++j)
      for (int kk = 0; kk < K; ++kk) ref[i * N + j] += double(av[i * K + kk]) * bv[kk * N + j];
  for (const Case &c : cases) {
    DYNAMIC_SECTION(c.name << ", at most " << c.limit << " loop passes") {
      std::string target = "opengl -loop-limit=" + std::to_string(c.limit);
      Module m = build(c.schedule(), {A, B, C}, target, "capped");
      std::string src = m.source("glsl");
      INFO("glsl:\n" << src);
      CHECK((src.find("bodies per pass") != std::string::npos || src.find("unrolled whole") != std::string::npos));
      auto out = call_on_target(m, target, "capped", {a, b, NDArray::empty({M, N}, Float(32))});
      check_close<float>(out[2], ref, {2e-6 * K, 1e-5});
    }
  }
}

TEST_CASE("opengl: loops past the loop limit are a clear error, at build or at call time",
          "[correctness][opengl][loop_limit]") {
  SECTION("constant extents: at build time") {
    const int K = 100000;  // 100,000 passes would need more copies of the body than allowed
    Tensor A = placeholder({2, K}, Float(32), "A");
    IterVar k = reduce_axis({0, K}, "k");
    Tensor S = compute({2}, [&](Var i) { return sum(A(i, k), {k}); }, "S");
    REQUIRE_THROWS_WITH(build(create_schedule({S}), {A, S}, "opengl -loop-limit=100", "too_long"),
                        Contains("too_long_kernel0") && Contains("loop passes") && Contains("rfactor") &&
                            Contains("-loop-limit"));
  }
  SECTION("symbolic extents: at call time, for the sizes of that call") {
    RowSums p;
    const std::string target = "opengl -loop-limit=5000";
    Module m = build(create_schedule({p.S}), {p.A, p.S}, target, "rows");
    auto [a, ref] = row_sums_case(3, 3000, 113);
    auto out = call_on_target(m, target, "rows", {a, NDArray::empty({3}, Float(32))});
    check_close<float>(out[1], ref, {0, 0});
    auto [big, unused] = row_sums_case(3, 8000, 114);
    REQUIRE_THROWS_WITH(call_on_target(m, target, "rows", {big, NDArray::empty({3}, Float(32))}),
                        Contains("rows") && Contains("8001 loop passes") && Contains("rfactor"));
  }
  SECTION("a malformed limit") {
    RowSums p;
    REQUIRE_THROWS_WITH(build(create_schedule({p.S}), {p.A, p.S}, "opengl -loop-limit=many", "rows"),
                        Contains("-loop-limit=many") && Contains("positive"));
  }
}

TEST_CASE("opengl: a symbolic reduction past llvmpipe's loop limit, and the rfactor that fixes it",
          "[correctness][opengl][loop_limit]") {
  const int64_t R = 3, K = 200000;
  auto [a, ref] = row_sums_case(R, K, 115);
  SECTION("the default schedule: the right sums, or an error where the driver limits loops") {
    RowSums p;
    Module m = build(create_schedule({p.S}), {p.A, p.S}, "opengl", "rows");
    try {
      auto out = call_on_target(m, "opengl", "rows", {a, NDArray::empty({R}, Float(32))});
      check_close<float>(out[1], ref, {0, 0});
    } catch (const Error &e) {
      CHECK_THAT(e.what(), Contains("200001 loop passes") && Contains("llvmpipe") && Contains("rfactor"));
    }
  }
  SECTION("rfactor over chunks of 1024: partial sums in parallel, then 196 per row") {
    RowSums p;
    Schedule s = create_schedule({p.S});
    auto [ko, ki] = s[p.S].split(p.k, 1024);
    s.rfactor(p.S, ko);
    Module m = build(s, {p.A, p.S}, "opengl", "rows_rf");
    auto out = call_on_target(m, "opengl", "rows_rf", {a, NDArray::empty({R}, Float(32))});
    check_close<float>(out[1], ref, {0, 0});
  }
}

#endif  // TENSORIR_WITH_OPENGL
