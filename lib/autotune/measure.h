// Building a batch of candidates and preparing their arguments (measure.cpp); timing them
// in child processes (measure_local.cpp).
#pragma once
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <thread>
#include <vector>

#include "tensorir/autotune/task.h"
#include "tensorir/runtime/module.h"

namespace tensorir::autotune {

struct MeasureOptions;  // tensorir/autotune/tuner.h

// `s` seconds on the steady clock, at most 10^9 s (32 years): beyond that the clock's
// count overflows, and a deadline of infinity would have passed before it began.
inline std::chrono::steady_clock::duration clock_seconds(double s) {
  return std::chrono::duration_cast<std::chrono::steady_clock::duration>(
      std::chrono::duration<double>(std::min(s, 1e9)));
}

// Calls fn(i) for every i in [0, n) on up to `threads` threads, the caller's among them.
template <typename F>
void for_each_index(size_t n, int threads, const F &fn) {
  std::atomic<size_t> next{0};
  auto work = [&] {
    for (size_t i = next++; i < n; i = next++) fn(i);
  };
  std::vector<std::thread> pool;
  for (int t = 1; t < threads && size_t(t) < n; ++t) pool.emplace_back(work);
  work();
  for (std::thread &t : pool) t.join();
}

// The target `inst` of `task` builds for: its own (the task's with its knobs' options),
// or the task's where it names none (tasks made by hand).
inline Target build_target(const Task &task, const Instance &inst) {
  return inst.target.kind.empty() ? task.target : inst.target;
}

// One configuration built, or why it could not be.
struct BuiltCandidate {
  int64_t index = 0;
  Module module;
  std::string function;
  std::string error;
  double build_s = 0;
};

// Instantiates and builds configurations `indices` of `task` on up to `threads` threads
// (0: the cores). build() is safe to call from several threads for kinds whose tensors
// are in host memory (every LLVM build has its own context); other kinds (an OpenGL
// context is bound to one thread) build one at a time. A build slower than `timeout_s`
// is an error, since a thread cannot be stopped midway.
std::vector<BuiltCandidate> build_candidates(const Task &task, const std::vector<int64_t> &indices,
                                             int threads, double timeout_s);

// Host arrays for every argument of `sig`: seeded random values, the same for every
// configuration of a task. A kernel with scalar arguments or symbolic shapes throws.
std::vector<NDArray> make_arguments(const FuncSignature &sig, uint64_t seed);

// `args` after one call of `function`: the expected arrays of a correctness check.
std::vector<NDArray> reference_outputs(const Module &module, const std::string &function,
                                       const std::vector<NDArray> &args);

// Evicts the `bytes` at `data` from every level of the CPU's caches (clflush per 64-byte
// line, then a fence); does nothing on CPUs without clflush (non-x86 builds).
void flush_from_caches(const void *data, size_t bytes);

// Where time_kernel flushes a buffer; tests pass their own to see what is flushed.
using FlushFn = std::function<void(const void *data, size_t bytes)>;

// Each repeat's mean milliseconds per call of `function` on `args` (arrays where the
// module runs), after one untimed call. With options.flush_cache and a CPU kernel, each
// call is timed alone with `flush` applied to every argument, untimed, before it; a
// repeat has `number` calls, doubled until their summed time reaches `min_repeat_ms`.
// Otherwise Module::time_evaluator times it.
std::vector<double> time_kernel(const Module &module, const std::string &function, const std::vector<NDArray> &args,
                                const MeasureOptions &options, const FlushFn &flush = flush_from_caches);

// The function's signature in a built module.
const FuncSignature &signature_of(const Module &module, const std::string &function);

}  // namespace tensorir::autotune
