// Tensorize: checks that the loops under a stage's tensorize axis compute exactly what
// the intrinsic declares, and builds the call that replaces them.
#include <unordered_map>

#include "schedule/schedule_internal.h"
#include "tensorir/arith/simplify.h"
#include "tensorir/ir/printer.h"
#include "tensorir/ir/structural.h"
#include "tensorir/ir/visitor.h"

namespace tensorir {

namespace {
struct Binding {
  Operation tensor_op;  // the stage's tensor bound to an intrinsic input
  int value_index = 0;
  std::string name;
  Type dtype;
  std::vector<Expr> base;  // the region's first element
  bool bound = false;
};

// Walks the stage's expression and the intrinsic's side by side.
class Matcher {
 public:
  Matcher(std::string where, std::vector<Var> intrin_vars, const TensorIntrinNode &intrin)
      : where_(std::move(where)), intrin_vars_(std::move(intrin_vars)), intrin_(intrin) {
    for (size_t i = 0; i < intrin.inputs.size(); ++i) input_index_[intrin.inputs[i].op().get()] = i;
    bindings_.resize(intrin.inputs.size());
  }

  void match(const Expr &a, const Expr &b) {
    if (const auto *lb = b.as<TensorLoadNode>()) return match_load(a, lb);
    fail_if(a.get()->kind != b.get()->kind || a.type() != b.type(), a, b);
    switch (a.get()->kind) {
      case IRKind::IntImm: return fail_if(a.as<IntImmNode>()->value != b.as<IntImmNode>()->value, a, b);
      case IRKind::FloatImm: return fail_if(a.as<FloatImmNode>()->value != b.as<FloatImmNode>()->value, a, b);
      case IRKind::Variable: return fail_if(!a.same_as(b), a, b);
      case IRKind::Cast: return match(a.as<CastNode>()->value, b.as<CastNode>()->value);
      case IRKind::Not: return match(a.as<NotNode>()->a, b.as<NotNode>()->a);
      case IRKind::Select: {
        auto *x = a.as<SelectNode>(), *y = b.as<SelectNode>();
        match(x->condition, y->condition);
        match(x->true_value, y->true_value);
        return match(x->false_value, y->false_value);
      }
      case IRKind::Call: {
        auto *x = a.as<CallNode>(), *y = b.as<CallNode>();
        fail_if(x->name != y->name || x->args.size() != y->args.size(), a, b);
        for (size_t i = 0; i < x->args.size(); ++i) match(x->args[i], y->args[i]);
        return;
      }
#define TIR_MATCH_BINARY(K)                                           \
  case IRKind::K: {                                                   \
    auto *x = static_cast<const BinaryNode<IRKind::K> *>(a.get());    \
    auto *y = static_cast<const BinaryNode<IRKind::K> *>(b.get());    \
    match(x->a, y->a);                                                \
    return match(x->b, y->b);                                         \
  }
      TIR_MATCH_BINARY(Add) TIR_MATCH_BINARY(Sub) TIR_MATCH_BINARY(Mul) TIR_MATCH_BINARY(Div)
      TIR_MATCH_BINARY(Mod) TIR_MATCH_BINARY(Min) TIR_MATCH_BINARY(Max) TIR_MATCH_BINARY(EQ)
      TIR_MATCH_BINARY(NE) TIR_MATCH_BINARY(LT) TIR_MATCH_BINARY(LE) TIR_MATCH_BINARY(GT)
      TIR_MATCH_BINARY(GE) TIR_MATCH_BINARY(And) TIR_MATCH_BINARY(Or)
#undef TIR_MATCH_BINARY
      default: fail_if(true, a, b);
    }
  }

  // Splits each index into a base (outer loops only) and the part the intrinsic sweeps.
  std::vector<Expr> region_base(const std::vector<Expr> &stage_idx, const std::vector<Expr> &intrin_idx,
                                const std::string &tensor) const {
    TIR_USER_CHECK(stage_idx.size() >= intrin_idx.size())
        << where_ << ": tensor '" << tensor << "' has fewer dimensions than the intrinsic's";
    std::vector<std::pair<Var, Expr>> zero;
    for (const Var &v : intrin_vars_) zero.emplace_back(v, make_zero(v.type()));
    std::vector<Expr> base;
    size_t lead = stage_idx.size() - intrin_idx.size();
    for (size_t d = 0; d < stage_idx.size(); ++d) {
      Expr b = simplify(substitute(stage_idx[d], zero));
      base.push_back(b);
      Expr swept = simplify(stage_idx[d] - b);
      Expr want = d < lead ? Expr(make_zero(swept.type())) : simplify(intrin_idx[d - lead]);
      TIR_USER_CHECK(structural_equal(swept, want))
          << where_ << ": tensor '" << tensor << "' is indexed as `" << stage_idx[d] << "` in dimension " << d
          << ", which does not sweep the intrinsic's index `" << want << "`";
    }
    return base;
  }

