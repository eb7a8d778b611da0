// Reductions: reduce_sum ... reduce_log_sum_exp over a set of axes, argmax and argmin
// (int64 results), layer_norm, and batch_matmul (both operands computed, leading
// dimensions broadcast). On the CPU the outer loop of each stage runs in parallel.
#include "def_util.h"

namespace tensorir::ops::defs {

namespace {

std::vector<int> int_list(const std::vector<int64_t> &v) { return std::vector<int>(v.begin(), v.end()); }

OpStrategy reduce_cpu_strategy() {
  OpStrategy s;
  s.schedule = [](const ScheduleContext &ctx) { return ops::schedule_reduce_llvm(ctx.out); };
  return s;
}

OpDef reduction(const std::string &name, std::vector<std::string> inputs) {
  OpDef def;
  def.name = name;
  def.inputs = std::move(inputs);
  def.pattern = graph::OpPattern::kReduction;
  on_cpu(def, reduce_cpu_strategy());
  return def;
}

void check_float(const Node &, const std::vector<const Node *> &in) {
  TIR_USER_CHECK(in[0]->dtype.is_float())
      << "input '" << in[0]->name << "' is " << in[0]->dtype << "; this operator takes float tensors";
}

void check_numeric(const Node &, const std::vector<const Node *> &in) {
  TIR_USER_CHECK(!in[0]->dtype.is_bool()) << "input '" << in[0]->name << "' is bool; this operator takes numbers";
}

void register_reduce(const std::string &kind, const std::string &doc, bool float_only) {
  OpDef def = reduction("reduce_" + kind, {"x"});
  def.doc = doc + " over `axes` (empty: all); keepdims = 1 keeps them as 1, else they are dropped";
  def.attrs = {{"axes", AttrType::Ints, std::vector<int64_t>{}}, {"keepdims", AttrType::Int, int64_t{0}}};
  def.check = float_only ? check_float : check_numeric;
  def.compute = [kind](const Node &n, const std::vector<Tensor> &in, const std::string &name) {
    return ops::reduce(in[0], kind, int_list(n.attr_ints("axes")), n.attr_int("keepdims") != 0, name);
  };
  graph::register_op(std::move(def));
}

void register_arg(const std::string &name, bool is_max) {
  OpDef def = reduction(name, {"x"});
  def.doc = std::string("the index of the ") + (is_max ? "largest" : "smallest") +
            " element along `axis`: the first (select_last = 0) or the last; keepdims = 1 keeps the axis as 1; "
            "index_dtype is the result's type (int64; float32 where a target stores only floats)";
  def.attrs = {{"axis", AttrType::Int, int64_t{0}},
               {"keepdims", AttrType::Int, int64_t{1}},
               {"select_last", AttrType::Int, int64_t{0}},
               {"index_dtype", AttrType::String, std::string("int64")}};
  def.check = check_numeric;
  def.compute = [is_max](const Node &n, const std::vector<Tensor> &in, const std::string &out) {
    return ops::arg_reduce(in[0], static_cast<int>(n.attr_int("axis")), n.attr_int("keepdims") != 0,
                           n.attr_int("select_last") != 0, is_max, out, Type::parse(n.attr_string("index_dtype")));
  };
  graph::register_op(std::move(def));
}

const bool registered = [] {
  register_reduce("sum", "the sum", false);
  register_reduce("mean", "the mean", true);
  register_reduce("max", "the largest element", false);
  register_reduce("min", "the smallest element", false);
  register_reduce("prod", "the product", false);
  register_reduce("l1", "the sum of |x|", false);
  register_reduce("l2", "the square root of the sum of squares", true);
  register_reduce("sum_square", "the sum of squares", false);
  register_reduce("log_sum", "the log of the sum", true);
  register_reduce("log_sum_exp", "log(sum(exp(x))), computed as max + log(sum(exp(x - max)))", true);
  register_arg("argmax", true);
  register_arg("argmin", false);

  OpDef ln = reduction("layer_norm", {"x", "scale", "bias"});
  ln.doc = "(x - mean) / sqrt(var + eps) * scale + bias, mean and variance over the dimensions from `axis` on";
  ln.attrs = {{"axis", AttrType::Int, int64_t{-1}}, {"eps", AttrType::Real, 1e-5}};
  ln.check = [](const Node &n, const std::vector<const Node *> &in) {
    check_float(n, in);
    check_same_dtypes(n, in);
  };
  ln.compute = [](const Node &n, const std::vector<Tensor> &in, const std::string &name) {
    return ops::layer_norm(in[0], in[1], in[2], static_cast<int>(n.attr_int("axis")), n.attr_double("eps"), name);
  };
  OpStrategy ln_cpu;
  ln_cpu.schedule = [](const ScheduleContext &ctx) { return ops::schedule_layer_norm_llvm(ctx.out); };
  on_cpu(ln, ln_cpu);
  graph::register_op(std::move(ln));

  OpDef bmm = reduction("batch_matmul", {"a", "b"});
  bmm.doc = "a [..., M, K] times b [..., K, N] -> [..., M, N], the leading dimensions broadcast as NumPy does";
  bmm.check = [](const Node &n, const std::vector<const Node *> &in) {
    check_numeric(n, in);
    check_same_dtypes(n, in);
    TIR_USER_CHECK(in[0]->shape.size() >= 2 && in[1]->shape.size() >= 2 &&
                   in[0]->shape.back() == in[1]->shape[in[1]->shape.size() - 2])
        << "input '" << in[0]->name << "' " << shape_str(in[0]->shape) << " and '" << in[1]->name << "' "
        << shape_str(in[1]->shape) << " do not fit: batch_matmul needs [..., M, K] and [..., K, N]";
  };
  bmm.compute = [](const Node &, const std::vector<Tensor> &in, const std::string &name) {
    return ops::batch_matmul(in[0], in[1], name);
  };
  OpStrategy bmm_cpu;
  bmm_cpu.schedule = [](const ScheduleContext &ctx) { return ops::schedule_batch_matmul_llvm(ctx.out, ctx.config, ctx.target); };
  on_cpu(bmm, bmm_cpu);
  on_gpu(bmm, gpu_strategy(ops::schedule_matmul_gpu));
  on_webgl(bmm);
  graph::register_op(std::move(bmm));
  return true;
}();

}  // namespace

}  // namespace tensorir::ops::defs
