// The runtime thread pool: coverage of the range, nesting, errors and resizing.
#include <catch2/catch.hpp>

#include <sched.h>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <numeric>
#include <thread>
#include <vector>

#include "runtime/thread_pool.h"
#include "tensorir/error.h"
#include "tensorir/runtime/parallel.h"

using namespace tensorir;

namespace {
struct SumEnv {
  const std::vector<int64_t> *values;
  std::vector<int64_t> *partial;  // one slot per index, so no sharing
};

int32_t square_body(int64_t i, void *env) {
  auto *e = static_cast<SumEnv *>(env);
  int64_t v = (*e->values)[i];
  (*e->partial)[i] = v * v % 1000003;
  return 0;
}

struct NestedEnv {
  std::vector<std::atomic<int>> *hits;
  int64_t inner;
};

int32_t inner_body(int64_t j, void *env) {
  auto *p = static_cast<std::pair<NestedEnv *, int64_t> *>(env);
  (*p->first->hits)[p->second * p->first->inner + j].fetch_add(1);
  return 0;
}

int32_t outer_body(int64_t i, void *env) {
  auto *e = static_cast<NestedEnv *>(env);
  std::pair<NestedEnv *, int64_t> inner_env(e, i);
  return tensorir_parallel_for(0, e->inner, inner_body, &inner_env);
}

int32_t failing_body(int64_t i, void *env) {
  auto *calls = static_cast<std::atomic<int64_t> *>(env);
  calls->fetch_add(1);
  if (i == 777) {
    tensorir_set_last_error("index 777 is out of bounds");
    return 3;
  }
  return 0;
}

int32_t thread_id_body(int64_t i, void *env) {
  auto *ids = static_cast<std::vector<std::thread::id> *>(env);
  (*ids)[i] = std::this_thread::get_id();
  return 0;
}
}  // namespace

TEST_CASE("thread pool: parallel sum equals the serial sum", "[thread_pool]") {
  const int64_t n = 1000000;
  std::vector<int64_t> values(n);
  for (int64_t i = 0; i < n; ++i) values[i] = (i * 7919) % 100003;
  std::vector<int64_t> partial(n, -1);
  SumEnv env{&values, &partial};
  for (int threads : {1, 2, 3, 5}) {
    set_num_threads(threads);
    REQUIRE(num_threads() == threads);
    std::fill(partial.begin(), partial.end(), -1);
    REQUIRE(tensorir_parallel_for(0, n, square_body, &env) == 0);
    int64_t serial = 0, parallel = 0;
    for (int64_t i = 0; i < n; ++i) {
      serial += values[i] * values[i] % 1000003;
      parallel += partial[i];
    }
    REQUIRE(parallel == serial);
  }
  // An offset range and ranges smaller than the pool.
  std::fill(partial.begin(), partial.end(), -1);
  REQUIRE(tensorir_parallel_for(10, 13, square_body, &env) == 0);
  REQUIRE(partial[9] == -1);
  REQUIRE(partial[10] == values[10] * values[10] % 1000003);
  REQUIRE(partial[12] == values[12] * values[12] % 1000003);
  REQUIRE(partial[13] == -1);
  REQUIRE(tensorir_parallel_for(5, 5, square_body, &env) == 0);
  REQUIRE(tensorir_parallel_for(5, 2, square_body, &env) == 0);
}

TEST_CASE("thread pool: work runs on several threads", "[thread_pool]") {
  set_num_threads(3);
  std::vector<std::thread::id> ids(3000);
  REQUIRE(tensorir_parallel_for(0, 3000, thread_id_body, &ids) == 0);
  // Contiguous chunks: the first goes to the calling thread, the last to a worker.
  REQUIRE(ids.front() == std::this_thread::get_id());
  REQUIRE(ids.back() != std::this_thread::get_id());
  REQUIRE(ids[999] == ids[0]);
}

TEST_CASE("thread pool: nested loops run and cover everything once", "[thread_pool]") {
  set_num_threads(4);
  const int64_t outer = 37, inner = 53;
  std::vector<std::atomic<int>> hits(outer * inner);
  NestedEnv env{&hits, inner};
  REQUIRE(tensorir_parallel_for(0, outer, outer_body, &env) == 0);
  for (auto &h : hits) REQUIRE(h.load() == 1);
}

TEST_CASE("thread pool: a failing body's status and message reach the caller",
          "[thread_pool]") {
  for (int threads : {1, 4}) {
    set_num_threads(threads);
    std::atomic<int64_t> calls{0};
    REQUIRE(tensorir_parallel_for(0, 1000, failing_body, &calls) == 3);
    REQUIRE(std::string(take_last_error()) == "index 777 is out of bounds");
    REQUIRE(std::string(take_last_error()).empty());  // cleared
    REQUIRE(calls.load() <= 1000);
    // The pool still works afterwards.
    calls = 0;
    REQUIRE(tensorir_parallel_for(0, 500, failing_body, &calls) == 0);
    REQUIRE(calls.load() == 500);
  }
}

TEST_CASE("thread pool: concurrent callers from several threads", "[thread_pool]") {
  set_num_threads(3);
  const int64_t n = 20000;
  std::vector<int64_t> values(n);
  std::iota(values.begin(), values.end(), 0);
  std::vector<std::vector<int64_t>> partial(4, std::vector<int64_t>(n));
  std::vector<std::thread> callers;
  std::atomic<int> failures{0};
  for (int c = 0; c < 4; ++c) {
    callers.emplace_back([&, c] {
      SumEnv env{&values, &partial[c]};
      for (int rep = 0; rep < 20; ++rep)
        if (tensorir_parallel_for(0, n, square_body, &env) != 0) failures++;
    });
  }
  for (auto &t : callers) t.join();
  REQUIRE(failures.load() == 0);
  for (int c = 0; c < 4; ++c)
    for (int64_t i = 0; i < n; i += 997) REQUIRE(partial[c][i] == i * i % 1000003);
}

