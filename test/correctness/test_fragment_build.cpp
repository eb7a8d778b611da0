// The fragment targets ("opengl -mode=fragment", "webgl") plan shaders from the schedule's
// tensor stages: build(schedule, ...) reaches them through their schedule builders, and
// lowered functions are refused with a message that says how to build them.
#include <string>
#include <vector>

#include "correctness/reference.h"
#include "correctness/target_runner.h"

using namespace tensorir;
using namespace tensorir::testing;

#if TENSORIR_WITH_OPENGL

TEST_CASE("fragment targets refuse lowered functions and say to build from a schedule", "[fragment][webgl]") {
  Tensor A = placeholder({8}, Float(32), "A");
  Tensor B = compute({8}, [&](Var i) { return A(i) * 2.0f; }, "B");
  LoweredFunc f = lower(create_schedule({B}), {A, B}, "twice");
  for (const char *target : {"webgl", "opengl -mode=fragment"}) {
    INFO("target " << target);
    CHECK_THROWS_AS(build(std::vector<LoweredFunc>{f}, target), Error);
    CHECK_THROWS_WITH(build(std::vector<LoweredFunc>{f}, target),
                      Catch::Matchers::Contains("build it from a schedule, build(s, args, target, name)"));
  }
}

TEST_CASE("fragment targets built from a schedule run and match the CPU", "[fragment][webgl][opengl]") {
  const std::string target = GENERATE(as<std::string>{}, "webgl", "opengl -mode=fragment");
  INFO("target " << target);
  const int64_t n = 37;
  Tensor A = placeholder({n}, Float(32), "A");
  Tensor B = compute({n}, [&](Var i) { return A(i) * 2.0f + 1.0f; }, "B");
  Module m = build(create_schedule({B}), {A, B}, target, "affine");
  CHECK(m.node()->backend() == (target == "webgl" ? "webgl" : "opengl -mode=fragment"));
  CHECK(m.source("glsl").find("void main()") != std::string::npos);
  NDArray a = random_array<float>({n}, 71);
  std::vector<float> av = a.to_vector<float>(), ref;
  for (float v : av) ref.push_back(v * 2.0f + 1.0f);
  // webgl takes host arrays, opengl -mode=fragment arrays on the OpenGL device.
  std::vector<NDArray> out{a, NDArray::empty({n}, Float(32))};
  if (target == "webgl")
    m("affine").call({out[0], out[1]});
  else
    out = call_on_target(m, target, "affine", {a, NDArray::empty({n}, Float(32))});
  check_close<float>(out[1], ref, tolerance_for<float>(target));
}

#endif  // TENSORIR_WITH_OPENGL
