// The web runtime files embedded at build time (cmake/TensorirWebAssets.cmake generates
// them): the exporters copy them into packages, the RPC proxy serves them.
#pragma once
#include <cstddef>
#include <string_view>

namespace tensorir::graph::web_assets {
size_t count();
const char *path(size_t i);  // in the package: "index.html", "tensorir/tensorir.js", ...
std::string_view data(size_t i);
// The RPC page (web/rpc.html): `tensorir rpc proxy` serves it; packages do not get it.
inline constexpr const char *kRpcPage = "rpc.html";
// The "format" of the model.json that indexes the packages of several targets.
inline constexpr const char *kIndexFormat = "tensorir-index";
}  // namespace tensorir::graph::web_assets
