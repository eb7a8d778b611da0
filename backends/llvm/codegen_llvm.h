// CodeGenLLVM: translates lowered functions (the flat loop-nest IR) into one llvm::Module.
//
// Each LoweredFunc becomes `i32 name(ptr args)` (the RawFunction convention of
// runtime/module.h). It unpacks the argument array and calls an internal, always-inlined
// body function whose buffer parameters are `noalias align 64`; inlining turns those
// attributes into alias scopes, so the vectorizers need no runtime overlap checks.
// Parallel loops are outlined into `i32 body(i64 i, ptr env)` closures handed to the
// runtime's thread pool.
#pragma once
#include <memory>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/Module.h>

#include "backends/llvm/codegen_target.h"
#include "backends/llvm/load_guard.h"
#include "tensorir/ir/expr.h"
#include "tensorir/lower.h"

namespace tensorir::llvm_backend {

// The alignment of one element in memory (its size; 1 for sub-byte types).
inline llvm::Align element_align(Type elem) { return llvm::Align(elem.bytes() > 0 ? elem.bytes() : 1); }

class CodeGenLLVM {
 public:
  CodeGenLLVM(llvm::LLVMContext &ctx, const CodeGenTarget &target);
  ~CodeGenLLVM();

  void add_function(const LoweredFunc &f);
  // Verifies the module (an internal error on failure) and hands it over.
  std::unique_ptr<llvm::Module> finish();

 private:
  // Per-function state, saved and restored around outlined parallel bodies.
  struct FunctionState {
    llvm::Function *function = nullptr;
    std::unordered_map<const VarNode *, llvm::Value *> vars;
    // Exact int64 copies of narrower variables (a parallel body's loop index), for
    // emit_index: variable -> (its bound value, the int64 value), valid while still bound.
    std::unordered_map<const VarNode *, std::pair<llvm::Value *, llvm::Value *>> wide_vars;
    std::vector<llvm::Value *> heap_allocs;  // live heap buffers, freed on early return
    int64_t stack_bytes = 0;                 // bytes of entry-block allocas so far
    bool in_parallel = false;                // inside an outlined parallel body
  };

  // ---- types and helpers (codegen_llvm.cpp)
  llvm::Type *llvm_type(Type t) const;       // registers: bool is i1
  llvm::Type *memory_type(Type t) const;     // memory: bool is i8
  llvm::Value *lookup(const VarNode *v) const;
  void bind(const VarNode *v, llvm::Value *value);
  void unbind(const VarNode *v);
  llvm::Function *declare_internal_body(const std::string &name, llvm::Type *ret,
                                        const std::vector<const VarNode *> &params,
                                        const std::vector<llvm::Type *> &leading);
  void set_function_attributes(llvm::Function *f) const;
  llvm::AllocaInst *entry_alloca(llvm::Type *t, uint64_t count, const std::string &name);
  // Frees live heap allocations and returns `code` from the current function (terminates
  // the current block: the caller moves the insert point elsewhere).
  void emit_return(llvm::Value *code);
  // Where `failed` (an i1, unlikely) holds: records `message` as the call's error and
  // returns -1; code continues on the other branch. `what` names the blocks.
  void emit_fail_if(llvm::Value *failed, const std::string &message, const std::string &what);
  llvm::Value *cast_to(llvm::Value *v, Type from, Type to);
  llvm::Value *to_bool_memory(llvm::Value *v, Type t);
  llvm::Value *from_bool_memory(llvm::Value *v, Type t);
  llvm::Constant *global_string(const std::string &s, const std::string &name);
  llvm::FunctionCallee runtime_function(const std::string &name, llvm::FunctionType *type);
  // A heap buffer of `bytes` (an i64), 64-byte aligned, or null; and its release. On the
  // CPU the runtime's workspace cache (runtime/workspace.h), on WebAssembly the web
  // runtime's scratch memory (aligned_alloc and free).
  llvm::Value *emit_heap_alloc(llvm::Value *bytes, const std::string &name);
  void emit_heap_free(llvm::Value *p);
  bool targets_wasm() const { return target_.triple.rfind("wasm", 0) == 0; }

  // ---- expressions (codegen_expr.cpp)
  llvm::Value *emit(const Expr &e);
  llvm::Value *emit_cast(const CastNode *op);
  llvm::Value *emit_arith(const ExprNode *op, const Expr &a, const Expr &b);
  llvm::Value *emit_div(Type t, const Expr &a, const Expr &b, bool mod);
  llvm::Value *emit_float_min_max(bool is_min, llvm::Value *x, llvm::Value *y);
  llvm::Value *emit_compare(const ExprNode *op, const Expr &a, const Expr &b);
  llvm::Value *emit_load(const LoadNode *op);
  // A select whose values read through loads LoadGuard cannot prove in bounds: a scalar
  // condition branches, a vector one masks those loads to the lanes that pick them.
  llvm::Value *emit_guarded_select(const SelectNode *op);
  // `load` for the lanes of lane_mask_ only (inactive lanes read nothing and give zero).
  llvm::Value *emit_masked_load(const LoadNode *op);
  // The value of `emit_true()` where `c` (an i1) holds, else of `emit_false()`; each is
  // computed on its own branch only.
  template <typename T, typename F>
  llvm::Value *emit_branches(llvm::Value *c, T emit_true, F emit_false);
  llvm::Value *emit_ramp(const RampNode *op);
  // An index expression computed in int64 (scalar or vector): narrower signed arithmetic
  // cannot overflow (nsw), so widening is exact, and it lets alias analysis see addresses
  // as linear forms instead of sign extensions of 32-bit arithmetic.
  llvm::Value *emit_index(const Expr &e);
  llvm::Value *buffer_address(const Var &buffer, Type elem, llvm::Value *index);

  // ---- calls (intrinsics.cpp)
  llvm::Value *emit_call(const CallNode *op);
  llvm::Value *emit_extern_call(const CallNode *op);
  llvm::Value *emit_prefetch(const CallNode *op);
  // A kCheckedIndex call: fails the call when an index (any lane) is outside its range.
  llvm::Value *emit_checked_index(const CallNode *op);
  llvm::Value *emit_libm_call(const std::string &fname, llvm::Value *x, Type t);

  // ---- statements (codegen_stmt.cpp)
  void emit(const Stmt &s);
  void emit_for(const ForNode *op);
  void emit_serial_loop(const ForNode *op, const char *hint);
  void emit_store(const StoreNode *op);
  void emit_allocate(const AllocateNode *op);
  void emit_if(const IfThenElseNode *op);
  void emit_assert(const AssertStmtNode *op);

  // ---- parallel loops (parallel_outline.cpp)
  void emit_parallel_for(const ForNode *op);

  llvm::LLVMContext &ctx_;
  CodeGenTarget target_;
  std::unique_ptr<llvm::Module> module_;
  llvm::IRBuilder<> builder_;
  FunctionState fs_;
  LoadGuard guard_;                    // ranges and buffer sizes in scope, for reads under a select
  llvm::Value *lane_mask_ = nullptr;  // while emitting one side of a vector select: its lanes
  std::unordered_set<const VarNode *> buffer_vars_;  // args and allocations: distinct memory
  std::unordered_set<const VarNode *> aliased_vars_;  // args that may share storage (LoweredArg::may_alias)
  std::string func_name_;                            // the LoweredFunc being emitted
  int outlined_count_ = 0;
};

}  // namespace tensorir::llvm_backend
