// dense: data [N, K] times weight [M, K] transposed. On the CPU, blocks of output
// columns accumulate as vectors in a local tile, with any element-wise tail computed
// from that tile.
#include "def_util.h"

namespace tensorir::ops::defs {

namespace {

int first_divisor(int64_t n, std::initializer_list<int> candidates) {
  for (int c : candidates)
    if (n % c == 0) return c;
  return 0;
}

// schedule_dense_llvm with an element-wise tail: where it caches the result in a local
// tile per block of columns, the dense stage itself is that tile, computed inside the
// tail's parallel block loop.
Schedule schedule_dense_with_tail(const Tensor &dense, const Tensor &out) {
  Schedule s = create_schedule({out});
  for (const Stage &st : s.stages()) {
    const auto *c = st.op().as<ComputeOpNode>();
    const Operation &op = st.op();
    if (c && !op.same_as(out.op()) && !op.same_as(dense.op()) && c->reduce_axis.empty()) Stage(st).compute_inline();
  }
  Stage st = s[out];
  Stage d = s[dense];
  const int vec = first_divisor(*as_const_int(out.shape()[1]), {16, 8, 4});
  if (!vec) {
    st.parallel(out.axis(0));
    d.compute_at(st, out.axis(0));
    return s;
  }
  auto [jo, ji] = st.split(out.axis(1), vec);
  IterVar blocks = st.fuse(out.axis(0), jo);
  st.parallel(blocks);
  st.vectorize(ji);
  d.compute_at(st, blocks);
  d->scope = "local";
  d.reorder({dense.axis(0), dense.op().as<ComputeOpNode>()->reduce_axis[0], dense.axis(1)});
  d.vectorize(dense.axis(1));
  return s;
}

void check(const Node &n, const std::vector<const Node *> &in) {
  TIR_USER_CHECK(in[0]->shape.size() == 2 && in[1]->shape.size() == 2 && in[0]->shape[1] == in[1]->shape[1])
      << "input '" << in[0]->name << "' " << shape_str(in[0]->shape) << " and weight '" << in[1]->name << "' "
      << shape_str(in[1]->shape) << " do not fit: dense needs data [N, K] and weight [M, K]";
  check_same_dtypes(n, in);
}

const bool registered = [] {
  OpDef def;
  def.name = "dense";
  def.doc = "data [N, K], weight [M, K] -> [N, M]";
  def.inputs = {"data", "weight"};
  def.pattern = graph::OpPattern::kOutFusable;
  def.check = check;
  def.compute = [](const Node &, const std::vector<Tensor> &in, const std::string &name) {
    return ops::dense(in[0], in[1], name);
  };
  OpStrategy cpu;
  cpu.schedule = [](const ScheduleContext &ctx) {
    return ctx.fused() ? schedule_dense_with_tail(ctx.op, ctx.out) : ops::schedule_dense_llvm(ctx.out);
  };
  on_cpu(def, cpu);
  graph::register_op(std::move(def));
  return true;
}();

}  // namespace

}  // namespace tensorir::ops::defs
