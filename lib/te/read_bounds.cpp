// A read past a tensor's end is no error the generated code can catch: it returns another
// buffer's data or faults. Where the shapes are constants it is caught here, when the
// compute is defined.
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

// Whether interval analysis gives the exact range of `e`: each variable once, and only
// operations monotone in each operand (a constant factor or divisor).
class ExactRange : public IRVisitor {
 public:
  bool exact = true;
  using IRVisitor::visit;

 protected:
  void visit(const VarNode *op) override {
    if (++uses_[op] > 1) exact = false;
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
  void visit(const AndNode *op) override { visit_logic(op->a, op->b); }
  void visit(const OrNode *op) override { visit_logic(op->a, op->b); }
  void visit(const ReduceNode *op) override {
    visit(op->condition);
    const int64_t *always = as_const_int(op->condition);
    const bool where = !(always && *always != 0);
    guarded_ += where;
    for (const Expr &s : op->source) visit(s);
    guarded_ -= where;
  }

 private:
  void visit_logic(const Expr &a, const Expr &b) {
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
                << "); pad or slice the tensor, clamp the index with min/max, or guard the read with if_then_else";
  }

  const std::string &name_;
  VarRanges ranges_;
  int guarded_ = 0;
};

}  // namespace

void check_reads_in_bounds(const std::string &compute_name, const std::vector<IterVar> &axis,
                           const std::vector<Expr> &body) {
  VarRanges ranges;
  for (const IterVar &iv : axis) ranges[iv.var().get()] = interval_of_range(iv.dom());
  for (const Expr &e : body)
    if (auto *r = e.as<ReduceNode>())
      for (const IterVar &iv : r->axis) ranges[iv.var().get()] = interval_of_range(iv.dom());
  ReadChecker checker(compute_name, std::move(ranges));
  for (const Expr &e : body) checker.visit(e);
}

}  // namespace tensorir
