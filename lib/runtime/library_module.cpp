// LibraryModuleNode: dlopen, symbol lookup, and calls with the packed convention.
#include "runtime/library_module.h"

#include <dlfcn.h>

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

}  // namespace

LibraryModuleNode::LibraryModuleNode(const std::string &path, std::vector<FuncSignature> sigs)
    : path_(path), sigs_(std::move(sigs)) {
  make_runtime_global();
  handle_ = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  TIR_USER_CHECK(handle_ != nullptr) << "cannot load the kernel library " << path << ": " << dl_error();
  for (const FuncSignature &s : sigs_) {
    void *fn = dlsym(handle_, s.name.c_str());
    if (!fn) {
      dlclose(handle_);
      handle_ = nullptr;
      TIR_THROW() << "the kernel library " << path << " has no function '" << s.name
                  << "' (was it saved together with this model.txt?)";
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
