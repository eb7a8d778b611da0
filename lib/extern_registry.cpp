// C functions registered for kernels to call by name.
#include <map>
#include <mutex>

#include "tensorir/build.h"

namespace tensorir {

namespace {
struct ExternRegistry {
  std::mutex mu;
  std::map<std::string, void *> functions;
  uint64_t registrations = 0;
};
ExternRegistry &externs() {
  static ExternRegistry *r = new ExternRegistry;
  return *r;
}
}  // namespace

void register_extern_function(const std::string &name, void *address) {
  TIR_USER_CHECK(!name.empty() && address) << "register_extern_function: give a name and a non-null address";
  ExternRegistry &r = externs();
  std::lock_guard<std::mutex> lock(r.mu);
  r.functions[name] = address;
  ++r.registrations;
}

uint64_t extern_function_registrations() {
  ExternRegistry &r = externs();
  std::lock_guard<std::mutex> lock(r.mu);
  return r.registrations;
}

void *lookup_extern_function(const std::string &name) {
  ExternRegistry &r = externs();
  std::lock_guard<std::mutex> lock(r.mu);
  auto it = r.functions.find(name);
  return it == r.functions.end() ? nullptr : it->second;
}

}  // namespace tensorir
