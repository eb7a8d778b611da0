// libFuzzer target: onnx::import_bytes on any bytes. It must return a graph or throw
// tensorir::Error (onnx::UnsupportedError included); anything else is a finding. The
// seeds are ONNX's backend test models (Debian libonnx-testdata), copied by `make fuzz`.
#include <cstdint>
#include <string>

#include "tensorir/error.h"
#include "tensorir/frontend/onnx.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  try {
    const tensorir::graph::Graph g =
        tensorir::onnx::import_bytes(std::string(reinterpret_cast<const char *>(data), size));
    (void)g.nodes().size();
  } catch (const tensorir::Error &) {
  }
  return 0;
}
