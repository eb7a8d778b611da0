// A read past a tensor's end is no error the generated code can catch: it returns another
// buffer's data or faults. Where the shapes are constants it is caught here, when the
// compute is defined. Reads under a condition are left alone: a reduction's where-clause
// is a branch around the update, and a select (if_then_else, && and ||) is how padding
// is written, though code generation evaluates both its values, so a read there must
// stay inside by itself (the library's padding clamps its index).
#include "te/read_bounds.h"

#include <unordered_map>

#include "tensorir/arith/interval.h"
#include "tensorir/arith/simplify.h"
#include "tensorir/ir/printer.h"
#include "tensorir/ir/visitor.h"
#include "tensorir/error.h"
#include "tensorir/te/tensor.h"

namespace tensorir {

namespace {

// Whether interval analysis gives the exact range of `e`: integers throughout, each
// variable once, and only operations monotone in each operand (a constant factor or
// divisor, a cast that keeps every value).
class ExactRange : public IRVisitor {
 public:
  bool exact = true;
  using IRVisitor::visit;
  void visit(const Expr &e) override {
    if (e.defined() && (!e.type().is_int_or_uint() || e.type().is_bool())) exact = false;
    IRVisitor::visit(e);
  }

 protected:
  void visit(const VarNode *op) override {
    if (++uses_[op] > 1) exact = false;
  }
  void visit(const CastNode *op) override {
    const Type from = op->value.type(), to = op->type;
    const bool widening = from.is_int_or_uint() && to.bits() >= from.bits() &&
                          (from.code() == to.code() || (from.is_uint() && to.is_int() && to.bits() > from.bits()));
    if (!widening) exact = false;
    IRVisitor::visit(op);
  }
  void visit(const MulNode *op) override {
    if (!as_const_int(op->a) && !as_const_int(op->b)) exact = false;
    IRVisitor::visit(op);
  }
  void visit(const DivNode *op) override {
    const int64_t *d = as_const_int(op->b);
    if (!d || *d <= 0) exact = false;
    IRVisitor::visit(op);
  }
  void visit(const ModNode *) override { exact = false; }
  void visit(const SelectNode *) override { exact = false; }
  void visit(const LetNode *) override { exact = false; }
  void visit(const CallNode *) override { exact = false; }
  void visit(const LoadNode *) override { exact = false; }
  void visit(const TensorLoadNode *) override { exact = false; }
  void visit(const ReduceNode *) override { exact = false; }

 private:
  std::unordered_map<const VarNode *, int> uses_;
};

class ReadChecker : public IRVisitor {
 public:
  ReadChecker(const std::string &name, VarRanges ranges) : name_(name), ranges_(std::move(ranges)) {}
  using IRVisitor::visit;

 protected:
  void visit(const TensorLoadNode *op) override {
    IRVisitor::visit(op);  // the indices may read tensors too
    if (guarded_ > 0) return;
    auto *producer = static_cast<const OperationNode *>(op->producer.get());
    const std::vector<Expr> &shape = producer->output_shape(op->value_index);
    for (size_t d = 0; d < op->args.size() && d < shape.size(); ++d) check(op, d, shape[d]);
  }
  void visit(const SelectNode *op) override {
    visit(op->condition);
    ++guarded_;
    visit(op->true_value);
    visit(op->false_value);
    --guarded_;
  }
  void visit(const AndNode *op) override { visit_conditional(op->a, op->b); }
  void visit(const OrNode *op) override { visit_conditional(op->a, op->b); }
  void visit(const ReduceNode *op) override {
    visit(op->condition);
    const int64_t *always = as_const_int(op->condition);
    const bool where = !(always && *always != 0);
    guarded_ += where;
    for (const Expr &s : op->source) visit(s);
    guarded_ -= where;
  }

 private:
  void visit_conditional(const Expr &a, const Expr &b) {
    visit(a);
    ++guarded_;
    visit(b);
    --guarded_;
  }

  void check(const TensorLoadNode *op, size_t d, const Expr &extent) {
    const int64_t *n = as_const_int(extent);
    if (!n) return;
    const Expr index = simplify(op->args[d]);
    ExactRange exact;
    exact.visit(index);
    if (!exact.exact) return;
    const Interval r = eval_interval(index, ranges_);
    const int64_t *lo = r.min.defined() ? as_const_int(r.min) : nullptr;
    const int64_t *hi = r.max.defined() ? as_const_int(r.max) : nullptr;
    const bool below = lo && *lo < 0, above = hi && *hi >= *n;
    if (!below && !above) return;
    TIR_THROW() << "compute '" << name_ << "' reads " << op->name << " at index " << (below ? *lo : *hi)
                << " along axis " << d << " (index " << op->args[d] << "), but " << op->name << " has extent "
                << *n << " there (indices 0 to " << *n - 1
                << "); clamp the index with min/max (and select the edge value with if_then_else), or pad or slice "
                   "the tensor";
  }

  const std::string &name_;
  VarRanges ranges_;
  int guarded_ = 0;
};

}  // namespace

void check_reads_in_bounds(const std::string &compute_name, const std::vector<IterVar> &axis,
                           const std::vector<Expr> &body) {
  VarRanges ranges;
  for (const IterVar &iv : axis) {
    if (is_const_int(iv.dom().extent, 0)) return;  // no element: nothing is read
    ranges[iv.var().get()] = interval_of_range(iv.dom());
  }
  for (const Expr &e : body)
    if (auto *r = e.as<ReduceNode>())
      for (const IterVar &iv : r->axis) ranges[iv.var().get()] = interval_of_range(iv.dom());
  ReadChecker checker(compute_name, std::move(ranges));
  for (const Expr &e : body) checker.visit(e);
}

}  // namespace tensorir
