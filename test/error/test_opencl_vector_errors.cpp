// The vector width of "opencl" targets: a width OpenCL C has no vector type for is refused
// at parse time, naming the option and the widths it takes.
#include <tensorir/tensorir.h>

#include <catch2/catch.hpp>

using namespace tensorir;
using Catch::Contains;

TEST_CASE("opencl errors: -vector-lanes takes the widths of OpenCL C's vectors", "[error][opencl]") {
  CHECK_THROWS_WITH(Target("opencl -vector-lanes=5"), Contains("vector-lanes") && Contains("16"));
  CHECK_THROWS_WITH(Target("opencl -vector-lanes"), Contains("vector-lanes"));
}
