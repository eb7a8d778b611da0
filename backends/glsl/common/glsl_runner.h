// How GLSL modules run: the code generators under backends/glsl/ make shaders and plans
// (strings, JSON) without any GL; running them on a GL context is the OpenGL runtime's
// part (backends/opengl/), which registers a Runner at static initialisation. A build
// without the runtime (TENSORIR_WITH_OPENGL=OFF) has none: webgl modules still build,
// print their source and export, and calling one is an Error saying why.
#pragma once
#include <cstddef>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "tensorir/runtime/module.h"
#include "tensorir/runtime/ndarray.h"

namespace tensorir::glsl {

struct ComputeProgram;   // compute/compute_module.h
struct FragmentProgram;  // fragment/fragment_module.h

// What code generation needs to know of the GL implementation that will run the shaders.
struct DeviceFacts {
  std::string renderer;  // e.g. "llvmpipe (LLVM 15.0.6, 256 bits)"
  int max_texture_size = 0;
  int max_work_group_invocations = 0;
  int max_work_group_size[3] = {0, 0, 0};
  int max_shared_memory_bytes = 0;
  int max_compute_storage_buffers = 0;
  bool int64 = false;  // GL_ARB_gpu_shader_int64
  // Mesa's llvmpipe ends a shader invocation's loops after 65535 passes in all.
  bool llvmpipe() const { return renderer.find("llvmpipe") != std::string::npos; }
};

// One module's compiled shaders on a GL context; owns its GL objects.
class Executable {
 public:
  virtual ~Executable() = default;
  // Runs function `index` of the program (arguments as ModuleNode::invoke gets them).
  virtual void invoke(size_t index, const std::vector<ArgValue> &args, const std::vector<NDArray> &buffers) const = 0;
  // Waits until the device has done everything invoked so far (for timing calls).
  virtual void finish() const {}
};

class Runner {
 public:
  virtual ~Runner() = default;
  // The facts of the GL context (made on first use; throws tensorir::Error when none can be).
  virtual DeviceFacts device() const = 0;
  // Compiles the programs' shaders; throws tensorir::Error with the driver's log.
  virtual std::unique_ptr<Executable> compute(std::shared_ptr<const ComputeProgram> program) const = 0;
  // Compiles every pass's shader and checks what the device cannot run.
  virtual std::unique_ptr<Executable> fragment(std::shared_ptr<const FragmentProgram> program) const = 0;
};

// Called once by the OpenGL runtime (static initialisation); `runner` lives for the process.
void register_runner(const Runner *runner);
// The registered runner, or a tensorir::Error naming `what` (e.g. "building for target
// 'opengl'") and saying that the OpenGL runtime is not built.
const Runner &runner(const std::string &what);
// The registered runner's device facts, or nothing when no runtime is built or no context
// can be made (target capabilities then fall back to defaults); asked once per process.
std::optional<DeviceFacts> available_device();

}  // namespace tensorir::glsl
