// Long reductions as two passes: partial reductions over fixed-size chunks of the
// flattened iteration space, then the reduction of the partial results.
#include <cstdint>

#include "backends/glsl/fragment/codegen_fragment_emit.h"
#include "tensorir/arith/simplify.h"
#include "tensorir/ir/visitor.h"

namespace tensorir::glsl {

namespace {
Expr extent_product(const ReduceNode *r) {
  Expr total;
  for (const IterVar &ax : r->axis) total = total.defined() ? total * ax.dom().extent : ax.dom().extent;
  return total;
}
}  // namespace

Expr reduction_bound(const ComputeOpNode *op, const ReduceNode *r) {
  VarRanges ranges;
  for (const IterVar &ax : op->axis)
    ranges[ax.var().get()] = Interval{make_zero(ax.var().type()), ax.dom().extent - 1};
  Interval bound = eval_interval(extent_product(r), ranges);
  return bound.has_upper() ? simplify(bound.max) : Expr();
}

ReductionSplit split_reduction(const ComputeOpNode *op, const std::vector<Expr> &bodies, const Expr &bound,
                               int64_t chunk_size) {
  const ReduceNode *r = bodies[0].as<ReduceNode>();
  TIR_ASSERT(r) << op->name << ": split of a compute that is not a reduction";
  ReductionSplit split;
  TIR_ASSERT(chunk_size > 0 && chunk_size <= INT32_MAX) << op->name << ": reduction chunk " << chunk_size;
  const int size = static_cast<int>(chunk_size);
  split.chunks = simplify(floordiv(bound + (size - 1), size));

  // Partial p reduces iterations q = p * chunk + step, step in [0, chunk), q below the
  // element's own iteration count; q gives the reduction axes, the last fastest.
  Var chunk(op->name + ".chunk");
  IterVar step = reduce_axis({0, size}, op->name + ".step");
  Expr q = chunk * size + step.var();
  std::vector<std::pair<Var, Expr>> map;
  Expr rest = q;
  for (size_t j = r->axis.size(); j-- > 0;) {
    const IterVar &ax = r->axis[j];
    Expr within = j == 0 ? rest : floormod(rest, ax.dom().extent);
    map.emplace_back(ax.var(), ax.dom().min + within);
    if (j > 0) rest = floordiv(rest, ax.dom().extent);
  }
  Expr cond = q < extent_product(r);
  if (r->condition.defined()) cond = cond && substitute(r->condition, map);
  std::vector<Expr> sources;
  for (const Expr &s : r->source) sources.push_back(substitute(s, map));
  std::vector<Expr> partial_bodies;
  for (size_t v = 0; v < sources.size(); ++v)
    partial_bodies.push_back(ReduceNode::make(r->combiner, sources, {step}, cond, static_cast<int>(v)));
  std::vector<Expr> shape = op->shape;
  shape.push_back(split.chunks);
  std::vector<Var> vars;
  for (const IterVar &ax : op->axis) vars.push_back(ax.var());
  vars.push_back(chunk);
  split.partial = make_compute_op(shape, op->name + ".partial", "", vars, partial_bodies);

  IterVar over = reduce_axis({0, split.chunks}, op->name + ".chunks");
  std::vector<Expr> index(vars.begin(), vars.end() - 1);
  index.push_back(over.var());
  std::vector<Expr> partials;
  for (size_t v = 0; v < sources.size(); ++v) partials.push_back(split.partial.output(static_cast<int>(v))(index));
  for (size_t v = 0; v < bodies.size(); ++v)
    split.final_bodies.push_back(
        ReduceNode::make(r->combiner, partials, {over}, make_const(Bool(), 1), bodies[v].as<ReduceNode>()->value_index));
  return split;
}

}  // namespace tensorir::glsl
