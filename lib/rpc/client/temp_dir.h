// Files that go to a remote: a temporary directory to save a module or model into, and
// its files read back as one payload.
#pragma once
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace tensorir::rpc {

// A fresh directory under the system's temporary directory, removed with everything in it.
class TempDir {
 public:
  TempDir();
  ~TempDir();
  TempDir(const TempDir &) = delete;
  TempDir &operator=(const TempDir &) = delete;
  const std::string &path() const { return path_; }

 private:
  std::string path_;
};

std::string read_file(const std::string &path);

// Every file under `dir`, sorted by name: [{"name": relative path with '/', "bytes": N}],
// and their contents concatenated in that order into `payload`.
nlohmann::json read_files(const std::string &dir, std::string &payload);

}  // namespace tensorir::rpc
