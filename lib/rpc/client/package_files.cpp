// Reading a saved module's or model's files (package_files.h).
#include "rpc/client/package_files.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "tensorir/error.h"

namespace tensorir::rpc {

namespace fs = std::filesystem;

std::string read_file(const std::string &path) {
  std::ifstream in(path, std::ios::binary);
  TIR_USER_CHECK(in.good()) << "RPC: cannot read " << path << ": " << std::strerror(errno);
  std::ostringstream os;
  os << in.rdbuf();
  return os.str();
}

nlohmann::json read_files(const std::string &dir, std::string &payload) {
  std::vector<std::string> names;
  for (const fs::directory_entry &e : fs::recursive_directory_iterator(dir))
    if (e.is_regular_file()) names.push_back(fs::relative(e.path(), dir).generic_string());
  std::sort(names.begin(), names.end());
  nlohmann::json files = nlohmann::json::array();
  for (const std::string &name : names) {
    const std::string bytes = read_file((fs::path(dir) / name).string());
    files.push_back({{"name", name}, {"bytes", bytes.size()}});
    payload += bytes;
  }
  return files;
}

}  // namespace tensorir::rpc
