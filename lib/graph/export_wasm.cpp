#include "export_wasm.h"

#include "tensorir/error.h"

namespace tensorir::graph {

WebExportInfo export_wasm(const CompiledModel &, const std::string &, const WebExportOptions &) {
  TIR_THROW() << "export_web: wasm packages are not implemented";
}

}  // namespace tensorir::graph
