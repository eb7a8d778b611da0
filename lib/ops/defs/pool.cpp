// Pooling over H and W: max_pool2d, avg_pool2d and global_avg_pool2d, on NCHW data or
// channel-blocked NCHW<c>c data (the result blocked alike).
#include "def_util.h"

namespace tensorir::ops::defs {

namespace {

OpDef pool(const std::string &name) {
  OpDef def;
  def.name = name;
  def.inputs = {"x"};
  def.pattern = graph::OpPattern::kReduction;
  def.layout = graph::LayoutRule::kSpatial;
  on_cpu(def, blocked_cpu_strategy());
  return def;
}

std::vector<graph::AttrSpec> window_attrs() {
  std::vector<graph::AttrSpec> attrs = {{"pool_size", AttrType::Ints},
                                        {"strides", AttrType::Ints},
                                        {"padding", AttrType::Ints, std::vector<int64_t>{0, 0}}};
  for (graph::AttrSpec &a : attrs) a.ints_size = 2;
  return attrs;
}

const bool registered = [] {
  OpDef max_pool = pool("max_pool2d");
  max_pool.doc = "the maximum over each window (padding never wins)";
  max_pool.attrs = window_attrs();
  max_pool.compute = [](const Node &n, const std::vector<Tensor> &in, const std::string &name) {
    return ops::max_pool2d(in[0], pair_attr(n, "pool_size"), pair_attr(n, "strides"), pair_attr(n, "padding"), name);
  };
  graph::register_op(std::move(max_pool));

  OpDef avg_pool = pool("avg_pool2d");
  avg_pool.doc = "the mean over each window; count_include_pad divides by the whole window";
  avg_pool.attrs = window_attrs();
  avg_pool.attrs.push_back({"count_include_pad", AttrType::Int, int64_t{1}});
  avg_pool.compute = [](const Node &n, const std::vector<Tensor> &in, const std::string &name) {
    return ops::avg_pool2d(in[0], pair_attr(n, "pool_size"), pair_attr(n, "strides"), pair_attr(n, "padding"),
                           n.attr_int("count_include_pad") != 0, name);
  };
  graph::register_op(std::move(avg_pool));

  OpDef global = pool("global_avg_pool2d");
  global.doc = "the mean over H and W: [N, C, H, W] -> [N, C, 1, 1]";
  global.compute = unary([](const Tensor &x, const std::string &name) { return ops::global_avg_pool2d(x, name); });
  graph::register_op(std::move(global));
  return true;
}();

}  // namespace

}  // namespace tensorir::ops::defs
