// Mistakes on the "opengl" target fail with a tensorir::Error that says what to do.
#include <tensorir/tensorir.h>

#include <catch2/catch.hpp>
#include <string>

using namespace tensorir;
using Catch::Contains;

#if TENSORIR_WITH_OPENGL

namespace {

Tensor add_one(const Tensor &A, const std::string &name = "B") {
  return compute(A.shape(), [&](const std::vector<Var> &i) { return A(std::vector<Expr>(i.begin(), i.end())) + 1.0f; }, name);
}

}  // namespace

TEST_CASE("opengl errors: a shader that does not compile reports the driver's log and the line",
          "[error][opengl]") {
  Tensor A = placeholder({16}, Float(32), "A");
  Tensor B = compute({16}, [&](Var i) { return call_extern(Float(32), "no_such_glsl_function", {A(i)}); }, "B");
  try {
    build(create_schedule({B}), {A, B}, "opengl", "bad_call");
    FAIL("the shader compiled");
  } catch (const Error &e) {
    std::string msg = e.what();
    INFO(msg);
    CHECK(msg.find("bad_call_kernel0") != std::string::npos);
    CHECK(msg.find("does not compile") != std::string::npos);
    CHECK(msg.find("no_such_glsl_function") != std::string::npos);  // the log
    CHECK(msg.find("> ") != std::string::npos);                      // the marked line
    CHECK(msg.find("= no_such_glsl_function(") != std::string::npos);
  }
}

TEST_CASE("opengl errors: binding one thread index to two axes of a stage", "[error][opengl]") {
  Tensor A = placeholder({8, 8}, Float(32), "A");
  Tensor B = add_one(A);
  Schedule s = create_schedule({B});
  s[B].bind(B.axis(0), thread_axis("threadIdx.x"));
  CHECK_THROWS_WITH(s[B].bind(B.axis(1), thread_axis("threadIdx.x")), Contains("already bound"));
}

TEST_CASE("opengl errors: a kernel with no bound axis under -no-default-schedule", "[error][opengl]") {
  Tensor A = placeholder({64}, Float(32), "A");
  Tensor B = add_one(A);
  CHECK_THROWS_WITH(build(create_schedule({B}), {A, B}, "opengl -no-default-schedule", "unbound"),
                    Contains("outside any GPU thread index") && Contains("bind"));
}

TEST_CASE("opengl errors: host arrays passed to an opengl function", "[error][opengl]") {
  Tensor A = placeholder({64}, Float(32), "A");
  Tensor B = add_one(A);
  Module m = build(create_schedule({B}), {A, B}, "opengl", "needs_gl");
  NDArray a = NDArray::empty({64}, Float(32)), b = NDArray::empty({64}, Float(32), Device::opengl());
  CHECK_THROWS_WITH(m("needs_gl")(a, b), Contains("argument A") && Contains("cpu(0)") && Contains("opengl(0)"));
}

TEST_CASE("opengl errors: work-group sizes that are not constants or too large", "[error][opengl]") {
  SECTION("a symbolic extent bound to threadIdx.x") {
    Var n("n");
    Tensor A = placeholder({n}, Float(32), "A");
    Tensor B = add_one(A);
    Schedule s = create_schedule({B});
    s[B].bind(B.axis(0), thread_axis("threadIdx.x"));
    CHECK_THROWS_WITH(build(s, {A, B}, "opengl", "sym_threads"), Contains("threadIdx.x") && Contains("not a constant"));
  }
  SECTION("more invocations than a work group holds") {
    Tensor A = placeholder({64, 64}, Float(32), "A");
    Tensor B = add_one(A);
    Schedule s = create_schedule({B});
    s[B].bind(B.axis(0), thread_axis("threadIdx.y"));
    s[B].bind(B.axis(1), thread_axis("threadIdx.x"));
    CHECK_THROWS_WITH(build(s, {A, B}, "opengl", "too_many"), Contains("4096 invocations") && Contains("limit"));
  }
}

