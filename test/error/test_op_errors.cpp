// Operator arguments that cannot give a right result are refused when the operator is
// defined, with a message naming the operator and the fix.
#include <tensorir/ops/nn.h>
#include <tensorir/ops/schedule.h>
#include <tensorir/tensorir.h>

#include <catch2/catch.hpp>

using namespace tensorir;
using Catch::Contains;

TEST_CASE("ops: argmax refuses an index type too narrow for the axis", "[error][ops][arg_reduce]") {
  Tensor x = placeholder({3, 200}, Float(32), "X_wide");
  auto narrow = [&] { return ops::arg_reduce(x, 1, false, false, true, "am", Int(8)); };
  REQUIRE_THROWS_WITH(narrow(), Contains("argmax") && Contains("int8") && Contains("200") && Contains("X_wide") &&
                                    Contains("int64"));
  // select_last starts from -1: an unsigned index cannot.
  auto last = [&] { return ops::arg_reduce(x, 1, false, true, false, "am", UInt(32)); };
  REQUIRE_THROWS_WITH(last(), Contains("argmin") && Contains("signed"));
  // The last maximum stores at most n - 1 (and starts from -1): int8 counts 128 elements.
  CHECK_NOTHROW(ops::arg_reduce(placeholder({128}, Float(32), "X128"), 0, false, true, true, "am", Int(8)));
  REQUIRE_THROWS_WITH(ops::arg_reduce(placeholder({129}, Float(32), "X129"), 0, false, true, true, "am", Int(8)),
                      Contains("the index 128"));
  // The first maximum starts from n: int8 counts 127.
  REQUIRE_THROWS_WITH(ops::arg_reduce(placeholder({128}, Float(32), "X128"), 0, false, false, true, "am", Int(8)),
                      Contains("cannot hold 128"));
  auto vector = [&] { return ops::arg_reduce(x, 1, false, false, true, "am", Int(32, 4)); };
  REQUIRE_THROWS_WITH(vector(), Contains("scalar integer"));
  // A float index (for targets that store only floats) must count the axis exactly.
  Tensor long_axis = placeholder({2, 3000}, Float(32), "X_long");
  auto half = [&] { return ops::arg_reduce(long_axis, 1, false, false, true, "am", Float(16)); };
  REQUIRE_THROWS_WITH(half(), Contains("float16") && Contains("3000"));
  CHECK_NOTHROW(ops::arg_reduce(long_axis, 1, false, false, true, "am", Float(32)));
}

TEST_CASE("ops: argmax with the narrowest index type that holds the axis finds the first maximum",
          "[error][ops][arg_reduce]") {
  const int rows = 5, n = 200;  // uint8 holds 0..199 and the start value 200
  Tensor x = placeholder({rows, n}, Float(32), "X");
  Tensor idx = ops::arg_reduce(x, 1, false, false, true, "am", UInt(8));
  Module m = build(create_schedule({idx}), {x, idx}, "llvm", "am");
  NDArray xs = NDArray::random({rows, n}, Float(32), 11);
  NDArray out = NDArray::empty({rows}, UInt(8));
  m("am")(xs, out);
  const std::vector<float> v = xs.to_vector<float>();
  const std::vector<uint8_t> got = out.to_vector<uint8_t>();
  for (int r = 0; r < rows; ++r) {
    const auto row = v.begin() + r * n;
    CHECK(int(got[size_t(r)]) == int(std::max_element(row, row + n) - row));
  }
}

TEST_CASE("ops: average pooling refuses integer tensors", "[error][ops][pool]") {
  Tensor x = placeholder({1, 2, 4, 4}, Int(32), "X_int");
  REQUIRE_THROWS_WITH(ops::global_avg_pool2d(x), Contains("global_avg_pool2d") && Contains("X_int") &&
                                                    Contains("int32") && Contains("float"));
  REQUIRE_THROWS_WITH(ops::avg_pool2d(x, {2, 2}, {2, 2}), Contains("avg_pool2d") && Contains("float"));
}
