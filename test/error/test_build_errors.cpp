// Mistakes that surface when a schedule is lowered, built or its function looked up and
// called: each is a tensorir::Error that names the variable, tensor, target or argument.
#include <tensorir/tensorir.h>

#include <catch2/catch.hpp>

using namespace tensorir;
using Catch::CaseSensitive;
using Catch::Contains;

namespace {

// C = A + 1 over 4 x 5 floats, built for the CPU.
struct AddOne {
  Tensor A = placeholder({4, 5}, Float(32), "A_in");
  Tensor C = compute(
      {4, 5}, [&](Var i, Var j) { return A(i, j) + 1.0f; }, "C_out");
  Module m = build(create_schedule({C}), {A, C}, "llvm", "add_one");
};

}  // namespace

TEST_CASE("build: a variable that no argument defines is reported as undefined", "[error][build]") {
  Tensor A = placeholder({4}, Float(32), "A");
  Var free_v("free_v");
  Tensor C = compute(
      {4}, [&](Var i) { return A(i) + cast(Float(32), free_v); }, "C");
  Schedule s = create_schedule({C});
  REQUIRE_THROWS_AS(build(s, {A, C}, "llvm", "free_var"), Error);
  REQUIRE_THROWS_WITH(build(s, {A, C}, "llvm", "free_var"), Contains("undefined variable"));
  REQUIRE_THROWS_WITH(build(s, {A, C}, "llvm", "free_var"), Contains("free_v"));
}

TEST_CASE("build: a reduction axis used outside its reduction is an undefined variable", "[error][build]") {
  Tensor A = placeholder({4, 8}, Float(32), "A");
  IterVar k = reduce_axis({0, 8}, "k_stray");
  Tensor C = compute(
      {4}, [&](Var i) { return A(i, k); }, "C");
  Schedule s = create_schedule({C});
  REQUIRE_THROWS_AS(build(s, {A, C}, "llvm", "stray_axis"), Error);
  REQUIRE_THROWS_WITH(build(s, {A, C}, "llvm", "stray_axis"), Contains("k_stray"));
}

TEST_CASE("build: a tensor the kernel reads but the argument list lacks is named", "[error][build]") {
  Tensor A = placeholder({4}, Float(32), "A");
  Tensor W = placeholder({4}, Float(32), "W_missing");
  Tensor C = compute(
      {4}, [&](Var i) { return A(i) * W(i); }, "C");
  Schedule s = create_schedule({C});
  REQUIRE_THROWS_AS(build(s, {A, C}, "llvm", "missing_arg"), Error);
  REQUIRE_THROWS_WITH(build(s, {A, C}, "llvm", "missing_arg"), Contains("W_missing"));
}

TEST_CASE("build: an output missing from the argument list is named", "[error][build]") {
  Tensor A = placeholder({4}, Float(32), "A");
  Tensor C = compute(
      {4}, [&](Var i) { return A(i) * 2.0f; }, "C_unlisted");
  Schedule s = create_schedule({C});
  REQUIRE_THROWS_AS(build(s, {A}, "llvm", "missing_out"), Error);
  REQUIRE_THROWS_WITH(build(s, {A}, "llvm", "missing_out"), Contains("C_unlisted"));
}

TEST_CASE("build: an unknown target kind is named in the error", "[error][build][target]") {
  Tensor A = placeholder({4}, Float(32), "A");
  Tensor C = compute(
      {4}, [&](Var i) { return A(i) * 2.0f; }, "C");
  Schedule s = create_schedule({C});
  REQUIRE_THROWS_AS(build(s, {A, C}, "foo", "f"), Error);
  REQUIRE_THROWS_WITH(build(s, {A, C}, "foo", "f"), Contains("foo"));
}

TEST_CASE("build: looking up a function the module lacks names it", "[error][build][module]") {
  AddOne k;
  REQUIRE_THROWS_AS(k.m("nonexistent_function"), Error);
  REQUIRE_THROWS_WITH(k.m("nonexistent_function"), Contains("nonexistent_function"));
  // The message lists the names there are.
  REQUIRE_THROWS_WITH(k.m("nonexistent_function"), Contains("add_one"));
}

