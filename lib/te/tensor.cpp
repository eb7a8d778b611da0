// Placeholders, computes and the Tensor handle.
#include "tensorir/te/tensor.h"

#include <cstdint>
#include <unordered_set>

#include "te/read_bounds.h"
#include "tensorir/ir/printer.h"
#include "tensorir/runtime/ndarray.h"
#include "tensorir/ir/visitor.h"

namespace tensorir {

Tensor Operation::output(int i) const {
  TIR_USER_CHECK(defined()) << "output " << i << " of an undefined operation";
  TIR_USER_CHECK(i >= 0 && i < get()->num_outputs())
      << "operation '" << get()->name << "' has " << get()->num_outputs() << " output(s); there is no output " << i;
  return Tensor(*this, i);
}

namespace {
// Collects the tensors an expression reads, in first-use order.
class TensorCollector : public IRVisitor {
 public:
  std::vector<Tensor> found;
  std::unordered_set<size_t> seen;
  using IRVisitor::visit;

 protected:
  void visit(const TensorLoadNode *op) override {
    IRVisitor::visit(op);
    auto *producer = static_cast<const OperationNode *>(op->producer.get());
    Tensor t(Operation(producer), op->value_index);
    if (seen.insert(TensorHash()(t)).second) found.push_back(t);
  }
};
}  // namespace

std::vector<Tensor> PlaceholderOpNode::input_tensors() const { return {}; }

std::vector<Tensor> ComputeOpNode::input_tensors() const {
  TensorCollector c;
  for (const Expr &e : body) c.visit(e);
  return c.found;
}

Expr Tensor::operator()(const std::vector<Expr> &indices) const {
  producer("element access");
  TIR_USER_CHECK(indices.size() == shape().size())
      << "tensor '" << name() << "' has " << shape().size() << " dimensions but was indexed with "
      << indices.size() << " indices";
  std::vector<Expr> idx;
  for (size_t d = 0; d < indices.size(); ++d) {
    Expr e = indices[d];
    TIR_USER_CHECK(e.defined()) << "tensor '" << name() << "': index " << d << " is undefined";
    TIR_USER_CHECK(e.type().is_int_or_uint() && e.type().is_scalar())
        << "tensor '" << name() << "': index " << d << " (" << e << ") has type " << e.type()
        << "; indices must be scalar integers (use cast(Int(32), ...))";
    if (e.type() != Int(32)) e = cast(Int(32), e);
    idx.push_back(e);
  }
  return TensorLoadNode::make(dtype(), Ref<const Object>(op_.get()), value_index_, name(), idx);
}

const OperationNode &Tensor::producer(const char *what) const {
  TIR_USER_CHECK(defined()) << what << " of an undefined tensor (a default-constructed Tensor)";
  TIR_USER_CHECK(value_index_ >= 0 && value_index_ < op_->num_outputs())
      << what << " of output " << value_index_ << " of '" << op_->name << "', which has " << op_->num_outputs()
      << " output(s)";
  return *op_;
}

const std::vector<Expr> &Tensor::shape() const { return producer("shape()").output_shape(value_index_); }
Type Tensor::dtype() const { return producer("dtype()").output_dtype(value_index_); }
const std::string &Tensor::name() const { return producer("name()").name; }

IterVar Tensor::axis(int i) const {
  producer("axis()");
  auto *c = op_.as<ComputeOpNode>();
  TIR_USER_CHECK(c) << "tensor '" << name() << "' is a placeholder; only computed tensors have axes";
  TIR_USER_CHECK(i >= 0 && i < static_cast<int>(c->axis.size()))
      << "tensor '" << name() << "' has " << c->axis.size() << " axes; axis(" << i << ") does not exist";
  return c->axis[i];
}

IterVar Tensor::reduce_axis(int i) const {
  producer("reduce_axis()");
  auto *c = op_.as<ComputeOpNode>();
  TIR_USER_CHECK(c) << "tensor '" << name() << "' is a placeholder; it has no reduction axes";
  TIR_USER_CHECK(i >= 0 && i < static_cast<int>(c->reduce_axis.size()))
      << "tensor '" << name() << "' has " << c->reduce_axis.size() << " reduction axes; reduce_axis("
      << i << ") does not exist";
  return c->reduce_axis[i];
}

namespace {
void check_shape(const std::vector<Expr> &shape, const std::string &name) {
  int64_t elements = 1;
  for (size_t d = 0; d < shape.size(); ++d) {
    const Expr &e = shape[d];
    TIR_USER_CHECK(e.defined()) << "tensor '" << name << "': dimension " << d << " is undefined";
    TIR_USER_CHECK(e.type().is_int_or_uint() && e.type().is_scalar())
        << "tensor '" << name << "': dimension " << d << " (" << e << ") must be an integer, not "
        << e.type();
    const int64_t *v = as_const_int(e);
    TIR_USER_CHECK(!v || *v >= 0) << "tensor '" << name << "': dimension " << d << " is negative (" << *v << ")";
    if (!v) continue;
    // Generated code indexes with 32-bit integers; a larger extent would wrap.
    TIR_USER_CHECK(*v <= INT32_MAX) << "tensor '" << name << "': dimension " << d << " is " << *v
                                    << ", above the largest extent tensorir indexes (2147483647)";
    elements *= *v;
    TIR_USER_CHECK(elements <= INT32_MAX)
        << "tensor '" << name << "' has more than 2147483647 elements (dimensions 0 to " << d
        << " already hold " << elements << "); tensorir indexes arrays with 32-bit integers: split it";
  }
}
std::vector<Expr> normalize_shape(const std::vector<Expr> &shape) {
  std::vector<Expr> out;
  for (const Expr &e : shape) out.push_back(e.type() == Int(32) ? e : cast(Int(32), e));
  return out;
}
}  // namespace

Tensor placeholder(const std::vector<Expr> &shape, Type dtype, const std::string &name) {
  check_shape(shape, name);
  TIR_USER_CHECK(NDArray::can_hold(dtype)) << "placeholder '" << name << "': element type " << dtype
                                           << " is none that arrays hold (" << NDArray::holdable_types() << ")";
  auto *n = new PlaceholderOpNode();
  n->name = name;
  n->shape = normalize_shape(shape);
  n->dtype = dtype;
  return Operation(n).output(0);
}

IterVar reduce_axis(const Range &dom, const std::string &name) {
  TIR_USER_CHECK(dom.min.defined() && dom.extent.defined()) << "reduce_axis '" << name << "': range is undefined";
  TIR_USER_CHECK(dom.min.type().is_int_or_uint() && dom.extent.type().is_int_or_uint())
      << "reduce_axis '" << name << "': range bounds must be integers";
  const int64_t *e = as_const_int(dom.extent);
  TIR_USER_CHECK(!e || *e > 0) << "reduce_axis '" << name << "': range is empty (extent " << *e
                           << "); use reduce_axis({begin, end}) with begin < end";
  TIR_USER_CHECK(!e || *e <= INT32_MAX) << "reduce_axis '" << name << "': extent " << *e
                                        << " is above the largest extent tensorir indexes (2147483647)";
  return IterVar::make(dom, Var(name), IterVarType::Reduce);
}

namespace detail {
std::vector<Var> make_axis_vars(size_t n) {
  static const char *names[] = {"i", "j", "k", "l", "m", "n"};
  std::vector<Var> v;
  for (size_t d = 0; d < n; ++d)
    v.emplace_back(d < 6 && n <= 6 ? std::string(names[d]) : "ax" + std::to_string(d));
  return v;
}

void arity_mismatch(const std::string &name, int arity, size_t ndim) {
  TIR_THROW() << "compute '" << name << "': the lambda takes " << arity
              << " index variables but the shape has " << ndim
              << " dimensions; give one Var per dimension (or take const std::vector<Var>&)";
}
}  // namespace detail

namespace {
// A Reduce must be the whole body: anything around it belongs in a separate compute.
class NestedReduceFinder : public IRVisitor {
 public:
  bool found = false;
  using IRVisitor::visit;

