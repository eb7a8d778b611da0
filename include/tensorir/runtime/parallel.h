// The runtime's persistent thread pool, which parallel loops run on.
#pragma once
#include <cstdint>

extern "C" {
// Calls body(i, env) for every i in [begin, end), spread over the pool's threads, and
// waits for all of them. Returns the first non-zero status a body returned, or 0.
// Compiled kernels call it with their outlined loop bodies.
int32_t tensorir_parallel_for(int64_t begin, int64_t end, int32_t (*body)(int64_t i, void *env),
                              void *env);
// Records a message for the failing call (kernels call it before returning non-zero).
void tensorir_set_last_error(const char *msg);
}

namespace tensorir {
// The most threads the pool takes.
inline constexpr int kMaxThreads = 1024;
// Thread count: TENSORIR_NUM_THREADS if set, else the cores this process may use.
int num_threads();
// Resizes the pool (n >= 1); for benchmarks that compare thread counts.
void set_num_threads(int n);
// The message of the last failed kernel call on this thread, then cleared.
const char *take_last_error();
}  // namespace tensorir
