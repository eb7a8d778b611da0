// Where code runs: "llvm", "llvm -mcpu=native", "opengl", "opengl -mode=fragment", "webgl",
// "wasm" (WebAssembly with 128-bit SIMD, for browsers). The kinds and their options are
// those the backends register (tensorir/target_kind.h); parse() checks a string against them.
#pragma once
#include <cstdint>
#include <map>
#include <string>

#include "tensorir/runtime/device.h"

namespace tensorir {

struct TargetKindInfo;

// What code built for a target needs and allows. The layers above the backends (graph
// building, operator schedules, exporters) ask these instead of comparing kind names; a
// kind's registration computes them from the target's options.
struct TargetCaps {
  // Where this process keeps the tensors that the target's kernels read and write.
  Device::Kind device = Device::CPU;
  // build() returns a Module whose functions this process can call (false: the code runs
  // elsewhere, e.g. in a browser, and the Module is only exported).
  bool runs_in_process = false;
  // The tuned CPU schedules of ops/schedule.h apply (vector registers, threads).
  bool cpu_schedules = false;
  // The CPU has 16 vector registers (WebAssembly SIMD): register tiles are sized for them.
  bool small_vector_registers = false;
  // The code has software prefetch instructions (Stage::prefetch); elsewhere prefetches
  // are dropped, so schedules do not offer them as knobs.
  bool prefetch = false;
  // A kernel can fail its call with a message (tensorir::Error in the caller): checked
  // indices (ir/op.h checked_index) are checked. Elsewhere they are clamped.
  bool kernel_errors = false;
  // graph::build may compute a kernel's result in place of an input it reads element by
  // element at the result's own index, where that input dies (a residual added to a
  // convolution): one array less streamed through the caches. Kernels then read and write
  // one buffer, which fragment shaders cannot; the saved model records it.
  bool in_place_results = false;
  // float32 lanes of the CPU's widest vector registers (16 with AVX-512, 8 with AVX, 4 with
  // SSE, NEON or WebAssembly SIMD); 0 when not a CPU or not known.
  int cpu_vector_lanes = 0;
  // Tensors live in textures, read and written by fragment shaders.
  bool textures = false;
  // > 0: tensors are packed this many channels to a texel, so layouts block channels by it.
  int texture_channel_block = 0;
  // build() gives stages that bind no GPU loops the default GPU schedule first.
  bool default_gpu_schedule = false;
  // The GPU compute schedules of the operator registry apply (strategies["gpu"]):
  // work-groups, shared-memory tiles, register blocks.
  bool gpu_schedules = false;
  // The device's limits, for schedules that size tiles by them; 0 when not known.
  int max_work_group_size = 0;       // invocations (work-items) in one work-group
  int64_t max_shared_memory_bytes = 0;  // "shared" / __local memory of one work-group
  // > 0: the device is a CPU whose driver runs a work-group's work-items as a loop on one
  // core (PoCL). The GPU schedules then give each work-item a tile of vectors of this many
  // float32 lanes (loops marked vectorize, printed as vector types) in work-groups of one,
  // instead of relying on the driver to vectorise across work-items.
  int work_item_vector_lanes = 0;
  // > 0: the most tensors one kernel may read, the output aside (a shader binds 16 storage
  // buffers or textures at least): graph::build splits wider concatenations and fused
  // groups to fit. 0: no limit.
  int max_kernel_inputs = 0;
};

struct Target {
  std::string kind;                            // "llvm", "opengl", ...
  std::map<std::string, std::string> options;  // "-mcpu=native" -> {"mcpu": "native"}

  Target() = default;
  Target(const char *s) : Target(parse(s)) {}
  Target(const std::string &s) : Target(parse(s)) {}
  // Throws tensorir::Error naming the malformed part, an unregistered kind (listing the
  // registered ones), an option the kind does not have (listing those it has) or a value
  // the option does not accept. Kinds register from static initializers of the library,
  // so the library's own static initializers must not parse targets.
  static Target parse(const std::string &s);
  // Checks kind and options against the registry as parse() does, e.g. after `options`
  // was edited.
  void check() const;
  std::string option(const std::string &key, const std::string &fallback = "") const;
  // An option that must be a whole number in [1, max] ("-max-texture-size=4096"), or
  // `fallback` when absent; anything else throws an Error naming the option.
  int64_t positive_option(const std::string &key, int64_t fallback, int64_t max = INT64_MAX) const;
  std::string str() const;

  // The registered kind (target_kind.h); an Error when `kind` is not registered.
  const TargetKindInfo &kind_info() const;
  // What code built for this target needs and allows, given its options.
  TargetCaps caps() const;
};

}  // namespace tensorir
