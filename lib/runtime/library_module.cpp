// LibraryModuleNode: dlopen, symbol lookup, and calls with the packed convention.
#include "runtime/library_module.h"

#include <dlfcn.h>
#include <stdlib.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>

#include "runtime/model_files.h"
#include "tensorir/error.h"
#include "tensorir/runtime/parallel.h"

namespace tensorir::runtime {

namespace {

// The library's code calls tensorir_parallel_for and tensorir_set_last_error, left
// undefined when it was linked. They resolve from the global scope, which holds this
// runtime when the program links it, but not when the runtime itself was dlopen'ed
// privately: promote it (RTLD_NOLOAD only finds the copy already loaded).
void make_runtime_global() {
  static const bool done = [] {
    Dl_info info{};
    if (dladdr(reinterpret_cast<void *>(&tensorir_parallel_for), &info) && info.dli_fname)
      dlopen(info.dli_fname, RTLD_NOW | RTLD_NOLOAD | RTLD_GLOBAL);  // stays open: the runtime is in use
    return true;
  }();
  (void)done;
}

std::string dl_error() {
  const char *e = dlerror();
  return e ? e : "unknown error";
}

// Writes `bytes` to a new file made from `templ` (mkstemp's XXXXXX); false if it cannot.
bool write_unique(std::string &templ, const std::vector<unsigned char> &bytes) {
  const int fd = mkstemp(templ.data());
  if (fd < 0) return false;
  size_t done = 0;
  while (done < bytes.size()) {
    const ssize_t n = write(fd, bytes.data() + done, bytes.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    done += size_t(n);
  }
  const bool ok = close(fd) == 0 && done == bytes.size();
  if (!ok) unlink(templ.c_str());
  return ok;
}

// dlopen of a copy of the library under a name of its own, removed once open: every
// load gets the bytes the file holds now, and nothing is left behind. The copy goes
// next to the library (a folder whose files may run), else to the temporary folder.
void *open_private_copy(const std::string &path, const std::vector<unsigned char> &bytes) {
  namespace fs = std::filesystem;
  const fs::path p(path);
  std::string copy = (p.parent_path() / ("." + p.filename().string() + ".XXXXXX")).string();
  if (!write_unique(copy, bytes)) {
    std::error_code ec;
    copy = (fs::temp_directory_path(ec) / "tensorir-model-XXXXXX").string();
    TIR_USER_CHECK(write_unique(copy, bytes))
        << "cannot load the kernel library " << path << ": cannot write a private copy of it next to it or at "
        << copy << ": " << std::strerror(errno);
  }
  void *handle = dlopen(copy.c_str(), RTLD_NOW | RTLD_LOCAL);
  const std::string error = handle ? std::string() : dl_error();
  unlink(copy.c_str());
  TIR_USER_CHECK(handle != nullptr) << "cannot load the kernel library " << path << ": " << error;
  return handle;
}

}  // namespace

LibraryModuleNode::LibraryModuleNode(const std::string &path, std::vector<FuncSignature> sigs,
                                     const Verify &verify)
    : path_(path), sigs_(std::move(sigs)) {
  make_runtime_global();
  std::error_code ec;
  TIR_USER_CHECK(std::filesystem::is_regular_file(path, ec))
      << "cannot load the kernel library " << path << ": "
      << (std::filesystem::exists(path, ec) ? "it is not a regular file" : "there is no such file");
  const std::vector<unsigned char> bytes = read_file_bytes(path, "kernel library");
  if (verify) verify(bytes);
  handle_ = open_private_copy(path, bytes);
  for (const FuncSignature &s : sigs_) {
    void *fn = dlsym(handle_, s.name.c_str());
    if (!fn) {
      dlclose(handle_);
      handle_ = nullptr;
      TIR_THROW() << "the kernel library " << path << " has no function '" << s.name
                  << "' (was it saved together with this model.json?)";
    }
    functions_.push_back(reinterpret_cast<RawFunction>(fn));
  }
}

LibraryModuleNode::~LibraryModuleNode() {
  if (handle_) dlclose(handle_);
}

void LibraryModuleNode::call_packed(size_t index, const ArgValue *args) const {
  TIR_ASSERT(index < functions_.size()) << "function index " << index << " out of range";
  const int32_t rc = functions_[index](args);
  if (rc != 0) {
    const char *msg = take_last_error();
    TIR_THROW() << sigs_[index].name << ": "
                << (msg && *msg ? msg : "the kernel failed with status " + std::to_string(rc));
  }
}

void LibraryModuleNode::invoke(size_t index, const std::vector<ArgValue> &args,
                               const std::vector<NDArray> &) const {
  TIR_ASSERT(index < sigs_.size()) << "function index " << index << " out of range";
  const FuncSignature &sig = sigs_[index];
  TIR_ASSERT(args.size() == sig.args.size() + sig.symbols.size())
      << sig.name << " expects " << sig.args.size() + sig.symbols.size() << " packed values, got " << args.size();
  call_packed(index, args.data());
}

std::string LibraryModuleNode::source(const std::string &format) const {
  TIR_THROW() << "the module loaded from " << path_ << " has machine code only, no '" << format
              << "' source; get the source from the compiled model before saving it";
}

void LibraryModuleNode::save(const std::string &path, const std::string &format) const {
  TIR_THROW() << "the module loaded from " << path_ << " cannot be saved again (asked for '" << format << "' at "
              << path << "); copy the saved model's directory instead";
}

}  // namespace tensorir::runtime