TEST_CASE("opengl errors: what GLSL cannot express", "[error][opengl]") {
  SECTION("exp on float64") {
    Tensor A = placeholder({8}, Float(64), "A");
    Tensor B = compute({8}, [&](Var i) { return exp(A(i)); }, "B");
    CHECK_THROWS_WITH(build(create_schedule({B}), {A, B}, "opengl", "exp64"),
                      Contains("float64") && Contains("cast the argument to float32"));
  }
  SECTION("float16 tensors") {
    Tensor A = placeholder({8}, Float(16), "A");
    Tensor B = compute({8}, [&](Var i) { return A(i); }, "B");
    CHECK_THROWS_WITH(build(create_schedule({B}), {A, B}, "opengl", "half"), Contains("float16"));
  }
  SECTION("shared memory beyond the device's limit") {
    const int M = 128, K = 4096;
    Tensor A = placeholder({M, K}, Float(32), "A");
    IterVar k = reduce_axis({0, K}, "k");
    Tensor S = compute({M}, [&](Var i) { return sum(A(i, k), {k}); }, "S");
    Schedule s = create_schedule({S});
    Tensor As = s.cache_read(A, "shared", {S});
    auto [bo, bi] = s[S].split(S.axis(0), 16);
    s[S].bind(bo, thread_axis("blockIdx.x"));
    s[S].bind(bi, thread_axis("threadIdx.x"));
    s[As].compute_at(s[S], bo);  // 16 rows of 4096 floats: 256 KiB
    CHECK_THROWS_WITH(build(s, {A, S}, "opengl", "big_shared"), Contains("shared memory") && Contains("smaller tiles"));
  }
  SECTION("an unknown mode") {
    Tensor A = placeholder({8}, Float(32), "A");
    Tensor B = add_one(A);
    CHECK_THROWS_WITH(build(create_schedule({B}), {A, B}, "opengl -mode=vertex", "mode"),
                      Contains("unknown mode 'vertex'"));
  }
  SECTION("asking for a source format the backend lacks") {
    Tensor A = placeholder({8}, Float(32), "A");
    Tensor B = add_one(A);
    Module m = build(create_schedule({B}), {A, B}, "opengl", "fmt");
    CHECK_THROWS_WITH(m.source("ll"), Contains("available formats: glsl"));
  }
}

TEST_CASE("opengl errors: one device array as the input and the result of a kernel", "[error][opengl][alias]") {
  Tensor A = placeholder({64}, Float(32), "A");
  Tensor B = add_one(A);
  Schedule s = create_schedule({B});
  auto [bo, bi] = s[B].split(B.axis(0), 16);
  s[B].bind(bo, thread_axis("blockIdx.x"));
  s[B].bind(bi, thread_axis("threadIdx.x"));
  Module m = build(s, {A, B}, "opengl", "in_place");
  NDArray a = NDArray::random({64}, Float(32), 5).to(Device::opengl());
  // The shader's reads would race its writes: the array itself, or a view of it.
  CHECK_THROWS_WITH(m("in_place")(a, a), Contains("argument B, which the function writes, shares storage with argument A"));
  CHECK_THROWS_WITH(m("in_place")(a.view({64}, Float(32)), a), Contains("argument B, which the function writes"));
  NDArray b = NDArray::empty({64}, Float(32), Device::opengl());
  m("in_place")(a, b);
  // Fragment passes read textures uploaded before the first pass: one array may be both.
  Module frag = build(create_schedule({B}), {A, B}, "opengl -mode=fragment", "frag");
  const std::vector<float> before = a.to(Device::cpu()).to_vector<float>();
  frag("frag")(a, a);
  const std::vector<float> after = a.to(Device::cpu()).to_vector<float>();
  for (size_t i = 0; i < before.size(); ++i) REQUIRE(after[i] == before[i] + 1.0f);
}

#endif  // TENSORIR_WITH_OPENGL
