// CodeGenLLVM: expressions.
#include "backends/llvm/codegen_llvm.h"

#include "tensorir/error.h"

namespace tensorir::llvm_backend {

namespace {

// The constant value of a scalar IntImm or of a Broadcast of one.
const int64_t *const_int_operand(const Expr &e) {
  if (const auto *b = e.as<BroadcastNode>()) return as_const_int(b->value);
  return as_const_int(e);
}

}  // namespace

llvm::Value *CodeGenLLVM::emit(const Expr &e) {
  TIR_ASSERT(e.defined()) << "an undefined expression reached the llvm backend";
  const ExprNode *n = e.get();
  switch (n->kind) {
    case IRKind::IntImm: {
      const auto *op = static_cast<const IntImmNode *>(n);
      llvm::Type *t = llvm_type(op->type);
      if (op->type.is_bool()) return llvm::ConstantInt::get(t, op->value != 0 ? 1 : 0);
      return llvm::ConstantInt::get(t, static_cast<uint64_t>(op->value), op->type.is_int());
    }
    case IRKind::FloatImm: {
      const auto *op = static_cast<const FloatImmNode *>(n);
      return llvm::ConstantFP::get(llvm_type(op->type), op->value);
    }
    case IRKind::StringImm:
      return global_string(static_cast<const StringImmNode *>(n)->value, "str");
    case IRKind::Variable:
      return lookup(static_cast<const VarNode *>(n));
    case IRKind::Cast:
      return emit_cast(static_cast<const CastNode *>(n));
#define TIR_ARITH(K)                                               \
  case IRKind::K: {                                                \
    const auto *op = static_cast<const BinaryNode<IRKind::K> *>(n); \
    return emit_arith(op, op->a, op->b);                           \
  }
      TIR_ARITH(Add) TIR_ARITH(Sub) TIR_ARITH(Mul) TIR_ARITH(Div) TIR_ARITH(Mod)
      TIR_ARITH(Min) TIR_ARITH(Max)
#undef TIR_ARITH
#define TIR_CMP(K)                                                 \
  case IRKind::K: {                                                \
    const auto *op = static_cast<const BinaryNode<IRKind::K> *>(n); \
    return emit_compare(op, op->a, op->b);                         \
  }
      TIR_CMP(EQ) TIR_CMP(NE) TIR_CMP(LT) TIR_CMP(LE) TIR_CMP(GT) TIR_CMP(GE)
#undef TIR_CMP
    case IRKind::And: {
      // The right side reads only where the left holds (j < n && T[j] > 0).
      const auto *op = static_cast<const AndNode *>(n);
      if (guard_.has_unproven_load(op->b)) {
        const Expr lazy = SelectNode::make(op->a, op->b, make_zero(op->b.type()));
        return emit_guarded_select(lazy.as<SelectNode>());
      }
      return builder_.CreateAnd(emit(op->a), emit(op->b));
    }
    case IRKind::Or: {
      const auto *op = static_cast<const OrNode *>(n);
      if (guard_.has_unproven_load(op->b)) {
        const Expr lazy = SelectNode::make(op->a, make_const(op->b.type(), 1), op->b);
        return emit_guarded_select(lazy.as<SelectNode>());
      }
      return builder_.CreateOr(emit(op->a), emit(op->b));
    }
    case IRKind::Not:
      return builder_.CreateNot(emit(static_cast<const NotNode *>(n)->a));
    case IRKind::Select: {
      const auto *op = static_cast<const SelectNode *>(n);
      if (guard_.has_unproven_load(op->true_value) || guard_.has_unproven_load(op->false_value))
        return emit_guarded_select(op);
      llvm::Value *c = emit(op->condition);
      llvm::Value *t = emit(op->true_value);
      llvm::Value *f = emit(op->false_value);
      return builder_.CreateSelect(c, t, f);
    }
    case IRKind::Load:
      return emit_load(static_cast<const LoadNode *>(n));
    case IRKind::Ramp:
      return emit_ramp(static_cast<const RampNode *>(n));
    case IRKind::Broadcast: {
      const auto *op = static_cast<const BroadcastNode *>(n);
      return builder_.CreateVectorSplat(op->lanes, emit(op->value));
    }
    case IRKind::Let: {
      const auto *op = static_cast<const LetNode *>(n);
      llvm::Value *v = emit(op->value);
      auto old = fs_.vars.find(op->var.get());
      llvm::Value *shadowed = old == fs_.vars.end() ? nullptr : old->second;
      bind(op->var.get(), v);
      llvm::Value *r;
      {
        LoadGuard::Scope range(guard_, op->var.get(), op->value);
        r = emit(op->body);
      }
      if (shadowed) bind(op->var.get(), shadowed);
      else unbind(op->var.get());
      return r;
    }
    case IRKind::Call:
      return emit_call(static_cast<const CallNode *>(n));
    case IRKind::TensorLoad:
    case IRKind::Reduce:
      TIR_ASSERT(false) << "a tensor-level expression reached the llvm backend; lowering must "
                           "flatten tensor loads and reductions first";
      return nullptr;
    default:
      TIR_ASSERT(false) << "unexpected expression kind " << static_cast<int>(n->kind);
  }
  return nullptr;
}

llvm::Value *CodeGenLLVM::emit_cast(const CastNode *op) {
  return cast_to(emit(op->value), op->value.type(), op->type);
}

llvm::Value *CodeGenLLVM::emit_arith(const ExprNode *op, const Expr &a, const Expr &b) {
  Type t = op->type;
  TIR_ASSERT(a.type() == b.type()) << "operand types differ: " << a.type().str() << " vs "
                                   << b.type().str();
  if (op->kind == IRKind::Div || op->kind == IRKind::Mod)
    return emit_div(t, a, b, op->kind == IRKind::Mod);
  llvm::Value *x = emit(a);
  llvm::Value *y = emit(b);
  bool fl = t.is_float();
  bool sgn = t.is_int();
  // No-wrap flags only where overflow is undefined (int32, int64, as the simplifier
  // assumes): int8 and int16 wrap, as constant folding does.
  bool nsw = sgn && t.bits() >= 32;
  switch (op->kind) {
    case IRKind::Add:
      return fl ? builder_.CreateFAdd(x, y) : nsw ? builder_.CreateNSWAdd(x, y) : builder_.CreateAdd(x, y);
    case IRKind::Sub:
      return fl ? builder_.CreateFSub(x, y) : nsw ? builder_.CreateNSWSub(x, y) : builder_.CreateSub(x, y);
    case IRKind::Mul:
      return fl ? builder_.CreateFMul(x, y) : nsw ? builder_.CreateNSWMul(x, y) : builder_.CreateMul(x, y);
    case IRKind::Min:
    case IRKind::Max: {
      const bool is_min = op->kind == IRKind::Min;
      if (fl) return emit_float_min_max(is_min, x, y);
      llvm::Value *c = is_min ? (sgn ? builder_.CreateICmpSLT(x, y) : builder_.CreateICmpULT(x, y))
                              : (sgn ? builder_.CreateICmpSGT(x, y) : builder_.CreateICmpUGT(x, y));
      return builder_.CreateSelect(c, x, y);
    }
    default:
      TIR_ASSERT(false) << "not an arithmetic node";
  }
  return nullptr;
}

// Float min and max return NaN when either operand is NaN, as NumPy and PyTorch do (a
// ReLU, max pool or max reduction keeps a NaN input visible). WebAssembly's f32x4.min/max
// do exactly that in one instruction; elsewhere "x if x is NaN or x is the smaller (larger),
// else y" is a compare, an unordered compare and a blend (LLVM's minimum/maximum also
// order -0 below +0 and cost three more instructions on x86).
llvm::Value *CodeGenLLVM::emit_float_min_max(bool is_min, llvm::Value *x, llvm::Value *y) {
  if (targets_wasm())
    return builder_.CreateBinaryIntrinsic(is_min ? llvm::Intrinsic::minimum : llvm::Intrinsic::maximum, x, y);
  llvm::Value *wins = is_min ? builder_.CreateFCmpOLT(x, y) : builder_.CreateFCmpOGT(x, y);
  return builder_.CreateSelect(builder_.CreateOr(builder_.CreateFCmpUNO(x, x), wins), x, y);
}

// Integer Div and Mod round towards minus infinity (the remainder takes the divisor's sign).
llvm::Value *CodeGenLLVM::emit_div(Type t, const Expr &a, const Expr &b, bool mod) {
  llvm::Value *x = emit(a);
  llvm::Value *y = emit(b);
  if (t.is_float()) {
    if (!mod) return builder_.CreateFDiv(x, y);
    llvm::Value *q = builder_.CreateUnaryIntrinsic(llvm::Intrinsic::floor, builder_.CreateFDiv(x, y));
    return builder_.CreateFSub(x, builder_.CreateFMul(y, q));
  }
  llvm::Type *ty = x->getType();
  const int64_t *c = const_int_operand(b);
  llvm::Value *zero = llvm::Constant::getNullValue(ty);
  // A divisor known only at run time may be 0, and a signed one -1 with INT_MIN over it:
  // the machine's division traps on both. x / 0 and x % 0 give 0 (the graph's mod says
  // so), x / -1 gives -x wrapping and x % -1 gives 0, as constant folding does.
  llvm::Value *by_zero = nullptr, *by_minus_one = nullptr;
  if (c && *c == 0) return zero;  // a division by a literal 0 would be undefined to LLVM
  if (!c) {
    // Frozen, so that the guard and the division see one value: a divisor whose no-wrap
    // arithmetic overflowed is poison, and LLVM would otherwise prove the guard false
    // from the operation (max(x * 65536, 0) == 0 as x < 1) while the division divides by 0.
    y = builder_.CreateFreeze(y);
    by_zero = builder_.CreateICmpEQ(y, zero);
    if (!t.is_uint()) by_minus_one = builder_.CreateICmpEQ(y, llvm::Constant::getAllOnesValue(ty));
    // 0 and -1 become 1 by arithmetic, not by select(unsafe, 1, y): LLVM's instcombine
    // folds a division by that select to 0 where y is a select of constant vectors.
    y = builder_.CreateOr(y, builder_.CreateZExt(by_zero, ty));
    if (by_minus_one) y = builder_.CreateAdd(y, builder_.CreateShl(builder_.CreateZExt(by_minus_one, ty), 1));
  } else if (*c == -1 && !t.is_uint()) {
    return mod ? zero : builder_.CreateSub(zero, x);
  }
  const auto guarded = [&](llvm::Value *v, llvm::Value *if_minus_one) {
    if (by_minus_one) v = builder_.CreateSelect(by_minus_one, if_minus_one, v);
    return by_zero ? builder_.CreateSelect(by_zero, zero, v) : v;
  };
  if (t.is_uint()) return guarded(mod ? builder_.CreateURem(x, y) : builder_.CreateUDiv(x, y), nullptr);
  if (c && *c > 0 && (*c & (*c - 1)) == 0) {
    // Power of two: an arithmetic shift rounds down, a mask gives the non-negative remainder.
    int shift = 0;
    while ((int64_t(1) << shift) != *c) ++shift;
    if (mod) return builder_.CreateAnd(x, llvm::ConstantInt::get(ty, *c - 1));
    return builder_.CreateAShr(x, llvm::ConstantInt::get(ty, shift));
  }
  llvm::Value *q = builder_.CreateSDiv(x, y);
  llvm::Value *r = builder_.CreateSRem(x, y);
  llvm::Value *adjust;
  if (c && *c > 0) {
    adjust = builder_.CreateICmpSLT(r, zero);
  } else {
    // The truncated remainder is non-zero and its sign differs from the divisor's.
    adjust = builder_.CreateAnd(builder_.CreateICmpNE(r, zero),
                                builder_.CreateICmpSLT(builder_.CreateXor(r, y), zero));
  }
  if (mod) return guarded(builder_.CreateAdd(r, builder_.CreateSelect(adjust, y, zero)), zero);
  return guarded(builder_.CreateSub(q, builder_.CreateZExt(adjust, ty)), builder_.CreateSub(zero, x));
}

llvm::Value *CodeGenLLVM::emit_compare(const ExprNode *op, const Expr &a, const Expr &b) {
  Type t = a.type();
  TIR_ASSERT(t == b.type()) << "compared types differ: " << t.str() << " vs " << b.type().str();
  llvm::Value *x = emit(a);
  llvm::Value *y = emit(b);
  using P = llvm::CmpInst::Predicate;
  P p;
  bool fl = t.is_float();
  bool sgn = t.is_int();
  switch (op->kind) {
    case IRKind::EQ: p = fl ? P::FCMP_OEQ : P::ICMP_EQ; break;
    case IRKind::NE: p = fl ? P::FCMP_UNE : P::ICMP_NE; break;
    case IRKind::LT: p = fl ? P::FCMP_OLT : sgn ? P::ICMP_SLT : P::ICMP_ULT; break;
    case IRKind::LE: p = fl ? P::FCMP_OLE : sgn ? P::ICMP_SLE : P::ICMP_ULE; break;
    case IRKind::GT: p = fl ? P::FCMP_OGT : sgn ? P::ICMP_SGT : P::ICMP_UGT; break;
    case IRKind::GE: p = fl ? P::FCMP_OGE : sgn ? P::ICMP_SGE : P::ICMP_UGE; break;
    default: TIR_ASSERT(false) << "not a comparison"; return nullptr;
  }
  return fl ? builder_.CreateFCmp(p, x, y) : builder_.CreateICmp(p, x, y);
}

namespace {

// index = sum(coeff * atom) + offset, distributing constant factors over sums.
struct LinearForm {
  std::vector<std::pair<const ExprNode *, int64_t>> terms;
  int64_t offset = 0;

