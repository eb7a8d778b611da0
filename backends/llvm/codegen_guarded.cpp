// CodeGenLLVM: selects whose values read what may lie outside a buffer.
//
// An eager select computes both values, so `if_then_else(j < n, T[j], 0)` would read
// T[j] for every j. When LoadGuard cannot prove such a read in bounds, a scalar (or
// broadcast) condition branches to the chosen value, and a per-lane condition emits the
// values under a lane mask, which turns each unproven load into a masked load or gather.
// `a && b` and `a || b` whose right side has such a read are emitted as selects.
#include "backends/llvm/codegen_llvm.h"

#include "tensorir/error.h"

namespace tensorir::llvm_backend {

template <typename T, typename F>
llvm::Value *CodeGenLLVM::emit_branches(llvm::Value *c, T emit_true, F emit_false) {
  llvm::BasicBlock *true_bb = llvm::BasicBlock::Create(ctx_, "select_true", fs_.function);
  llvm::BasicBlock *false_bb = llvm::BasicBlock::Create(ctx_, "select_false", fs_.function);
  llvm::BasicBlock *end_bb = llvm::BasicBlock::Create(ctx_, "select_end", fs_.function);
  builder_.CreateCondBr(c, true_bb, false_bb);
  builder_.SetInsertPoint(true_bb);
  llvm::Value *t = emit_true();
  llvm::BasicBlock *true_end = builder_.GetInsertBlock();  // emit_true may add blocks
  builder_.CreateBr(end_bb);
  builder_.SetInsertPoint(false_bb);
  llvm::Value *f = emit_false();
  llvm::BasicBlock *false_end = builder_.GetInsertBlock();
  builder_.CreateBr(end_bb);
  builder_.SetInsertPoint(end_bb);
  llvm::PHINode *phi = builder_.CreatePHI(t->getType(), 2);
  phi->addIncoming(t, true_end);
  phi->addIncoming(f, false_end);
  return phi;
}

llvm::Value *CodeGenLLVM::emit_guarded_select(const SelectNode *op) {
  // A condition the same for every lane (a padded row's bounds) branches like a scalar one.
  const auto *uniform = op->condition.as<BroadcastNode>();
  if (op->condition.type().is_scalar() || uniform)
    return emit_branches(emit(uniform ? uniform->value : op->condition), [&] { return emit(op->true_value); },
                         [&] { return emit(op->false_value); });
  llvm::Value *c = emit(op->condition);
  llvm::Value *outer = lane_mask_;
  lane_mask_ = outer ? builder_.CreateAnd(outer, c) : c;
  llvm::Value *t = emit(op->true_value);
  llvm::Value *not_c = builder_.CreateNot(c);
  lane_mask_ = outer ? builder_.CreateAnd(outer, not_c) : not_c;
  llvm::Value *f = emit(op->false_value);
  lane_mask_ = outer;
  return builder_.CreateSelect(c, t, f);
}

llvm::Value *CodeGenLLVM::emit_masked_load(const LoadNode *op) {
  llvm::Value *mask = lane_mask_;
  const Type t = op->type;
  const auto *mask_type = llvm::cast<llvm::FixedVectorType>(mask->getType());
  const bool per_lane = t.lanes() == static_cast<int>(mask_type->getNumElements()) && !op->index.as<BroadcastNode>();
  if (!per_lane) {
    // One value for all lanes (a scalar, a broadcast element): read it when any lane
    // uses it. (A vector of another width than the select's is read whole.)
    lane_mask_ = nullptr;
    llvm::Value *v = emit_branches(builder_.CreateOrReduce(mask), [&] { return emit_load(op); },
                                   [&] { return llvm::Constant::getNullValue(llvm_type(t)); });
    lane_mask_ = mask;
    return v;
  }
  const Type elem = t.element_of();
  const llvm::Align align = element_align(elem);
  llvm::Type *mt = memory_type(t);
  llvm::Value *zero = llvm::Constant::getNullValue(mt);
  if (const auto *r = op->index.as<RampNode>(); r && is_const_int(r->stride, 1)) {
    llvm::Value *p = buffer_address(op->buffer, elem, emit_index(r->base));
    return from_bool_memory(builder_.CreateMaskedLoad(mt, p, align, mask, zero), t);
  }
  llvm::Value *ptrs = buffer_address(op->buffer, elem, emit_index(op->index));
  return from_bool_memory(builder_.CreateMaskedGather(mt, ptrs, align, mask, zero), t);
}

}  // namespace tensorir::llvm_backend
