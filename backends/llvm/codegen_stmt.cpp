// CodeGenLLVM: statements (loops, stores, allocations, branches, assertions).
#include "backends/llvm/codegen_llvm.h"

#include <limits>

#include "tensorir/error.h"
#include "tensorir/ir/op.h"
#include "tensorir/runtime/workspace.h"

namespace tensorir::llvm_backend {

namespace {

// One allocation up to this size lives on the stack, as long as the function's
// stack allocations stay under kStackTotal; larger ones go to the heap.
constexpr int64_t kStackLimit = int64_t(1) << 20;
constexpr int64_t kStackTotal = int64_t(2) << 20;
// An Unrolled loop with a constant trip count up to this is unrolled here.
constexpr int64_t kMaxUnroll = 64;

// Binds a variable for one scope, restoring what it shadowed.
class ScopedBinding {
 public:
  ScopedBinding(std::unordered_map<const VarNode *, llvm::Value *> &vars, const VarNode *v,
                llvm::Value *value)
      : vars_(vars), v_(v) {
    auto it = vars.find(v);
    if (it != vars.end()) old_ = it->second;
    vars[v] = value;
  }
  ~ScopedBinding() {
    if (old_) vars_[v_] = old_;
    else vars_.erase(v_);
  }

 private:
  std::unordered_map<const VarNode *, llvm::Value *> &vars_;
  const VarNode *v_;
  llvm::Value *old_ = nullptr;
};

}  // namespace

void CodeGenLLVM::emit(const Stmt &s) {
  if (!s.defined()) return;
  const StmtNode *n = s.get();
  switch (n->kind) {
    case IRKind::LetStmt: {
      const auto *op = static_cast<const LetStmtNode *>(n);
      llvm::Value *v = emit(op->value);
      ScopedBinding bind_var(fs_.vars, op->var.get(), v);
      LoadGuard::Scope range(guard_, op->var.get(), op->value);
      emit(op->body);
      return;
    }
    case IRKind::AttrStmt:
      emit(static_cast<const AttrStmtNode *>(n)->body);
      return;
    case IRKind::AssertStmt:
      emit_assert(static_cast<const AssertStmtNode *>(n));
      return;
    case IRKind::For:
      emit_for(static_cast<const ForNode *>(n));
      return;
    case IRKind::Store:
      emit_store(static_cast<const StoreNode *>(n));
      return;
    case IRKind::Allocate:
      emit_allocate(static_cast<const AllocateNode *>(n));
      return;
    case IRKind::IfThenElse:
      emit_if(static_cast<const IfThenElseNode *>(n));
      return;
    case IRKind::Block:
      for (const Stmt &x : static_cast<const BlockNode *>(n)->stmts) emit(x);
      return;
    case IRKind::Evaluate:
      emit(static_cast<const EvaluateNode *>(n)->value);
      return;
    case IRKind::Provide:
    case IRKind::Realize:
      TIR_ASSERT(false) << "a tensor-level statement (Provide/Realize) reached the llvm backend; "
                           "lowering must flatten it into Store/Allocate first";
      return;
    default:
      TIR_ASSERT(false) << "unexpected statement kind " << static_cast<int>(n->kind);
  }
}

void CodeGenLLVM::emit_for(const ForNode *op) {
  LoadGuard::Scope range(guard_, op->loop_var.get(), interval_of_range(Range::from_min_extent(op->min, op->extent)));
  switch (op->for_kind) {
    case ForKind::Parallel:
      // A parallel loop inside a parallel body runs serially on its thread.
      if (fs_.in_parallel) emit_serial_loop(op, nullptr);
      else emit_parallel_for(op);
      return;
    case ForKind::Unrolled: {
      const int64_t *ext = as_const_int(op->extent);
      if (ext && *ext <= kMaxUnroll) {
        Type lt = op->loop_var.type();
        llvm::Value *mn = cast_to(emit(op->min), op->min.type(), lt);
        for (int64_t k = 0; k < *ext; ++k) {
          llvm::Value *i = builder_.CreateAdd(mn, llvm::ConstantInt::get(llvm_type(lt), k));
          ScopedBinding bind_var(fs_.vars, op->loop_var.get(), i);
          emit(op->body);
        }
        return;
      }
      emit_serial_loop(op, "llvm.loop.unroll.full");
      return;
    }
    case ForKind::Vectorized:
      emit_serial_loop(op, "llvm.loop.vectorize.enable");
      return;
    case ForKind::Serial:
      emit_serial_loop(op, nullptr);
      return;
  }
}

void CodeGenLLVM::emit_serial_loop(const ForNode *op, const char *hint) {
  Type lt = op->loop_var.type();
  TIR_USER_CHECK(lt.is_int_or_uint() && lt.is_scalar())
      << "loop variable '" << op->loop_var.name() << "' must be a scalar integer, not " << lt.str();
  llvm::Value *mn = cast_to(emit(op->min), op->min.type(), lt);
  llvm::Value *ext = cast_to(emit(op->extent), op->extent.type(), lt);
  bool sgn = lt.is_int();
  llvm::Value *end = sgn ? builder_.CreateNSWAdd(mn, ext) : builder_.CreateAdd(mn, ext);

  llvm::BasicBlock *pre = builder_.GetInsertBlock();
  llvm::BasicBlock *header = llvm::BasicBlock::Create(ctx_, "for_head", fs_.function);
  llvm::BasicBlock *body = llvm::BasicBlock::Create(ctx_, "for_body", fs_.function);
  llvm::BasicBlock *exit = llvm::BasicBlock::Create(ctx_, "for_end", fs_.function);
  builder_.CreateBr(header);

  builder_.SetInsertPoint(header);
  llvm::PHINode *i = builder_.CreatePHI(llvm_type(lt), 2, op->loop_var.name());
  i->addIncoming(mn, pre);
  llvm::Value *cond = sgn ? builder_.CreateICmpSLT(i, end) : builder_.CreateICmpULT(i, end);
  builder_.CreateCondBr(cond, body, exit);

  builder_.SetInsertPoint(body);
  {
    ScopedBinding bind_var(fs_.vars, op->loop_var.get(), i);
    emit(op->body);
  }
  llvm::Value *one = llvm::ConstantInt::get(llvm_type(lt), 1);
  llvm::Value *next = sgn ? builder_.CreateNSWAdd(i, one) : builder_.CreateAdd(i, one);
  llvm::BranchInst *back = builder_.CreateBr(header);
  i->addIncoming(next, builder_.GetInsertBlock());
  if (hint) {
    llvm::Metadata *flag;
    if (std::string(hint) == "llvm.loop.vectorize.enable") {
      flag = llvm::MDNode::get(ctx_, {llvm::MDString::get(ctx_, hint),
                                      llvm::ConstantAsMetadata::get(builder_.getTrue())});
    } else {
      flag = llvm::MDNode::get(ctx_, {llvm::MDString::get(ctx_, hint)});
    }
    llvm::MDNode *loop = llvm::MDNode::getDistinct(ctx_, {nullptr, flag});
    loop->replaceOperandWith(0, loop);
    back->setMetadata(llvm::LLVMContext::MD_loop, loop);
  }
  builder_.SetInsertPoint(exit);
}

void CodeGenLLVM::emit_store(const StoreNode *op) {
  Type vt = op->value.type();
  Type it = op->index.type();
  Type elem = vt.element_of();
  llvm::Align align = element_align(elem);
  llvm::Value *value = emit(op->value);
  if (it.is_scalar()) {
    TIR_ASSERT(vt.is_scalar()) << "a " << vt.str() << " store needs a vector index";
    llvm::Value *p = buffer_address(op->buffer, elem, emit_index(op->index));
    builder_.CreateAlignedStore(to_bool_memory(value, elem), p, align);
    return;
  }
  if (vt.is_scalar()) {
    value = builder_.CreateVectorSplat(it.lanes(), value);
    vt = vt.with_lanes(it.lanes());
  }
  TIR_ASSERT(vt.lanes() == it.lanes()) << "store of " << vt.str() << " with index " << it.str();
  if (const auto *r = op->index.as<RampNode>(); r && is_const_int(r->stride, 1)) {
    llvm::Value *p = buffer_address(op->buffer, elem, emit_index(r->base));
    builder_.CreateAlignedStore(to_bool_memory(value, vt), p, align);
    return;
  }
  // Any other index vector: a scatter (lanes in order, so the last lane wins on a clash).
  llvm::Value *ptrs = buffer_address(op->buffer, elem, emit_index(op->index));
  builder_.CreateMaskedScatter(to_bool_memory(value, vt), ptrs, align);
}

void CodeGenLLVM::emit_allocate(const AllocateNode *op) {
  Type et = op->type;
  llvm::Type *mt = memory_type(et);
  int64_t elem_bytes = int64_t(et.bytes()) * et.lanes();
  bool constant = true;
  int64_t count = 1;
  for (const Expr &e : op->extents) {
    const int64_t *c = as_const_int(e);
    if (!c) {
      constant = false;
      break;
    }
    TIR_USER_CHECK(*c >= 0) << "buffer '" << op->buffer.name() << "' has a negative extent " << *c;
    count *= *c;
  }
  buffer_vars_.insert(op->buffer.get());
  guard_.add_buffer(op->buffer.get(), et, element_count(op->extents));
  int64_t bytes = count * elem_bytes;
  if (constant && bytes <= kStackLimit && fs_.stack_bytes + bytes <= kStackTotal) {
    fs_.stack_bytes += bytes;
    llvm::Value *p = entry_alloca(mt, static_cast<uint64_t>(count > 0 ? count : 1), op->buffer.name());
    // Lifetime markers let LLVM share stack slots between allocations that never overlap.
    llvm::ConstantInt *size = builder_.getInt64(static_cast<uint64_t>(bytes));
    builder_.CreateLifetimeStart(p, size);
    {
      ScopedBinding bind_var(fs_.vars, op->buffer.get(), p);
      emit(op->body);
    }
    builder_.CreateLifetimeEnd(p, size);
    return;
  }

  // Heap: a block of the size rounded up to 64 bytes, freed when the scope ends. A size
  // past kWorkspaceMaxBytes, more than any address space (extents whose product wraps
  // around included), asks for 2^63 - 64, which the allocators refuse without trying:
  // the call fails with the out-of-memory error below.
  llvm::Type *i64 = builder_.getInt64Ty();
  llvm::Value *size = builder_.getInt64(elem_bytes);
  llvm::Value *too_big = builder_.getFalse();
  for (const Expr &e : op->extents) {
    TIR_USER_CHECK(e.type().is_int_or_uint())
        << "extent of buffer '" << op->buffer.name() << "' must be an integer";
    llvm::Value *x = builder_.CreateIntCast(emit(e), i64, e.type().is_int());
    llvm::Value *prod = builder_.CreateBinaryIntrinsic(llvm::Intrinsic::umul_with_overflow, size, x);
    size = builder_.CreateExtractValue(prod, 0);
    too_big = builder_.CreateOr(too_big, builder_.CreateExtractValue(prod, 1));
  }
  too_big = builder_.CreateOr(too_big, builder_.CreateICmpUGT(size, builder_.getInt64(int64_t(kWorkspaceMaxBytes))));
  size = builder_.CreateBinaryIntrinsic(llvm::Intrinsic::umax, size, builder_.getInt64(1));
  size = builder_.CreateAnd(builder_.CreateAdd(size, builder_.getInt64(63)), builder_.getInt64(~int64_t(63)));
  size = builder_.CreateSelect(too_big, builder_.getInt64(std::numeric_limits<int64_t>::max() & ~int64_t(63)), size);
  llvm::Value *p = emit_heap_alloc(size, op->buffer.name());

  emit_fail_if(builder_.CreateIsNull(p),
               "out of memory allocating temporary buffer '" + op->buffer.name() + "' in " + func_name_, "alloc");

  fs_.heap_allocs.push_back(p);
  {
    ScopedBinding bind_var(fs_.vars, op->buffer.get(), p);
    emit(op->body);
  }
  fs_.heap_allocs.pop_back();
  emit_heap_free(p);
}

void CodeGenLLVM::emit_if(const IfThenElseNode *op) {
  TIR_USER_CHECK(op->condition.type().is_scalar())
      << "an if condition must be a scalar, not " << op->condition.type().str();
  llvm::Value *c = cast_to(emit(op->condition), op->condition.type(), Bool());
  llvm::BasicBlock *then_bb = llvm::BasicBlock::Create(ctx_, "if_then", fs_.function);
  llvm::BasicBlock *end_bb = llvm::BasicBlock::Create(ctx_, "if_end", fs_.function);
  llvm::BasicBlock *else_bb =
      op->else_case.defined() ? llvm::BasicBlock::Create(ctx_, "if_else", fs_.function) : end_bb;
  builder_.CreateCondBr(c, then_bb, else_bb);
  builder_.SetInsertPoint(then_bb);
  emit(op->then_case);
  builder_.CreateBr(end_bb);
  if (op->else_case.defined()) {
    builder_.SetInsertPoint(else_bb);
    emit(op->else_case);
    builder_.CreateBr(end_bb);
  }
  builder_.SetInsertPoint(end_bb);
}

void CodeGenLLVM::emit_assert(const AssertStmtNode *op) {
  TIR_USER_CHECK(op->condition.type().is_scalar())
      << "an assert condition must be a scalar, not " << op->condition.type().str();
  llvm::Value *c = cast_to(emit(op->condition), op->condition.type(), Bool());
  emit_fail_if(builder_.CreateNot(c), op->message, "assert");
  emit(op->body);
}

llvm::Value *CodeGenLLVM::emit_checked_index(const CallNode *op) {
  const Type it = op->args[0].type();
  const int64_t n = checked_index_extent(op);
  const auto *what = op->args[2].as<StringImmNode>();
  TIR_ASSERT(it.is_int() && what) << "malformed checked_index call";
  // In int64, where k + n cannot overflow for the narrower types: -n <= k < n exactly when
  // k + n, taken as unsigned, is below 2n.
  llvm::Type *i64 = llvm_type(Int(64, it.lanes()));
  llvm::Value *k = builder_.CreateSExtOrTrunc(emit(op->args[0]), i64);
  llvm::Value *shifted = builder_.CreateAdd(k, llvm::ConstantInt::get(i64, uint64_t(n)));
  llvm::Value *bad = builder_.CreateICmpUGE(shifted, llvm::ConstantInt::get(i64, uint64_t(2 * n)));
  // Under a vector select (lane_mask_), only the lanes that pick this value are checked;
  // an index the lanes share, when any of them does.
  const auto *mask_type = lane_mask_ ? llvm::cast<llvm::FixedVectorType>(lane_mask_->getType()) : nullptr;
  if (mask_type && it.lanes() == int(mask_type->getNumElements())) bad = builder_.CreateAnd(bad, lane_mask_);
  if (it.is_vector()) bad = builder_.CreateOrReduce(bad);
  if (mask_type && it.lanes() != int(mask_type->getNumElements()))
    bad = builder_.CreateAnd(bad, builder_.CreateOrReduce(lane_mask_));
  emit_fail_if(bad, what->value, "index");
  llvm::Value *negative = builder_.CreateICmpSLT(k, llvm::ConstantInt::get(i64, 0));
  llvm::Value *pos = builder_.CreateSelect(negative, shifted, k);
  return builder_.CreateTrunc(pos, llvm_type(op->type));
}

}  // namespace tensorir::llvm_backend
