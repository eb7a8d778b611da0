// Index analysis for vector loads and stores in OpenCL C.
#include "backends/glsl/compute/codegen_compute_vector.h"

#include "tensorir/arith/simplify.h"
#include "tensorir/ir/op.h"
#include "tensorir/ir/visitor.h"

namespace tensorir::glsl::compute_detail {

Expr unit_ramp_base(const Expr &index) {
  const auto *r = index.as<RampNode>();
  return r && is_const_int(r->stride, 1) ? r->base : Expr();
}

namespace {

class VectorAccess : public IRVisitor {
 public:
  explicit VectorAccess(const VarNode *buffer) : buffer_(buffer) {}
  int lanes = 0;
  bool whole = true;
  using IRVisitor::visit;

 protected:
  void visit(const LoadNode *op) override {
    if (op->buffer.get() == buffer_) check(op->index);
    IRVisitor::visit(op);
  }
  void visit(const StoreNode *op) override {
    if (op->buffer.get() == buffer_) check(op->index);
    IRVisitor::visit(op);
  }

 private:
  // Scalar accesses read through a pointer to the elements; vector ones must be aligned.
  void check(const Expr &index) {
    if (index.type().is_scalar()) return;
    const int n = index.type().lanes();
    const Expr base = unit_ramp_base(index);
    const bool aligned = base.defined() && is_const_int(simplify(floormod(base, make_const(base.type(), n))), 0);
    whole = whole && aligned && (lanes == 0 || lanes == n);
    lanes = n;
  }
  const VarNode *buffer_;
};

}  // namespace

int whole_vector_lanes(const Stmt &body, const VarNode *buffer) {
  VectorAccess v(buffer);
  v.visit(body);
  return v.whole ? v.lanes : 0;
}

}  // namespace tensorir::glsl::compute_detail
