// Measurement's parts: arguments from a kernel's signature, and the comparison of results.
#include <catch2/catch.hpp>

#include "autotune/measure.h"
#include "tensorir/autotune/tuner.h"
#include "tensorir/build.h"
#include "tensorir/runtime/parallel.h"
#include "tensorir/te/schedule.h"

using namespace tensorir;
using namespace tensorir::autotune;

namespace {

Module scaled_copy(bool symbolic, bool scalar, Var &n, Var &s) {
  Expr len = symbolic ? Expr(n) : Expr(16);
  Tensor A = placeholder({len}, Float(32), "A");
  Tensor B = compute({len}, [&](Var i) { return scalar ? A(i) * cast(Float(32), s) : A(i) * 2.0f; }, "B");
  std::vector<BuildArg> args = {A, B};
  if (scalar) args.push_back(s);
  return build(create_schedule({B}), args, "llvm", "scale");
}

}  // namespace

TEST_CASE("arguments follow the kernel's signature, the same for the same seed", "[autotune]") {
  Var n("n", Int(64)), s("s", Int(64));
  const Module m = scaled_copy(false, false, n, s);
  const std::vector<NDArray> a = make_arguments(signature_of(m, "scale"), 3);
  REQUIRE(a.size() == 2);
  REQUIRE(a[0].shape() == std::vector<int64_t>{16});
  REQUIRE(a[0].to_vector<float>() == make_arguments(signature_of(m, "scale"), 3)[0].to_vector<float>());
  // The reference's results, and a candidate that differs from them.
  const std::vector<NDArray> want = reference_outputs(m, "scale", a);
  for (int64_t i = 0; i < 16; ++i) REQUIRE(want[1].to_vector<float>()[i] == 2 * a[0].to_vector<float>()[i]);
  REQUIRE(check_outputs(want, want).empty());
  std::vector<NDArray> got = {want[0], want[1].to(Device::cpu())};
  got[1].data_as<float>()[7] += 1;
  REQUIRE_THAT(check_outputs(got, want), Catch::Contains("argument 1 element 7"));
  REQUIRE_THROWS_WITH(signature_of(m, "other"), Catch::Contains("no function 'other'"));
}

TEST_CASE("kernels with scalar arguments or symbolic shapes cannot be measured", "[autotune]") {
  Var n("n", Int(64)), s("s", Int(64));
  REQUIRE_THROWS_WITH(make_arguments(signature_of(scaled_copy(false, true, n, s), "scale"), 0),
                      Catch::Contains("argument 's' is a scalar"));
  REQUIRE_THROWS_WITH(make_arguments(signature_of(scaled_copy(true, false, n, s), "scale"), 0),
                      Catch::Contains("argument 'A' has a symbolic shape"));
}

TEST_CASE("a measuring process that fails before timing answers with the error and ends", "[autotune]") {
  // The thread count is refused inside the measuring process: the error comes back as the
  // measurement's, and only this process goes on (an escaping exception would have
  // returned the child into this test).
  Var n("n", Int(64)), s("s", Int(64));
  const Module m = scaled_copy(false, false, n, s);
  MeasureOptions o;
  o.threads = kMaxThreads + 1;
  const MeasureResult r = local_runner()->run(m, "scale", make_arguments(signature_of(m, "scale"), 1), nullptr, o);
  CHECK(r.times_ms.empty());
  CHECK_THAT(r.error, Catch::Contains("run error") && Catch::Contains("set_num_threads(1025)"));
}

TEST_CASE("tune refuses a thread count the runtime cannot take before measuring anything", "[autotune]") {
  Task task;
  task.name = "scale";
  task.instantiate = [](int64_t) -> Instance { throw Error("not reached"); };
  TuneOptions o;
  o.trials = 1;
  o.measure.threads = kMaxThreads + 1;
  CHECK_THROWS_WITH(tune({task}, o), Catch::Contains("measure.threads is 1025") && Catch::Contains("give 1 to 1024"));
}
