// Saves a model whose input is float16 (h [3, 4], y = float32(h)) into argv[1], for the
// command-line test of `tensorir run DIR --input h=FILE.npy`: ONNX models hold float16
// in float32, a graph's float16 input stays float16.
#include <tensorir/graph/graph.h>
#include <tensorir/graph/executor.h>

#include <cstdio>
#include <exception>

int main(int argc, char **argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: tensorir_make_half_model OUT_DIR\n");
    return 2;
  }
  try {
    tensorir::graph::Builder b;
    auto h = b.input("h", {3, 4}, tensorir::Float(16));
    auto y = b.make("cast", {h}, {{"dtype", std::string("float32")}}, "y");
    tensorir::graph::build(b.finish(y), "llvm").save(argv[1]);
  } catch (const std::exception &e) {
    std::fprintf(stderr, "tensorir_make_half_model: %s\n", e.what());
    return 1;
  }
  return 0;
}