  void add(const Expr &e, int64_t scale) {
    if (const int64_t *c = as_const_int(e)) {
      offset += scale * *c;
    } else if (const auto *a = e.as<AddNode>()) {
      add(a->a, scale);
      add(a->b, scale);
    } else if (const auto *s = e.as<SubNode>()) {
      add(s->a, scale);
      add(s->b, -scale);
    } else if (const auto *m = e.as<MulNode>(); m && as_const_int(m->b)) {
      add(m->a, scale * *as_const_int(m->b));
    } else if (m && as_const_int(m->a)) {
      add(m->b, scale * *as_const_int(m->a));
    } else {
      for (auto &t : terms)
        if (t.first == e.get()) {
          t.second += scale;
          return;
        }
      terms.emplace_back(e.get(), scale);
    }
  }
};

}  // namespace

llvm::Value *CodeGenLLVM::emit_index(const Expr &e) {
  Type t = e.type();
  if (!t.is_int_or_uint() || t.bits() > 64) return emit(e);
  llvm::Type *wide = llvm_type(Int(64, t.lanes()));
  if (t.is_uint()) return t.bits() == 64 ? emit(e) : builder_.CreateZExt(emit(e), wide);
  if (t.is_scalar()) {
    // Emitted as (variable part) + constant, the constant last: accesses that differ by a
    // constant share one variable value, which alias analysis compares exactly.
    LinearForm form;
    form.add(e, 1);
    int64_t offset = form.offset;
    llvm::Value *sum = nullptr;
    for (const auto &[node, coeff] : form.terms) {
      if (coeff == 0) continue;
      llvm::Value *v;
      const auto *var = node->kind == IRKind::Variable ? static_cast<const VarNode *>(node) : nullptr;
      auto wide_it = var ? fs_.wide_vars.find(var) : fs_.wide_vars.end();
      if (wide_it != fs_.wide_vars.end() && lookup(var) == wide_it->second.first) {
        v = wide_it->second.second;
      } else {
        v = emit(Expr(node));
        if (t.bits() < 64) v = builder_.CreateSExt(v, wide);
      }
      if (auto *c = llvm::dyn_cast<llvm::ConstantInt>(v)) {
        offset += coeff * c->getSExtValue();
        continue;
      }
      if (coeff != 1) v = builder_.CreateNSWMul(v, builder_.getInt64(static_cast<uint64_t>(coeff)));
      sum = sum ? builder_.CreateNSWAdd(sum, v) : v;
    }
    if (!sum) return builder_.getInt64(static_cast<uint64_t>(offset));
    if (offset != 0) sum = builder_.CreateNSWAdd(sum, builder_.getInt64(static_cast<uint64_t>(offset)));
    return sum;
  }
  switch (e->kind) {
    case IRKind::Add: {
      const auto *op = e.as<AddNode>();
      return builder_.CreateNSWAdd(emit_index(op->a), emit_index(op->b));
    }
    case IRKind::Sub: {
      const auto *op = e.as<SubNode>();
      return builder_.CreateNSWSub(emit_index(op->a), emit_index(op->b));
    }
    case IRKind::Mul: {
      const auto *op = e.as<MulNode>();
      return builder_.CreateNSWMul(emit_index(op->a), emit_index(op->b));
    }
    case IRKind::Broadcast: {
      const auto *op = e.as<BroadcastNode>();
      return builder_.CreateVectorSplat(op->lanes, emit_index(op->value));
    }
    case IRKind::Ramp: {
      const auto *op = e.as<RampNode>();
      llvm::Value *base = builder_.CreateVectorSplat(op->lanes, emit_index(op->base));
      std::vector<llvm::Constant *> steps;
      const int64_t *c = as_const_int(op->stride);
      for (int i = 0; i < op->lanes; ++i)
        steps.push_back(builder_.getInt64(static_cast<uint64_t>(c ? *c * i : i)));
      llvm::Value *offsets = llvm::ConstantVector::get(steps);
      if (!c)
        offsets = builder_.CreateNSWMul(offsets, builder_.CreateVectorSplat(op->lanes, emit_index(op->stride)));
      return builder_.CreateNSWAdd(base, offsets);
    }
    default:
      return t.bits() == 64 ? emit(e) : builder_.CreateSExt(emit(e), wide);
  }
}

llvm::Value *CodeGenLLVM::buffer_address(const Var &buffer, Type elem, llvm::Value *index) {
  return builder_.CreateInBoundsGEP(memory_type(elem), lookup(buffer.get()), index);
}

llvm::Value *CodeGenLLVM::emit_load(const LoadNode *op) {
  if (lane_mask_ && !guard_.in_bounds(op)) return emit_masked_load(op);
  Type t = op->type;
  Type elem = t.element_of();
  llvm::Align align = element_align(elem);
  if (t.is_scalar()) {
    llvm::Value *p = buffer_address(op->buffer, elem, emit_index(op->index));
    return from_bool_memory(builder_.CreateAlignedLoad(memory_type(elem), p, align), elem);
  }
  TIR_ASSERT(op->index.type().lanes() == t.lanes())
      << "a " << t.str() << " load needs an index with " << t.lanes() << " lanes";
  if (const auto *r = op->index.as<RampNode>(); r && is_const_int(r->stride, 1)) {
    llvm::Value *p = buffer_address(op->buffer, elem, emit_index(r->base));
    return from_bool_memory(builder_.CreateAlignedLoad(memory_type(t), p, align), t);
  }
  if (const auto *b = op->index.as<BroadcastNode>()) {
    llvm::Value *p = buffer_address(op->buffer, elem, emit_index(b->value));
    llvm::Value *v = from_bool_memory(builder_.CreateAlignedLoad(memory_type(elem), p, align), elem);
    return builder_.CreateVectorSplat(t.lanes(), v);
  }
  // A few lanes at a constant stride (a pad pass gathering 3 channel planes into NCHW3c):
  // scalar loads. A hardware gather of 3-4 elements is several times slower on x86.
  if (const auto *r = op->index.as<RampNode>(); r && as_const_int(r->stride) && t.lanes() <= 4) {
    llvm::Value *base = emit_index(r->base);
    const int64_t stride = *as_const_int(r->stride);
    llvm::Value *v = llvm::PoisonValue::get(memory_type(t));
    for (int i = 0; i < t.lanes(); ++i) {
      llvm::Value *at = builder_.CreateNSWAdd(base, builder_.getInt64(static_cast<uint64_t>(stride * i)));
      llvm::Value *x = builder_.CreateAlignedLoad(memory_type(elem), buffer_address(op->buffer, elem, at), align);
      v = builder_.CreateInsertElement(v, x, builder_.getInt32(static_cast<uint32_t>(i)));
    }
    return from_bool_memory(v, t);
  }
  // Any other index vector: a gather.
  llvm::Value *ptrs = buffer_address(op->buffer, elem, emit_index(op->index));
  return from_bool_memory(builder_.CreateMaskedGather(memory_type(t), ptrs, align), t);
}

llvm::Value *CodeGenLLVM::emit_ramp(const RampNode *op) {
  Type t = op->type;
  llvm::Value *base = builder_.CreateVectorSplat(op->lanes, emit(op->base));
  llvm::Type *et = llvm_type(t.element_of());
  std::vector<llvm::Constant *> steps;
  const int64_t *c = as_const_int(op->stride);
  for (int i = 0; i < op->lanes; ++i) {
    if (t.is_float()) steps.push_back(llvm::ConstantFP::get(et, double(i)));
    else steps.push_back(llvm::ConstantInt::get(et, static_cast<uint64_t>(c ? *c * i : i), true));
  }
  llvm::Value *offsets = llvm::ConstantVector::get(steps);
  if (t.is_float()) {
    offsets = builder_.CreateFMul(offsets, builder_.CreateVectorSplat(op->lanes, emit(op->stride)));
    return builder_.CreateFAdd(base, offsets);
  }
  if (!c) offsets = builder_.CreateMul(offsets, builder_.CreateVectorSplat(op->lanes, emit(op->stride)));
  return t.is_int() ? builder_.CreateNSWAdd(base, offsets) : builder_.CreateAdd(base, offsets);
}

}  // namespace tensorir::llvm_backend
