// The cache behind tensorir_workspace_alloc: every block carries a 64-byte header with
// its capacity; blocks of kPooledMin bytes and more go back to a short list when freed,
// small ones to the system allocator, which keeps those in the process anyway. The list
// holds the most recently freed blocks: when it is full, in count or in bytes, the oldest
// go back to the system, so that sizes a model no longer asks for do not stay.
#include "tensorir/runtime/workspace.h"

#include <pthread.h>

#include <cstdlib>

#include "runtime/export.h"

namespace tensorir {

namespace {

constexpr uint64_t kHeader = 64;  // keeps the block 64-byte aligned
constexpr uint64_t kPooledMin = uint64_t(64) << 10;
constexpr uint64_t kPage = 4096;
constexpr int kMaxBlocks = 64;

struct Header {
  uint64_t capacity;  // usable bytes after the header
};

// Plain data with a static initializer: there from the first instruction, never torn
// down (kernels may still free blocks while other statics are destroyed at exit), and no
// first-use guard for a fork to catch half-taken.
struct Cache {
  pthread_mutex_t mutex;
  void *blocks[kMaxBlocks];  // free blocks (the header's address), oldest first
  int count;
  uint64_t bytes;  // their capacities together
};
Cache g_cache = {PTHREAD_MUTEX_INITIALIZER, {}, 0, 0};

// A fork while another thread holds the lock would leave the child's copy locked.
__attribute__((constructor)) void lock_across_fork() {
  pthread_atfork([] { pthread_mutex_lock(&g_cache.mutex); }, [] { pthread_mutex_unlock(&g_cache.mutex); },
                 [] { pthread_mutex_unlock(&g_cache.mutex); });
}

class Lock {
 public:
  Lock() { pthread_mutex_lock(&g_cache.mutex); }
  ~Lock() { pthread_mutex_unlock(&g_cache.mutex); }
  Lock(const Lock &) = delete;
  Lock &operator=(const Lock &) = delete;
};

uint64_t capacity_of(void *base) { return static_cast<Header *>(base)->capacity; }

// Removes entry i of the list (under the lock), keeping the others in order.
void *remove_at(int i) {
  void *base = g_cache.blocks[i];
  for (int j = i + 1; j < g_cache.count; ++j) g_cache.blocks[j - 1] = g_cache.blocks[j];
  --g_cache.count;
  g_cache.bytes -= capacity_of(base);
  return base;
}

// The smallest cached block that holds `bytes` without wasting more than it uses.
void *take_cached(uint64_t bytes) {
  Lock lock;
  int best = -1;
  for (int i = 0; i < g_cache.count; ++i) {
    const uint64_t cap = capacity_of(g_cache.blocks[i]);
    if (cap >= bytes && cap / 2 <= bytes && (best < 0 || cap < capacity_of(g_cache.blocks[best]))) best = i;
  }
  return best < 0 ? nullptr : remove_at(best);
}

// Keeps `base` (whose capacity is at most the limit), giving the oldest blocks back to
// the system until it fits; returns them to free outside the lock.
int keep(void *base, void **evicted) {
  Lock lock;
  const uint64_t cap = capacity_of(base);
  int n = 0;
  while (g_cache.count > 0 && (g_cache.count == kMaxBlocks || g_cache.bytes + cap > kWorkspaceCacheLimit))
    evicted[n++] = remove_at(0);
  g_cache.blocks[g_cache.count++] = base;
  g_cache.bytes += cap;
  return n;
}

}  // namespace

uint64_t workspace_cache_bytes() {
  Lock lock;
  return g_cache.bytes;
}

void release_workspace_cache() {
  void *blocks[kMaxBlocks];
  int n = 0;
  {
    Lock lock;
    while (g_cache.count > 0) blocks[n++] = remove_at(0);
  }
  for (int i = 0; i < n; ++i) std::free(blocks[i]);
}

}  // namespace tensorir

extern "C" {

TENSORIR_EXPORT void *tensorir_workspace_alloc(uint64_t bytes) {
  using namespace tensorir;
  if (bytes > kWorkspaceMaxBytes) return nullptr;
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
  if (cap < kPooledMin || cap > kWorkspaceCacheLimit) {
    std::free(base);
    return;
  }
  void *evicted[kMaxBlocks];
  const int n = keep(base, evicted);
  for (int i = 0; i < n; ++i) std::free(evicted[i]);
}

}  // extern "C"
