// The web package of a model built for "wasm": its kernels linked into one WebAssembly
// module, run by the same JavaScript runtime as WebGL packages.
#pragma once
#include <string>

#include "tensorir/graph/export_web.h"

namespace tensorir::graph {

WebExportInfo export_wasm(const CompiledModel &model, const std::string &dir, const WebExportOptions &options);

}  // namespace tensorir::graph
