// The registered Runner (glsl_runner.h).
#include "backends/glsl/common/glsl_runner.h"

#include <atomic>
#include <exception>

#include "tensorir/error.h"

namespace tensorir::glsl {

namespace {
std::atomic<const Runner *> &registered() {
  static std::atomic<const Runner *> r{nullptr};
  return r;
}
}  // namespace

void register_runner(const Runner *runner) { registered().store(runner); }

const Runner &runner(const std::string &what) {
  const Runner *r = registered().load();
  TIR_USER_CHECK(r != nullptr) << what << ": the OpenGL runtime is not built (tensorir was configured with "
                                          "TENSORIR_WITH_OPENGL=OFF), so GLSL shaders cannot run here; their "
                                          "source() and graph::export_web still work. Configure with "
                                          "-DTENSORIR_WITH_OPENGL=ON to run them";
  return *r;
}

std::optional<DeviceFacts> available_device() {
  static const std::optional<DeviceFacts> facts = []() -> std::optional<DeviceFacts> {
    const Runner *r = registered().load();
    if (!r) return std::nullopt;
    try {
      return r->device();
    } catch (const std::exception &) {  // no display, no EGL, a driver that refuses
      return std::nullopt;
    }
  }();
  return facts;
}

}  // namespace tensorir::glsl
