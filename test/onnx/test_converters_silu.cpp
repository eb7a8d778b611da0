// x * Sigmoid(x), as PyTorch exports SiLU, becomes one silu node; other products with a
// sigmoid stay a multiply. Both against plain loops.
#include <tensorir/frontend/onnx.h>
#include <tensorir/graph/executor.h>

#include <cmath>

#include "onnx/onnx_test_util.h"

using namespace tensorir;
using namespace tensorir::onnx_test;
namespace tonnx = tensorir::onnx;

TEST_CASE("converters: Mul of x and Sigmoid(x) is one silu node", "[converters][onnx]") {
  for (bool sigmoid_first : {false, true}) {
    CAPTURE(sigmoid_first);
    ModelBuilder mb(13);
    mb.input("x", {int64_t{2}, int64_t{3}, int64_t{5}});
    mb.input("w", {int64_t{2}, int64_t{3}, int64_t{5}});
    mb.node("Sigmoid", {"x"}, {"s"});
    mb.node("Mul", sigmoid_first ? std::vector<std::string>{"s", "x"} : std::vector<std::string>{"x", "s"}, {"y"});
    mb.node("Mul", {"w", "s"}, {"z"});  // not x: a multiply
    mb.output("y");
    mb.output("z");
    const graph::Graph g = tonnx::import_bytes(mb.bytes());
    int silu = 0, multiply = 0;
    for (const graph::Node &n : g.nodes()) {
      silu += n.op == "silu";
      multiply += n.op == "multiply";
    }
    CHECK(silu == 1);
    CHECK(multiply == 1);
    const NDArray x = NDArray::random({2, 3, 5}, Float(32), 1, -6, 6), w = NDArray::random({2, 3, 5}, Float(32), 2);
    const graph::Outputs out = graph::build(g, "llvm").run({{"x", x}, {"w", w}});
    std::vector<double> y, z;
    const std::vector<float> xv = x.to_vector<float>(), wv = w.to_vector<float>();
    for (size_t i = 0; i < xv.size(); ++i) {
      const double s = 1 / (1 + std::exp(-double(xv[i])));
      y.push_back(xv[i] * s);
      z.push_back(wv[i] * s);
    }
    check_close(out["y"], y);
    check_close(out["z"], z);
  }
}
