// Loops marked vectorize on "opencl" print as OpenCL C vectors: vloadN/vstoreN for
// consecutive elements, vector arithmetic and conversions, vectors built lane by lane for
// gathers and the rest, register tiles as arrays of vectors. Each case checks the printed
// source and compares the result with plain loops. Without an OpenCL platform every case
// fails with the reason.
#include <cmath>
#include <string>
#include <vector>

#include "correctness/target_runner.h"
#include "tensorir/ops/nn.h"
#include "tensorir/ops/schedule.h"

using namespace tensorir;
using namespace tensorir::testing;
using Catch::Contains;

namespace {

// The kernels' OpenCL C and the result of one call with `host_args`.
struct Built {
  std::string source;
  std::vector<NDArray> out;
};
Built build_and_run(const Schedule &s, const std::vector<BuildArg> &args, const std::string &target,
                    const std::vector<Arg> &host_args) {
  Module m = build(s, args, target, "f");
  return {m.source("cl"), call_on_target(m, target, "f", host_args)};
}

}  // namespace

TEST_CASE("opencl vectors: consecutive loads and stores of every vector width", "[correctness][opencl]") {
  const int lanes = GENERATE(2, 3, 4, 8, 16);
  INFO("lanes " << lanes);
  const int n = 48 * lanes;
  Tensor A = placeholder({n}, Float(32), "A");
  Tensor B = compute({n}, [&](Var i) { return A(i) * 2.0f + 1.0f; }, "B");
  Schedule s = create_schedule({B});
  auto [blk, vec] = s[B].split(B.axis(0), lanes);
  s[B].bind(blk, thread_axis("blockIdx.x"));
  s[B].vectorize(vec);
  NDArray a = random_array<float>({n}, 1);
  Built b = build_and_run(s, {A, B}, "opencl", {a, NDArray::empty({n}, Float(32))});
  const std::string w = std::to_string(lanes);
  CHECK_THAT(b.source, Contains("vload" + w + "(0, ") && Contains("vstore" + w + "(") && Contains("((float" + w + ")("));
  std::vector<float> ref = a.to_vector<float>();
  for (float &x : ref) x = x * 2.0f + 1.0f;
  check_close<float>(b.out[1], ref);
}

TEST_CASE("opencl vectors: gathers, integer division and selects lane by lane", "[correctness][opencl]") {
  const int n = 256;
  Tensor A = placeholder({2 * n}, Float(32), "A");
  Tensor I = placeholder({n}, Int(32), "I");
  // Every other element (a gather), a floor division of integers, a select on a
  // comparison and an int-to-float conversion: the lanes of each are built one by one.
  Tensor B = compute({n}, [&](Var i) { return select(A(2 * i) > 0.0f, A(2 * i), A(2 * i + 1)) + cast(Float(32), floordiv(I(i), 3)); },
                     "B");
  Tensor C = compute({n}, [&](Var i) { return cast(Int(32), B(i) * 10.0f); }, "C");
  Schedule s = create_schedule({C});
  s[B].compute_inline();
  auto [blk, vec] = s[C].split(C.axis(0), 8);
  s[C].bind(blk, thread_axis("blockIdx.x"));
  s[C].vectorize(vec);
  NDArray a = random_array<float>({2 * n}, 2);
  NDArray ints = random_array<int32_t>({n}, 3, -50, 50);
  Built b = build_and_run(s, {A, I, C}, "opencl", {a, ints, NDArray::empty({n}, Int(32))});
  CHECK_THAT(b.source, Contains("vstore8(convert_int8(") && Contains("((float8)("));
  const std::vector<float> av = a.to_vector<float>();
  const std::vector<int32_t> iv = ints.to_vector<int32_t>();
  std::vector<int32_t> ref(n);
  for (int i = 0; i < n; ++i) {
    const float sel = av[2 * i] > 0.0f ? av[2 * i] : av[2 * i + 1];
    const int q = int(std::floor(iv[i] / 3.0));
    ref[i] = int32_t((sel + float(q)) * 10.0f);
  }
  check_close<int32_t>(b.out[2], ref);
}

TEST_CASE("opencl vectors: a loop of a width OpenCL C has no vector for is stored lane by lane",
          "[correctness][opencl]") {
  const int n = 100;
  Tensor A = placeholder({n}, Float(32), "A");
  Tensor B = compute({n}, [&](Var i) { return A(i) - 0.5f; }, "B");
  Schedule s = create_schedule({B});
  auto [blk, vec] = s[B].split(B.axis(0), 5);
  s[B].bind(blk, thread_axis("blockIdx.x"));
  s[B].vectorize(vec);
  NDArray a = random_array<float>({n}, 4);
  Built b = build_and_run(s, {A, B}, "opencl", {a, NDArray::empty({n}, Float(32))});
  CHECK(b.source.find("vstore") == std::string::npos);
  std::vector<float> ref = a.to_vector<float>();
  for (float &x : ref) x -= 0.5f;
  check_close<float>(b.out[1], ref);
}