 protected:
  void visit(const ReduceNode *) override { found = true; }
};
}  // namespace

Operation make_compute_op(const std::vector<Expr> &shape, const std::string &name,
                          const std::string &tag, const std::vector<Var> &axis_vars,
                          const std::vector<Expr> &body) {
  check_shape(shape, name);
  TIR_USER_CHECK(!body.empty()) << "compute '" << name << "': the lambda returned no values";
  auto *n = new ComputeOpNode();
  Operation op(n);
  n->name = name;
  n->tag = tag;
  n->shape = normalize_shape(shape);
  for (size_t d = 0; d < shape.size(); ++d)
    n->axis.push_back(IterVar::make(Range::from_min_extent(0, n->shape[d]), axis_vars[d], IterVarType::DataPar));
  const ReduceNode *first = body[0].as<ReduceNode>();
  for (size_t v = 0; v < body.size(); ++v) {
    TIR_USER_CHECK(body[v].defined()) << "compute '" << name << "': value " << v << " is undefined";
    TIR_USER_CHECK(NDArray::can_hold(body[v].type()))
        << "compute '" << name << "': value " << v << " is " << body[v].type() << ", which no tensor holds ("
        << NDArray::holdable_types() << "); a vector is the work of vectorize, not of a value";
    const ReduceNode *r = body[v].as<ReduceNode>();
    TIR_USER_CHECK((r != nullptr) == (first != nullptr))
        << "compute '" << name << "': either every value is a reduction or none is";
    if (r) {
      TIR_USER_CHECK(r->combiner.same_as(first->combiner) && r->axis.size() == first->axis.size())
          << "compute '" << name << "': all reductions of one compute must come from one reducer call";
      // Anywhere inside: the values, the condition, the combiner, the axes' ranges.
      std::vector<std::pair<const char *, Expr>> parts;
      for (const Expr &e : r->source) parts.push_back({"a reduced value", e});
      parts.push_back({"the condition", r->condition});
      for (const Expr &e : r->combiner->result) parts.push_back({"the reducer's combine", e});
      for (const Expr &e : r->combiner->identity) parts.push_back({"the reducer's identity", e});
      for (const IterVar &a : r->axis) {
        parts.push_back({"a reduction axis's range", a->dom.min});
        parts.push_back({"a reduction axis's range", a->dom.extent});
      }
      for (const auto &[where, e] : parts) {
        NestedReduceFinder f;
        if (e.defined()) f.visit(e);
        TIR_USER_CHECK(!f.found) << "compute '" << name << "': a reduction inside a reduction (in " << where
                                 << "); compute the inner one in its own tensor";
      }
    } else {
      NestedReduceFinder f;
      f.visit(body[v]);
      TIR_USER_CHECK(!f.found)
          << "compute '" << name << "': a reduction (sum, max, ...) must be the whole value of a compute, "
          << "not part of a larger expression (" << body[v]
          << "); compute the reduction in its own tensor and use it in a second compute";
    }
  }
  if (first) n->reduce_axis = first->axis;
  n->body = body;
  check_reads_in_bounds(name, n->axis, body);
  return op;
}

}  // namespace tensorir
