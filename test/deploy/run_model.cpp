// Runs a model saved by tensorir_deploy_save with the runtime library only, and checks
// its output against the compiled model's (expected.npy). Also checks that neither LLVM
// nor the compiler library is in the process.
#include <tensorir/runtime/model_loader.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <string>

namespace {

bool loaded_in_process(const std::string &needle) {
  std::ifstream maps("/proc/self/maps");
  for (std::string line; std::getline(maps, line);)
    if (line.find(needle) != std::string::npos) return true;
  return false;
}

double ms_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

}  // namespace

int main(int argc, char **argv) {
  using namespace tensorir;
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s <directory written by tensorir_deploy_save>\n", argv[0]);
    return 2;
  }
  const std::string dir = argv[1];
  try {
    auto t0 = std::chrono::steady_clock::now();
    runtime::LoadedModel m = runtime::load_model(dir);
    const double load_ms = ms_since(t0);
    const NDArray input = NDArray::load_npy(dir + "/input.npy");
    const std::vector<float> want = NDArray::load_npy(dir + "/expected.npy").to_vector<float>();
    const std::vector<float> got = m.run({{"data", input}}).to_vector<float>();
    if (got.size() != want.size()) {
      std::fprintf(stderr, "FAILED: %zu outputs, expected %zu\n", got.size(), want.size());
      return 1;
    }
    double diff = 0, scale = 0;
    for (size_t i = 0; i < got.size(); ++i) {
      diff = std::max(diff, std::fabs(double(got[i]) - double(want[i])));
      scale = std::max(scale, std::fabs(double(want[i])));
    }
    const double err = scale > 0 ? diff / scale : diff;
    double best = 1e30;
    for (int i = 0; i < 3; ++i) {
      t0 = std::chrono::steady_clock::now();
      m.run({{"data", input}});
      best = std::min(best, ms_since(t0));
    }
    std::printf("%s: %zu kernels, load %.1f ms, run %.2f ms, max |a - b| / max |b| = %g%s\n", dir.c_str(),
                m.num_kernels(), load_ms, best, err, got == want ? " (bit for bit)" : "");
    if (!(err <= 1e-6)) {
      std::fprintf(stderr, "FAILED: the loaded model's output differs from the compiled model's\n");
      return 1;
    }
    for (const char *lib : {"libLLVM", "libtensorir.so"}) {
      if (loaded_in_process(lib)) {
        std::fprintf(stderr, "FAILED: %s is loaded in a program that links only the runtime\n", lib);
        return 1;
      }
    }
  } catch (const Error &e) {
    std::fprintf(stderr, "FAILED: %s\n", e.what());
    return 1;
  }
  return 0;
}
