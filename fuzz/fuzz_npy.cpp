// libFuzzer target: NDArray::load_npy on any bytes. It must return an array or throw
// tensorir::Error; anything else (a crash, a sanitizer report, another exception, an
// allocation past libFuzzer's limit) is a finding.
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <string>

#include <unistd.h>

#include "tensorir/error.h"
#include "tensorir/runtime/ndarray.h"

namespace {

std::string input_path() {
  namespace fs = std::filesystem;
  const fs::path dir = fs::exists("/dev/shm") ? fs::path("/dev/shm") : fs::temp_directory_path();
  return (dir / ("tensorir_fuzz_npy_" + std::to_string(::getpid()) + ".npy")).string();
}

const std::string &path() {
  static const std::string p = [] {
    std::string s = input_path();
    std::atexit([] { std::filesystem::remove(input_path()); });
    return s;
  }();
  return p;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  {
    std::ofstream out(path(), std::ios::binary | std::ios::trunc);
    out.write(reinterpret_cast<const char *>(data), std::streamsize(size));
  }
  try {
    const tensorir::NDArray a = tensorir::NDArray::load_npy(path());
    (void)a.nbytes();
  } catch (const tensorir::Error &) {
  }
  return 0;
}
