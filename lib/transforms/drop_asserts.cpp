// For targets whose kernels cannot fail a call (the GPUs): run-time checks (AssertStmt)
// give way to the statements they guard, before the host/device split, which expects
// only allocations and launches at the top.
#include "tensorir/ir/visitor.h"
#include "transforms/passes.h"

namespace tensorir {

namespace {

class AssertDropper : public IRMutator {
 public:
  using IRMutator::mutate;

 protected:
  using IRMutator::visit;
  Stmt visit(const AssertStmtNode *op, const Stmt &) override { return mutate(op->body); }
};

}  // namespace

Stmt drop_asserts(const Stmt &s) { return AssertDropper().mutate(s); }

}  // namespace tensorir
