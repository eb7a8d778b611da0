// Tensor expressions: placeholders, computes and reductions describe *what* to compute.
#pragma once
#include <functional>
#include <initializer_list>
#include <string>
#include <type_traits>
#include <vector>

#include "tensorir/error.h"
#include "tensorir/ir/expr.h"
#include "tensorir/ir/op.h"

namespace tensorir {

class Tensor;

struct OperationNode : Object {
  std::string name;
  std::string tag;
  virtual int num_outputs() const = 0;
  virtual Type output_dtype(int i) const = 0;
  virtual const std::vector<Expr> &output_shape(int i) const = 0;
  // The tensors this operation reads, each once, in first-use order.
  virtual std::vector<Tensor> input_tensors() const = 0;
};

class Operation : public Ref<const OperationNode> {
 public:
  Operation() = default;
  Operation(const OperationNode *n) : Ref<const OperationNode>(n) {}
  Tensor output(int i) const;
  template <typename T>
  const T *as() const { return dynamic_cast<const T *>(get()); }
};

struct PlaceholderOpNode : OperationNode {
  std::vector<Expr> shape;
  Type dtype;
  int num_outputs() const override { return 1; }
  Type output_dtype(int) const override { return dtype; }
  const std::vector<Expr> &output_shape(int) const override { return shape; }
  std::vector<Tensor> input_tensors() const override;
};

struct ComputeOpNode : OperationNode {
  std::vector<IterVar> axis;         // one data-parallel axis per output dimension
  std::vector<IterVar> reduce_axis;  // empty unless the body is a reduction
  std::vector<Expr> body;            // one per output; all Reduce nodes or none
  std::vector<Expr> shape;
  int num_outputs() const override { return static_cast<int>(body.size()); }
  Type output_dtype(int i) const override { return body[i].type(); }
  const std::vector<Expr> &output_shape(int) const override { return shape; }
  std::vector<Tensor> input_tensors() const override;
};

// Output `value_index` of an operation.
class Tensor {
 public:
  Tensor() = default;
  Tensor(Operation op, int value_index) : op_(std::move(op)), value_index_(value_index) {}

  // Element access: A(i, j), with Vars, IterVars, ints or any index Expr.
  template <typename... Idx>
  Expr operator()(const Idx &...idx) const {
    return (*this)(std::vector<Expr>{to_index(idx)...});
  }
  Expr operator()(const std::vector<Expr> &indices) const;

  const Operation &op() const { return op_; }
  int value_index() const { return value_index_; }
  bool defined() const { return op_.defined(); }
  const std::vector<Expr> &shape() const;
  int ndim() const { return static_cast<int>(shape().size()); }
  Type dtype() const;
  const std::string &name() const;
  // The i-th data-parallel (or reduction) axis of the compute that produces this tensor.
  IterVar axis(int i) const;
  IterVar reduce_axis(int i) const;

  bool operator==(const Tensor &o) const { return op_.same_as(o.op_) && value_index_ == o.value_index_; }
  bool operator!=(const Tensor &o) const { return !(*this == o); }

