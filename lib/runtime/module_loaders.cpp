// The registry of module readers (module_loaders.h) and Module::load.
#include "runtime/module_loaders.h"

#include <map>
#include <mutex>
#include <sstream>
#include <utility>

#include "tensorir/error.h"

namespace tensorir::runtime {

namespace {

struct Registry {
  std::mutex mu;
  std::map<std::pair<std::string, Device::Kind>, ModuleLoader> loaders;
};

Registry &registry() {
  static Registry r;
  return r;
}

}  // namespace

void register_module_loader(const std::string &format, Device::Kind kind, ModuleLoader load) {
  Registry &r = registry();
  std::lock_guard<std::mutex> lock(r.mu);
  r.loaders[{format, kind}] = load;
}

}  // namespace tensorir::runtime

namespace tensorir {

Module Module::load(const std::string &path, const std::string &format, Device device) {
  runtime::Registry &r = runtime::registry();
  runtime::ModuleLoader load = nullptr;
  std::ostringstream known;
  {
    std::lock_guard<std::mutex> lock(r.mu);
    auto it = r.loaders.find({format, device.kind});
    if (it != r.loaders.end()) load = it->second;
    for (const auto &[key, fn] : r.loaders) known << (known.tellp() ? ", " : "") << "'" << key.first << "' on " << Device{key.second, 0};
  }
  TIR_USER_CHECK(load != nullptr) << "Module::load(\"" << path << "\", \"" << format << "\", " << device
                                  << "): no backend of this build reads that format for that device; it reads "
                                  << (known.str().empty() ? std::string("none") : known.str())
                                  << " (an \"llvm\" module saved as \"so\" loads with the runtime library)";
  return load(path, device);
}

}  // namespace tensorir