  const std::vector<Binding> &bindings() const { return bindings_; }

 private:
  void match_load(const Expr &a, const TensorLoadNode *lb) {
    const auto *la = a.as<TensorLoadNode>();
    auto it = input_index_.find(static_cast<const OperationNode *>(lb->producer.get()));
    TIR_USER_CHECK(la && it != input_index_.end())
        << where_ << ": the stage computes `" << a << "` where the intrinsic reads `" << Expr(lb) << "`";
    Binding &bd = bindings_[it->second];
    std::vector<Expr> base = region_base(la->args, lb->args, la->name);
    if (!bd.bound) {
      bd = {Operation(static_cast<const OperationNode *>(la->producer.get())), la->value_index, la->name, la->type, base, true};
      return;
    }
    TIR_USER_CHECK(bd.tensor_op.get() == la->producer.get())
        << where_ << ": intrinsic input '" << lb->name << "' would stand for both '" << bd.name << "' and '" << la->name << "'";
    for (size_t d = 0; d < base.size(); ++d)
      TIR_USER_CHECK(structural_equal(base[d], bd.base[d]))
          << where_ << ": tensor '" << la->name << "' is read at two different offsets";
  }

  void fail_if(bool bad, const Expr &a, const Expr &b) const {
    TIR_USER_CHECK(!bad) << where_ << ": the stage computes `" << a << "` where the intrinsic computes `" << b << "`";
  }

