// Winograd convolution, what the winograd_conv2d pass makes of a 3x3 stride-1 conv2d on
// the CPU and on "webgl": winograd_weight_transform (G g G^T, folded once into a
// constant) and conv2d_winograd (data, transformed weight) with the element-wise tail
// fused.
#include "def_util.h"
#include "tensorir/autotune/config.h"
#include "tensorir/ops/winograd.h"

namespace tensorir::ops::defs {

namespace {

int tile_attr(const Node &n) {
  const int64_t m = n.attr_int("tile");
  TIR_USER_CHECK(ops::winograd_tile_supported(int(m))) << "tile = " << m << " is not supported; use 2, 4 or 6";
  return int(m);
}

// The output channels of a result layout "NCHW" (0) or "NCHW<b>c" (b).
int out_block(const Node &n) {
  const std::string &l = n.attr_string("out_layout");
  if (l == "NCHW") return 0;
  const bool blocked = l.size() > 5 && l.compare(0, 4, "NCHW") == 0 && l.back() == 'c' &&
                       l.find_first_not_of("0123456789", 4) == l.size() - 1;
  TIR_USER_CHECK(blocked) << "out_layout '" << l << "' must be NCHW or NCHW<b>c";
  return std::stoi(l.substr(4, l.size() - 5));
}

void check_weight(const Node &n, const std::vector<const Node *> &in) {
  tile_attr(n);
  const std::vector<int64_t> &w = in[0]->shape;
  const int64_t K = w.size() == 6 ? w[0] * w[5] : w.empty() ? 0 : w[0], panel = n.attr_int("panel");
  TIR_USER_CHECK(panel >= 0 && (panel == 0 || (K > 0 && K % panel == 0)))
      << "panel = " << panel << " must be 0 (the default) or divide the " << K << " output channels of weight '"
      << in[0]->name << "'";
  TIR_USER_CHECK((w.size() == 4 && w[2] == 3 && w[3] == 3) || (w.size() == 6 && w[2] == 3 && w[3] == 3))
      << "weight '" << in[0]->name << "' must be a 3x3 kernel, OIHW [K][C][3][3] or packed [K/co][C/ci][3][3][ci][co], "
      << "but has shape " << shape_str(w);
}

void check_conv(const Node &n, const std::vector<const Node *> &in) {
  check_same_dtypes(n, in);
  const int m = tile_attr(n);
  const std::vector<int64_t> &d = in[0]->shape, &u = in[1]->shape;
  TIR_USER_CHECK(d.size() == 4 || d.size() == 5)
      << "data '" << in[0]->name << "' must be NCHW or NCHW<c>c but has shape " << shape_str(d);
  TIR_USER_CHECK(u.size() == 5 && u[0] == m + 2 && u[1] == m + 2)
      << "weight '" << in[1]->name << "' " << shape_str(u) << " is not a Winograd weight for tile = " << m
      << ": it needs [" << m + 2 << "][" << m + 2 << "][K/b][C][b] (winograd_weight_transform with tile = " << m
      << ")";
  const int64_t C = d.size() == 5 ? d[1] * d[4] : d[1], K = u[2] * u[4];
  TIR_USER_CHECK(u[3] == C) << "weight '" << in[1]->name << "' has " << u[3] << " input channels but data '"
                            << in[0]->name << "' has " << C;
  const int b = out_block(n);
  TIR_USER_CHECK(b == 0 || K % b == 0)
      << "out_layout '" << n.attr_string("out_layout") << "' does not divide the " << K << " output channels";
}

// A strategy whose schedule takes its knobs as a struct: `knobs(config, target)` asks them
// of the configuration (every fallback without one), `schedule(op, out, target, knobs)`.
template <typename KnobsFn, typename ScheduleFn>
OpStrategy knob_strategy(KnobsFn knobs, ScheduleFn schedule) {
  OpStrategy s;
  s.schedule = [knobs, schedule](const ScheduleContext &ctx) {
    autotune::Config fallback;
    return schedule(ctx.op, ctx.out, ctx.target, knobs(ctx.config ? *ctx.config : fallback, ctx.target));
  };
  return s;
}

const bool registered = [] {
  OpDef weight;
  weight.name = "winograd_weight_transform";
  weight.doc = "G g G^T of a 3x3 weight (OIHW or OIHW<ci>i<co>o) for Winograd F(tile, 3), in panels of b "
               "output channels: [tile+2][tile+2][K/b][C][b]";
  weight.inputs = {"weight"};
  weight.attrs = {{"tile", AttrType::Int, int64_t{4}}, {"panel", AttrType::Int, int64_t{0}}};
  weight.pattern = graph::OpPattern::kOpaque;
  weight.check = check_weight;
  weight.compute = [](const Node &n, const std::vector<Tensor> &in, const std::string &name) {
    return ops::winograd_weight_transform(in[0], tile_attr(n), name, int(n.attr_int("panel")));
  };
  graph::register_op(std::move(weight));

  OpDef conv;
  conv.name = "conv2d_winograd";
  conv.doc = "3x3 stride-1 convolution by Winograd F(tile, 3): data NCHW or NCHW<c>c, weight "
             "[tile+2][tile+2][K/b][C][b] (winograd_weight_transform) -> NCHW or out_layout NCHW<b>c";
  conv.inputs = {"data", "weight"};
  conv.attrs = {{"tile", AttrType::Int, int64_t{4}},
                {"padding", AttrType::Ints, std::vector<int64_t>{1, 1}},
                {"out_layout", AttrType::String, std::string("NCHW")}};
  conv.attrs[1].ints_size = 2;
  conv.pattern = graph::OpPattern::kOutFusable;
  conv.check = check_conv;
  conv.compute = [](const Node &n, const std::vector<Tensor> &in, const std::string &name) {
    return ops::conv2d_winograd(in[0], in[1], pair_attr(n, "padding"), tile_attr(n), out_block(n), name);
  };
  on_cpu(conv, knob_strategy(ops::winograd_schedule_knobs, ops::schedule_conv2d_winograd_llvm));
  on_gpu(conv, knob_strategy(ops::winograd_gpu_knobs, ops::schedule_conv2d_winograd_gpu));
  // Fragment shaders compute the stages in texels of 4 channels where the weight's panel
  // is 4 (the winograd_conv2d pass's on "webgl") and 4 divides the channels; a weight
  // transformed for the CPU keeps the CPU's stages, correct but not in texels.
  OpStrategy webgl;
  webgl.compute = [](const Node &n, const std::vector<Tensor> &in, const std::string &name) {
    constexpr int kTexel = 4;
    const int64_t *panel = as_const_int(in[1].shape()[4]), *C = as_const_int(in[1].shape()[3]);
    const int block = panel && C && *panel == kTexel && *C % kTexel == 0 ? kTexel : 0;
    return ops::conv2d_winograd(in[0], in[1], pair_attr(n, "padding"), tile_attr(n), out_block(n), name, block);
  };
  webgl.schedule = [](const ScheduleContext &ctx) {
    return ops::schedule_conv2d_winograd_fragment(ctx.op, ctx.out, ctx.target, ctx.config);
  };
  conv.strategies["webgl"] = webgl;
  graph::register_op(std::move(conv));
  return true;
}();

}  // namespace

}  // namespace tensorir::ops::defs
