// 2-D convolution: the direct NCHW form (with groups) and the channel-blocked form.
#include "op_util.h"
#include "tensorir/ops/nn.h"
#include "tensorir/ops/transform.h"

namespace tensorir::ops {

using namespace detail;

namespace {

struct ConvShape {
  int64_t N, C, H, W, K, R, S, OH, OW;
};

// Validates data, weight and attributes; returns the sizes.
ConvShape check_conv(const Tensor &data, const Tensor &weight, const Conv2dAttrs &a, const std::string &op) {
  check_ndim(data, 4, op, "NCHW");
  check_ndim(weight, 4, op, "OIHW");
  check_same_dtype(data, weight, op);
  const std::vector<int64_t> d = const_shape(data, op), w = const_shape(weight, op);
  for (int i = 0; i < 2; ++i) {
    TIR_USER_CHECK(a.strides[i] > 0 && a.dilation[i] > 0)
        << op << ": strides and dilation must be positive (got strides " << a.strides[0] << "x" << a.strides[1]
        << ", dilation " << a.dilation[0] << "x" << a.dilation[1] << ")";
    TIR_USER_CHECK(a.padding[i] >= 0) << op << ": padding must not be negative";
  }
  TIR_USER_CHECK(a.groups >= 1) << op << ": groups must be at least 1, got " << a.groups;
  TIR_USER_CHECK(d[1] % a.groups == 0) << op << ": data " << data.name() << " has " << d[1]
                                       << " channels, which groups = " << a.groups << " does not divide";
  TIR_USER_CHECK(w[0] % a.groups == 0) << op << ": weight " << weight.name() << " has " << w[0]
                                       << " output channels, which groups = " << a.groups << " does not divide";
  TIR_USER_CHECK(w[1] == d[1] / a.groups)
      << op << ": weight " << weight.name() << " has " << w[1] << " input channels (dimension 1) but data "
      << data.name() << " has " << d[1] << " channels / groups " << a.groups << " = " << d[1] / a.groups;
  ConvShape s{d[0], d[1], d[2], d[3], w[0], w[2], w[3], 0, 0};
  s.OH = (s.H + 2 * a.padding[0] - a.dilation[0] * (s.R - 1) - 1) / a.strides[0] + 1;
  s.OW = (s.W + 2 * a.padding[1] - a.dilation[1] * (s.S - 1) - 1) / a.strides[1] + 1;
  TIR_USER_CHECK(s.OH > 0 && s.OW > 0) << op << ": the kernel of " << weight.name() << " (" << s.R << "x" << s.S
                                       << ", dilation " << a.dilation[0] << "x" << a.dilation[1]
                                       << ") is larger than the padded input " << data.name();
  return s;
}

// The largest of 16, 8, 4, 2, 1 that divides n, or n itself when n is at most 16.
int channel_block(int64_t n) {
  if (n <= 16) return static_cast<int>(n);
  for (int b : {16, 8, 4, 2})
    if (n % b == 0) return b;
  return 1;
}

}  // namespace

Tensor conv2d(const Tensor &data, const Tensor &weight, const Conv2dAttrs &a, const std::string &name) {
  const ConvShape s = check_conv(data, weight, a, "conv2d");
  const int ph = a.padding[0], pw = a.padding[1];
  Tensor P = ph || pw ? pad(data, {0, 0, ph, pw}, {0, 0, ph, pw}, 0.0, name + "_pad") : data;
  const int cg = static_cast<int>(s.C / a.groups), kg = static_cast<int>(s.K / a.groups);
  const int sh = a.strides[0], sw = a.strides[1], dh = a.dilation[0], dw = a.dilation[1];
  IterVar rc = reduce_axis({0, cg}, "rc"), ry = reduce_axis({0, static_cast<int>(s.R)}, "ry"),
          rx = reduce_axis({0, static_cast<int>(s.S)}, "rx");
  return compute(
      to_exprs({s.N, s.K, s.OH, s.OW}),
      [&](Var n, Var k, Var y, Var x) {
        Expr c = a.groups == 1 ? Expr(rc) : (k / kg) * cg + rc;
        return sum(P(n, c, y * sh + ry * dh, x * sw + rx * dw) * weight(k, rc, ry, rx), {rc, ry, rx});
      },
      name, "conv2d");
}

Tensor conv2d_nchwc(const Tensor &data, const Tensor &weight, const Conv2dAttrs &a, const std::string &name) {
  const ConvShape s = check_conv(data, weight, a, "conv2d_nchwc");
  TIR_USER_CHECK(a.groups == 1) << "conv2d_nchwc: groups = " << a.groups
                                << " is not supported; use conv2d for grouped and depthwise convolutions";
  const int ci = channel_block(s.C), co = channel_block(s.K);
  const int ph = a.padding[0], pw = a.padding[1], H = static_cast<int>(s.H), W = static_cast<int>(s.W);
  const int sh = a.strides[0], sw = a.strides[1], dh = a.dilation[0], dw = a.dilation[1];
  const Type t = data.dtype();
  // Padded input, ci channels innermost.
  Tensor IP = compute(
      to_exprs({s.N, s.C / ci, s.H + 2 * ph, s.W + 2 * pw, ci}),
      [&](Var n, Var cb, Var h, Var w, Var c) {
        Expr read = data(n, cb * ci + c, clamp_index(h - ph, H), clamp_index(w - pw, W));
        if (!ph && !pw) return read;
        return select(h >= ph && h < H + ph && w >= pw && w < W + pw, read, make_const(t, 0));
      },
      name + "_input_nchwc", "conv2d_nchwc_input");
  // Weights [K/co][C/ci][R][S][ci][co]: a vector of co output channels per input channel.
  Tensor WP = compute(
      to_exprs({s.K / co, s.C / ci, s.R, s.S, ci, co}),
      [&](const std::vector<Var> &v) { return weight(v[0] * co + v[5], v[1] * ci + v[4], v[2], v[3]); },
      name + "_weight_nchwc", "conv2d_nchwc_weight");
  IterVar icb = reduce_axis({0, static_cast<int>(s.C / ci)}, "icb"), ici = reduce_axis({0, ci}, "ici");
  IterVar ry = reduce_axis({0, static_cast<int>(s.R)}, "ry"), rx = reduce_axis({0, static_cast<int>(s.S)}, "rx");
  Tensor OB = compute(
      to_exprs({s.N, s.K / co, s.OH, s.OW, co}),
      [&](Var n, Var ob, Var y, Var x, Var o) {
        return sum(IP(n, icb, y * sh + ry * dh, x * sw + rx * dw, ici) * WP(ob, icb, ry, rx, ici, o),
                   {icb, ry, rx, ici});
      },
      name + "_nchwc", "conv2d_nchwc_block");
  return compute(
      to_exprs({s.N, s.K, s.OH, s.OW}), [&](Var n, Var k, Var y, Var x) { return OB(n, k / co, y, x, k % co); },
      name, "conv2d_nchwc");
}

}  // namespace tensorir::ops
