// A Module over the kernels of a saved model's library (model.so), opened with dlopen.
// The functions and their signatures come from the library's kernel table
// (runtime/kernel_table.h), never from a lookup by name, which would also find the
// functions of the libraries it depends on (libc's abort, free, exit).
#pragma once
#include <functional>
#include <string>
#include <vector>

#include "tensorir/runtime/module.h"

namespace tensorir::runtime {

class LibraryModuleNode final : public ModuleNode {
 public:
  // The library's bytes, before they are loaded: throws to refuse them.
  using Verify = std::function<void(const std::vector<unsigned char> &bytes)>;

  // Opens a private copy of `path` (dlopen would hand back a library already open under
  // the same name, stale once the file is saved again) and reads its kernel table; throws
  // an Error naming the file for a library without one or with a damaged one.
  LibraryModuleNode(const std::string &path, const Verify &verify = {});
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
  std::string path_;
  void *handle_ = nullptr;
  std::vector<FuncSignature> sigs_;
  std::vector<RawFunction> functions_;
  uint32_t plan_fingerprint_ = 0;
};

}  // namespace tensorir::runtime
