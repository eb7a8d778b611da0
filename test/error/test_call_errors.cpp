// The call boundary: every argument check of Function::call, through a stand-in module whose
// signatures are written by hand and whose invoke records what it was given.
#include <catch2/catch.hpp>

#include "tensorir/runtime/module.h"

using namespace tensorir;

namespace {

struct RecordingModule : ModuleNode {
  std::vector<FuncSignature> sigs;
  mutable std::vector<ArgValue> last_args;
  mutable std::vector<NDArray> last_buffers;
  mutable size_t last_index = 99;
  mutable int calls = 0;

  const std::vector<FuncSignature> &signatures() const override { return sigs; }
  void invoke(size_t index, const std::vector<ArgValue> &args,
              const std::vector<NDArray> &buffers) const override {
    last_index = index;
    last_args = args;
    last_buffers = buffers;
    ++calls;
  }
  std::string source(const std::string &format) const override { return "source:" + format; }
  std::string backend() const override { return "fake"; }
};

ArgSpec buffer(const std::string &name, Type t, std::vector<DimSpec> shape) {
  ArgSpec a;
  a.kind = ArgSpec::Buffer;
  a.name = name;
  a.dtype = t;
  a.shape = std::move(shape);
  return a;
}

ArgSpec scalar(const std::string &name, Type t) {
  ArgSpec a;
  a.kind = ArgSpec::Scalar;
  a.name = name;
  a.dtype = t;
  return a;
}

DimSpec fixed(int64_t v) { return DimSpec{0, -1, v}; }
DimSpec sym(int s, int64_t coeff = 1, int64_t offset = 0) { return DimSpec{coeff, s, offset}; }

// mm_relu(A[M, K], B[K, N], D[M, N]) with M, N, K symbolic; axpy(x[n], y[n], alpha, count);
// pad(X[2*n + 1], Y[n - 1]); fixed(F[4, 8]); orphan(Z[3]) with an unbound symbol.
struct Fixture {
  RecordingModule *node = new RecordingModule;
  Module m{Ref<const ModuleNode>(node)};
  Fixture() {
    FuncSignature mm;
    mm.name = "mm_relu";
    mm.symbols = {"M", "N", "K"};
    mm.args = {buffer("A", Float(32), {sym(0), sym(2)}), buffer("B", Float(32), {sym(2), sym(1)}),
               buffer("D", Float(32), {sym(0), sym(1)})};
    FuncSignature axpy;
    axpy.name = "axpy";
    axpy.symbols = {"n"};
    axpy.args = {buffer("x", Float(64), {sym(0)}), buffer("y", Float(64), {sym(0)}),
                 scalar("alpha", Float(64)), scalar("count", Int(32))};
    FuncSignature pad;
    pad.name = "pad";
    pad.symbols = {"n"};
    pad.args = {buffer("X", Int(32), {sym(0, 2, 1)}), buffer("Y", Int(32), {sym(0, 1, -1)})};
    FuncSignature fix;
    fix.name = "fixed";
    fix.args = {buffer("F", UInt(8), {fixed(4), fixed(8)})};
    FuncSignature orphan;
    orphan.name = "orphan";
    orphan.symbols = {"q"};
    orphan.args = {buffer("Z", Float(32), {fixed(3)})};
    node->sigs = {mm, axpy, pad, fix, orphan};
  }
};

NDArray f32(std::vector<int64_t> shape) { return NDArray::empty(shape, Float(32)); }

}  // namespace

TEST_CASE("call errors: function lookup", "[call]") {
  Fixture fx;
  REQUIRE(fx.m.function_names() == std::vector<std::string>{"mm_relu", "axpy", "pad", "fixed", "orphan"});
  REQUIRE(fx.m.source("ll") == "source:ll");
  REQUIRE_THROWS_AS(fx.m("matmul"), Error);
  REQUIRE_THROWS_WITH(fx.m("matmul"), Catch::Contains("no function named 'matmul'") &&
                                          Catch::Contains("mm_relu, axpy, pad, fixed, orphan"));
  Module empty;
  REQUIRE_FALSE(empty.defined());
  REQUIRE_THROWS_WITH(empty("mm_relu"), Catch::Contains("empty Module"));
}

