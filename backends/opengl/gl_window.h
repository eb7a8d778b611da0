// The GLFW half of the OpenGL context (gl_window.cpp): a visible window whose GL context
// the runtime uses like the headless one. Built without GLFW, every function throws
// tensorir::Error (available() says so beforehand).
#pragma once
#include <string>

namespace tensorir::opengl::window {

// Whether this build has the window path (GLFW found when it was configured).
bool available();
// Creates the window with a GL 4.5 core context (4.3 when 4.5 is refused), makes it
// current on the calling thread and loads the GL entry points through GLFW. Returns the
// window; `platform` receives a short description. Throws tensorir::Error with GLFW's
// reason on failure.
void *create(int width, int height, const std::string &title, std::string &platform);
void make_current(void *window);  // throws tensorir::Error with GLFW's reason on failure
bool is_current(void *window);
void release_current();

}  // namespace tensorir::opengl::window
