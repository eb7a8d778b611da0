// dense: data [N, K] times weight [M, K] transposed. On the CPU, blocks of output
// columns accumulate as vectors in a local tile, with any element-wise tail computed
// from that tile. dense_packed: the same with the weight packed in panels of columns
// (graph::alter_dense_layout), in register blocks.
#include "def_util.h"

namespace tensorir::ops::defs {

namespace {

void check(const Node &n, const std::vector<const Node *> &in) {
  TIR_USER_CHECK(in[0]->shape.size() == 2 && in[1]->shape.size() == 2 && in[0]->shape[1] == in[1]->shape[1])
      << "input '" << in[0]->name << "' " << shape_str(in[0]->shape) << " and weight '" << in[1]->name << "' "
      << shape_str(in[1]->shape) << " do not fit: dense needs data [N, K] and weight [M, K]";
  check_same_dtypes(n, in);
}

void check_packed(const Node &n, const std::vector<const Node *> &in) {
  TIR_USER_CHECK(in[0]->shape.size() == 2 && in[1]->shape.size() == 3 && in[0]->shape[1] == in[1]->shape[1])
      << "input '" << in[0]->name << "' " << shape_str(in[0]->shape) << " and weight '" << in[1]->name << "' "
      << shape_str(in[1]->shape) << " do not fit: dense_packed needs data [N, K] and weight [M / b, K, b]";
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
    return ctx.fused() ? ops::schedule_dense_llvm(ctx.op, ctx.out, ctx.config)
                       : ops::schedule_dense_llvm(ctx.out, ctx.config);
  };
  on_cpu(def, cpu);
  on_gpu(def, gpu_strategy(ops::schedule_matmul_gpu));
  on_webgl(def);
  graph::register_op(std::move(def));

  // What alter_dense_layout makes of a dense with a constant weight on the CPU.
  OpDef packed;
  packed.name = "dense_packed";
  packed.doc = "data [N, K], weight packed [M / b, K, b] (packed[j / b][k][j % b] = weight[j][k]) -> [N, M]";
  packed.inputs = {"data", "weight"};
  packed.pattern = graph::OpPattern::kOutFusable;
  packed.check = check_packed;
  packed.compute = [](const Node &, const std::vector<Tensor> &in, const std::string &name) {
    return ops::dense_packed(in[0], in[1], name);
  };
  OpStrategy packed_cpu;
  packed_cpu.schedule = [](const ScheduleContext &ctx) {
    return ops::schedule_dense_packed_llvm(ctx.op, ctx.out, ctx.target, ctx.config);
  };
  on_cpu(packed, packed_cpu);
  graph::register_op(std::move(packed));
  return true;
}();

}  // namespace

}  // namespace tensorir::ops::defs
