#include "tensorir/error.h"
#include "tensorir/ir/op.h"
#include "tensorir/ir/printer.h"
#include "tensorir/ir/visitor.h"
#include "transforms/passes.h"

namespace tensorir {

namespace {
class Unroller : public IRMutator {
 public:
  using IRMutator::mutate;

 protected:
  Stmt visit(const ForNode *op, const Stmt &self) override {
    Stmt body = mutate(op->body);
    if (op->for_kind != ForKind::Unrolled)
      return body.same_as(op->body) ? self : ForNode::make(op->loop_var, op->min, op->extent, op->for_kind, body);
    const int64_t *extent = as_const_int(op->extent);
    TIR_USER_CHECK(extent) << "cannot unroll loop '" << op->loop_var.name() << "': its extent `" << op->extent
                           << "` is not a constant; split it by a constant factor and unroll the inner loop";
    TIR_USER_CHECK(*extent <= 1024) << "cannot unroll loop '" << op->loop_var.name() << "' of extent " << *extent
                                    << ": too large (at most 1024); split it first";
    std::vector<Stmt> copies;
    for (int64_t i = 0; i < *extent; ++i)
      copies.push_back(substitute(body, {{op->loop_var, op->min + make_const(op->min.type(), double(i))}}));
    return copies.empty() ? EvaluateNode::make(0) : BlockNode::make(copies);
  }
};
}  // namespace

Stmt unroll_loops(const Stmt &s) { return Unroller().mutate(s); }

}  // namespace tensorir