TEST_CASE("opencl vectors: the matmul schedule for CPU devices keeps its tile in vectors",
          "[correctness][opencl]") {
  // -vector-lanes=0 is the schedule for GPUs (many work-items, scalars).
  const std::string lanes = GENERATE(as<std::string>{}, "16", "8", "4", "0");
  const int64_t M = GENERATE(as<int64_t>{}, 24, 1);
  const int64_t K = 36, N = 96;
  INFO("lanes " << lanes << ", M " << M);
  const std::string target = "opencl -vector-lanes=" + lanes;
  Tensor A = placeholder({M, K}, Float(32), "A"), B = placeholder({K, N}, Float(32), "B");
  Tensor C = ops::batch_matmul(A, B, "C");
  NDArray a = random_array<float>({M, K}, 5), bm = random_array<float>({K, N}, 6);
  Built b = build_and_run(ops::schedule_matmul_gpu(C, C, Target(target)), {A, B, C}, target,
                          {a, bm, NDArray::empty({M, N}, Float(32))});
  if (lanes != "0") {
    // The accumulators: an array of vectors, read and written whole.
    CHECK_THAT(b.source, Contains("float" + lanes + " ") && Contains("vload" + lanes + "(0, ") &&
                             Contains("reqd_work_group_size(1, 1, 1)"));
  } else {
    CHECK(b.source.find("vload") == std::string::npos);
  }
  const std::vector<float> av = a.to_vector<float>(), bv = bm.to_vector<float>();
  std::vector<float> ref(size_t(M * N), 0.0f);
  for (int64_t i = 0; i < M; ++i)
    for (int64_t k = 0; k < K; ++k)
      for (int64_t j = 0; j < N; ++j) ref[size_t(i * N + j)] += av[size_t(i * K + k)] * bv[size_t(k * N + j)];
  check_close<float>(b.out[2], ref, tolerance_for<float>("opencl"));
}

TEST_CASE("opencl vectors: a CPU device gets vectors by default, a lane count can be given",
          "[correctness][opencl]") {
  // PoCL (the CPU device here) prefers vectors of 4 lanes or more.
  CHECK(Target("opencl").caps().work_item_vector_lanes >= 4);
  CHECK(Target("opencl -vector-lanes=8").caps().work_item_vector_lanes == 8);
  CHECK(Target("opencl -vector-lanes=0").caps().work_item_vector_lanes == 0);
}

TEST_CASE("opencl vectors: unsigned division and remainder by a lane of 0 give 0 in that lane", "[correctness][opencl]") {
  const Type t = GENERATE(UInt(32), UInt(8));
  INFO(t);
  const int n = 64;
  Tensor A = placeholder({n}, t, "A"), B = placeholder({n}, t, "B");
  Tensor Q = compute({n}, [&](Var i) { return A(i) / B(i); }, "Q");
  Tensor R = compute({n}, [&](Var i) { return A(i) % B(i); }, "R");
  Schedule s = create_schedule({Q, R});
  for (const Tensor &out : {Q, R}) {
    auto [blk, vec] = s[out].split(out.axis(0), 8);
    s[out].bind(blk, thread_axis("blockIdx.x"));
    s[out].vectorize(vec);
  }
  std::vector<uint64_t> av, bv;
  for (int i = 0; i < n; ++i) {
    av.push_back(uint64_t(37 * i + 5) % 251);
    bv.push_back(i % 3 == 0 ? 0 : uint64_t(i % 11));  // a 0 in every vector
  }
  const auto array = [&](const std::vector<uint64_t> &v) {
    NDArray x = NDArray::empty({n}, t);
    for (int i = 0; i < n; ++i) {
      if (t == UInt(8)) static_cast<uint8_t *>(x.data())[i] = uint8_t(v[size_t(i)]);
      else static_cast<uint32_t *>(x.data())[i] = uint32_t(v[size_t(i)]);
    }
    return x;
  };
  // Division is built lane by lane, each lane guarded.
  Module m = build(s, {A, B, Q, R}, "opencl", "f");
  CHECK_THAT(m.source("cl"), Contains("== 0u ? 0u :"));
  const std::vector<NDArray> out =
      call_on_target(m, "opencl", "f", {array(av), array(bv), NDArray::empty({n}, t), NDArray::empty({n}, t)});
  for (int i = 0; i < n; ++i) {
    const uint64_t a = av[size_t(i)], b = bv[size_t(i)];
    const auto at = [&](const NDArray &x) {
      return t == UInt(8) ? uint64_t(static_cast<const uint8_t *>(x.data())[i]) : uint64_t(static_cast<const uint32_t *>(x.data())[i]);
    };
    INFO(a << " and " << b);
    CHECK(at(out[2]) == (b ? a / b : 0));
    CHECK(at(out[3]) == (b ? a % b : 0));
  }
}
