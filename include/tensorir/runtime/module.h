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
  // Buffers: the function stores into it (a computed tensor, not a placeholder), and it
  // may share storage with another argument marked so (BuildArg's may_alias). A call
  // refuses a written buffer that overlaps another argument unless both may alias.
  bool written = false;
  bool may_alias = false;

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

// How Module::time_evaluator times a function: after one untimed call, `repeat` runs of
// `number` calls each; a run shorter than `min_repeat_ms` is done again with more calls.
struct TimeOptions {
  int number = 10;
  int repeat = 3;
  double min_repeat_ms = 0;
  // Cold timing: before each timed call, untimed, overwrite this many bytes of memory
  // of the timer's own, evicting the call's data from the CPU caches as a model's other
  // kernels do between two calls of one; each call is then timed alone, and a repeat is
  // `number` calls whatever min_repeat_ms says (each costs an eviction). Honoured where
  // the calls run: here, on an RPC server or page (modules and models). 0: calls back to
  // back. At most 1 GiB.
  int64_t evict_bytes = 0;
};

// Each repeat's mean time per call, and their summary.
struct TimeResult {
  std::vector<double> times_ms;
  double median_ms = 0, mean_ms = 0, min_ms = 0;
  static TimeResult of(std::vector<double> times_ms);
};

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
  // a shared library, for the llvm backend; "gpu-json" for "opengl" compute and "opencl").
  // The default throws an Error naming the backend: not every backend's code can leave
  // the process.
  virtual void save(const std::string &path, const std::string &format) const;
  // Times function `index` on checked, packed arguments as TimeOptions says: each repeat's
  // mean milliseconds per call. The default calls invoke() under a steady clock; a
  // backend whose calls return before the device is done, or that runs elsewhere (RPC),
  // overrides it.
  virtual std::vector<double> time(size_t index, const std::vector<ArgValue> &args,
                                   const std::vector<NDArray> &buffers, const TimeOptions &options) const;
};

using Arg = std::variant<NDArray, int64_t, double>;

// A call whose arguments were checked and packed once (Function::bind), made again
// without checking them again: for callers that pass the same arrays every time, such as
// a compiled model over its storage. The arrays' contents may change between calls;
// the call keeps the arrays alive.
class BoundCall {
 public:
  BoundCall() = default;
  void operator()() const;
  bool defined() const { return m_.defined(); }

 private:
  friend class Function;
  Ref<const ModuleNode> m_;
  size_t index_ = 0;
  std::vector<ArgValue> values_;
  std::vector<NDArray> buffers_;
};

class Function {
 public:
  Function(Ref<const ModuleNode> m, size_t index) : m_(std::move(m)), index_(index) {}
  template <typename... Args>
  void operator()(const Args &...args) const {
    call({to_arg(args)...});
  }
  void call(const std::vector<Arg> &args) const;
  // Checks and packs `args` as call() does, for calls made later with them.
  BoundCall bind(const std::vector<Arg> &args) const;
  const FuncSignature &signature() const;

 private:
  friend class TimeEvaluator;
  // Checks `args` against the signature and packs them as ModuleNode::invoke takes them.
  void pack(const std::vector<Arg> &args, std::vector<ArgValue> &values, std::vector<NDArray> &buffers) const;
  static Arg to_arg(const NDArray &a) { return a; }
  static Arg to_arg(int v) { return int64_t(v); }
  static Arg to_arg(int64_t v) { return v; }
  static Arg to_arg(float v) { return double(v); }
  static Arg to_arg(double v) { return v; }
  Ref<const ModuleNode> m_;
  size_t index_;
};

// Module::time_evaluator("f", {.number = 10})(a, b, c).median_ms
class TimeEvaluator {
 public:
  TimeEvaluator(Function f, TimeOptions options) : f_(std::move(f)), options_(options) {}
  template <typename... Args>
  TimeResult operator()(const Args &...args) const {
    return call({to_arg(args)...});
  }
  TimeResult call(const std::vector<Arg> &args) const;

 private:
  static Arg to_arg(const NDArray &a) { return a; }
  static Arg to_arg(int v) { return int64_t(v); }
  static Arg to_arg(int64_t v) { return v; }
  static Arg to_arg(float v) { return double(v); }
  static Arg to_arg(double v) { return v; }
  Function f_;
  TimeOptions options_;
};

class Module {
 public:
  Module() = default;
  explicit Module(Ref<const ModuleNode> n) : n_(std::move(n)) {}
  // The function called `name`; a clear error lists the names there are.
  Function operator()(const std::string &name) const;
  Function get_function(const std::string &name) const { return (*this)(name); }
  // Times function `name` where the module runs (on the remote, for a module loaded
  // through RPC); see TimeOptions.
  TimeEvaluator time_evaluator(const std::string &name, TimeOptions options = {}) const {
    return TimeEvaluator((*this)(name), options);
  }
  std::string source(const std::string &format) const;
  // Writes the compiled functions to `path` in `format` (ModuleNode::save: "o" or "so" for
  // llvm, "wasm" for wasm, "gpu-json" for "opengl" compute and "opencl", when every launch
  // size is a constant); a backend whose code cannot leave the process throws an Error.
  void save(const std::string &path, const std::string &format) const;
  // Reads a file that Module::save wrote in a format whose code runs on a device
  // ("gpu-json": an "opengl" or "opencl" module, on Device::opengl() or Device::opencl(i));
  // throws an Error naming the formats and devices this build reads.
  static Module load(const std::string &path, const std::string &format, Device device);
  std::vector<std::string> function_names() const;
  bool defined() const { return n_.defined(); }
  const ModuleNode *node() const { return n_.get(); }

 private:
  Ref<const ModuleNode> n_;
};

}  // namespace tensorir