 private:
  static Expr to_index(const Expr &e) { return e; }
  static Expr to_index(const IterVar &v) { return v.var(); }
  static Expr to_index(int v) { return Expr(v); }
  static Expr to_index(int64_t v) { return Expr(v); }
  // The producing operation; an Error when the tensor is undefined or names an output the
  // operation does not have.
  const OperationNode &producer(const char *what) const;
  Operation op_;
  int value_index_ = 0;
};

struct TensorHash {
  size_t operator()(const Tensor &t) const {
    return std::hash<const void *>()(t.op().get()) * 31 + t.value_index();
  }
};

// An input of the given shape (constants or symbolic Vars) and type.
Tensor placeholder(const std::vector<Expr> &shape, Type dtype = Float(32),
                   const std::string &name = "placeholder");

// A reduction axis over [begin, end): reduce_axis({0, K}, "k").
IterVar reduce_axis(const Range &dom, const std::string &name = "rv");

// Builds a compute op from index variables and the body expressions they give.
Operation make_compute_op(const std::vector<Expr> &shape, const std::string &name,
                          const std::string &tag, const std::vector<Var> &axis_vars,
                          const std::vector<Expr> &body);

namespace detail {
template <typename F, size_t... I>
auto call_with_vars(F &f, const std::vector<Var> &v, std::index_sequence<I...>) {
  return f(v[I]...);
}
template <typename F, size_t N>
constexpr bool invocable_n() {
  return []<size_t... I>(std::index_sequence<I...>) {
    return std::is_invocable_v<F &, decltype((void)I, Var())...>;
  }(std::make_index_sequence<N>());
}
// The number of Var parameters F takes (1..6), or 0 for the vector form f(std::vector<Var>).
template <typename F>
constexpr int lambda_arity() {
  if constexpr (std::is_invocable_v<F &, const std::vector<Var> &>) return 0;
  else if constexpr (invocable_n<F, 1>()) return 1;
  else if constexpr (invocable_n<F, 2>()) return 2;
  else if constexpr (invocable_n<F, 3>()) return 3;
  else if constexpr (invocable_n<F, 4>()) return 4;
  else if constexpr (invocable_n<F, 5>()) return 5;
  else if constexpr (invocable_n<F, 6>()) return 6;
  else return -1;
}
std::vector<Var> make_axis_vars(size_t n);
[[noreturn]] void arity_mismatch(const std::string &name, int arity, size_t ndim);
inline std::vector<Expr> as_bodies(const Expr &e) { return {e}; }
inline std::vector<Expr> as_bodies(const std::vector<Expr> &e) { return e; }
}  // namespace detail

// compute(shape, [](Var i, Var j) { return ...; }, name): one element per index.
// The lambda takes one Var per dimension (1 to 6) or a const std::vector<Var>& for any
// rank. Returning an Expr gives a Tensor; returning std::vector<Expr> (e.g. from a tuple
// reducer such as argmax) gives one Tensor per value.
template <typename F>
auto compute(const std::vector<Expr> &shape, F f, const std::string &name = "compute",
             const std::string &tag = "") {
  constexpr int arity = detail::lambda_arity<F>();
  static_assert(arity >= 0, "compute: the lambda must take 1 to 6 Vars or a const std::vector<Var>&");
  if (arity > 0 && static_cast<size_t>(arity) != shape.size())
    detail::arity_mismatch(name, arity, shape.size());
  std::vector<Var> vars = detail::make_axis_vars(shape.size());
  auto body = [&] {
    if constexpr (arity == 0) return f(static_cast<const std::vector<Var> &>(vars));
    else return detail::call_with_vars(f, vars, std::make_index_sequence<arity>());
  }();
  Operation op = make_compute_op(shape, name, tag, vars, detail::as_bodies(body));
  if constexpr (std::is_convertible_v<decltype(body), Expr>) {
    return op.output(0);
  } else {
    std::vector<Tensor> outs;
    for (int i = 0; i < op->num_outputs(); ++i) outs.push_back(op.output(i));
    return outs;
  }
}

// ---------------------------------------------------------------- reductions
// sum(A(i, k) * B(k, j), {k}) and friends; `condition` skips elements where it is false.
Expr sum(Expr source, std::initializer_list<IterVar> axes, Expr condition = Expr());
Expr sum(Expr source, const std::vector<IterVar> &axes, Expr condition = Expr());
Expr prod(Expr source, std::initializer_list<IterVar> axes, Expr condition = Expr());
Expr prod(Expr source, const std::vector<IterVar> &axes, Expr condition = Expr());
Expr max(Expr source, std::initializer_list<IterVar> axes, Expr condition = Expr());
Expr max(Expr source, const std::vector<IterVar> &axes, Expr condition = Expr());
Expr min(Expr source, std::initializer_list<IterVar> axes, Expr condition = Expr());
Expr min(Expr source, const std::vector<IterVar> &axes, Expr condition = Expr());

// A user-defined commutative reduction over one or more values.
//   auto argmax = comm_reducer(
//       [](const std::vector<Expr> &a, const std::vector<Expr> &b) {   // combine
//         Expr take_b = b[1] > a[1];
//         return std::vector<Expr>{select(take_b, b[0], a[0]), select(take_b, b[1], a[1])};
//       },
//       [](const std::vector<Type> &t) {                               // identity
//         return std::vector<Expr>{make_const(t[0], -1), min_value(t[1])};
//       }, "argmax");
//   auto [idx, val] = compute({n}, [&](Var i) { return argmax({k, X(i, k)}, {k}); });
class Reducer {
 public:
  Reducer(std::function<std::vector<Expr>(const std::vector<Expr> &, const std::vector<Expr> &)> combine,
          std::function<std::vector<Expr>(const std::vector<Type> &)> identity, std::string name);
  // One value: returns the Reduce expression.
  Expr operator()(Expr source, std::initializer_list<IterVar> axes, Expr condition = Expr()) const;
  // Several values: returns one Reduce expression per value, for a multi-output compute.
  std::vector<Expr> operator()(std::vector<Expr> sources, std::initializer_list<IterVar> axes,
                               Expr condition = Expr()) const;
  std::vector<Expr> reduce(std::vector<Expr> sources, const std::vector<IterVar> &axes,
                           Expr condition = Expr()) const;

 private:
  std::function<std::vector<Expr>(const std::vector<Expr> &, const std::vector<Expr> &)> combine_;
  std::function<std::vector<Expr>(const std::vector<Type> &)> identity_;
  std::string name_;
};

Reducer comm_reducer(
    std::function<std::vector<Expr>(const std::vector<Expr> &, const std::vector<Expr> &)> combine,
    std::function<std::vector<Expr>(const std::vector<Type> &)> identity,
    const std::string &name = "reducer");

}  // namespace tensorir