TEST_CASE("call errors: a correct call packs arguments and symbols", "[call]") {
  Fixture fx;
  NDArray A = f32({5, 7}), B = f32({7, 3}), D = f32({5, 3});
  fx.m("mm_relu")(A, B, D);
  REQUIRE(fx.node->calls == 1);
  REQUIRE(fx.node->last_index == 0);
  REQUIRE(fx.node->last_args.size() == 6);
  REQUIRE(fx.node->last_args[0].ptr == A.data());
  REQUIRE(fx.node->last_args[1].ptr == B.data());
  REQUIRE(fx.node->last_args[2].ptr == D.data());
  REQUIRE(fx.node->last_args[3].i64 == 5);  // M
  REQUIRE(fx.node->last_args[4].i64 == 3);  // N
  REQUIRE(fx.node->last_args[5].i64 == 7);  // K
  REQUIRE(fx.node->last_buffers.size() == 3);
  REQUIRE(fx.node->last_buffers[1].data() == B.data());

  NDArray x = NDArray::empty({9}, Float(64)), y = NDArray::empty({9}, Float(64));
  fx.m("axpy")(x, y, 2.5, 4);
  REQUIRE(fx.node->last_args.size() == 5);
  REQUIRE(fx.node->last_args[2].f64 == 2.5);
  REQUIRE(fx.node->last_args[3].i64 == 4);
  REQUIRE(fx.node->last_args[4].i64 == 9);
  REQUIRE_FALSE(fx.node->last_buffers[2].defined());  // scalars have no buffer
  fx.m("axpy")(x, y, 3, int64_t(-1));  // an integer for a float scalar is widened
  REQUIRE(fx.node->last_args[2].f64 == 3.0);
  REQUIRE(fx.node->last_args[3].i64 == -1);

  fx.m("pad")(NDArray::empty({11}, Int(32)), NDArray::empty({4}, Int(32)));
  REQUIRE(fx.node->last_args[2].i64 == 5);
  fx.m("fixed")(NDArray::empty({4, 8}, UInt(8)));
  REQUIRE(fx.node->last_args.size() == 1);
}

TEST_CASE("call errors: wrong argument count", "[call]") {
  Fixture fx;
  Function f = fx.m("mm_relu");
  REQUIRE_THROWS_AS(f(f32({2, 2}), f32({2, 2})), Error);
  REQUIRE_THROWS_WITH(f(f32({2, 2}), f32({2, 2})),
                      Catch::Contains("mm_relu expects 3 arguments (A, B, D), got 2"));
  REQUIRE_THROWS_WITH(fx.m("fixed")(), Catch::Contains("fixed expects 1 argument (F), got 0"));
  REQUIRE(fx.node->calls == 0);
}

TEST_CASE("call errors: wrong dtype", "[call]") {
  Fixture fx;
  NDArray A64 = NDArray::empty({4, 4}, Float(64));
  REQUIRE_THROWS_AS(fx.m("mm_relu")(f32({4, 4}), A64, f32({4, 4})), Error);
  REQUIRE_THROWS_WITH(fx.m("mm_relu")(f32({4, 4}), A64, f32({4, 4})),
                      Catch::Contains("argument B has dtype float64 but the function expects float32"));
  REQUIRE(fx.node->calls == 0);
}

TEST_CASE("call errors: wrong rank and fixed dimensions", "[call]") {
  Fixture fx;
  REQUIRE_THROWS_WITH(fx.m("mm_relu")(f32({4, 4, 1}), f32({4, 4}), f32({4, 4})),
                      Catch::Contains("argument A has 3 dimensions (shape [4, 4, 1]) but the "
                                      "function expects 2"));
  REQUIRE_THROWS_AS(fx.m("fixed")(NDArray::empty({4, 9}, UInt(8))), Error);
  REQUIRE_THROWS_WITH(fx.m("fixed")(NDArray::empty({4, 9}, UInt(8))),
                      Catch::Contains("argument F: dimension 1 is 9 but the shape requires 8"));
  REQUIRE(fx.node->calls == 0);
}

TEST_CASE("call errors: inconsistent symbol bindings", "[call]") {
  Fixture fx;
  // K = 32 from A's second dimension; B's first dimension must agree.
  REQUIRE_THROWS_AS(fx.m("mm_relu")(f32({16, 32}), f32({64, 8}), f32({16, 8})), Error);
  REQUIRE_THROWS_WITH(fx.m("mm_relu")(f32({16, 32}), f32({64, 8}), f32({16, 8})),
                      Catch::Contains("argument B: dimension 0 is 64 but the shape requires 32 "
                                      "(K = 32 from argument A)"));
  REQUIRE_THROWS_WITH(fx.m("mm_relu")(f32({16, 32}), f32({32, 8}), f32({16, 9})),
                      Catch::Contains("argument D: dimension 1 is 9 but the shape requires 8 "
                                      "(N = 8 from argument B)"));
  // Affine dimensions: X is 2n + 1 and Y is n - 1.
  REQUIRE_THROWS_WITH(fx.m("pad")(NDArray::empty({10}, Int(32)), NDArray::empty({4}, Int(32))),
                      Catch::Contains("argument X: dimension 0 is 10") &&
                          Catch::Contains("2*n + 1"));
  REQUIRE_THROWS_WITH(fx.m("pad")(NDArray::empty({11}, Int(32)), NDArray::empty({5}, Int(32))),
                      Catch::Contains("argument Y: dimension 0 is 5 but the shape requires 4 "
                                      "(n = 5 from argument X)"));
  REQUIRE_THROWS_WITH(fx.m("orphan")(f32({3})),
                      Catch::Contains("shape variable q") && Catch::Contains("cannot determine"));
  REQUIRE(fx.node->calls == 0);
}