TEST_CASE("build: calling a kernel with a wrongly shaped array names the argument", "[error][build][call]") {
  AddOne k;
  NDArray a = NDArray::random({4, 6}, Float(32), 1), c = NDArray::empty({4, 5}, Float(32));
  REQUIRE_THROWS_AS(k.m("add_one")(a, c), Error);
  REQUIRE_THROWS_WITH(k.m("add_one")(a, c), Contains("A_in"));
  NDArray a3 = NDArray::random({4, 5, 1}, Float(32), 1);
  REQUIRE_THROWS_AS(k.m("add_one")(a3, c), Error);
  REQUIRE_THROWS_WITH(k.m("add_one")(a3, c), Contains("A_in"));
}

TEST_CASE("build: calling a kernel with the wrong element type names the argument", "[error][build][call]") {
  AddOne k;
  NDArray a = NDArray::random({4, 5}, Float(32), 1), c = NDArray::empty({4, 5}, Float(64));
  REQUIRE_THROWS_AS(k.m("add_one")(a, c), Error);
  REQUIRE_THROWS_WITH(k.m("add_one")(a, c), Contains("C_out"));
}

TEST_CASE("build: calling a kernel with too few or too many arguments is rejected", "[error][build][call]") {
  AddOne k;
  NDArray a = NDArray::random({4, 5}, Float(32), 1), c = NDArray::empty({4, 5}, Float(32));
  REQUIRE_THROWS_AS(k.m("add_one")(a), Error);
  REQUIRE_THROWS_WITH(k.m("add_one")(a), Contains("add_one"));
  REQUIRE_THROWS_AS(k.m("add_one")(a, c, c), Error);
  REQUIRE_THROWS_WITH(k.m("add_one")(a, c, c), Contains("add_one"));
  // A correct call still works after the rejected ones, and computes A + 1.
  k.m("add_one")(a, c);
  std::vector<float> av = a.to_vector<float>(), cv = c.to_vector<float>();
  for (size_t i = 0; i < av.size(); ++i) REQUIRE(cv[i] == av[i] + 1.0f);
}

TEST_CASE("build: symbolic dimensions that disagree between arguments are rejected",
          "[error][build][call][symbolic]") {
  Var n("n");
  Tensor A = placeholder({n}, Float(32), "A_sym");
  Tensor C = compute(
      {n}, [&](Var i) { return A(i) * 2.0f; }, "C_sym");
  Module m = build(create_schedule({C}), {A, C}, "llvm", "sym_scale");
  NDArray a = NDArray::random({7}, Float(32), 1), c = NDArray::empty({8}, Float(32));
  REQUIRE_THROWS_AS(m("sym_scale")(a, c), Error);
  REQUIRE_THROWS_WITH(m("sym_scale")(a, c), Contains("C_sym"));
}

TEST_CASE("build: target options edited after parsing are checked against the kind's schema", "[error][build]") {
  Tensor A = placeholder({8}, Float(32), "A");
  Tensor C = compute({8}, [&](Var i) { return A(i) * 2.0f; }, "C");
  Target webgl("webgl");
  webgl.options["draw-buffers"] = "3";
  CHECK_THROWS_WITH(build(create_schedule({C}), {A, C}, webgl, "f"), Contains("-draw-buffers") && Contains("1, 2, 4, 8"));
  webgl.options.erase("draw-buffers");
  webgl.options["pack"] = "0";
  CHECK_THROWS_WITH(build(create_schedule({C}), {A, C}, webgl, "f"), Contains("unknown option '-pack' for target 'webgl'"));
  Target opengl("opengl");
  opengl.options["mode"] = "vertex";
  CHECK_THROWS_WITH(build(create_schedule({C}), {A, C}, opengl, "f"), Contains("unknown mode 'vertex'"));
  CHECK_THROWS_WITH(build({lower(create_schedule({C}), {A, C}, "f")}, opengl), Contains("unknown mode 'vertex'"));
}

TEST_CASE("build: an axis bound to a GPU thread index is refused for the CPU targets", "[error][build]") {
  Tensor A = placeholder({8}, Float(32), "A");
  Tensor C = compute({8}, [&](Var i) { return A(i) + 1.0f; }, "C");
  Schedule s = create_schedule({C});
  s[C].bind(C.axis(0), thread_axis("threadIdx.x"));
  for (const char *target : {"llvm", "wasm"}) {
    INFO(target);
    CHECK_THROWS_WITH(build(s, {A, C}, target, "f"), Contains("stage 'C' binds axis 'i' to threadIdx.x") &&
                                                          Contains("no thread indices") && Contains("parallel()"));
  }
}
