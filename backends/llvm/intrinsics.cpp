// CodeGenLLVM: calls. Pure math intrinsics map to LLVM intrinsics (which work on vectors)
// or to libm, lane by lane, except float32 exp, inline code (fast_exp.h); extern calls
// become calls of C functions the JIT resolves.
#include <map>
#include <set>

#include "backends/llvm/codegen_llvm.h"
#include "backends/llvm/fast_exp.h"

#include <llvm/IR/Intrinsics.h>

#include "tensorir/error.h"
#include "tensorir/ir/op.h"

namespace tensorir::llvm_backend {

namespace {

const std::map<std::string, llvm::Intrinsic::ID> &unary_intrinsics() {
  static const std::map<std::string, llvm::Intrinsic::ID> m = {
      {"exp", llvm::Intrinsic::exp},     {"exp2", llvm::Intrinsic::exp2},
      {"log", llvm::Intrinsic::log},     {"log2", llvm::Intrinsic::log2},
      {"log10", llvm::Intrinsic::log10}, {"sqrt", llvm::Intrinsic::sqrt},
      {"fabs", llvm::Intrinsic::fabs},   {"floor", llvm::Intrinsic::floor},
      {"ceil", llvm::Intrinsic::ceil},   {"trunc", llvm::Intrinsic::trunc},
      {"round", llvm::Intrinsic::round}, {"nearbyint", llvm::Intrinsic::nearbyint},
      {"sin", llvm::Intrinsic::sin},     {"cos", llvm::Intrinsic::cos},
  };
  return m;
}

// No LLVM intrinsic (or none that every target lowers): the C library's function.
const std::set<std::string> &libm_functions() {
  static const std::set<std::string> s = {"tan",  "asin", "acos",  "atan",  "sinh", "cosh",
                                          "tanh", "asinh", "acosh", "atanh", "erf"};
  return s;
}

std::string supported_list() {
  std::string s;
  for (const auto &[name, id] : unary_intrinsics()) s += name + ", ";
  for (const std::string &name : libm_functions()) s += name + ", ";
  return s + "pow, fmod, fma, abs, rsqrt, sigmoid, shift_left, shift_right";
}

}  // namespace

llvm::Value *CodeGenLLVM::emit_call(const CallNode *op) {
  if (op->call_type == CallNode::Extern) return emit_extern_call(op);
  const std::string &name = op->name;
  if (name == "address_of") {  // &buffer[index], for tensor intrinsics
    const auto *load = op->args.size() == 1 ? op->args[0].as<LoadNode>() : nullptr;
    TIR_ASSERT(load) << "address_of takes one buffer load";
    return buffer_address(load->buffer, load->type, emit_index(load->index));
  }
  if (name == "tensorir.prefetch") return emit_prefetch(op);
  if (name == kCheckedIndex) return emit_checked_index(op);
  Type t = op->type;
  auto want_args = [&](size_t n) {
    TIR_USER_CHECK(op->args.size() == n)
        << "intrinsic '" << name << "' takes " << n << " argument(s), got " << op->args.size();
  };
  auto want_float = [&] {
    TIR_USER_CHECK(t.is_float()) << "intrinsic '" << name << "' needs a float argument, got "
                                 << t.str() << "; cast it first";
  };
  auto one = [&] { return llvm::ConstantFP::get(llvm_type(t), 1.0); };

  if (name == "exp" && t.is_float() && t.bits() == 32) {
    want_args(1);
    return emit_exp_f32(builder_, emit(op->args[0]));
  }
  if (auto it = unary_intrinsics().find(name); it != unary_intrinsics().end()) {
    want_args(1);
    want_float();
    return builder_.CreateUnaryIntrinsic(it->second, emit(op->args[0]));
  }
  if (name == "pow") {
    want_args(2);
    want_float();
    llvm::Value *x = emit(op->args[0]);
    return builder_.CreateBinaryIntrinsic(llvm::Intrinsic::pow, x, emit(op->args[1]));
  }
  if (name == "fmod") {  // frem is C's fmod: a libm call on x86, fmodf for WebAssembly
    want_args(2);
    want_float();
    llvm::Value *x = emit(op->args[0]);
    return builder_.CreateFRem(x, emit(op->args[1]));
  }
  if (name == "fma") {
    want_args(3);
    want_float();
    llvm::Value *a = emit(op->args[0]);
    llvm::Value *b = emit(op->args[1]);
    llvm::Value *c = emit(op->args[2]);
    return builder_.CreateIntrinsic(llvm::Intrinsic::fma, {a->getType()}, {a, b, c});
  }
  if (name == "abs") {
    want_args(1);
    llvm::Value *x = emit(op->args[0]);
    if (t.is_float()) return builder_.CreateUnaryIntrinsic(llvm::Intrinsic::fabs, x);
    if (t.is_uint()) return x;
    llvm::Value *neg = builder_.CreateICmpSLT(x, llvm::Constant::getNullValue(x->getType()));
    return builder_.CreateSelect(neg, builder_.CreateNeg(x), x);
  }
  if (name == "shift_left" || name == "shift_right") {
    want_args(2);
    TIR_USER_CHECK(t.is_int_or_uint()) << "intrinsic '" << name << "' needs integers, got " << t.str();
    llvm::Value *x = emit(op->args[0]), *n = emit(op->args[1]);
    if (name == "shift_left") return builder_.CreateShl(x, n);
    return t.is_int() ? builder_.CreateAShr(x, n) : builder_.CreateLShr(x, n);
  }
  if (name == "rsqrt") {
    want_args(1);
    want_float();
    llvm::Value *s = builder_.CreateUnaryIntrinsic(llvm::Intrinsic::sqrt, emit(op->args[0]));
    return builder_.CreateFDiv(one(), s);
  }
  if (name == "sigmoid") {
    want_args(1);
    want_float();
    llvm::Value *x = emit(op->args[0]);
    llvm::Value *e = t.is_float() && t.bits() == 32
                         ? emit_exp_f32(builder_, builder_.CreateFNeg(x))
                         : builder_.CreateUnaryIntrinsic(llvm::Intrinsic::exp, builder_.CreateFNeg(x));
    return builder_.CreateFDiv(one(), builder_.CreateFAdd(one(), e));
  }
  if (libm_functions().count(name)) {
    want_args(1);
    want_float();
    return emit_libm_call(name, emit(op->args[0]), t);
  }
  TIR_THROW() << "intrinsic '" << name << "' is not supported by the llvm backend (supported: "
              << supported_list() << ")";
}

// libm has no vector forms: call the scalar function per lane, computing narrow floats
// in float32 (tanhf) and float64 in double (tanh).
llvm::Value *CodeGenLLVM::emit_libm_call(const std::string &fname, llvm::Value *x, Type t) {
  bool dbl = t.bits() == 64;
  llvm::Type *ct = dbl ? builder_.getDoubleTy() : builder_.getFloatTy();
  llvm::FunctionCallee fn =
      runtime_function(dbl ? fname : fname + "f", llvm::FunctionType::get(ct, {ct}, false));
  if (auto *f = llvm::dyn_cast<llvm::Function>(fn.getCallee())) {
    f->setDoesNotAccessMemory();  // errno is never read: lets LLVM hoist and drop calls
    f->setWillReturn();
  }
  Type et = t.element_of();
  llvm::Type *elt = llvm_type(et);
  auto scalar = [&](llvm::Value *v) {
    if (elt != ct) v = builder_.CreateFPExt(v, ct);
    llvm::Value *r = builder_.CreateCall(fn, {v});
    return elt != ct ? builder_.CreateFPTrunc(r, elt) : r;
  };
  if (t.is_scalar()) return scalar(x);
  llvm::Value *out = llvm::PoisonValue::get(llvm_type(t));
  for (int i = 0; i < t.lanes(); ++i)
    out = builder_.CreateInsertElement(out, scalar(builder_.CreateExtractElement(x, uint64_t(i))),
                                       uint64_t(i));
  return out;
}

// A read prefetch into every cache level. The address may run past the buffer (the
// iterations after a loop's last), so it is not an inbounds GEP; prefetches never fault.
// The call touches no memory the function can see, so it keeps accumulators in registers
// around it. WebAssembly never gets here: build() strips prefetches for targets whose
// caps lack them.
llvm::Value *CodeGenLLVM::emit_prefetch(const CallNode *op) {
  const auto *load = op->args.size() == 1 ? op->args[0].as<LoadNode>() : nullptr;
  TIR_ASSERT(load && load->index.type().is_scalar()) << "tensorir.prefetch takes one buffer load of one element";
  llvm::Value *p =
      builder_.CreateGEP(memory_type(load->type.element_of()), lookup(load->buffer.get()), emit_index(load->index));
  llvm::Function *fn = llvm::Intrinsic::getDeclaration(module_.get(), llvm::Intrinsic::prefetch, {p->getType()});
  llvm::CallInst *call = builder_.CreateCall(
      fn, {p, builder_.getInt32(0), builder_.getInt32(3), builder_.getInt32(1)});  // read, keep in L1, data
  call->setMemoryEffects(llvm::MemoryEffects::inaccessibleMemOnly());
  return builder_.getInt32(0);
}

llvm::Value *CodeGenLLVM::emit_extern_call(const CallNode *op) {
  TIR_USER_CHECK(op->type.is_scalar())
      << "extern function '" << op->name << "' must return a scalar, not " << op->type.str();
  std::vector<llvm::Value *> args;
  std::vector<llvm::Type *> types;
  for (const Expr &a : op->args) {
    TIR_USER_CHECK(a.type().is_scalar())
        << "extern function '" << op->name << "' takes scalar arguments, got " << a.type().str();
    args.push_back(emit(a));
    types.push_back(args.back()->getType());
  }
  llvm::FunctionCallee fn =
      runtime_function(op->name, llvm::FunctionType::get(llvm_type(op->type), types, false));
  return builder_.CreateCall(fn, args);
}

}  // namespace tensorir::llvm_backend
