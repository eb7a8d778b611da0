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

namespace {

// The result [N][K][OH][OW] (`out_block` 0) or [N][K/out_block][OH][OW][out_block] of
// `read`(n, block of co, y, x, channel in it): channels regrouped from blocks of co.
template <typename Read>
Tensor regrouped(const ConvShape &s, int co, int out_block, Read read, const std::string &name,
                 const std::string &tag) {
  if (out_block)
    return compute(
        to_exprs({s.N, s.K / out_block, s.OH, s.OW, out_block}),
        [&](Var n, Var b, Var y, Var x, Var o) {
          Expr k = b * out_block + o;
          return read(n, k / co, y, x, k % co);
        },
        name, tag);
  return compute(
      to_exprs({s.N, s.K, s.OH, s.OW}), [&](Var n, Var k, Var y, Var x) { return read(n, k / co, y, x, k % co); },
      name, tag);
}

// The copy of the blocked result OB [N][K'/co][OH][OW][co] (K' >= K: whole vectors of
// output channels, the padding dropped here) as NCHW or, with `out_block`, as
// NCHW<out_block>c, where out_block divides co: the stage schedule_conv2d_llvm
// parallelises and fuses the element-wise tail into.
Tensor blocked_result(const Tensor &OB, const ConvShape &s, int co, int out_block, const std::string &name) {
  if (out_block == co)
    return compute(
        OB.shape(), [&](const std::vector<Var> &v) { return OB(v[0], v[1], v[2], v[3], v[4]); }, name,
        "conv2d_nchwc");
  return regrouped(
      s, co, out_block, [&](Var n, Expr b, Var y, Var x, Expr o) { return OB(n, b, y, x, o); }, name, "conv2d_nchwc");
}

// The blocked convolution from the padded blocked input IP [N][C/ci][H + 2ph][W + 2pw][ci]
// (or the unpadded input when there is no padding) and the packed weights WP
// [K'/co][C/ci][R][S][ci][co]: OB [N][K'/co][OH][OW][co], then blocked_result's copy of it.
Tensor blocked_conv(const Tensor &IP, const Tensor &WP, const ConvShape &s, int co, const Conv2dAttrs &a,
                    int out_block, const std::string &name) {
  const int ci = static_cast<int>(*as_const_int(WP.shape()[4]));
  const int sh = a.strides[0], sw = a.strides[1], dh = a.dilation[0], dw = a.dilation[1];
  IterVar icb = reduce_axis({0, static_cast<int>(s.C / ci)}, "icb"), ici = reduce_axis({0, ci}, "ici");
  IterVar ry = reduce_axis({0, static_cast<int>(s.R)}, "ry"), rx = reduce_axis({0, static_cast<int>(s.S)}, "rx");
  const int64_t blocks = *as_const_int(WP.shape()[0]);  // of co output channels, padding included
  Tensor OB = compute(
      to_exprs({s.N, blocks, s.OH, s.OW, co}),
      [&](Var n, Var ob, Var y, Var x, Var o) {
        return sum(IP(n, icb, y * sh + ry * dh, x * sw + rx * dw, ici) * WP(ob, icb, ry, rx, ici, o),
                   {icb, ry, rx, ici});
      },
      name + "_nchwc", "conv2d_nchwc_block");
  return blocked_result(OB, s, co, out_block, name);
}

// The input padded and in blocks of ci channels: from NCHW `data` (`blocked` false) or
// from blocked [N][C/ci][H][W][ci] `data`, which without padding is used as it is.
Tensor pack_input(const Tensor &data, bool blocked, const ConvShape &s, int ci, const Conv2dAttrs &a,
                  const std::string &name) {
  const int ph = a.padding[0], pw = a.padding[1], H = static_cast<int>(s.H), W = static_cast<int>(s.W);
  if (blocked && !ph && !pw) return data;
  const Type t = data.dtype();
  return compute(
      to_exprs({s.N, s.C / ci, s.H + 2 * ph, s.W + 2 * pw, ci}),
      [&](Var n, Var cb, Var h, Var w, Var c) {
        Expr y = clamp_index(h - ph, H), x = clamp_index(w - pw, W);
        Expr read = blocked ? data(n, cb, y, x, c) : data(n, cb * ci + c, y, x);
        if (!ph && !pw) return read;
        return select(h >= ph && h < H + ph && w >= pw && w < W + pw, read, make_const(t, 0));
      },
      name + "_input_nchwc", "conv2d_nchwc_input");
}

}  // namespace

