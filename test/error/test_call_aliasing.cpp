// Arguments that share storage: compiled code assumes its buffers do not overlap, so a
// call refuses an array the function writes that overlaps another argument, unless both
// were built as ones that may alias; inputs read twice and disjoint views of one array
// run, and give what separate arrays give.
#include <tensorir/tensorir.h>

#include <catch2/catch.hpp>
#include <random>

#include "runtime/json.h"
#include "runtime/signature_json.h"

using namespace tensorir;
using Catch::Contains;

namespace {

constexpr int kN = 1024;

// C[i] = A[(i + 1) % n] + A[i]: run in place, it reads an element it has overwritten.
Module rotate_add(bool may_alias) {
  Tensor A = placeholder({kN}, Float(32), "A");
  Tensor C = compute({kN}, [&](Var i) { return A((i + 1) % kN) + A(i); }, "C");
  Schedule s = create_schedule({C});
  auto [o, in] = s[C].split(C.axis(0), 16);
  s[C].vectorize(in);
  return build(s, {BuildArg(A, may_alias), BuildArg(C, may_alias)}, "llvm", "rotate_add");
}

std::vector<float> values(uint64_t seed, int n) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<float> d(-1.f, 1.f);
  std::vector<float> v(size_t(n), 0.f);
  for (float &x : v) x = d(rng);
  return v;
}

}  // namespace

TEST_CASE("call aliasing: a written array passed again as an input is refused", "[call][alias]") {
  Module m = rotate_add(false);
  NDArray x = NDArray::from_vector(values(1, kN), {kN});
  const std::vector<float> before = x.to_vector<float>();
  CHECK_THROWS_WITH(m("rotate_add")(x, x), Contains("rotate_add: argument C, which the function writes, shares "
                                                    "storage with argument A") &&
                                               Contains("BuildArg(tensor, true)"));
  CHECK(x.to_vector<float>() == before);  // refused before anything ran
}

TEST_CASE("call aliasing: overlapping views are refused, disjoint views of one array run", "[call][alias]") {
  Module m = rotate_add(false);
  NDArray storage = NDArray::from_vector(values(2, 3 * kN), {3 * kN});
  const std::vector<float> v = storage.to_vector<float>();
  NDArray a = storage.view({kN}, Float(32), 0);
  SECTION("the result overlaps the input's second half") {
    NDArray c = storage.view({kN}, Float(32), kN / 2 * sizeof(float));
    CHECK_THROWS_WITH(m("rotate_add")(a, c), Contains("argument C, which the function writes, shares storage"));
  }
  SECTION("the result right after the input, then two arrays further") {
    for (int at : {kN, 2 * kN}) {
      NDArray c = storage.view({kN}, Float(32), size_t(at) * sizeof(float));
      m("rotate_add")(a, c);
      const std::vector<float> got = c.to_vector<float>();
      for (int i = 0; i < kN; ++i) REQUIRE(got[size_t(i)] == v[size_t((i + 1) % kN)] + v[size_t(i)]);
    }
  }
}

TEST_CASE("call aliasing: one array for two inputs runs", "[call][alias]") {
  Tensor A = placeholder({kN}, Float(32), "A"), B = placeholder({kN}, Float(32), "B");
  Tensor C = compute({kN}, [&](Var i) { return A(i) * B((i + 3) % kN); }, "C");
  Module m = build(create_schedule({C}), {A, B, C}, "llvm", "mul");
  const std::vector<float> v = values(3, kN);
  NDArray x = NDArray::from_vector(v, {kN}), c = NDArray::empty({kN}, Float(32));
  m("mul")(x, x, c);
  const std::vector<float> got = c.to_vector<float>();
  for (int i = 0; i < kN; ++i) REQUIRE(got[size_t(i)] == v[size_t(i)] * v[size_t((i + 3) % kN)]);
}

TEST_CASE("call aliasing: arguments built as may-alias run in place", "[call][alias]") {
  Tensor A = placeholder({kN}, Float(32), "A");
  Tensor C = compute({kN}, [&](Var i) { return A(i) * 2.0f + 1.0f; }, "C");
  Schedule s = create_schedule({C});
  auto [o, in] = s[C].split(C.axis(0), 16);
  s[C].vectorize(in);
  const std::vector<float> v = values(4, kN);
  NDArray x = NDArray::from_vector(v, {kN});
  SECTION("both may alias") {
    Module m = build(s, {BuildArg(A, true), BuildArg(C, true)}, "llvm", "affine");
    m("affine")(x, x);
    const std::vector<float> got = x.to_vector<float>();
    for (int i = 0; i < kN; ++i) REQUIRE(got[size_t(i)] == v[size_t(i)] * 2.0f + 1.0f);
  }
  SECTION("only the result may alias: refused") {
    Module m = build(s, {A, BuildArg(C, true)}, "llvm", "affine");
    CHECK_THROWS_WITH(m("affine")(x, x), Contains("argument C, which the function writes, shares storage with "
                                                  "argument A"));
  }
}

TEST_CASE("call aliasing: signatures say which buffers are written and may alias, in JSON too", "[call][alias]") {
  Module m = rotate_add(true);
  const FuncSignature &sig = m("rotate_add").signature();
  REQUIRE(sig.args.size() == 2);
  CHECK_FALSE(sig.args[0].written);
  CHECK(sig.args[1].written);
  CHECK(sig.args[0].may_alias);
  CHECK(sig.args[1].may_alias);
  const FuncSignature back = runtime::signature_from_json(runtime::signature_json(sig));
  CHECK_FALSE(back.args[0].written);
  CHECK(back.args[1].written);
  CHECK(back.args[0].may_alias);
  CHECK(back.args[1].may_alias);

  SECTION("a signature written without the flags reads as neither") {
    const std::string old = R"({"name":"f","symbols":[],"args":[{"name":"X","kind":"buffer","dtype":"float32",)"
                            R"("shape":[{"coeff":0,"symbol":-1,"offset":4}]}]})";
    const FuncSignature s = runtime::signature_from_json(json::parse(old));
    CHECK_FALSE(s.args[0].written);
    CHECK_FALSE(s.args[0].may_alias);
  }
  SECTION("a flag that is not a boolean is an error naming it") {
    const std::string bad = R"({"name":"f","symbols":[],"args":[{"name":"X","kind":"buffer","dtype":"float32",)"
                            R"("shape":[],"written":1}]})";
    CHECK_THROWS_WITH(runtime::signature_from_json(json::parse(bad)),
                      Contains("argument 'X'") && Contains("\"written\" that is not true or false"));
  }
}
