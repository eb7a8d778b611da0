// The built-in reducers (sum, prod, max, min) and user-defined commutative reducers.
#include "tensorir/te/tensor.h"

namespace tensorir {

Reducer::Reducer(std::function<std::vector<Expr>(const std::vector<Expr> &, const std::vector<Expr> &)> combine,
                 std::function<std::vector<Expr>(const std::vector<Type> &)> identity, std::string name)
    : combine_(std::move(combine)), identity_(std::move(identity)), name_(std::move(name)) {
  TIR_USER_CHECK(combine_ && identity_) << "comm_reducer '" << name_ << "': combine and identity must be given";
}

std::vector<Expr> Reducer::reduce(std::vector<Expr> sources, const std::vector<IterVar> &axes,
                                  Expr condition) const {
  TIR_USER_CHECK(!sources.empty()) << "reducer '" << name_ << "': no values to reduce";
  TIR_USER_CHECK(!axes.empty()) << "reducer '" << name_ << "': give at least one reduction axis, e.g. {k}";
  for (const IterVar &a : axes) {
    TIR_USER_CHECK(a.defined()) << "reducer '" << name_ << "': undefined reduction axis";
    TIR_USER_CHECK(a.iter_type() == IterVarType::Reduce)
        << "reducer '" << name_ << "': axis '" << a.name()
        << "' is not a reduction axis; create it with reduce_axis({begin, end}, \"" << a.name() << "\")";
  }
  std::vector<Type> types;
  std::vector<Var> lhs, rhs;
  for (size_t v = 0; v < sources.size(); ++v) {
    TIR_USER_CHECK(sources[v].defined()) << "reducer '" << name_ << "': value " << v << " is undefined";
    types.push_back(sources[v].type());
    lhs.emplace_back("x" + std::to_string(v), sources[v].type());
    rhs.emplace_back("y" + std::to_string(v), sources[v].type());
  }
  std::vector<Expr> lhs_e(lhs.begin(), lhs.end()), rhs_e(rhs.begin(), rhs.end());
  std::vector<Expr> result = combine_(lhs_e, rhs_e);
  std::vector<Expr> identity = identity_(types);
  TIR_USER_CHECK(result.size() == sources.size() && identity.size() == sources.size())
      << "reducer '" << name_ << "': combine and identity must return " << sources.size()
      << " values, one per reduced value";
  for (size_t v = 0; v < sources.size(); ++v) {
    TIR_USER_CHECK(result[v].defined() && identity[v].defined())
        << "reducer '" << name_ << "': " << (result[v].defined() ? "identity" : "combine") << " returns an undefined "
        << "value " << v;
    TIR_USER_CHECK(result[v].type() == types[v])
        << "reducer '" << name_ << "': combine returns " << result[v].type() << " for value " << v
        << ", which has type " << types[v];
    if (identity[v].type() != types[v]) identity[v] = cast(types[v], identity[v]);
  }
  if (condition.defined()) {
    TIR_USER_CHECK(condition.type().is_bool())
        << "reducer '" << name_ << "': the condition must be a boolean expression";
  } else {
    condition = make_const(Bool(), 1);
  }
  CommReducer combiner(new CommReducerNode(lhs, rhs, result, identity));
  std::vector<Expr> out;
  for (size_t v = 0; v < sources.size(); ++v)
    out.push_back(ReduceNode::make(combiner, sources, axes, condition, static_cast<int>(v)));
  return out;
}

Expr Reducer::operator()(Expr source, std::initializer_list<IterVar> axes, Expr condition) const {
  return reduce({std::move(source)}, std::vector<IterVar>(axes), std::move(condition))[0];
}

std::vector<Expr> Reducer::operator()(std::vector<Expr> sources, std::initializer_list<IterVar> axes,
                                      Expr condition) const {
  return reduce(std::move(sources), std::vector<IterVar>(axes), std::move(condition));
}

Reducer comm_reducer(
    std::function<std::vector<Expr>(const std::vector<Expr> &, const std::vector<Expr> &)> combine,
    std::function<std::vector<Expr>(const std::vector<Type> &)> identity, const std::string &name) {
  return Reducer(std::move(combine), std::move(identity), name);
}

namespace {
const Reducer &sum_reducer() {
  static const Reducer r(
      [](const std::vector<Expr> &a, const std::vector<Expr> &b) { return std::vector<Expr>{a[0] + b[0]}; },
      [](const std::vector<Type> &t) { return std::vector<Expr>{make_zero(t[0])}; }, "sum");
  return r;
}
const Reducer &prod_reducer() {
  static const Reducer r(
      [](const std::vector<Expr> &a, const std::vector<Expr> &b) { return std::vector<Expr>{a[0] * b[0]}; },
      [](const std::vector<Type> &t) { return std::vector<Expr>{make_const(t[0], 1)}; }, "prod");
  return r;
}
const Reducer &max_reducer() {
  static const Reducer r(
      [](const std::vector<Expr> &a, const std::vector<Expr> &b) { return std::vector<Expr>{max(a[0], b[0])}; },
      [](const std::vector<Type> &t) { return std::vector<Expr>{min_value(t[0])}; }, "max");
  return r;
}
const Reducer &min_reducer() {
  static const Reducer r(
      [](const std::vector<Expr> &a, const std::vector<Expr> &b) { return std::vector<Expr>{min(a[0], b[0])}; },
      [](const std::vector<Type> &t) { return std::vector<Expr>{max_value(t[0])}; }, "min");
  return r;
}
}  // namespace

Expr sum(Expr source, std::initializer_list<IterVar> axes, Expr condition) {
  return sum_reducer()(std::move(source), axes, std::move(condition));
}
Expr sum(Expr source, const std::vector<IterVar> &axes, Expr condition) {
  return sum_reducer().reduce({std::move(source)}, axes, std::move(condition))[0];
}
Expr prod(Expr source, std::initializer_list<IterVar> axes, Expr condition) {
  return prod_reducer()(std::move(source), axes, std::move(condition));
}
Expr prod(Expr source, const std::vector<IterVar> &axes, Expr condition) {
  return prod_reducer().reduce({std::move(source)}, axes, std::move(condition))[0];
}
Expr max(Expr source, std::initializer_list<IterVar> axes, Expr condition) {
  return max_reducer()(std::move(source), axes, std::move(condition));
}
Expr max(Expr source, const std::vector<IterVar> &axes, Expr condition) {
  return max_reducer().reduce({std::move(source)}, axes, std::move(condition))[0];
}
Expr min(Expr source, std::initializer_list<IterVar> axes, Expr condition) {
  return min_reducer()(std::move(source), axes, std::move(condition));
}
Expr min(Expr source, const std::vector<IterVar> &axes, Expr condition) {
  return min_reducer().reduce({std::move(source)}, axes, std::move(condition))[0];
}

}  // namespace tensorir
