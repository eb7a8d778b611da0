// The vector width of "opencl" targets: a width OpenCL C has no vector type for is refused
// at parse time, naming the option and the widths it takes; the blocked convolution's
// schedule refuses tensors and targets it does not fit.
#include <tensorir/ops/nn.h>
#include <tensorir/ops/schedule.h>
#include <tensorir/tensorir.h>

#include <catch2/catch.hpp>

using namespace tensorir;
using Catch::Contains;

TEST_CASE("opencl errors: -vector-lanes takes the widths of OpenCL C's vectors", "[error][opencl]") {
  CHECK_THROWS_WITH(Target("opencl -vector-lanes=5"), Contains("vector-lanes") && Contains("16"));
  CHECK_THROWS_WITH(Target("opencl -vector-lanes"), Contains("vector-lanes"));
}

TEST_CASE("opencl errors: the blocked convolution schedule refuses other tensors and GPU forms", "[error][opencl]") {
  Tensor data = placeholder({1, 2, 10, 10, 8}, Float(32), "data");
  Tensor w = placeholder({4, 2, 3, 3, 8, 8}, Float(32), "w");
  Tensor conv = ops::conv2d_packed_direct(data, w, {{1, 1}, {1, 1}, {1, 1}, 1}, true, "conv");
  CHECK_THROWS_WITH(ops::schedule_conv2d_packed_gpu(data, data, Target("opencl -vector-lanes=8")),
                    Contains("tensor data is not the channel-blocked output of conv2d_packed_direct"));
  CHECK_THROWS_WITH(ops::schedule_conv2d_packed_gpu(conv, conv, Target("opencl -vector-lanes=0")),
                    Contains("computes no vectors per work-item"));
}
