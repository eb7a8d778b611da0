// A small network of your own, compiled for the browser: build a graph, compile it for
// "webgl" (or "wasm"), export the package, then serve the directory and open it.
//
//   build/release/examples/webgl_export out/tiny            # WebGL2 shaders
//   build/release/examples/webgl_export out/tiny-wasm wasm  # WebAssembly SIMD
//   cd out/tiny && python3 -m http.server 8000     # then open http://127.0.0.1:8000/
//
// The page runs the model on a seeded random input (or an image you pick for 3-channel
// inputs) and shows the top outputs and the latency; `tensorir compile` does the same for
// the model zoo's networks.
#include <tensorir/graph/executor.h>
#include <tensorir/graph/export_web.h>
#include <tensorir/tensorir.h>

#include <cstdio>
#include <exception>

using namespace tensorir;

int main(int argc, char **argv) {
  if (argc != 2 && argc != 3) {
    std::fprintf(stderr, "usage: %s OUTPUT_DIR [webgl|wasm]\n", argv[0]);
    return 2;
  }
  const char *target = argc == 3 ? argv[2] : "webgl";
  try {
    // conv -> relu -> global average pool -> dense: a 10-class classifier of 3x32x32 images.
    graph::Builder b;
    auto x = b.input("data", {1, 3, 32, 32});
    auto w1 = b.constant("conv.weight", NDArray::random({16, 3, 3, 3}, Float(32), 1, -0.5, 0.5));
    auto b1 = b.constant("conv.bias", NDArray::random({16}, Float(32), 2, -0.1, 0.1));
    auto y = b.relu(b.bias_add(b.conv2d(x, w1, {.padding = {1, 1}}, "conv"), b1, 1, "conv.bias_add"), "relu");
    auto pooled = b.flatten(b.global_avg_pool2d(y, "pool"), "flatten");
    auto w2 = b.constant("fc.weight", NDArray::random({10, 16}, Float(32), 3, -0.5, 0.5));
    auto logits = b.dense(pooled, w2, "fc");
    graph::Graph g = b.finish(logits);

    graph::CompiledModel m = graph::build(g, target);
    graph::WebExportInfo info = graph::export_web(m, argv[1], {.name = "tiny-classifier"});
    std::printf("wrote %zu files (%zu bytes) to %s: %zu kernels for %s\n", info.files.size(), info.total_bytes,
                argv[1], m.num_kernels(), target);
    std::printf("serve it: cd %s && python3 -m http.server 8000, then open http://127.0.0.1:8000/\n", argv[1]);
  } catch (const std::exception &e) {
    std::fprintf(stderr, "webgl_export: %s\n", e.what());
    return 1;
  }
  return 0;
}
