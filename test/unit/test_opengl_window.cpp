// The OpenGL context's kind: headless (EGL, the default) or a GLFW window. The window
// cases are hidden from the plain run (they need an X display); ctest runs them under
// `xvfb-run -a` (test/CMakeLists.txt), where they fail, never skip, without a window.
#include <tensorir/runtime/opengl.h>
#include <tensorir/tensorir.h>

#include <catch2/catch.hpp>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <thread>
#include <vector>

#include "../../backends/opengl/gl_runtime.h"

using namespace tensorir;

#if TENSORIR_WITH_OPENGL

namespace {

// B = A * 3 - 1 as a compute shader; checked against a host loop on random data.
void check_kernel_runs(int64_t n, uint64_t seed) {
  Tensor A = placeholder({n}, Float(32), "A");
  Tensor B = compute({n}, [&](Var i) { return A(i) * 3.0f - 1.0f; }, "B");
  Module m = build(create_schedule({B}), {A, B}, "opengl", "scale");
  NDArray a = NDArray::random({n}, Float(32), seed, -100, 100);
  NDArray ga = a.to(Device::opengl());
  NDArray gb = NDArray::empty({n}, Float(32), Device::opengl());
  m("scale")(ga, gb);
  std::vector<float> av = a.to_vector<float>(), bv = gb.to(Device::cpu()).to_vector<float>();
  REQUIRE(bv.size() == av.size());
  int64_t bad = 0;
  for (size_t i = 0; i < av.size(); ++i) bad += bv[i] != av[i] * 3.0f - 1.0f;
  CHECK(bad == 0);
}

std::string display() {
  const char *d = std::getenv("DISPLAY");
  return d ? d : "";
}

}  // namespace

TEST_CASE("opengl context: the kind is chosen before the first use", "[unit][opengl]") {
  std::string renderer = opengl_renderer();  // creates the context (headless unless asked otherwise)
  CHECK_FALSE(renderer.empty());
  CHECK(renderer == opengl::GLContext::get().renderer());
  CHECK_THROWS_WITH(set_opengl_context(GLContextKind::Headless), Catch::Contains("already exists") &&
                                                                     Catch::Contains("before the first OpenGL use"));
  CHECK_THROWS_WITH(set_opengl_context(GLContextKind::Window, 0, 480), Catch::Contains("must be positive"));
#if TENSORIR_HAVE_GLFW
  CHECK_THROWS_WITH(set_opengl_context(GLContextKind::Window), Catch::Contains("already exists"));
#else
  CHECK_THROWS_WITH(set_opengl_context(GLContextKind::Window), Catch::Contains("built without GLFW"));
#endif
}

// Run by ctest as `xvfb-run -a tensorir_unit_tests "[window]"`, in a process of its own.
TEST_CASE("opengl context: a GLFW window runs kernels", "[.][window]") {
  const std::string saved = display();
  if (saved.empty()) FAIL("DISPLAY is not set: run this test under `xvfb-run -a` (ctest does)");

  SECTION("without a display: GLFW's reason and the way out, then a retry with the display works") {
    unsetenv("DISPLAY");
    set_opengl_context(GLContextKind::Window, 320, 200, "tensorir test");
    CHECK_THROWS_WITH(opengl_renderer(), Catch::Contains("GLFW") && Catch::Contains("DISPLAY") &&
                                             Catch::Contains("xvfb-run -a") && Catch::Contains("Headless"));
    CHECK_THROWS_WITH(opengl_renderer(), Catch::Contains("xvfb-run -a"));  // remembered
    setenv("DISPLAY", saved.c_str(), 1);

    set_opengl_context(GLContextKind::Window, 320, 200, "tensorir test");  // allowed: no context yet
    std::string renderer = opengl_renderer();
    INFO("renderer: " << renderer);
    CHECK_FALSE(renderer.empty());
    opengl::GLContext &ctx = opengl::GLContext::get();
    INFO("platform: " << ctx.platform() << ", version: " << ctx.version());
    CHECK(ctx.is_window());
    CHECK(ctx.platform().find("GLFW window 320x200") != std::string::npos);
    CHECK(ctx.version().rfind("4.", 0) == 0);
    CHECK(ctx.max_work_group_invocations() >= 128);

    check_kernel_runs(1000, 3);
    check_kernel_runs(70001, 4);
    // Another thread takes the context in turn.
    std::thread t([] { check_kernel_runs(513, 5); });
    t.join();
    check_kernel_runs(257, 6);

    CHECK_THROWS_WITH(set_opengl_context(GLContextKind::Headless), Catch::Contains("already exists") &&
                                                                       Catch::Contains("GLFW window"));
  }
}

// Run by ctest under `xvfb-run -a` with TENSORIR_GL_CONTEXT=glfw, with the other
// "[opengl]" unit tests: the environment alone chooses the window.
TEST_CASE("opengl context: TENSORIR_GL_CONTEXT=glfw chooses the window", "[.][window_env]") {
  const char *env = std::getenv("TENSORIR_GL_CONTEXT");
  REQUIRE(env != nullptr);
  REQUIRE(std::string(env) == "glfw");
  check_kernel_runs(999, 7);
  opengl::GLContext &ctx = opengl::GLContext::get();
  INFO("platform: " << ctx.platform());
  CHECK(ctx.is_window());
  CHECK(ctx.platform().find("GLFW window 640x480") != std::string::npos);
}

#endif
