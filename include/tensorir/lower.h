// lower(): a schedule and its arguments become a LoweredFunc, the loop nest that codegen reads.
#pragma once
#include <ostream>
#include <string>
#include <vector>

#include "tensorir/te/schedule.h"

namespace tensorir {

// An argument of a kernel: a tensor (a buffer) or a scalar variable.
class BuildArg {
 public:
  BuildArg(Tensor t) : tensor_(std::move(t)) {}
  // `may_alias`: the buffer may be the same storage as another argument marked so, e.g. a
  // result computed in place over an input it reads only at each element's own index,
  // before writing that element. The code then assumes nothing of their overlap.
  BuildArg(Tensor t, bool may_alias) : tensor_(std::move(t)), may_alias_(may_alias) {}
  BuildArg(Var v) : var_(std::move(v)) {}
  bool is_tensor() const { return tensor_.defined(); }
  const Tensor &tensor() const { return tensor_; }
  const Var &var() const { return var_; }
  bool may_alias() const { return may_alias_; }

 private:
  Tensor tensor_;
  Var var_{nullptr};
  bool may_alias_ = false;
};

struct LoweredArg {
  std::string name;
  Var var;      // the buffer's handle (buffers) or the scalar itself
  bool is_buffer = true;
  Type dtype;                // element type
  std::vector<Expr> shape;   // buffers: dimensions (constants or in terms of `symbols`)
  bool may_alias = false;    // buffers: may share storage with another such argument (BuildArg)
  bool written = false;      // buffers: computed by the function (every tensor but a placeholder)
};

struct LoweredFuncNode : Object {
  std::string name;
  std::vector<LoweredArg> args;
  std::vector<Var> symbols;  // free shape variables, passed after the arguments
  Stmt body;
};

class LoweredFunc : public Ref<const LoweredFuncNode> {
 public:
  LoweredFunc() = default;
  LoweredFunc(const LoweredFuncNode *n) : Ref<const LoweredFuncNode>(n) {}
};

std::ostream &operator<<(std::ostream &os, const LoweredFunc &f);

// Runs bound inference, builds the loop nest, and applies the lowering passes (lib/lower.cpp).
LoweredFunc lower(const Schedule &s, const std::vector<BuildArg> &args, const std::string &name);

struct LowerOptions {
  // Writes the IR after every pass to <dump_dir>/<name>.NN_<pass>.txt (00_schedule_ops,
  // 01_storage_flatten, ...) to see what each pass did. Empty: the directory in the
  // TENSORIR_DUMP_IR environment variable, if set; otherwise nothing is written.
  std::string dump_dir;
  // false: lowering stops before unroll_loops, so loops marked unrolled stay loops; the
  // loop nest as scheduled, for inspection or analysis, at about half the cost where the
  // unrolled bodies are large (a Winograd convolution: 19 ms against 37 ms). The
  // autotuner's loop-nest features read this form.
  bool unroll = true;
};
LoweredFunc lower(const Schedule &s, const std::vector<BuildArg> &args, const std::string &name,
                  const LowerOptions &options);

}  // namespace tensorir
