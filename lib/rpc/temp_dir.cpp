// Private temporary folders (temp_dir.h).
#include "rpc/temp_dir.h"

#include <stdlib.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>

#include "tensorir/error.h"

namespace tensorir::rpc {

namespace fs = std::filesystem;

TempDir::TempDir() {
  std::error_code ec;
  std::string templ = (fs::temp_directory_path(ec) / "tensorir-rpc-XXXXXX").string();
  TIR_USER_CHECK(mkdtemp(templ.data()) != nullptr)
      << "RPC: cannot make a temporary folder at " << templ << ": " << std::strerror(errno)
      << " (set TMPDIR to a writable folder)";
  path_ = templ;
}

TempDir::~TempDir() {
  std::error_code ec;
  fs::remove_all(path_, ec);
}

std::string TempDir::write(const std::string &name, const char *bytes, size_t size) const {
  TIR_USER_CHECK(!name.empty() && name != "." && name != ".." && name.find('/') == std::string::npos &&
                 name.find('\0') == std::string::npos)
      << "the file name '" << name << "' is not a plain file name; send the files of a folder by their own names";
  const std::string path = (fs::path(path_) / name).string();
  std::ofstream f(path, std::ios::binary | std::ios::trunc);
  f.write(bytes, std::streamsize(size));
  f.close();
  TIR_USER_CHECK(f.good()) << "RPC: cannot write " << path << " (disk full?)";
  return path;
}

}  // namespace tensorir::rpc