  std::string where_;
  std::vector<Var> intrin_vars_;
  const TensorIntrinNode &intrin_;
  std::unordered_map<const OperationNode *, size_t> input_index_;
  std::vector<Binding> bindings_;
};

TensorRegion make_region(const Operation &op, int value_index, const std::string &name, Type dtype,
                         const std::vector<Expr> &base, size_t intrin_rank) {
  Expr at = TensorLoadNode::make(dtype, Ref<const Object>(op.get()), value_index, name, base);
  TensorRegion r{name, dtype, CallNode::make(Handle(), "address_of", {at}), {}};
  for (size_t d = base.size() - intrin_rank; d < base.size(); ++d)
    r.strides.push_back(CallNode::make(Int(32), "tensorir.stride", {at, make_const(Int(32), double(d))}));
  return r;
}
}  // namespace

TensorizePlan plan_tensorize(const Stage &st, const std::vector<Expr> &body, const IterRanges &ranges) {
  const TensorIntrinNode &intrin = *st->tensorize_intrin;
  auto *ic = intrin.output.op().as<ComputeOpNode>();
  auto *c = st.op().as<ComputeOpNode>();
  const std::string where = "tensorize of stage '" + c->name + "' with intrinsic '" + intrin.name + "'";
  TIR_USER_CHECK(c->num_outputs() == 1) << where << ": multi-output stages cannot be tensorized";
  const auto &leaves = st->leaf_iter_vars;
  size_t pos = 0;
  while (pos < leaves.size() && !leaves[pos].same_as(st->tensorize_axis)) ++pos;
  TIR_USER_CHECK(pos < leaves.size()) << where << ": axis '" << st->tensorize_axis.name()
                                      << "' was split or fused after tensorize; tensorize one of the current loops";

  // The loops from the axis inward must be the intrinsic's axes, in order, with its extents.
  std::vector<IterVar> data, reduce;
  for (size_t l = pos; l < leaves.size(); ++l)
    (leaves[l].iter_type() == IterVarType::Reduce ? reduce : data).push_back(leaves[l]);
  auto extents = [&](const std::vector<IterVar> &v) {
    std::string s;
    for (const IterVar &iv : v) s += (s.empty() ? "" : ", ") + to_string(ranges.at(iv.get()).extent);
    return "(" + s + ")";
  };
  auto intrin_extents = [&](const std::vector<IterVar> &v) {
    std::string s;
    for (const IterVar &iv : v) s += (s.empty() ? "" : ", ") + to_string(iv.dom().extent);
    return "(" + s + ")";
  };
  bool shape_ok = data.size() == ic->axis.size() && reduce.size() == ic->reduce_axis.size();
  for (size_t i = 0; shape_ok && i < data.size(); ++i)
    shape_ok = structural_equal(simplify(ranges.at(data[i].get()).extent), simplify(ic->axis[i].dom().extent));
  for (size_t i = 0; shape_ok && i < reduce.size(); ++i)
    shape_ok = structural_equal(simplify(ranges.at(reduce[i].get()).extent), simplify(ic->reduce_axis[i].dom().extent));
  TIR_USER_CHECK(shape_ok) << where << ": the loops from '" << st->tensorize_axis.name() << "' inward run "
                           << extents(data) << " reducing over " << extents(reduce) << ", but the intrinsic computes "
                           << intrin_extents(ic->axis) << " reducing over " << intrin_extents(ic->reduce_axis);

  // Express the stage's body with the inner loops replaced by the intrinsic's axis variables.
  std::vector<std::pair<Var, Expr>> leaf_to_intrin;
  std::vector<Var> intrin_vars;
  for (size_t i = 0; i < data.size(); ++i) {
    leaf_to_intrin.emplace_back(data[i].var(), ranges.at(data[i].get()).min + ic->axis[i].var());
    intrin_vars.push_back(ic->axis[i].var());
  }
  for (size_t i = 0; i < reduce.size(); ++i) {
    leaf_to_intrin.emplace_back(reduce[i].var(), ranges.at(reduce[i].get()).min + ic->reduce_axis[i].var());
    intrin_vars.push_back(ic->reduce_axis[i].var());
  }
  auto values = iter_values(st, ranges);
  std::vector<std::pair<Var, Expr>> root_subst;
  std::vector<Expr> out_idx;
  auto roots = c->axis;
  roots.insert(roots.end(), c->reduce_axis.begin(), c->reduce_axis.end());
  for (const IterVar &r : roots) {
    Expr v = simplify(substitute(values.at(r.get()), leaf_to_intrin));
    root_subst.emplace_back(r.var(), v);
    VarRanges leaf_ranges;
    for (const IterVar &iv : leaves) leaf_ranges[iv.var().get()] = {ranges.at(iv.get()).min, simplify(ranges.at(iv.get()).min + ranges.at(iv.get()).extent - 1)};
    TIR_USER_CHECK(values.at(r.get()).same_as(r.var()) ||
                   can_prove(values.at(r.get()) < ranges.at(r.get()).min + ranges.at(r.get()).extent, leaf_ranges))
        << where << ": axis '" << r.name() << "' is split by a factor that does not divide its extent; "
        << "tensorized loops must cover the tensor exactly";
  }
  for (const IterVar &a : c->axis) out_idx.push_back(simplify(substitute(values.at(a.get()), leaf_to_intrin)));

  Matcher m(where, intrin_vars, intrin);
  const auto *red = body[0].as<ReduceNode>();
  const auto *ired = ic->body[0].as<ReduceNode>();
  TIR_USER_CHECK((red != nullptr) == (ired != nullptr))
      << where << ": " << (red ? "the stage is a reduction and the intrinsic is not" : "the intrinsic is a reduction and the stage is not");
  if (red) {
    std::vector<Var> x{Var("x", red->type)}, y{Var("y", red->type)};
    std::vector<Expr> xe(x.begin(), x.end()), ye(y.begin(), y.end());
    TIR_USER_CHECK(red->source.size() == 1 && ired->source.size() == 1 &&
                   structural_equal(red->combiner->combine(xe, ye)[0], ired->combiner->combine(xe, ye)[0]))
        << where << ": the stage and the intrinsic reduce with different operations";
    TIR_USER_CHECK(is_const_int(red->condition, 1)) << where << ": conditional reductions cannot be tensorized";
    m.match(simplify(substitute(red->source[0], root_subst)), ired->source[0]);
  } else {
    m.match(simplify(substitute(body[0], root_subst)), ic->body[0]);
  }
  std::vector<Expr> out_intrin_idx;
  for (const IterVar &a : ic->axis) out_intrin_idx.push_back(a.var());
  std::vector<Expr> out_base = m.region_base(out_idx, out_intrin_idx, c->name);

  std::vector<TensorRegion> inputs;
  for (size_t i = 0; i < m.bindings().size(); ++i) {
    const Binding &b = m.bindings()[i];
    TIR_USER_CHECK(b.bound) << where << ": the stage never reads what intrinsic input '" << intrin.inputs[i].name() << "' stands for";
    inputs.push_back(make_region(b.tensor_op, b.value_index, b.name, b.dtype, b.base, intrin.inputs[i].ndim()));
  }
  TensorRegion output = make_region(st.op(), 0, c->name, c->body[0].type(), out_base, ic->axis.size());
  TensorizePlan plan;
  plan.pos = pos;
  plan.body = intrin.body(inputs, output);
  if (intrin.reset) plan.reset = intrin.reset(inputs, output);
  if (intrin.update) plan.update = intrin.update(inputs, output);
  TIR_USER_CHECK(plan.body.defined()) << where << ": the implementation returned no statement";
  return plan;
}

}  // namespace tensorir
