// The runtime's workspace cache (tensorir_workspace_alloc/free), which compiled kernels'
// heap buffers come from: alignment, reuse of freed blocks, the cache's bounds, threads.
#include <catch2/catch.hpp>

#include <sys/wait.h>
#include <unistd.h>

#include <cstring>
#include <set>
#include <thread>
#include <vector>

#include "tensorir/runtime/workspace.h"

using namespace tensorir;

namespace {
bool aligned64(const void *p) { return reinterpret_cast<uintptr_t>(p) % 64 == 0; }
}  // namespace

TEST_CASE("workspace: blocks are aligned, writable and large blocks are reused", "[workspace]") {
  release_workspace_cache();
  REQUIRE(workspace_cache_bytes() == 0);
  const uint64_t big = 3u << 20;
  void *p = tensorir_workspace_alloc(big);
  REQUIRE(p != nullptr);
  CHECK(aligned64(p));
  std::memset(p, 0x5a, big);  // every byte of the request is usable
  tensorir_workspace_free(p);
  CHECK(workspace_cache_bytes() >= big);
  // The same size again, and a slightly smaller one, take the cached block.
  void *q = tensorir_workspace_alloc(big);
  CHECK(q == p);
  CHECK(workspace_cache_bytes() == 0);
  tensorir_workspace_free(q);
  void *r = tensorir_workspace_alloc(big - 1000);
  CHECK(r == p);
  tensorir_workspace_free(r);
  // A request less than half the block's size does not take it.
  void *s = tensorir_workspace_alloc(big / 4);
  CHECK(s != p);
  CHECK(aligned64(s));
  tensorir_workspace_free(s);
  release_workspace_cache();
  CHECK(workspace_cache_bytes() == 0);
}

TEST_CASE("workspace: small blocks and null are not cached", "[workspace]") {
  release_workspace_cache();
  for (uint64_t n : {uint64_t(0), uint64_t(1), uint64_t(63), uint64_t(4096), uint64_t(60000)}) {
    void *p = tensorir_workspace_alloc(n);
    REQUIRE(p != nullptr);
    CHECK(aligned64(p));
    std::memset(p, 1, n);
    tensorir_workspace_free(p);
  }
  tensorir_workspace_free(nullptr);
  CHECK(workspace_cache_bytes() == 0);
  // No such memory: refused before any allocator is asked.
  CHECK(tensorir_workspace_alloc(uint64_t(1) << 63) == nullptr);
  CHECK(tensorir_workspace_alloc(kWorkspaceMaxBytes + 1) == nullptr);
}

TEST_CASE("workspace: the cache holds at most its limit", "[workspace]") {
  release_workspace_cache();
  const uint64_t block = 64u << 20;
  std::vector<void *> live;
  for (uint64_t total = 0; total <= kWorkspaceCacheLimit; total += block) {
    void *p = tensorir_workspace_alloc(block);
    REQUIRE(p != nullptr);
    live.push_back(p);
  }
  for (void *p : live) tensorir_workspace_free(p);
  CHECK(workspace_cache_bytes() <= kWorkspaceCacheLimit);
  CHECK(workspace_cache_bytes() >= kWorkspaceCacheLimit - block);
  release_workspace_cache();
  CHECK(workspace_cache_bytes() == 0);
}

TEST_CASE("workspace: threads allocating at once get distinct blocks", "[workspace]") {
  release_workspace_cache();
  const int threads = 4, rounds = 200;
  std::vector<std::thread> ts;
  std::vector<int> bad(threads, 0);
  for (int t = 0; t < threads; ++t)
    ts.emplace_back([t, &bad] {
      for (int r = 0; r < rounds; ++r) {
        const uint64_t n = (uint64_t(1) << 17) + uint64_t(r % 3) * 8192;
        auto *p = static_cast<unsigned char *>(tensorir_workspace_alloc(n));
        if (!p) {
          ++bad[t];
          continue;
        }
        std::memset(p, t + 1, n);
        for (uint64_t i = 0; i < n; i += 4096) bad[t] += p[i] != t + 1;  // no other thread wrote here
        tensorir_workspace_free(p);
      }
    });
  for (std::thread &t : ts) t.join();
  for (int t = 0; t < threads; ++t) CHECK(bad[t] == 0);
  release_workspace_cache();
}

TEST_CASE("workspace: a full cache gives its oldest blocks back first", "[workspace]") {
  release_workspace_cache();
  // 70 blocks of distinct sizes: the cache keeps at most 64, the last ones freed.
  std::vector<void *> live;
  for (int b = 0; b < 70; ++b) live.push_back(tensorir_workspace_alloc((uint64_t(64) + uint64_t(b)) << 12));
  for (void *p : live) tensorir_workspace_free(p);
  uint64_t newest = 0;
  for (int b = 6; b < 70; ++b) newest += (uint64_t(64) + uint64_t(b)) << 12;
  CHECK(workspace_cache_bytes() == newest);
  // The newest size is served from the cache, the oldest (gone) is not.
  void *again = tensorir_workspace_alloc((uint64_t(64) + 69) << 12);
  CHECK(again == live[69]);
  tensorir_workspace_free(again);
  release_workspace_cache();
  // A block past the whole cache's limit is never kept.
  void *huge = tensorir_workspace_alloc(kWorkspaceCacheLimit + 4096);
  REQUIRE(huge != nullptr);
  tensorir_workspace_free(huge);
  CHECK(workspace_cache_bytes() == 0);
}

TEST_CASE("workspace: a forked child allocates and frees while the parent keeps its cache", "[workspace]") {
  release_workspace_cache();
  void *p = tensorir_workspace_alloc(1u << 20);
  tensorir_workspace_free(p);
  std::thread busy([] {  // another thread using the cache while the process forks
    for (int r = 0; r < 2000; ++r) tensorir_workspace_free(tensorir_workspace_alloc((1u << 17) + (r % 5) * 4096));
  });
  for (int f = 0; f < 20; ++f) {
    const pid_t child = fork();
    REQUIRE(child >= 0);
    if (child == 0) {
      void *q = tensorir_workspace_alloc(1u << 20);
      if (q) std::memset(q, 1, 1u << 20);
      tensorir_workspace_free(q);
      _exit(q && workspace_cache_bytes() >= (1u << 20) ? 0 : 1);
    }
    int status = 0;
    REQUIRE(waitpid(child, &status, 0) == child);
    CHECK(WIFEXITED(status));
    CHECK(WEXITSTATUS(status) == 0);
  }
  busy.join();
  release_workspace_cache();
}
