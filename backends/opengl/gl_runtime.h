// The OpenGL runtime the GLSL backends build on (internal to backends/).
// Everything here runs on the process-wide headless context.
//
// Locking: GL calls go through one context shared by every thread. Hold a GLScope for
// the whole sequence of GL calls (it locks the context's mutex, which nests, and makes
// the context current on the calling thread); the functions below take one themselves.
#pragma once
#include <cstddef>
#include <string>

#include "tensorir/runtime/ndarray.h"

namespace tensorir::opengl {

// The process-wide context: created on first use, headless through EGL (Mesa's
// surfaceless platform, else EGL_EXT_platform_device) unless set_opengl_context() or
// TENSORIR_GL_CONTEXT=glfw asks for a GLFW window (gl_window.h); desktop GL 4.5 core
// (which also compiles GLSL ES 3.00 shaders). Throws tensorir::Error saying why when none
// can be made. Made current on the calling thread by every entry point below.
class GLContext {
 public:
  static GLContext &get();
  // Makes the context current on the calling thread; hold a GLScope around it and the
  // GL calls that follow (GLScope calls this itself).
  void make_current();
  // Leaves the calling thread without a current context (GLScope calls this when its
  // outermost scope closes).
  void release_current() noexcept;
  int max_texture_size() const;
  int max_work_group_invocations() const;
  int max_shared_memory_bytes() const;
  std::string renderer() const;  // e.g. "llvmpipe (LLVM 15.0.6, 256 bits)"

  // Further limits and facts, read once when the context is made.
  std::string version() const;  // GL_VERSION, e.g. "4.5 (Core Profile) Mesa 22.3.6"
  int max_work_group_size(int axis) const;   // per axis 0..2
  int max_work_group_count(int axis) const;  // per axis 0..2
  int max_compute_storage_buffers() const;   // SSBO blocks one compute shader may declare
  bool has_extension(const std::string &name) const;
  // How the context was made, e.g. "EGL surfaceless" or "GLFW window 640x480 (GLFW 3.3)".
  std::string platform() const;
  bool is_window() const;  // made in a GLFW window (set_opengl_context, TENSORIR_GL_CONTEXT)
  // Whether the context can still be used: false once the process has begun to exit
  // (buffers freed from static destructors after that point are left to the OS).
  static bool alive();

 private:
  GLContext();
  struct Impl;
  Impl *impl_;
};

// Holds the context's lock and keeps it current on this thread while it lives; nests on
// one thread. Creates the context on first use (so it may throw, like GLContext::get()).
class GLScope {
 public:
  GLScope();
  ~GLScope();
  GLScope(const GLScope &) = delete;
  GLScope &operator=(const GLScope &) = delete;
};

// Throws tensorir::Error naming `what` if GL reported an error since the last check.
void check_gl_error(const std::string &what);

// What an NDArray on Device::opengl() holds: a buffer object (usable as an SSBO, and as
// a pixel pack/unpack buffer to move data to and from textures).
struct GLBuffer {
  unsigned id = 0;
  size_t bytes = 0;  // the array's bytes; the buffer object is rounded up to 4-byte words
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

// The driver's info log followed by the source lines it points at ("0:12(5): error: ..."
// in Mesa's format, "0(12) : error" and "ERROR: 0:12:" in others), numbered from 1, with
// one line of context either side. Without any line reference, the whole numbered source.
std::string annotate_shader_log(const std::string &log, const std::string &source);

}  // namespace tensorir::opengl