TEST_CASE("call errors: scalars and buffers mixed up", "[call]") {
  Fixture fx;
  NDArray x = NDArray::empty({9}, Float(64)), y = NDArray::empty({9}, Float(64));
  REQUIRE_THROWS_AS(fx.m("axpy")(x, 1.0, 2.0, 3), Error);
  REQUIRE_THROWS_WITH(fx.m("axpy")(x, 1.0, 2.0, 3),
                      Catch::Contains("argument y must be an NDArray of float64") &&
                          Catch::Contains("a floating-point number was passed"));
  REQUIRE_THROWS_WITH(fx.m("axpy")(x, y, x, 3),
                      Catch::Contains("argument alpha is a scalar of type float64, but an NDArray "
                                      "was passed"));
  REQUIRE_THROWS_WITH(fx.m("axpy")(x, y, 1.0, 0.5),
                      Catch::Contains("argument count is a scalar of type int32, but the "
                                      "floating-point value 0.5 was passed"));
  REQUIRE_THROWS_WITH(fx.m("axpy")(x, y, 1.0, int64_t(1) << 40),
                      Catch::Contains("does not fit its type int32"));
  REQUIRE_THROWS_WITH(fx.m("axpy")(x, NDArray(), 1.0, 1),
                      Catch::Contains("argument y is an undefined NDArray"));
  REQUIRE(fx.node->calls == 0);
}

TEST_CASE("call errors: wrong device", "[call]") {
  Fixture fx;
  FuncSignature gl = fx.node->sigs[3];
  gl.name = "fixed_gl";
  gl.device = Device::OpenGL;
  fx.node->sigs.push_back(gl);
  REQUIRE_THROWS_WITH(fx.m("fixed_gl")(NDArray::empty({4, 8}, UInt(8))),
                      Catch::Contains("argument F is on cpu(0) but the function runs on opengl(0)"));
}

TEST_CASE("call errors: arrays above the 32-bit index range are refused", "[call][extent]") {
  // Compiled code indexes with 32-bit integers: such an array would be indexed wrapped.
  RecordingModule *node = new RecordingModule;
  Module m{Ref<const ModuleNode>(node)};
  FuncSignature flat;
  flat.name = "flat";
  flat.symbols = {"n"};
  flat.args = {buffer("V", UInt(8), {sym(0)})};
  FuncSignature grid;
  grid.name = "grid";
  grid.symbols = {"h", "w"};
  grid.args = {buffer("G", UInt(8), {sym(0), sym(1)})};
  node->sigs = {flat, grid};

  // 2^31 + 2^16 bytes: each dimension fits in int32, the element count does not.
  const NDArray big = NDArray::empty({65536, 32769}, UInt(8));
  REQUIRE_THROWS_WITH(m("grid")(big), Catch::Contains("argument G has 2147549184 elements") &&
                                          Catch::Contains("32-bit"));
  REQUIRE_THROWS_WITH(m("flat")(big.view({2147549184}, UInt(8))),
                      Catch::Contains("shape variable n = 2147549184") &&
                          Catch::Contains("2147483647"));
  REQUIRE(node->calls == 0);
}

TEST_CASE("call errors: a bound call is checked once, at bind, and packs as a call does", "[call]") {
  Fixture fx;
  NDArray A = f32({5, 7}), B = f32({7, 3}), D = f32({5, 3});
  BoundCall bound = fx.m("mm_relu").bind({A, B, D});
  REQUIRE(bound.defined());
  REQUIRE(fx.node->calls == 0);  // binding runs nothing
  bound();
  bound();
  REQUIRE(fx.node->calls == 2);
  REQUIRE(fx.node->last_args.size() == 6);
  REQUIRE(fx.node->last_args[1].ptr == B.data());
  REQUIRE(fx.node->last_args[5].i64 == 7);  // K
  REQUIRE(fx.node->last_buffers[2].data() == D.data());
  // The arguments' errors come from bind, before any call.
  REQUIRE_THROWS_WITH(fx.m("mm_relu").bind({A, B}), Catch::Contains("mm_relu expects 3 arguments (A, B, D), got 2"));
  REQUIRE_THROWS_WITH(fx.m("fixed").bind({NDArray::empty({4, 9}, UInt(8))}),
                      Catch::Contains("argument F: dimension 1 is 9 but the shape requires 8"));
  REQUIRE(fx.node->calls == 2);
  BoundCall empty;
  REQUIRE_FALSE(empty.defined());
  REQUIRE_THROWS_WITH(empty(), Catch::Contains("empty BoundCall") && Catch::Contains("Function::bind"));
}
