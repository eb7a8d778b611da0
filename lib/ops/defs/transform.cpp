// Data movement: flatten, layout_transform (channel blocks, packed weights), softmax and
// log_softmax.
#include "def_util.h"

namespace tensorir::ops::defs {

namespace {

OpStrategy softmax_cpu_strategy() {
  OpStrategy s;
  s.schedule = [](const ScheduleContext &ctx) { return ops::schedule_softmax_llvm(ctx.out); };
  return s;
}

const bool registered = [] {
  OpDef flatten;
  flatten.name = "flatten";
  flatten.doc = "[N, ...] -> [N, product of the rest]";
  flatten.inputs = {"x"};
  flatten.pattern = graph::OpPattern::kInjective;
  flatten.compute = unary([](const Tensor &x, const std::string &name) { return ops::flatten(x, name); });
  on_cpu(flatten, blocked_cpu_strategy());
  graph::register_op(std::move(flatten));

  OpDef lt;
  lt.name = "layout_transform";
  lt.doc = "between NCHW and NCHW<c>c, or OIHW and OIHW<i>i<o>o; pad = 1 pads channels to whole blocks";
  lt.inputs = {"x"};
  lt.attrs = {{"src_layout", AttrType::String}, {"dst_layout", AttrType::String}, {"pad", AttrType::Int, int64_t{0}}};
  lt.pattern = graph::OpPattern::kInjective;
  lt.compute = [](const Node &n, const std::vector<Tensor> &in, const std::string &name) {
    const std::string &src = n.attr_string("src_layout"), &dst = n.attr_string("dst_layout");
    return n.attr_int("pad") != 0 ? ops::layout_transform_pad(in[0], src, dst, name)
                                  : ops::layout_transform(in[0], src, dst, name);
  };
  on_cpu(lt, blocked_cpu_strategy());
  graph::register_op(std::move(lt));

  OpDef softmax;
  softmax.name = "softmax";
  softmax.doc = "exp(x) / sum(exp(x)) along `axis` (negative counts from the end)";
  softmax.inputs = {"x"};
  softmax.attrs = {{"axis", AttrType::Int, int64_t{-1}}};
  softmax.pattern = graph::OpPattern::kReduction;
  softmax.compute = [](const Node &n, const std::vector<Tensor> &in, const std::string &name) {
    return ops::softmax(in[0], static_cast<int>(n.attr_int("axis")), name);
  };
  on_cpu(softmax, softmax_cpu_strategy());
  graph::register_op(std::move(softmax));

  OpDef log_softmax;
  log_softmax.name = "log_softmax";
  log_softmax.doc = "log(softmax(x)) along `axis`, computed as x - max - log(sum(exp(x - max)))";
  log_softmax.inputs = {"x"};
  log_softmax.attrs = {{"axis", AttrType::Int, int64_t{-1}}};
  log_softmax.pattern = graph::OpPattern::kReduction;
  log_softmax.compute = [](const Node &n, const std::vector<Tensor> &in, const std::string &name) {
    return ops::log_softmax(in[0], static_cast<int>(n.attr_int("axis")), name);
  };
  on_cpu(log_softmax, softmax_cpu_strategy());
  graph::register_op(std::move(log_softmax));
  return true;
}();

}  // namespace

}  // namespace tensorir::ops::defs
