// A Module over the kernels of a saved model's library (model.so), or of a library that
// Module::save(path, "so") wrote, opened with dlopen. The functions come from the
// library's kernel table (runtime/kernel_table.h), never from a lookup by name, which
// would also find the functions of the libraries it depends on (libc's abort, free, exit).
#pragma once
#include <functional>
#include <string>
#include <vector>

#include "tensorir/runtime/module.h"

namespace tensorir::runtime {

struct TirKernelTable;

class LibraryModuleNode final : public ModuleNode {
 public:
  // The library's bytes, before they are loaded: throws to refuse them.
  using Verify = std::function<void(const std::vector<unsigned char> &bytes)>;

  // Opens a private copy of `path` (dlopen would hand back a library already open under
  // the same name, stale once the file is saved again) and reads its kernel table; throws
  // an Error naming the file for a library without one or with a damaged one.
  LibraryModuleNode(const std::string &path, const Verify &verify = {});
  // A library Module::save(path, "so") wrote, whose functions have the signatures
  // `declared` (its table cannot say how a symbolic extent depends on the symbols, so
  // calls are checked against these). Throws an Error naming the function and argument
  // where they and the table differ in names, arguments, dtypes, constant extents,
  // which extents are symbolic, or the number of shape symbols, and one naming the CPU
  // features the code may use that this CPU lacks.
  LibraryModuleNode(const std::string &path, std::vector<FuncSignature> declared);
  ~LibraryModuleNode() override;

  const std::vector<FuncSignature> &signatures() const override { return sigs_; }
  void invoke(size_t index, const std::vector<ArgValue> &args,
              const std::vector<NDArray> &buffers) const override;
  std::string source(const std::string &format) const override;
  std::string backend() const override { return "llvm"; }
  void save(const std::string &path, const std::string &format) const override;

  // Runs function `index` on packed arguments (unchecked); a failing kernel's message
  // becomes an Error.
  void call_packed(size_t index, const ArgValue *args) const;
  // The fingerprint of the plan saved with the library (runtime::plan_fingerprint).
  uint32_t plan_fingerprint() const { return plan_fingerprint_; }

 private:
  // dlopen of a private copy, and the table `symbol` it defines itself (else an Error
  // that ends with `missing`).
  const TirKernelTable &open(const std::string &path, const Verify &verify, const char *symbol, const char *missing);
  // The library's own definition of `name` (dlsym also finds its dependencies'), or null.
  const void *own_symbol(const char *name) const;

  std::string path_, copy_;
  void *handle_ = nullptr;
  std::vector<FuncSignature> sigs_;
  std::vector<RawFunction> functions_;
  uint32_t plan_fingerprint_ = 0;
};

}  // namespace tensorir::runtime
