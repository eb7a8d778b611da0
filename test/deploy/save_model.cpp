// Saves ResNet-18 (seeded weights) for tensorir_deploy_run: the model's files, a sample
// input (input.npy) and the compiled model's output for it (expected.npy).
#include <tensorir/graph/executor.h>
#include <tensorir/graph/models.h>

#include <chrono>
#include <cstdio>
#include <string>

int main(int argc, char **argv) {
  using namespace tensorir;
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s <directory>\n", argv[0]);
    return 2;
  }
  const std::string dir = argv[1];
  try {
    const auto t0 = std::chrono::steady_clock::now();
    graph::CompiledModel m = graph::build(graph::resnet18(2024), "llvm");
    const auto t1 = std::chrono::steady_clock::now();
    m.save(dir);
    const auto t2 = std::chrono::steady_clock::now();
    const NDArray input = NDArray::random({1, 3, 224, 224}, Float(32), 99);
    input.save_npy(dir + "/input.npy");
    m.run({{"data", input}}).single().save_npy(dir + "/expected.npy");
    auto ms = [](auto a, auto b) { return std::chrono::duration<double, std::milli>(b - a).count(); };
    std::printf("saved resnet18 to %s: build %.0f ms, save %.0f ms, %zu kernels\n", dir.c_str(), ms(t0, t1),
                ms(t1, t2), m.num_kernels());
  } catch (const Error &e) {
    std::fprintf(stderr, "error: %s\n", e.what());
    return 1;
  }
  return 0;
}
