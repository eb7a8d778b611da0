// The OpenGL runtime's side of GLSL modules (glsl/common/glsl_runner.h): executables
// that run compute programs and fragment plans on the process-wide context.
#pragma once
#include <memory>

#include "backends/glsl/common/glsl_runner.h"

namespace tensorir::opengl {

std::unique_ptr<glsl::Executable> compute_executable(std::shared_ptr<const glsl::ComputeProgram> program);
std::unique_ptr<glsl::Executable> fragment_executable(std::shared_ptr<const glsl::FragmentProgram> program);

}  // namespace tensorir::opengl