TEST_CASE("thread pool: set_num_threads validates its argument", "[thread_pool]") {
  REQUIRE_THROWS_AS(set_num_threads(0), Error);
  REQUIRE_THROWS_WITH(set_num_threads(-2), Catch::Contains("between 1 and"));
  set_num_threads(2);
  REQUIRE(num_threads() == 2);
}

namespace {
int32_t cpu_of_body(int64_t i, void *env) {
  auto *cpus = static_cast<std::vector<int> *>(env);
  (*cpus)[i] = sched_getcpu();
  return 0;
}
}  // namespace

TEST_CASE("thread pool: TENSORIR_BIND_THREADS pins each thread to its own CPU", "[thread_pool]") {
  cpu_set_t before;
  CPU_ZERO(&before);
  REQUIRE(sched_getaffinity(0, sizeof(before), &before) == 0);
  const int available = CPU_COUNT(&before);
  const int saved_threads = num_threads();
  setenv("TENSORIR_BIND_THREADS", "1", 1);
  set_num_threads(2);  // a new pool reads the variable
  std::vector<int> cpus(2, -1);
  REQUIRE(tensorir_parallel_for(0, 2, cpu_of_body, &cpus) == 0);
  cpu_set_t now;
  CPU_ZERO(&now);
  REQUIRE(sched_getaffinity(0, sizeof(now), &now) == 0);
  // Restore before checking, so a failure leaves the process as it was.
  unsetenv("TENSORIR_BIND_THREADS");
  sched_setaffinity(0, sizeof(before), &before);
  set_num_threads(saved_threads);
  CHECK(CPU_COUNT(&now) == 1);  // the caller is pinned
  if (available >= 2) CHECK(cpus[0] != cpus[1]);  // and the worker runs elsewhere
}

namespace {
// Iteration 1 runs on the worker of a two-thread pool; with `join` set it first moves that
// worker onto the CPU `join` names, as the kernel does when it wakes a worker on its
// caller's busy CPU.
struct PlacementEnv {
  int join = -1;
  std::vector<int> cpus = std::vector<int>(2, -1);
};

int32_t placement_body(int64_t i, void *env) {
  auto *e = static_cast<PlacementEnv *>(env);
  if (i == 1 && e->join >= 0) {
    cpu_set_t mask, one;
    CPU_ZERO(&one);
    CPU_SET(e->join, &one);
    if (sched_getaffinity(0, sizeof(mask), &mask) == 0 && sched_setaffinity(0, sizeof(one), &one) == 0)
      sched_setaffinity(0, sizeof(mask), &mask);  // the thread stays where it now is
  }
  e->cpus[static_cast<size_t>(i)] = sched_getcpu();
  return 0;
}
}  // namespace

TEST_CASE("thread pool: a worker on its caller's CPU moves to a free one", "[thread_pool]") {
  cpu_set_t before;
  CPU_ZERO(&before);
  REQUIRE(sched_getaffinity(0, sizeof(before), &before) == 0);
  INFO("the check needs two CPUs this process may use; it has " << CPU_COUNT(&before));
  REQUIRE(CPU_COUNT(&before) >= 2);
  const int saved_threads = num_threads();
  set_num_threads(1);
  set_num_threads(2);
  PlacementEnv first;
  REQUIRE(tensorir_parallel_for(0, 2, placement_body, &first) == 0);  // a new pool, workers unpinned
  // The caller stays on one CPU; a loop body puts the worker on the same one. Where the
  // next loop finds it there, the worker moves before its chunk. Whether it does find it
  // there is the kernel's choice (another busy process may draw it away or back), and
  // whether it stays after moving too, so the check is on what the pool saw and did: a
  // few tries, each past the pool's limit of one move per 10 ms.
  int caller_cpu = 0;
  while (!CPU_ISSET(caller_cpu, &before)) ++caller_cpu;
  cpu_set_t one;
  CPU_ZERO(&one);
  CPU_SET(caller_cpu, &one);
  REQUIRE(sched_setaffinity(0, sizeof(one), &one) == 0);
  int32_t status = 0;
  int tries = 0, seen = 0, moved = 0, elsewhere = 0;
  for (; tries < 20 && status == 0 && seen == 0; ++tries) {
    PlacementEnv joined, next;
    joined.join = caller_cpu;
    std::this_thread::sleep_for(std::chrono::milliseconds(12));
    status = tensorir_parallel_for(0, 2, placement_body, &joined);
    std::this_thread::sleep_for(std::chrono::milliseconds(12));
    const runtime::PoolPlacementCounts c0 = runtime::pool_placement_counts();
    if (status == 0) status = tensorir_parallel_for(0, 2, placement_body, &next);
    const runtime::PoolPlacementCounts c1 = runtime::pool_placement_counts();
    if (joined.cpus[1] != caller_cpu || c1.shared == c0.shared) continue;
    seen = 1;
    moved = int(c1.moved - c0.moved);
    elsewhere = next.cpus[1] != caller_cpu;
  }
  sched_setaffinity(0, sizeof(before), &before);
  set_num_threads(saved_threads);
  REQUIRE(status == 0);
  INFO(tries << " tries; in the last the worker's chunk ran " << (elsewhere ? "on another CPU" : "on the caller's CPU"));
  REQUIRE(seen == 1);  // the next loop found the worker on the caller's CPU
  CHECK(moved == 1);   // and moved it
}
