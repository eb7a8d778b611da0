// Cold timing: with MeasureOptions::flush_cache every buffer argument is flushed from the
// caches before each timed call, and the figures stay those of a correct kernel. What is
// flushed is seen through time_kernel's FlushFn; no test here depends on the timings.
#include <catch2/catch.hpp>

#include <cstring>
#include <set>
#include <utility>

#include "autotune/measure.h"
#include "runtime/device_api.h"
#include "tensorir/autotune/tuner.h"
#include "tensorir/build.h"
#include "tensorir/te/schedule.h"

using namespace tensorir;
using namespace tensorir::autotune;

namespace {

// out[j] = sum_k x[k] * w[k, j]: a 1 x n by n x n dense layer that streams its n x n weight.
Module dense(int64_t n) {
  Tensor X = placeholder({n}, Float(32), "x");
  Tensor W = placeholder({n, n}, Float(32), "w");
  IterVar k = reduce_axis({0, n}, "k");
  Tensor Y = compute({n}, [&](Var j) { return sum(X(k) * W(k, j), {k}); }, "y");
  Schedule s = create_schedule({Y});
  auto [ko, ki] = s[Y].split(Y.reduce_axis(0), 4);
  s[Y].reorder({ko, ki, Y.axis(0)});
  return build(s, {X, W, Y}, "llvm", "dense");
}

// The flushes time_kernel asks for, in order.
struct FlushLog {
  std::vector<std::pair<const void *, size_t>> calls;
  FlushFn fn() {
    return [this](const void *data, size_t bytes) { calls.emplace_back(data, bytes); };
  }
};

MeasureOptions options(int repeat, double min_repeat_ms, bool flush) {
  MeasureOptions o;
  o.time = {.number = 1, .repeat = repeat, .min_repeat_ms = min_repeat_ms};
  o.flush_cache = flush;
  return o;
}

}  // namespace

TEST_CASE("measurement flushes every CPU kernel's arguments from the caches by default", "[autotune]") {
  REQUIRE(MeasureOptions{}.flush_cache);
}

TEST_CASE("cold timing flushes each argument once before each timed call, and the result stays right",
          "[autotune]") {
  const int64_t n = 2048;  // a 16 MB weight
  const Module m = dense(n);
  std::vector<NDArray> args = make_arguments(signature_of(m, "dense"), 5);
  FlushLog log;
  const std::vector<double> times = time_kernel(m, "dense", args, options(4, 0, true), log.fn());
  REQUIRE(times.size() == 4);
  for (double t : times) REQUIRE(t > 0);
  // With number 1 and no minimum, one call per repeat: x, w and y, once each, in order.
  REQUIRE(log.calls.size() == 4 * args.size());
  for (size_t i = 0; i < log.calls.size(); ++i) {
    const NDArray &a = args[i % args.size()];
    REQUIRE(log.calls[i].first == a.data());
    REQUIRE(log.calls[i].second == a.nbytes());
  }
  REQUIRE(log.calls[1].second == size_t(n * n * 4));
  // The kernel's output after the timed calls, against plain loops.
  const std::vector<float> x = args[0].to_vector<float>(), w = args[1].to_vector<float>(),
                           y = args[2].to_vector<float>();
  for (int64_t j = 0; j < n; j += 97) {
    double want = 0;
    for (int64_t k = 0; k < n; ++k) want += double(x[k]) * w[k * n + j];
    REQUIRE(std::abs(y[j] - want) <= 1e-3 * (1 + std::abs(want)));
  }
}

TEST_CASE("cold timing grows a repeat's calls to min_repeat_ms, flushing before every one", "[autotune]") {
  const Module m = dense(64);
  const std::vector<NDArray> args = make_arguments(signature_of(m, "dense"), 1);
  FlushLog log;
  const std::vector<double> times = time_kernel(m, "dense", args, options(3, 2.0, true), log.fn());
  REQUIRE(times.size() == 3);
  // A 64 x 64 dense takes microseconds: each repeat needed several calls, each flushed in full.
  REQUIRE(log.calls.size() % args.size() == 0);
  REQUIRE(log.calls.size() / args.size() > 3);
  std::set<const void *> flushed;
  for (const auto &c : log.calls) flushed.insert(c.first);
  REQUIRE(flushed == std::set<const void *>{args[0].data(), args[1].data(), args[2].data()});
}

TEST_CASE("hot timing flushes nothing", "[autotune]") {
  const Module m = dense(64);
  const std::vector<NDArray> args = make_arguments(signature_of(m, "dense"), 1);
  FlushLog log;
  REQUIRE(time_kernel(m, "dense", args, options(3, 0, false), log.fn()).size() == 3);
  REQUIRE(log.calls.empty());
}

TEST_CASE("cold timing refuses repeats it cannot run", "[autotune]") {
  const Module m = dense(64);
  const std::vector<NDArray> args = make_arguments(signature_of(m, "dense"), 1);
  REQUIRE_THROWS_WITH(time_kernel(m, "dense", args, options(0, 0, true)),
                      Catch::Contains("measuring 'dense': number and repeat must be at least 1"));
}

TEST_CASE("flushing a buffer from the caches leaves its bytes as they were", "[autotune]") {
  NDArray a = NDArray::random({1000}, Float(32), 9);
  const std::vector<float> before = a.to_vector<float>();
  flush_from_caches(static_cast<const char *>(a.data()) + 3, a.nbytes() - 5);  // not line-aligned
  REQUIRE(a.to_vector<float>() == before);
}

TEST_CASE("the local runner times cold in its child and still checks results", "[autotune]") {
  const Module m = dense(256);
  const std::vector<NDArray> args = make_arguments(signature_of(m, "dense"), 2);
  const std::vector<NDArray> expected = reference_outputs(m, "dense", args);
  MeasureOptions o = options(3, 1.0, true);
  const MeasureResult r = local_runner()->run(m, "dense", args, &expected, o);
  REQUIRE(r.error.empty());
  REQUIRE(r.times_ms.size() == 3);
  for (double t : r.times_ms) REQUIRE(t > 0);
  // A wrong expectation is still caught.
  std::vector<NDArray> wrong = {expected[0], expected[1], expected[2].to(Device::cpu())};
  wrong[2].data_as<float>()[5] += 1;
  REQUIRE_THAT(local_runner()->run(m, "dense", args, &wrong, o).error, Catch::Contains("argument 2 element 5"));
}

#if TENSORIR_WITH_OPENCL
TEST_CASE("an OpenCL CPU driver's kernels are timed cold by evicting the caches", "[autotune][opencl]") {
  // Its buffers have no host addresses to flush; the runner overwrites host memory
  // instead wherever the device computes in the CPU's caches: a CPU driver (which gets
  // vectors per work-item by default), not a GPU.
  const DeviceAPI *api = find_device_api(Device::OpenCL);
  REQUIRE(api != nullptr);
  const bool cpu_driver = Target("opencl").caps().work_item_vector_lanes > 0;
  CHECK(api->shares_host_caches(Device::opencl()) == cpu_driver);
  const DeviceAPI *gl = find_device_api(Device::OpenGL);
  CHECK_FALSE((gl && gl->shares_host_caches(Device::opengl())));
}
#endif
