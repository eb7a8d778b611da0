// The OpenGL runtime's public entry points in a build without it (TENSORIR_WITH_OPENGL=OFF):
// they exist so that programs link, and say why they cannot work.
#include "tensorir/error.h"
#include "tensorir/runtime/opengl.h"

namespace tensorir {

namespace {
[[noreturn]] void no_opengl(const char *what) {
  TIR_THROW() << what << ": tensorir was built without OpenGL (configured with TENSORIR_WITH_OPENGL=OFF); "
                         "configure it with -DTENSORIR_WITH_OPENGL=ON to use the opengl target";
}
}  // namespace

void set_opengl_context(GLContextKind, int, int, const std::string &) { no_opengl("set_opengl_context"); }
std::string opengl_renderer() { no_opengl("opengl_renderer"); }

}  // namespace tensorir
