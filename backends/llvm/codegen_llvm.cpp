// CodeGenLLVM: module set-up, types, the symbol table and the entry-function ABI.
#include "backends/llvm/codegen_llvm.h"

#include <llvm/IR/MDBuilder.h>
#include <llvm/IR/Verifier.h>
#include <llvm/Support/raw_ostream.h>

#include "tensorir/error.h"

namespace tensorir::llvm_backend {

CodeGenLLVM::CodeGenLLVM(llvm::LLVMContext &ctx, const CodeGenTarget &target)
    : ctx_(ctx), target_(target), module_(std::make_unique<llvm::Module>("tensorir", ctx)),
      builder_(ctx) {
  module_->setTargetTriple(target.triple);
  module_->setDataLayout(target.data_layout);
  // a*b+c may become one fma: more accurate, and twice the throughput on the vector units.
  llvm::FastMathFlags fmf;
  fmf.setAllowContract(true);
  builder_.setFastMathFlags(fmf);
}

CodeGenLLVM::~CodeGenLLVM() = default;

llvm::Type *CodeGenLLVM::llvm_type(Type t) const {
  llvm::Type *elem = nullptr;
  switch (t.code()) {
    case Type::Int:
    case Type::UInt:
      elem = llvm::Type::getIntNTy(ctx_, t.bits());
      break;
    case Type::Float:
      if (t.bits() == 16) elem = llvm::Type::getHalfTy(ctx_);
      else if (t.bits() == 32) elem = llvm::Type::getFloatTy(ctx_);
      else if (t.bits() == 64) elem = llvm::Type::getDoubleTy(ctx_);
      break;
    case Type::BFloat:
      if (t.bits() == 16) elem = llvm::Type::getBFloatTy(ctx_);
      break;
    case Type::Handle:
      elem = llvm::PointerType::get(ctx_, 0);
      break;
  }
  TIR_USER_CHECK(elem != nullptr) << "the llvm backend cannot represent type " << t.str()
                                  << "; use float16/32/64, bfloat16 or an int type";
  if (t.lanes() == 1) return elem;
  return llvm::FixedVectorType::get(elem, t.lanes());
}

llvm::Type *CodeGenLLVM::memory_type(Type t) const {
  if (t.is_bool()) return llvm_type(Int(8, t.lanes()));
  return llvm_type(t);
}

llvm::Value *CodeGenLLVM::to_bool_memory(llvm::Value *v, Type t) {
  if (!t.is_bool()) return v;
  return builder_.CreateZExt(v, memory_type(t));
}

llvm::Value *CodeGenLLVM::from_bool_memory(llvm::Value *v, Type t) {
  if (!t.is_bool()) return v;
  return builder_.CreateICmpNE(v, llvm::Constant::getNullValue(v->getType()));
}

llvm::Value *CodeGenLLVM::lookup(const VarNode *v) const {
  auto it = fs_.vars.find(v);
  TIR_USER_CHECK(it != fs_.vars.end())
      << "undefined variable '" << v->name
      << "' reached code generation; every variable must be a loop variable, a let, an "
         "argument or a shape symbol";
  return it->second;
}

void CodeGenLLVM::bind(const VarNode *v, llvm::Value *value) { fs_.vars[v] = value; }

void CodeGenLLVM::unbind(const VarNode *v) { fs_.vars.erase(v); }

void CodeGenLLVM::set_function_attributes(llvm::Function *f) const {
  f->addFnAttr(llvm::Attribute::NoUnwind);
  if (!target_.cpu.empty()) f->addFnAttr("target-cpu", target_.cpu);
  if (!target_.features.empty()) f->addFnAttr("target-features", target_.features);
  if (target_.prefer_vector_width > 0)
    f->addFnAttr("prefer-vector-width", std::to_string(target_.prefer_vector_width));
}

llvm::Function *CodeGenLLVM::declare_internal_body(const std::string &name, llvm::Type *ret,
                                                   const std::vector<const VarNode *> &params,
                                                   const std::vector<llvm::Type *> &leading) {
  std::vector<llvm::Type *> types = leading;
  for (const VarNode *p : params) types.push_back(llvm_type(p->type));
  auto *ft = llvm::FunctionType::get(ret, types, false);
  llvm::Function *fn =
      llvm::Function::Create(ft, llvm::Function::InternalLinkage, name, module_.get());
  set_function_attributes(fn);
  fn->addFnAttr(llvm::Attribute::AlwaysInline);
  for (size_t k = 0; k < params.size(); ++k) {
    unsigned idx = static_cast<unsigned>(leading.size() + k);
    fn->getArg(idx)->setName(params[k]->name);
    if (buffer_vars_.count(params[k])) {
      // Buffers never overlap (but those that may alias: a result in place of an input)
      // and come from 64-byte aligned storage.
      if (!aliased_vars_.count(params[k])) fn->addParamAttr(idx, llvm::Attribute::NoAlias);
      fn->addParamAttr(idx, llvm::Attribute::getWithAlignment(ctx_, llvm::Align(64)));
    }
  }
  return fn;
}

llvm::AllocaInst *CodeGenLLVM::entry_alloca(llvm::Type *t, uint64_t count,
                                            const std::string &name) {
  llvm::BasicBlock &entry = fs_.function->getEntryBlock();
  llvm::IRBuilder<> b(&entry, entry.begin());
  auto *a = b.CreateAlloca(t, count == 1 ? nullptr : b.getInt64(count), name);
  a->setAlignment(llvm::Align(64));
  return a;
}

void CodeGenLLVM::emit_return(llvm::Value *code) {
  for (auto it = fs_.heap_allocs.rbegin(); it != fs_.heap_allocs.rend(); ++it) emit_heap_free(*it);
  builder_.CreateRet(code);
}

llvm::Value *CodeGenLLVM::emit_heap_alloc(llvm::Value *bytes, const std::string &name) {
  llvm::Type *i64 = builder_.getInt64Ty();
  llvm::FunctionCallee fn =
      targets_wasm()
          ? runtime_function("aligned_alloc", llvm::FunctionType::get(builder_.getPtrTy(), {i64, i64}, false))
          : runtime_function("tensorir_workspace_alloc", llvm::FunctionType::get(builder_.getPtrTy(), {i64}, false));
  // A fresh block aliases nothing else: what lets LLVM keep its loads and stores apart
  // from the arguments' (it knows aligned_alloc by name, not the runtime's function).
  if (auto *f = llvm::dyn_cast<llvm::Function>(fn.getCallee())) {
    f->addRetAttr(llvm::Attribute::NoAlias);
    f->addRetAttr(llvm::Attribute::getWithAlignment(ctx_, llvm::Align(64)));
  }
  if (targets_wasm()) return builder_.CreateCall(fn, {builder_.getInt64(64), bytes}, name);
  return builder_.CreateCall(fn, {bytes}, name);
}

void CodeGenLLVM::emit_heap_free(llvm::Value *p) {
  llvm::FunctionCallee fn =
      runtime_function(targets_wasm() ? "free" : "tensorir_workspace_free",
                       llvm::FunctionType::get(builder_.getVoidTy(), {builder_.getPtrTy()}, false));
  // Freeing keeps no copy of the pointer: without saying so, handing the block to the
  // runtime counts as its address escaping, and LLVM no longer sees that the block and
  // the buffers a parallel body loads from its closure are apart.
  if (auto *f = llvm::dyn_cast<llvm::Function>(fn.getCallee())) f->addParamAttr(0, llvm::Attribute::NoCapture);
  builder_.CreateCall(fn, {p});
}

void CodeGenLLVM::emit_fail_if(llvm::Value *failed, const std::string &message, const std::string &what) {
  llvm::BasicBlock *fail = llvm::BasicBlock::Create(ctx_, what + "_fail", fs_.function);
  llvm::BasicBlock *ok = llvm::BasicBlock::Create(ctx_, what + "_ok", fs_.function);
  builder_.CreateCondBr(failed, fail, ok, llvm::MDBuilder(ctx_).createBranchWeights(1, 1 << 20));
  builder_.SetInsertPoint(fail);
  llvm::FunctionCallee set_error = runtime_function(
      "tensorir_set_last_error", llvm::FunctionType::get(builder_.getVoidTy(), {builder_.getPtrTy()}, false));
  builder_.CreateCall(set_error, {global_string(message, what + "_msg")});
  emit_return(builder_.getInt32(-1));
  builder_.SetInsertPoint(ok);
}

llvm::Constant *CodeGenLLVM::global_string(const std::string &s, const std::string &name) {
  return builder_.CreateGlobalString(s, name, 0, module_.get());
}

llvm::FunctionCallee CodeGenLLVM::runtime_function(const std::string &name,
                                                   llvm::FunctionType *type) {
  llvm::Function *existing = module_->getFunction(name);
  TIR_USER_CHECK(!existing || existing->getFunctionType() == type)
      << "the function '" << name << "' is used with two different signatures in one module"
      << " (a kernel name clashing with a C function?); rename the kernel";
  llvm::FunctionCallee c = module_->getOrInsertFunction(name, type);
  if (auto *fn = llvm::dyn_cast<llvm::Function>(c.getCallee())) fn->addFnAttr(llvm::Attribute::NoUnwind);
  return c;
}

llvm::Value *CodeGenLLVM::cast_to(llvm::Value *v, Type from, Type to) {
  if (from == to) return v;
  TIR_USER_CHECK(from.lanes() == to.lanes())
      << "cannot cast " << from.str() << " to " << to.str() << ": lane counts differ";
  llvm::Type *dst = llvm_type(to);
  if (to.is_bool()) {
    if (from.is_float()) return builder_.CreateFCmpUNE(v, llvm::Constant::getNullValue(v->getType()));
    if (from.is_handle()) return builder_.CreateIsNotNull(v);
    return builder_.CreateICmpNE(v, llvm::Constant::getNullValue(v->getType()));
  }
  if (from.is_bool()) {
    if (to.is_float()) return builder_.CreateUIToFP(v, dst);
    return builder_.CreateZExt(v, dst);
  }
  if (from.is_int_or_uint() && to.is_int_or_uint()) return builder_.CreateIntCast(v, dst, from.is_int());
  if (from.is_int_or_uint() && to.is_float())
    return from.is_int() ? builder_.CreateSIToFP(v, dst) : builder_.CreateUIToFP(v, dst);
  if (from.is_float() && to.is_int_or_uint())
    return to.is_int() ? builder_.CreateFPToSI(v, dst) : builder_.CreateFPToUI(v, dst);
  if (from.is_float() && to.is_float()) {
    if (from.bits() == to.bits()) {  // float16 <-> bfloat16 through float32
      return builder_.CreateFPTrunc(builder_.CreateFPExt(v, llvm_type(Float(32, from.lanes()))), dst);
    }
    return from.bits() < to.bits() ? builder_.CreateFPExt(v, dst) : builder_.CreateFPTrunc(v, dst);
  }
  if (from.is_handle() && to.is_handle()) return v;
  if (from.is_handle() && to.is_int_or_uint()) return builder_.CreatePtrToInt(v, dst);
  if (from.is_int_or_uint() && to.is_handle()) return builder_.CreateIntToPtr(v, dst);
  TIR_THROW() << "the llvm backend cannot cast " << from.str() << " to " << to.str();
}

void CodeGenLLVM::add_function(const LoweredFunc &f) {
  TIR_ASSERT(f.defined() && f->body.defined()) << "an empty LoweredFunc reached the llvm backend";
  TIR_USER_CHECK(!f->name.empty()) << "a kernel needs a name to be compiled by the llvm backend";
  TIR_USER_CHECK(module_->getFunction(f->name) == nullptr)
      << "two functions are named '" << f->name
      << "' in one module (or a kernel name clashes with a C function it calls); give each "
         "kernel a unique name";
  func_name_ = f->name;

  // The body's parameters: arguments, then symbols, each variable once.
  std::vector<const VarNode *> params;
  std::unordered_set<const VarNode *> seen;
  for (const LoweredArg &a : f->args) {
    TIR_ASSERT(a.var.defined()) << "argument '" << a.name << "' of " << f->name << " has no variable";
    if (a.is_buffer) {
      TIR_ASSERT(a.var.type().is_handle())
          << "buffer argument '" << a.name << "' must be bound to a handle variable";
      buffer_vars_.insert(a.var.get());
      guard_.add_buffer(a.var.get(), a.dtype, element_count(a.shape));
      if (a.may_alias) aliased_vars_.insert(a.var.get());
    }
    if (seen.insert(a.var.get()).second) params.push_back(a.var.get());
  }
  for (const Var &s : f->symbols) {
    TIR_ASSERT(s.defined() && s.type().is_int_or_uint())
        << "shape symbols of " << f->name << " must be integer variables";
    if (seen.insert(s.get()).second) params.push_back(s.get());
  }

  llvm::Type *i32 = builder_.getInt32Ty();
  llvm::Type *ptr = builder_.getPtrTy();
  auto *entry_ty = llvm::FunctionType::get(i32, {ptr}, false);
  llvm::Function *entry =
      llvm::Function::Create(entry_ty, llvm::Function::ExternalLinkage, f->name, module_.get());
  set_function_attributes(entry);
  entry->getArg(0)->setName("args");
  entry->addParamAttr(0, llvm::Attribute::NoAlias);
  entry->addParamAttr(0, llvm::Attribute::ReadOnly);
  entry->addParamAttr(0, llvm::Attribute::NoCapture);
  llvm::Function *body = declare_internal_body(f->name + ".body", i32, params, {});

  // Entry: unpack the ArgValue array (8 bytes a slot) and call the body.
  builder_.SetInsertPoint(llvm::BasicBlock::Create(ctx_, "entry", entry));
  std::unordered_map<const VarNode *, llvm::Value *> unpacked;
  auto slot = [&](size_t i) {
    return builder_.CreateConstInBoundsGEP1_64(builder_.getInt64Ty(), entry->getArg(0), i);
  };
  for (size_t i = 0; i < f->args.size(); ++i) {
    const LoweredArg &a = f->args[i];
    Type t = a.var.type();
    llvm::Value *v = nullptr;
    if (a.is_buffer || t.is_handle()) {
      v = builder_.CreateAlignedLoad(ptr, slot(i), llvm::Align(8), a.name);
    } else if (t.is_float()) {
      TIR_USER_CHECK(t.is_scalar()) << "scalar argument '" << a.name << "' must not be a vector";
      v = builder_.CreateAlignedLoad(builder_.getDoubleTy(), slot(i), llvm::Align(8), a.name);
      if (t.bits() != 64) v = builder_.CreateFPTrunc(v, llvm_type(t));
    } else {
      TIR_USER_CHECK(t.is_scalar() && t.is_int_or_uint())
          << "scalar argument '" << a.name << "' has unsupported type " << t.str();
      v = builder_.CreateAlignedLoad(builder_.getInt64Ty(), slot(i), llvm::Align(8), a.name);
      v = t.is_bool() ? builder_.CreateICmpNE(v, builder_.getInt64(0))
                      : builder_.CreateTrunc(v, llvm_type(t));
    }
    unpacked.emplace(a.var.get(), v);
  }
  for (size_t j = 0; j < f->symbols.size(); ++j) {
    const Var &s = f->symbols[j];
    llvm::Value *v = builder_.CreateAlignedLoad(builder_.getInt64Ty(), slot(f->args.size() + j),
                                                llvm::Align(8), s.name());
    unpacked.emplace(s.get(), builder_.CreateTrunc(v, llvm_type(s.type())));
  }
  std::vector<llvm::Value *> call_args;
  for (const VarNode *p : params) call_args.push_back(unpacked.at(p));
  builder_.CreateRet(builder_.CreateCall(body, call_args));

  // Body: the loop nest.
  fs_ = FunctionState{};
  fs_.function = body;
  builder_.SetInsertPoint(llvm::BasicBlock::Create(ctx_, "entry", body));
  for (size_t k = 0; k < params.size(); ++k) bind(params[k], body->getArg(static_cast<unsigned>(k)));
  emit(f->body);
  builder_.CreateRet(builder_.getInt32(0));
  fs_ = FunctionState{};
}

std::unique_ptr<llvm::Module> CodeGenLLVM::finish() {
  std::string msg;
  llvm::raw_string_ostream os(msg);
  bool broken = llvm::verifyModule(*module_, &os);
  os.flush();
  TIR_ASSERT(!broken) << "the llvm backend produced invalid IR: " << msg;
  return std::move(module_);
}

}  // namespace tensorir::llvm_backend
