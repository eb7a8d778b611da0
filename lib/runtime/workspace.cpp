// The cache behind tensorir_workspace_alloc: every block carries a 64-byte header with
// its capacity; blocks of kPooledMin bytes and more go back to a best-fit list when freed,
// small ones to the system allocator, which keeps those in the process anyway.
#include "tensorir/runtime/workspace.h"

#include <pthread.h>

#include <cstdlib>
#include <mutex>
#include <vector>

#define TENSORIR_EXPORT __attribute__((visibility("default")))

namespace tensorir {

namespace {

constexpr uint64_t kHeader = 64;  // keeps the block 64-byte aligned
constexpr uint64_t kPooledMin = uint64_t(64) << 10;
constexpr uint64_t kPage = 4096;

struct Header {
  uint64_t capacity;  // usable bytes after the header
};

struct Cache {
  std::mutex mutex;
  std::vector<void *> blocks;  // free blocks (the header's address)
  uint64_t bytes = 0;          // their capacities together
};

Cache &cache() {
  // Never destroyed: kernels may still free blocks while statics are torn down at exit.
  static Cache *c = [] {
    auto *made = new Cache;
    // A fork while another thread holds the lock would leave the child's copy locked.
    pthread_atfork([] { cache().mutex.lock(); }, [] { cache().mutex.unlock(); },
                   [] { cache().mutex.unlock(); });
    return made;
  }();
  return *c;
}

uint64_t capacity_of(void *base) { return static_cast<Header *>(base)->capacity; }

// The smallest cached block that holds `bytes` without wasting more than it uses.
void *take_cached(uint64_t bytes) {
  Cache &c = cache();
  std::lock_guard<std::mutex> lock(c.mutex);
  size_t best = c.blocks.size();
  for (size_t i = 0; i < c.blocks.size(); ++i) {
    const uint64_t cap = capacity_of(c.blocks[i]);
    if (cap >= bytes && cap / 2 <= bytes && (best == c.blocks.size() || cap < capacity_of(c.blocks[best])))
      best = i;
  }
  if (best == c.blocks.size()) return nullptr;
  void *base = c.blocks[best];
  c.blocks[best] = c.blocks.back();
  c.blocks.pop_back();
  c.bytes -= capacity_of(base);
  return base;
}

}  // namespace

uint64_t workspace_cache_bytes() {
  Cache &c = cache();
  std::lock_guard<std::mutex> lock(c.mutex);
  return c.bytes;
}

void release_workspace_cache() {
  std::vector<void *> blocks;
  {
    Cache &c = cache();
    std::lock_guard<std::mutex> lock(c.mutex);
    blocks.swap(c.blocks);
    c.bytes = 0;
  }
  for (void *b : blocks) std::free(b);
}

}  // namespace tensorir

extern "C" {

TENSORIR_EXPORT void *tensorir_workspace_alloc(uint64_t bytes) {
  using namespace tensorir;
  if (bytes > (uint64_t(1) << 62)) return nullptr;
  // Pooled sizes round up to whole pages, so that nearly equal requests share blocks.
  const uint64_t cap = bytes >= kPooledMin ? (bytes + kPage - 1) / kPage * kPage : (bytes + 63) / 64 * 64;
  void *base = cap >= kPooledMin ? take_cached(cap) : nullptr;
  if (!base) {
    base = std::aligned_alloc(64, kHeader + cap);
    if (!base) return nullptr;
    static_cast<Header *>(base)->capacity = cap;
  }
  return static_cast<char *>(base) + kHeader;
}

TENSORIR_EXPORT void tensorir_workspace_free(void *block) {
  using namespace tensorir;
  if (!block) return;
  void *base = static_cast<char *>(block) - kHeader;
  const uint64_t cap = capacity_of(base);
  if (cap >= kPooledMin) {
    Cache &c = cache();
    std::lock_guard<std::mutex> lock(c.mutex);
    if (c.bytes + cap <= kWorkspaceCacheLimit) {
      c.blocks.push_back(base);
      c.bytes += cap;
      return;
    }
  }
  std::free(base);
}

}  // extern "C"