int conv2d_channel_block(int64_t channels) {
  TIR_USER_CHECK(channels > 0) << "conv2d_channel_block: channels must be positive, got " << channels;
  return channel_block(channels);
}

int conv2d_compute_block(int64_t out_channels, int vector_lanes) {
  const int co = conv2d_channel_block(out_channels);
  // More than one vector's channels: 8 alone would waste half the lanes.
  const bool wide = vector_lanes >= 16 && co * 2 == vector_lanes && out_channels > vector_lanes;
  return wide ? vector_lanes : co;
}

Tensor conv2d_nchwc(const Tensor &data, const Tensor &weight, const Conv2dAttrs &a, const std::string &name) {
  const ConvShape s = check_conv(data, weight, a, "conv2d_nchwc");
  TIR_USER_CHECK(a.groups == 1) << "conv2d_nchwc: groups = " << a.groups
                                << " is not supported; use conv2d for grouped and depthwise convolutions";
  const int ci = channel_block(s.C), co = channel_block(s.K);
  Tensor IP = pack_input(data, false, s, ci, a, name);
  // Weights [K/co][C/ci][R][S][ci][co]: a vector of co output channels per input channel.
  Tensor WP = compute(
      to_exprs({s.K / co, s.C / ci, s.R, s.S, ci, co}),
      [&](const std::vector<Var> &v) { return weight(v[0] * co + v[5], v[1] * ci + v[4], v[2], v[3]); },
      name + "_weight_nchwc", "conv2d_nchwc_weight");
  return blocked_conv(IP, WP, s, co, a, 0, name);
}

namespace {

// The sizes of a convolution from packed weights, checked as the unblocked convolution
// checks them (the weight's input channels against the data's among them).
struct PackedShape {
  ConvShape s;
  int ci, co;
  bool blocked;   // data NCHW<ci>c, else NCHW
  int out_block;  // of a blocked result: co, or for out_channels conv2d_channel_block's
};

PackedShape check_packed(const Tensor &data, const Tensor &weight, const Conv2dAttrs &a, const std::string &op) {
  TIR_USER_CHECK(a.groups == 1) << op << ": groups = " << a.groups
                                << " is not supported; use conv2d for grouped and depthwise convolutions";
  check_ndim(weight, 6, op, "OIHW<ci>i<co>o, [K/co][C/ci][R][S][ci][co]");
  TIR_USER_CHECK(data.ndim() == 4 || data.ndim() == 5)
      << op << ": data " << data.name() << " must be NCHW (4 dimensions) or NCHW<ci>c (5 dimensions) but has "
      << data.ndim() << " dimensions";
  const std::vector<int64_t> d = const_shape(data, op), w = const_shape(weight, op);
  const bool blocked = d.size() == 5;
  const int64_t ci = w[4], co = w[5];
  TIR_USER_CHECK(!blocked || d[4] == ci) << op << ": data " << data.name() << " " << shape_str(d)
                                         << " has channel blocks of " << d[4] << " but weight " << weight.name()
                                         << " " << shape_str(w) << " has input blocks of " << ci;
  const int64_t C = blocked ? d[1] * d[4] : d[1];
  const Tensor data4 = placeholder(to_exprs({d[0], C, d[2], d[3]}), data.dtype(), data.name());
  const Tensor weight4 = placeholder(to_exprs({w[0] * co, w[1] * ci, w[2], w[3]}), weight.dtype(), weight.name());
  PackedShape p{check_conv(data4, weight4, a, op), static_cast<int>(ci), static_cast<int>(co), blocked,
                static_cast<int>(co)};
  if (a.out_channels) {
    TIR_USER_CHECK(a.out_channels > p.s.K - co && a.out_channels <= p.s.K)
        << op << ": out_channels = " << a.out_channels << " but weight " << weight.name() << " " << shape_str(w)
        << " holds " << p.s.K << " output channels in blocks of " << co << " (out_channels must be more than "
        << p.s.K - co << ", the rest zero padding)";
    p.s.K = a.out_channels;
    p.out_block = channel_block(a.out_channels);
    TIR_USER_CHECK(co % p.out_block == 0) << op << ": the result's blocks of " << p.out_block << " channels (of "
                                          << a.out_channels << ") do not divide the weight's blocks of " << co;
  }
  return p;
}

}  // namespace

Tensor conv2d_nchwc_packed(const Tensor &data, const Tensor &weight, const Conv2dAttrs &a, bool blocked_out,
                           const std::string &name) {
  const PackedShape p = check_packed(data, weight, a, "conv2d_nchwc_packed");
  Tensor IP = pack_input(data, p.blocked, p.s, p.ci, a, name);
  return blocked_conv(IP, weight, p.s, p.co, a, blocked_out ? p.out_block : 0, name);
}

