// Unrolled loops of constant extent become copies of their body. Each copy is code that
// LLVM optimises, so unrolling has a budget: the unrolled loops around a statement may
// copy it at most kMaxUnrolledCopies (1024) times in all, whether one loop or a nest
// (loops not unrolled in between do not count): a 64 x 64 unrolled nest (4096 copies), or
// a 1024 x 1024 one that would compile for minutes, is an Error naming the loops instead.
#include "tensorir/error.h"
#include "tensorir/ir/op.h"
#include "tensorir/ir/printer.h"
#include "tensorir/ir/visitor.h"
#include "transforms/passes.h"

namespace tensorir {

namespace {
constexpr int64_t kMaxUnrolledCopies = 1024;

class Unroller : public IRMutator {
 public:
  using IRMutator::mutate;

 protected:
  Stmt visit(const ForNode *op, const Stmt &self) override {
    if (op->for_kind != ForKind::Unrolled) {
      Stmt body = mutate(op->body);
      return body.same_as(op->body) ? self : ForNode::make(op->loop_var, op->min, op->extent, op->for_kind, body);
    }
    const int64_t *extent = as_const_int(op->extent);
    TIR_USER_CHECK(extent) << "cannot unroll loop '" << op->loop_var.name() << "': its extent `" << op->extent
                           << "` is not a constant; split it by a constant factor and unroll the inner loop";
    TIR_USER_CHECK(*extent <= kMaxUnrolledCopies)
        << "cannot unroll loop '" << op->loop_var.name() << "' of extent " << *extent << ": too large (at most "
        << kMaxUnrolledCopies << "); split it first";
    // Checked before the body is copied, so an oversized nest fails at once.
    enclosing_.push_back({op->loop_var.name(), *extent});
    check_budget();
    Stmt body = mutate(op->body);
    enclosing_.pop_back();
    std::vector<Stmt> copies;
    for (int64_t i = 0; i < *extent; ++i)
      copies.push_back(substitute(body, {{op->loop_var, op->min + make_const(op->min.type(), double(i))}}));
    return copies.empty() ? EvaluateNode::make(0) : BlockNode::make(copies);
  }

 private:
  void check_budget() const {
    int64_t copies = 1;
    for (const auto &[name, extent] : enclosing_) copies *= extent;
    if (copies <= kMaxUnrolledCopies) return;
    std::string loops;
    for (size_t i = 0; i < enclosing_.size(); ++i) {
      loops += i == 0 ? "" : i + 1 == enclosing_.size() ? " and " : ", ";
      loops += "'" + enclosing_[i].first + "' (extent " + std::to_string(enclosing_[i].second) + ")";
    }
    TIR_THROW() << "cannot unroll the nested loops " << loops << ": together they copy their body " << copies
                << " times, more than the " << kMaxUnrolledCopies
                << " that unrolling allows; unroll the inner loop only, or split a loop and unroll its inner part";
  }

  std::vector<std::pair<std::string, int64_t>> enclosing_;  // the unrolled loops around, outermost first
};
}  // namespace

Stmt unroll_loops(const Stmt &s) { return Unroller().mutate(s); }

}  // namespace tensorir
