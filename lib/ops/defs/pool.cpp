// Pooling over H and W: max_pool2d, avg_pool2d and global_avg_pool2d, on NCHW data or
// channel-blocked NCHW<c>c data (the result blocked alike). pool_nd and max_pool_indices
// pool over 1 to 3 spatial dimensions with pads per side and dilation.
#include "../op_util.h"
#include "def_util.h"

namespace tensorir::ops::defs {

namespace {

OpDef pool(const std::string &name) {
  OpDef def;
  def.name = name;
  def.inputs = {"x"};
  def.pattern = graph::OpPattern::kReduction;
  def.layout = graph::LayoutRule::kSpatial;
  // As blocked_cpu_strategy, with the schedule's knobs.
  OpStrategy cpu;
  cpu.schedule = [](const ScheduleContext &ctx) { return ops::schedule_blocked_llvm(ctx.out, ctx.config); };
  on_cpu(def, cpu);
  on_gpu(def, pool_gpu_strategy());
  on_webgl(def);
  return def;
}

std::vector<graph::AttrSpec> window_attrs() {
  std::vector<graph::AttrSpec> attrs = {{"pool_size", AttrType::Ints},
                                        {"strides", AttrType::Ints},
                                        {"padding", AttrType::Ints, std::vector<int64_t>{0, 0}}};
  for (graph::AttrSpec &a : attrs) a.ints_size = 2;
  return attrs;
}

using detail::const_shape;

std::vector<int64_t> spatial_of(const std::vector<int64_t> &s) { return {s.begin() + 2, s.end()}; }

NdWindow pool_window(const Node &n) { return nd_window(n, n.attr_ints("kernel")); }

// [N, C] followed by the window's output extents over x's spatial ones.
std::vector<int64_t> pooled_shape(const std::vector<int64_t> &xs, const NdWindow &w) {
  std::vector<int64_t> out = {xs[0], xs[1]}, o = w.out(spatial_of(xs));
  out.insert(out.end(), o.begin(), o.end());
  return out;
}

// The unpadded input's position in spatial dimension i that output index v reads at
// window offset ri.
Expr window_pos(const std::vector<Var> &v, Expr ri, const NdWindow &w, size_t i) {
  return v[2 + i] * int(w.strides[i]) - int(w.before[i]) + ri * int(w.dilation[i]);
}

void check_pool(const Node &n, const std::vector<const Node *> &in) {
  const std::vector<int64_t> &xs = in[0]->shape;
  const NdWindow w = pool_window(n);
  TIR_USER_CHECK(w.rank() >= 1 && w.rank() <= 3 && xs.size() == w.rank() + 2)
      << "input '" << in[0]->name << "' of shape " << shape_str(xs) << " does not fit a " << w.rank()
      << "-D window (1 to 3 spatial dimensions after N and C)";
  for (int64_t o : w.out(spatial_of(xs))) TIR_USER_CHECK(o >= 1) << "the window is larger than the padded input";
  if (n.op == "pool_nd") {
    const std::string &r = n.attr_string("reduction");
    TIR_USER_CHECK(r == "max" || r == "sum") << "reduction '" << r << "' is neither max nor sum";
  }
}

// The maximum or the sum over each window; padding never wins a maximum and adds 0.
Tensor pool_nd(const Node &n, const Tensor &x, const std::string &name) {
  const NdWindow w = pool_window(n);
  const bool is_max = n.attr_string("reduction") == "max";
  Tensor P = pad_window(x, w, is_max ? min_value(x.dtype()) : make_const(x.dtype(), 0), name + "_pad");
  const std::vector<IterVar> r = window_axes(w);
  return compute(
      detail::to_exprs(pooled_shape(const_shape(x, "pool_nd"), w)),
      [&](const std::vector<Var> &v) {
        Expr e = P(window_read(v, v[1], r, w));
        return is_max ? max(e, r) : sum(e, r);
      },
      name, "pool_nd");
}

// The flattened int64 index into x of each window's maximum: the first in the window's
// row-major order among elements inside x; spatial positions flattened row-major, or
// column-major with `column_major`, after the (N, C) offset.
Tensor max_pool_indices(const Node &n, const Tensor &x, const std::string &name) {
  const NdWindow w = pool_window(n);
  const std::vector<int64_t> xs = const_shape(x, "max_pool_indices"), in = spatial_of(xs);
  const std::vector<Expr> out = detail::to_exprs(pooled_shape(xs, w));
  Tensor P = pad_window(x, w, min_value(x.dtype()), name + "_pad");
  std::vector<IterVar> r = window_axes(w);
  Tensor M = compute(
      out, [&](const std::vector<Var> &v) { return max(P(window_read(v, v[1], r, w)), r); }, name + "_max", "pool_nd");
  int64_t window_size = 1;
  for (int64_t k : w.kernel) window_size *= k;
  r = window_axes(w);
  Tensor first = compute(
      out,
      [&](const std::vector<Var> &v) {
        Expr offset = make_const(Int(32), 0), inside;
        for (size_t i = 0; i < w.rank(); ++i) {
          offset = offset * int(w.kernel[i]) + r[i]->var;
          Expr pos = window_pos(v, r[i]->var, w, i), ok = pos >= 0 && pos < int(in[i]);
          inside = inside.defined() ? inside && ok : ok;
        }
        Expr hit = inside && detail::is_extreme(P(window_read(v, v[1], r, w)), M(std::vector<Expr>(v.begin(), v.end())));
        return min(select(hit, offset, make_const(Int(32), int(window_size))), r);
      },
      name + "_first", "max_pool_first");
  const bool column_major = n.attr_int("storage_order") != 0;
  return compute(
      out,
      [&](const std::vector<Var> &v) {
        const Expr f = first(std::vector<Expr>(v.begin(), v.end()));
        auto i64 = [](Expr e) { return cast(Int(64), e); };
        Expr flat = i64(v[0]) * make_const(Int(64), xs[1]) + i64(v[1]), spatial = make_const(Int(64), 0);
        int64_t inner = window_size;  // window offsets per step of offset i
        int64_t stride = 1;           // column-major: elements per step of position i
        for (size_t i = 0; i < w.rank(); ++i) {
          inner /= w.kernel[i];
          Expr pos = i64(window_pos(v, f / int(inner) % int(w.kernel[i]), w, i));
          const Expr extent = make_const(Int(64), in[i]);
          flat = flat * extent;
          spatial = column_major ? spatial + pos * make_const(Int(64), stride) : spatial * extent + pos;
          stride *= in[i];
        }
        return flat + spatial;
      },
      name, detail::kInjective);
}

std::vector<graph::AttrSpec> nd_window_attrs() {
  return {{"kernel", AttrType::Ints},
          {"strides", AttrType::Ints},
          {"dilation", AttrType::Ints},
          {"pads", AttrType::Ints, std::nullopt, "k values before each spatial dimension, then k after"}};
}

OpDef nd_pool(const std::string &name) {
  OpDef def;
  def.name = name;
  def.inputs = {"x"};
  def.pattern = graph::OpPattern::kReduction;
  def.check = check_pool;
  OpStrategy cpu;
  cpu.schedule = [](const ScheduleContext &ctx) { return ops::schedule_reduce_llvm(ctx.out); };
  on_cpu(def, cpu);
  on_gpu(def, pool_gpu_strategy());
  on_webgl(def);
  return def;
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

  OpDef nd = nd_pool("pool_nd");
  nd.doc = "the maximum or the sum over windows of [N, C, d1 .. dk], k from 1 to 3, padded per side (a maximum "
           "never takes the padding)";
  nd.attrs = nd_window_attrs();
  nd.attrs.push_back({"reduction", AttrType::String, std::string("max"), "max or sum"});
  nd.compute = [](const Node &n, const std::vector<Tensor> &in, const std::string &name) {
    return pool_nd(n, in[0], name);
  };
  graph::register_op(std::move(nd));

  OpDef indices = nd_pool("max_pool_indices");
  indices.doc = "the int64 flattened index into x of each window's maximum, as pool_nd's windows (the first in "
                "the window's order on ties); storage_order 1 flattens the spatial dimensions column-major";
  indices.attrs = nd_window_attrs();
  indices.attrs.push_back({"storage_order", AttrType::Int, int64_t{0}});
  indices.compute = [](const Node &n, const std::vector<Tensor> &in, const std::string &name) {
    return max_pool_indices(n, in[0], name);
  };
  graph::register_op(std::move(indices));
  return true;
}();

}  // namespace

}  // namespace tensorir::ops::defs
