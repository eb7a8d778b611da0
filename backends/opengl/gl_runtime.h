// The OpenGL runtime the GLSL backends build on (internal to backends/).
// Everything here runs on the process-wide headless context.
#pragma once
#include <cstddef>
#include <string>

#include "tensorir/runtime/ndarray.h"

namespace tensorir::opengl {

// The process-wide context: created on first use, headless through EGL (Mesa's
// surfaceless platform, else EGL_EXT_platform_device), desktop GL 4.5 core (which also
// compiles GLSL ES 3.00 shaders). Throws tensorir::Error saying why when none can be made.
// Made current on the calling thread by every entry point below.
class GLContext {
 public:
  static GLContext &get();
  void make_current();
  int max_texture_size() const;
  int max_work_group_invocations() const;
  int max_shared_memory_bytes() const;
  std::string renderer() const;  // e.g. "llvmpipe (LLVM 15.0.6, 256 bits)"
};

// What an NDArray on Device::opengl() holds: a buffer object (usable as an SSBO, and as
// a pixel pack/unpack buffer to move data to and from textures).
struct GLBuffer {
  unsigned id = 0;
  size_t bytes = 0;
};
// The buffer behind `a`; throws tensorir::Error naming `what` if `a` is not on OpenGL.
GLBuffer &gl_buffer(const NDArray &a, const std::string &what);

// Compiles and links; on failure throws tensorir::Error with the driver's log and the
// offending source lines (numbered). `name` names the kernel in the message.
unsigned compile_compute_program(const std::string &source, const std::string &name);
// A fragment shader (GLSL ES 3.00) linked with a built-in vertex shader that covers the
// viewport with one triangle.
unsigned compile_fragment_program(const std::string &fragment_source, const std::string &name);
void delete_program(unsigned program) noexcept;

}  // namespace tensorir::opengl
