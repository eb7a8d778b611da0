// Compiled code and how to call it. A Module holds functions; m("name")(args...) checks
// the arguments (count, dtypes, devices, shapes and the symbolic dimensions they bind)
// against the function's signature and then runs it.
#pragma once
#include <cstdint>
#include <string>
#include <variant>
#include <vector>

#include "tensorir/ir/object.h"
#include "tensorir/runtime/ndarray.h"

namespace tensorir {

// One dimension of a buffer argument: coeff * symbol + offset, or offset alone when
// symbol < 0. Symbols are the free shape variables, bound from the first argument that
// mentions them.
struct DimSpec {
  int64_t coeff = 0;
  int symbol = -1;
  int64_t offset = 0;
};

struct ArgSpec {
  enum Kind { Buffer, Scalar };
  Kind kind = Buffer;
  std::string name;
  Type dtype;
  std::vector<DimSpec> shape;  // buffers only

  bool is_buffer() const { return kind == Buffer; }
};

struct FuncSignature {
  std::string name;
  std::vector<ArgSpec> args;
  std::vector<std::string> symbols;  // names of the symbolic dimensions
  Device::Kind device = Device::CPU;
};

// The machine-level calling convention of every compiled function: one array holding
// the arguments in order (buffers as data pointers, scalars as int64 or double), then
// the symbol values as int64. Returns 0 on success.
union ArgValue {
  void *ptr;
  int64_t i64;
  double f64;
};
using RawFunction = int32_t (*)(const ArgValue *args);

// Implemented by each backend.
struct ModuleNode : Object {
  virtual const std::vector<FuncSignature> &signatures() const = 0;
  // Runs function `index` (into signatures()) with checked, packed arguments. `buffers`
  // has one entry per argument: the NDArray of a buffer argument, undefined for a scalar.
  virtual void invoke(size_t index, const std::vector<ArgValue> &args,
                      const std::vector<NDArray> &buffers) const = 0;
  // "ll", "asm", "glsl", "c", ...; a backend names the formats it has in its error.
  virtual std::string source(const std::string &format) const = 0;
  virtual std::string backend() const = 0;
  // Writes the compiled functions to `path` in `format` ("o": a relocatable object, "so":
  // a shared library, for the llvm backend). The default throws an Error naming the
  // backend: not every backend's code can leave the process.
  virtual void save(const std::string &path, const std::string &format) const;
};

using Arg = std::variant<NDArray, int64_t, double>;

class Function {
 public:
  Function(Ref<const ModuleNode> m, size_t index) : m_(std::move(m)), index_(index) {}
  template <typename... Args>
  void operator()(const Args &...args) const {
    call({to_arg(args)...});
  }
  void call(const std::vector<Arg> &args) const;
  const FuncSignature &signature() const;

 private:
  static Arg to_arg(const NDArray &a) { return a; }
  static Arg to_arg(int v) { return int64_t(v); }
  static Arg to_arg(int64_t v) { return v; }
  static Arg to_arg(float v) { return double(v); }
  static Arg to_arg(double v) { return v; }
  Ref<const ModuleNode> m_;
  size_t index_;
};

class Module {
 public:
  Module() = default;
  explicit Module(Ref<const ModuleNode> n) : n_(std::move(n)) {}
  // The function called `name`; a clear error lists the names there are.
  Function operator()(const std::string &name) const;
  Function get_function(const std::string &name) const { return (*this)(name); }
  std::string source(const std::string &format) const;
  // Writes the compiled functions to `path` in `format` (ModuleNode::save: "o" or "so" for
  // llvm, "wasm" for wasm); a backend whose code cannot leave the process throws an Error.
  void save(const std::string &path, const std::string &format) const;
  std::vector<std::string> function_names() const;
  bool defined() const { return n_.defined(); }
  const ModuleNode *node() const { return n_.get(); }

 private:
  Ref<const ModuleNode> n_;
};

}  // namespace tensorir
