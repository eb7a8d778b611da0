// Code built for a CPU or features this machine lacks: building and saving it works,
// calling it is an Error that names the missing features (not a SIGILL).
#include <tensorir/tensorir.h>

#include <catch2/catch.hpp>

#include <cstdio>
#include <string>

#include "runtime/cpu_features.h"

using namespace tensorir;
using Catch::Contains;

namespace {

// An AMD-only feature this CPU lacks (neither Intel nor Zen has fma4 or xop).
std::string absent_feature() {
  for (const char *f : {"fma4", "xop"})
    if (runtime::host_has_cpu_feature(f) == 0) return f;
  return "";
}

Module add_one(const std::string &target) {
  Tensor A = placeholder({16}, Float(32), "A");
  Tensor C = compute(
      {16}, [&](Var i) { return A(i) * 2.0f + 1.0f; }, "C");
  return build(create_schedule({C}), {A, C}, target, "add_one");
}

}  // namespace

TEST_CASE("jit: a module for features this CPU lacks builds but refuses to run", "[error][build][cpu]") {
  const std::string feature = absent_feature();
  REQUIRE(!feature.empty());
  Module m = add_one("llvm -mattr=+" + feature);
  // Code for another machine can still be looked at and saved.
  CHECK(!m.source("asm").empty());
  const std::string object = "foreign_cpu_add_one.o";
  m.save(object, "o");
  CHECK(std::remove(object.c_str()) == 0);

  NDArray a = NDArray::empty({16}, Float(32)), c = NDArray::empty({16}, Float(32));
  REQUIRE_THROWS_AS(m("add_one")(a, c), Error);
  REQUIRE_THROWS_WITH(m("add_one")(a, c), Contains("'add_one'") && Contains("-mattr=+" + feature) &&
                                              Contains("this CPU lacks") && Contains("build for \"llvm\""));
}

TEST_CASE("jit: a module for another CPU names the features it implies", "[error][build][cpu]") {
  const std::string feature = absent_feature();
  REQUIRE(!feature.empty());
  Module m = add_one("llvm -mcpu=bdver2");  // AMD Piledriver: fma4 and xop
  NDArray a = NDArray::empty({16}, Float(32)), c = NDArray::empty({16}, Float(32));
  REQUIRE_THROWS_WITH(m("add_one")(a, c), Contains("-mcpu=bdver2") && Contains(feature));
}

TEST_CASE("jit: a module for features the host has runs", "[error][build][cpu]") {
  REQUIRE(runtime::host_has_cpu_feature("sse4.2") == 1);
  Module m = add_one("llvm -mcpu=x86-64 -mattr=+sse4.2,-avx512f");
  NDArray a = NDArray::empty({16}, Float(32)), c = NDArray::empty({16}, Float(32));
  float *pa = static_cast<float *>(a.data());
  for (int i = 0; i < 16; ++i) pa[i] = float(i);
  m("add_one")(a, c);
  const float *pc = static_cast<const float *>(c.data());
  for (int i = 0; i < 16; ++i) CHECK(pc[i] == 2.0f * float(i) + 1.0f);
}

TEST_CASE("jit: a CPU or -mattr without 64-bit mode is an Error, not an abort", "[error][build][cpu]") {
  REQUIRE_THROWS_WITH(add_one("llvm -mcpu=i686"), Contains("'i686' has no 64-bit mode") && Contains("x86-64"));
  REQUIRE_THROWS_WITH(add_one("llvm -mattr=-64bit-mode"), Contains("-mattr=-64bit-mode turns 64-bit mode off"));
  // A 64-bit CPU by name still builds and runs.
  Module m = add_one("llvm -mcpu=x86-64");
  NDArray a = NDArray::random({16}, Float(32), 3), c = NDArray::empty({16}, Float(32));
  m("add_one")(a, c);
  const std::vector<float> av = a.to_vector<float>(), cv = c.to_vector<float>();
  for (size_t i = 0; i < av.size(); ++i) CHECK(cv[i] == av[i] * 2.0f + 1.0f);
}
