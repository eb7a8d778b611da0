// Writes a WebAssembly package whose kernel fails on worker threads only: each iteration of
// its parallel loop allocates a 36 MiB temporary buffer, more than a worker's scratch
// memory, while the calling thread's scratch grows. wasm_threads_test.mjs checks that on
// one thread it gives the right answer (every output is the buffer's length) and that on
// three the kernel's own error comes back from the worker.
//
//   tensorir_wasm_error_package OUT_DIR      (writes OUT_DIR/worker_oom)
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>

#include "tensorir/tensorir.h"

using namespace tensorir;
namespace fs = std::filesystem;

namespace {

constexpr int kRows = 16;
constexpr int kScratch = 9 << 20;  // floats per row: 36 MiB

std::string read_file(const fs::path &p) {
  std::ifstream in(p, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

std::string fnv1a32(const std::string &bytes) {
  uint32_t h = 0x811c9dc5u;
  for (unsigned char c : bytes) h = (h ^ c) * 0x01000193u;
  char buf[16];
  std::snprintf(buf, sizeof buf, "0x%08x", h);
  return buf;
}

void write_file(const fs::path &p, const std::string &text) {
  std::ofstream out(p, std::ios::binary | std::ios::trunc);
  out << text;
  if (!out.good()) throw Error("cannot write " + p.string());
}

}  // namespace

int main(int argc, char **argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: tensorir_wasm_error_package OUT_DIR\n");
    return 2;
  }
  try {
    const fs::path dir = fs::path(argv[1]) / "worker_oom";
    fs::create_directories(dir);
    Tensor X = placeholder({kRows}, Float(32), "x");
    Tensor T = compute({kRows, kScratch}, [&](Var i, Var) { return X(i) * 0.0f + 1.0f; }, "scratch");
    IterVar r = reduce_axis({0, kScratch}, "r");
    Tensor Y = compute({kRows}, [&](Var i) { return sum(T(i, r), {r}); }, "y");
    Schedule s = create_schedule({Y});
    s[Y].parallel(Y.axis(0));
    s[T].compute_at(s[Y], Y.axis(0));
    Module m = build(s, {X, Y}, "wasm", "rows");
    m.node()->save((dir / "model.wasm").string(), "wasm");
    m.node()->save((dir / "model.threads.wasm").string(), "wasm-threads");
    write_file(dir / "params.bin", "");
    const std::string single = read_file(dir / "model.wasm"), threaded = read_file(dir / "model.threads.wasm");
    auto file = [](const char *name, const std::string &bytes) {
      return std::string("{\"file\": \"") + name + "\", \"bytes\": " + std::to_string(bytes.size()) +
             ", \"fnv1a32\": \"" + fnv1a32(bytes) + "\"";
    };
    const std::string json =
        "{\"format\": \"tensorir-wasm\", \"version\": 1, \"name\": \"worker_oom\", \"target\": \"wasm\",\n"
        " \"module\": " + file("model.wasm", single) + "},\n"
        " \"threaded_module\": " + file("model.threads.wasm", threaded) + ", \"max_memory\": 2147483648},\n"
        " \"memory\": {\"bytes\": 128, \"align\": 64},\n"
        " \"inputs\": [{\"name\": \"x\", \"shape\": [16], \"dtype\": \"float32\", \"offset\": 0}],\n"
        " \"outputs\": [{\"name\": \"y\", \"shape\": [16], \"dtype\": \"float32\", \"offset\": 64}],\n"
        " \"params\": {\"file\": \"params.bin\", \"bytes\": 0, \"fnv1a32\": \"0x811c9dc5\", \"tensors\": []},\n"
        " \"kernels\": [{\"name\": \"rows\", \"node\": \"y\", \"op\": \"sum\", \"fused\": [\"y\"], \"args\": [0, 64]}],\n"
        " \"expected\": " + std::to_string(kScratch) + "}\n";
    write_file(dir / "model.json", json);
    std::printf("worker_oom: %zu + %zu bytes of WebAssembly -> %s\n", single.size(), threaded.size(),
                dir.string().c_str());
    return 0;
  } catch (const std::exception &e) {
    std::fprintf(stderr, "tensorir_wasm_error_package: %s\n", e.what());
    return 1;
  }
}
