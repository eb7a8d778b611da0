// How the process-wide OpenGL context behind the "opengl" target and Device::opengl()
// is made: headless through EGL (the default, needs no display), or in a GLFW window
// (needs an X display; under CI run the program through `xvfb-run -a`).
#pragma once
#include <string>

namespace tensorir {

enum class GLContextKind { Headless, Window };

// Chooses the context kind, and for a window its size and title. Call before the first
// OpenGL use: once the context exists this throws tensorir::Error. Without a call, the
// environment variable TENSORIR_GL_CONTEXT=egl|glfw chooses (egl when unset). If making
// the context failed, a later call chooses again and the next use retries.
// GLFW wants its window made on the main thread: make the first OpenGL use there (for
// example opengl_renderer()).
void set_opengl_context(GLContextKind kind, int width = 640, int height = 480,
                        const std::string &title = "tensorir");

// The GL renderer, e.g. "llvmpipe (LLVM 15.0.6, 256 bits)"; creates the context if needed
// (throws tensorir::Error saying why when none can be made).
std::string opengl_renderer();

}  // namespace tensorir
