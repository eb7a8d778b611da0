// The OpenGL context in a GLFW window, for programs that want one on screen. GLFW 3.3 has
// no headless platform: it needs an X display (Xvfb will do).
#include "backends/opengl/gl_window.h"

#include "tensorir/error.h"

#if TENSORIR_HAVE_GLFW

#include <glad/gl.h>
#define GLFW_INCLUDE_NONE  // the GL declarations come from glad
#include <GLFW/glfw3.h>

#include <sstream>

namespace tensorir::opengl::window {

namespace {

// GLFW's last error on this thread, as "description (GLFW error 0x...)".
std::string glfw_error() {
  const char *description = nullptr;
  int code = glfwGetError(&description);
  if (code == GLFW_NO_ERROR) return "no reason given";
  std::ostringstream os;
  os << (description ? description : "unknown error") << " (GLFW error 0x" << std::hex << code << ")";
  return os.str();
}

[[noreturn]] void fail(const std::string &why) {
  TIR_THROW() << "cannot create the OpenGL window through GLFW: " << why
              << "\n(the window context needs an X display: run the program through `xvfb-run -a` "
                 "(Debian package xvfb), or keep the headless default: "
                 "set_opengl_context(GLContextKind::Headless) or TENSORIR_GL_CONTEXT=egl)";
}

GLFWwindow *try_version(int major, int minor, int width, int height, const std::string &title, std::string &why) {
  glfwDefaultWindowHints();
  glfwWindowHint(GLFW_CLIENT_API, GLFW_OPENGL_API);
  glfwWindowHint(GLFW_CONTEXT_VERSION_MAJOR, major);
  glfwWindowHint(GLFW_CONTEXT_VERSION_MINOR, minor);
  glfwWindowHint(GLFW_OPENGL_PROFILE, GLFW_OPENGL_CORE_PROFILE);
  glfwWindowHint(GLFW_VISIBLE, GLFW_TRUE);
  GLFWwindow *w = glfwCreateWindow(width, height, title.c_str(), nullptr, nullptr);
  if (!w)
    why += "\n  OpenGL " + std::to_string(major) + "." + std::to_string(minor) + " core: " + glfw_error();
  return w;
}

}  // namespace

bool available() { return true; }

void *create(int width, int height, const std::string &title, std::string &platform) {
  glfwGetError(nullptr);  // forget errors from earlier attempts
  if (!glfwInit()) fail("glfwInit failed: " + glfw_error());
  std::string why;
  GLFWwindow *w = try_version(4, 5, width, height, title, why);
  if (!w) w = try_version(4, 3, width, height, title, why);  // compute shaders need 4.3
  if (!w) {
    glfwTerminate();  // so that a later attempt starts afresh
    fail("no window with an OpenGL 4.5 or 4.3 core context:" + why);
  }
  glfwMakeContextCurrent(w);
  if (gladLoadGL(reinterpret_cast<GLADloadfunc>(glfwGetProcAddress)) == 0) {
    glfwMakeContextCurrent(nullptr);
    glfwDestroyWindow(w);
    glfwTerminate();
    fail("the OpenGL entry points could not be loaded through glfwGetProcAddress");
  }
  platform = "GLFW window " + std::to_string(width) + "x" + std::to_string(height) + " (GLFW " +
             std::to_string(GLFW_VERSION_MAJOR) + "." + std::to_string(GLFW_VERSION_MINOR) + ")";
  return w;
}

void make_current(void *window) {
  glfwGetError(nullptr);
  glfwMakeContextCurrent(static_cast<GLFWwindow *>(window));
  TIR_USER_CHECK(glfwGetCurrentContext() == static_cast<GLFWwindow *>(window))
      << "cannot make the OpenGL window's context current on this thread: " << glfw_error();
}
bool is_current(void *window) { return glfwGetCurrentContext() == static_cast<GLFWwindow *>(window); }
void release_current() { glfwMakeContextCurrent(nullptr); }

}  // namespace tensorir::opengl::window

#else  // built without GLFW

namespace tensorir::opengl::window {

namespace {
[[noreturn]] void unavailable() {
  TIR_THROW() << "the OpenGL window context is not available: tensorir was built without GLFW "
                 "(install libglfw3-dev, see scripts/install-deps.sh, and configure again); "
                 "or use the headless default (GLContextKind::Headless, TENSORIR_GL_CONTEXT=egl)";
}
}  // namespace

bool available() { return false; }
void *create(int, int, const std::string &, std::string &) { unavailable(); }
void make_current(void *) { unavailable(); }
bool is_current(void *) { return false; }
void release_current() {}

}  // namespace tensorir::opengl::window

#endif
