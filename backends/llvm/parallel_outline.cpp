// CodeGenLLVM: a parallel loop becomes a closure run by the runtime's thread pool.
//
//   for (i = min; i < min + extent; ++i) body(i, captured...)
// turns into
//   env = {captured...}
//   rc = tensorir_parallel_for(min, min + extent, f.parN, &env); if (rc) return rc;
// where `i32 f.parN(i64 i, ptr env)` unpacks env and calls the always-inlined
// `f.parN.body(i, captured...)`, whose buffer parameters are noalias like the kernel's.
#include <unordered_set>

#include "backends/llvm/codegen_llvm.h"

#include "tensorir/error.h"
#include "tensorir/ir/visitor.h"

namespace tensorir::llvm_backend {

namespace {

// Every variable a statement mentions (values and buffers), in first-use order.
class UsedVars : public IRVisitor {
 public:
  using IRVisitor::visit;
  std::vector<const VarNode *> order;

 protected:
  void add(const VarNode *v) {
    if (seen_.insert(v).second) order.push_back(v);
  }
  void visit(const VarNode *op) override { add(op); }
  void visit(const LoadNode *op) override {
    add(op->buffer.get());
    IRVisitor::visit(op);
  }
  void visit(const StoreNode *op) override {
    add(op->buffer.get());
    IRVisitor::visit(op);
  }

 private:
  std::unordered_set<const VarNode *> seen_;
};

}  // namespace

void CodeGenLLVM::emit_parallel_for(const ForNode *op) {
  Type lt = op->loop_var.type();
  TIR_USER_CHECK(lt.is_int_or_uint() && lt.is_scalar())
      << "loop variable '" << op->loop_var.name() << "' must be a scalar integer, not " << lt.str();
  llvm::Type *i64 = builder_.getInt64Ty();
  llvm::Type *i32 = builder_.getInt32Ty();
  llvm::Type *ptr = builder_.getPtrTy();
  llvm::Value *mn = builder_.CreateIntCast(emit(op->min), i64, op->min.type().is_int());
  llvm::Value *ext = builder_.CreateIntCast(emit(op->extent), i64, op->extent.type().is_int());
  llvm::Value *end = builder_.CreateNSWAdd(mn, ext);

  // Capture what the body uses and is bound out here; the rest is bound inside it (or
  // is undefined, which the body's codegen reports).
  UsedVars used;
  used.visit(op->body);
  std::vector<const VarNode *> caps;
  std::vector<llvm::Value *> cap_values;
  std::vector<llvm::Type *> cap_types;
  for (const VarNode *v : used.order) {
    if (v == op->loop_var.get()) continue;
    auto it = fs_.vars.find(v);
    if (it == fs_.vars.end()) continue;
    caps.push_back(v);
    cap_values.push_back(it->second);
    cap_types.push_back(it->second->getType());
  }
  llvm::StructType *env_ty = llvm::StructType::get(ctx_, cap_types);
  llvm::Value *env = llvm::ConstantPointerNull::get(builder_.getPtrTy());
  if (!caps.empty()) {
    env = entry_alloca(env_ty, 1, "par_env");
    for (size_t k = 0; k < caps.size(); ++k)
      builder_.CreateStore(cap_values[k], builder_.CreateStructGEP(env_ty, env, unsigned(k)));
  }

  std::string name = func_name_ + ".par" + std::to_string(outlined_count_++);
  auto *closure_ty = llvm::FunctionType::get(i32, {i64, ptr}, false);
  llvm::Function *closure =
      llvm::Function::Create(closure_ty, llvm::Function::InternalLinkage, name, module_.get());
  set_function_attributes(closure);
  llvm::Function *impl = declare_internal_body(name + ".body", i32, caps, {i64});

  FunctionState saved = std::move(fs_);
  llvm::IRBuilderBase::InsertPoint ip = builder_.saveIP();

  // The closure: unpack env, call the body.
  builder_.SetInsertPoint(llvm::BasicBlock::Create(ctx_, "entry", closure));
  std::vector<llvm::Value *> args = {closure->getArg(0)};
  for (size_t k = 0; k < caps.size(); ++k) {
    llvm::Value *slot = builder_.CreateStructGEP(env_ty, closure->getArg(1), unsigned(k));
    args.push_back(builder_.CreateLoad(cap_types[k], slot, caps[k]->name));
  }
  builder_.CreateRet(builder_.CreateCall(impl, args));

  // The body, with its own symbol table: only the captures and the loop variable.
  fs_ = FunctionState{};
  fs_.function = impl;
  fs_.in_parallel = true;
  builder_.SetInsertPoint(llvm::BasicBlock::Create(ctx_, "entry", impl));
  impl->getArg(0)->setName(op->loop_var.name());
  llvm::Value *index = builder_.CreateIntCast(impl->getArg(0), llvm_type(lt), lt.is_int());
  bind(op->loop_var.get(), index);
  if (lt.is_int()) fs_.wide_vars[op->loop_var.get()] = {index, impl->getArg(0)};
  for (size_t k = 0; k < caps.size(); ++k) bind(caps[k], impl->getArg(unsigned(k + 1)));
  emit(op->body);
  builder_.CreateRet(builder_.getInt32(0));

  fs_ = std::move(saved);
  builder_.restoreIP(ip);

  llvm::FunctionCallee pfor = runtime_function(
      "tensorir_parallel_for", llvm::FunctionType::get(i32, {i64, i64, ptr, ptr}, false));
  llvm::Value *rc = builder_.CreateCall(pfor, {mn, end, closure, env});
  llvm::BasicBlock *fail = llvm::BasicBlock::Create(ctx_, "par_fail", fs_.function);
  llvm::BasicBlock *ok = llvm::BasicBlock::Create(ctx_, "par_ok", fs_.function);
  builder_.CreateCondBr(builder_.CreateICmpEQ(rc, builder_.getInt32(0)), ok, fail);
  builder_.SetInsertPoint(fail);
  emit_return(rc);
  builder_.SetInsertPoint(ok);
}

}  // namespace tensorir::llvm_backend
