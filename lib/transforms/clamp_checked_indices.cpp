// For targets whose kernels cannot fail a call (the GPUs): each checked_index becomes the
// index it checks, counted from the end when negative and clamped into [0, extent).
#include "tensorir/ir/op.h"
#include "tensorir/ir/visitor.h"
#include "transforms/passes.h"

namespace tensorir {

namespace {

class CheckedIndexClamper : public IRMutator {
 public:
  using IRMutator::mutate;

 protected:
  using IRMutator::visit;
  Expr visit(const CallNode *op, const Expr &self) override {
    Expr e = IRMutator::visit(op, self);
    const auto *call = e.as<CallNode>();
    if (!call || call->name != kCheckedIndex) return e;
    const int64_t extent = checked_index_extent(call);
    Expr k = cast(Int(32, call->type.lanes()), call->args[0]);
    k = select(k < 0, k + int(extent), k);
    return min(max(k, 0), int(extent - 1));
  }
};

}  // namespace

Stmt clamp_checked_indices(const Stmt &s) { return CheckedIndexClamper().mutate(s); }
Expr clamp_checked_indices(const Expr &e) { return CheckedIndexClamper().mutate(e); }

}  // namespace tensorir
