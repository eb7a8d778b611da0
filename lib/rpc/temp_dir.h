// A private folder for the files of a module or model that a session sends or receives
// (module libraries, saved models, web packages), removed with everything in it when it goes.
#pragma once
#include <string>

namespace tensorir::rpc {

class TempDir {
 public:
  // A new folder only this user may enter, under the system's temporary folder; throws
  // an Error saying why when none can be made.
  TempDir();
  ~TempDir();
  TempDir(const TempDir &) = delete;
  TempDir &operator=(const TempDir &) = delete;
  const std::string &path() const { return path_; }
  // Writes `bytes` to the file `name` in the folder; `name` must be a plain file name.
  std::string write(const std::string &name, const char *bytes, size_t size) const;

 private:
  std::string path_;
};

}  // namespace tensorir::rpc
