// Scratch memory of compiled CPU kernels. A kernel's temporary buffers too large for its
// stack (a packed matrix panel, a Winograd transform) come from here: freed blocks of 64
// KiB and more are kept and handed out again, so a kernel called in a loop reuses its
// memory instead of having the system map, fault in and zero fresh pages on every call
// (a tenth of a 2048 GEMM's time when its packed B came from the system each call).
#pragma once
#include <cstdint>

extern "C" {
// A block of at least `bytes` (64-byte aligned), or null when memory is exhausted or
// `bytes` is past kWorkspaceMaxBytes.
// Compiled kernels call it for their heap buffers and release them with the free below.
void *tensorir_workspace_alloc(uint64_t bytes);
void tensorir_workspace_free(void *block);
}

namespace tensorir {
// More than any address space: a request past it is refused without asking the system
// (compiled kernels map a size whose computation overflowed to past it).
inline constexpr uint64_t kWorkspaceMaxBytes = uint64_t(1) << 48;
// Bytes of freed blocks the cache holds at most (and at most 64 blocks): a block freed
// into a full cache pushes the oldest ones back to the system.
inline constexpr uint64_t kWorkspaceCacheLimit = uint64_t(512) << 20;
// Bytes the cache holds now (free blocks, not those in use).
uint64_t workspace_cache_bytes();
// Gives every cached block back to the system (a long-running program between models).
void release_workspace_cache();
}  // namespace tensorir