Tensor depthwise_conv2d_nchwc_packed(const Tensor &data, const Tensor &weight, const Conv2dAttrs &a, bool blocked_out,
                                     const std::string &name) {
  const std::string op = "depthwise_conv2d_nchwc_packed";
  check_ndim(data, 5, op, "NCHW<c>c, [N][C/c][H][W][c]");
  check_ndim(weight, 6, op, "OIHW1i<c>o, [C/c][1][R][S][1][c]");
  const std::vector<int64_t> d = const_shape(data, op), w = const_shape(weight, op);
  TIR_USER_CHECK(w[0] == d[1] && w[1] == 1 && w[4] == 1 && w[5] == d[4])
      << op << ": weight " << weight.name() << " " << shape_str(w) << " does not fit data " << data.name() << " "
      << shape_str(d) << " (it needs [" << d[1] << "][1][R][S][1][" << d[4] << "])";
  const int c = static_cast<int>(d[4]);
  TIR_USER_CHECK(a.groups == d[1] * c) << op << ": groups = " << a.groups << " but a depthwise convolution of "
                                       << d[1] * c << " channels needs groups = " << d[1] * c;
  const Tensor data4 = placeholder(to_exprs({d[0], d[1] * c, d[2], d[3]}), data.dtype(), data.name());
  const Tensor weight4 = placeholder(to_exprs({d[1] * c, 1, w[2], w[3]}), weight.dtype(), weight.name());
  const ConvShape s = check_conv(data4, weight4, a, op);
  Tensor IP = pack_input(data, true, s, c, a, name);
  const int sh = a.strides[0], sw = a.strides[1], dh = a.dilation[0], dw = a.dilation[1];
  IterVar ry = reduce_axis({0, static_cast<int>(s.R)}, "ry"), rx = reduce_axis({0, static_cast<int>(s.S)}, "rx");
  Tensor OB = compute(
      to_exprs({s.N, s.K / c, s.OH, s.OW, c}),
      [&](Var n, Var cb, Var y, Var x, Var o) {
        return sum(IP(n, cb, y * sh + ry * dh, x * sw + rx * dw, o) * weight(cb, 0, ry, rx, 0, o), {ry, rx});
      },
      name + "_nchwc", "conv2d_nchwc_block");
  return blocked_result(OB, s, c, blocked_out ? c : 0, name);
}

Tensor conv2d_packed_direct(const Tensor &data, const Tensor &weight, const Conv2dAttrs &a, bool blocked_out,
                            const std::string &name) {
  const PackedShape p = check_packed(data, weight, a, "conv2d_packed_direct");
  const ConvShape &s = p.s;
  const int ci = p.ci, co = p.co, ph = a.padding[0], pw = a.padding[1];
  // An injective pad, which schedule_generic inlines into the reads.
  Tensor P = ph || pw ? pad(data, {0, 0, ph, pw}, {0, 0, ph, pw}, 0.0, name + "_pad") : data;
  const int sh = a.strides[0], sw = a.strides[1], dh = a.dilation[0], dw = a.dilation[1];
  IterVar icb = reduce_axis({0, static_cast<int>(s.C / ci)}, "icb"), ici = reduce_axis({0, ci}, "ici");
  IterVar ry = reduce_axis({0, static_cast<int>(s.R)}, "ry"), rx = reduce_axis({0, static_cast<int>(s.S)}, "rx");
  // Input channel c = icb * ci + ici of the (padded) data at row y, column x.
  auto in = [&](Var n, Expr y, Expr x) {
    return p.blocked ? P(n, icb, y, x, ici) : P(n, Expr(icb) * ci + Expr(ici), y, x);
  };
  auto body = [&](Var n, Expr ob, Var y, Var x, Expr o) {
    return sum(in(n, y * sh + ry * dh, x * sw + rx * dw) * weight(ob, icb, ry, rx, ici, o), {icb, ry, rx, ici});
  };
  if (blocked_out && p.out_block == co)
    return compute(
        to_exprs({s.N, s.K / co, s.OH, s.OW, co}), [&](Var n, Var b, Var y, Var x, Var o) { return body(n, b, y, x, o); },
        name, "conv2d_packed_direct");
  return regrouped(s, co, blocked_out ? p.out_block : 0, body, name, "conv2d_packed_direct");
}

}  // namespace tensorir::ops
