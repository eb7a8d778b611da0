// The files of a saved module or model read back as one payload (load_module, load_model).
#pragma once
#include <string>

#include <nlohmann/json.hpp>

namespace tensorir::rpc {

std::string read_file(const std::string &path);

// Every file under `dir`, sorted by name: [{"name": relative path with '/', "bytes": N}],
// and their contents concatenated in that order into `payload`.
nlohmann::json read_files(const std::string &dir, std::string &payload);

}  // namespace tensorir::rpc
