// Quantized operators of int8 and uint8, composed from graph operators. Quantizing is
// float arithmetic: round (halves to even, as ONNX rounds), the zero point added, clip
// to the type's range, then a cast, which is exact once the value is an integer in range.
// Integer products and convolutions subtract the zero points in int32 and accumulate in
// int32.
#include "frontend/onnx/ops/ops_util.h"

namespace tensorir::onnx::detail {

namespace {

void need_8bit(const Context &c, size_t i) {
  if (c.dtype(i) != Int(8) && c.dtype(i) != UInt(8))
    unsupported("input '" + c.input_name(i) + "' is " + c.dtype(i).str() + "; only int8 and uint8 are supported");
}

graph::NodeRef cast(Context &c, graph::NodeRef x, Type to) { return c.make("cast", {x}, {{"dtype", to.str()}}); }

// Input i, a scale or zero point (a scalar, or a vector along `axis` of a tensor of rank
// `rank` whose dimension there is `dim`), as `as`, shaped to broadcast against that
// tensor: one element becomes a scalar, n elements [n, 1, ..., 1].
graph::NodeRef param(Context &c, size_t i, int axis, int rank, int64_t dim, Type as) {
  const std::vector<int64_t> &s = c.shape(i);
  const int64_t n = element_count(s);
  TIR_USER_CHECK(s.size() <= 1 && (n == 1 || n == dim))
      << "'" << c.input_name(i) << "' has shape " << shape_str(s) << "; it must be a scalar or a vector of " << dim;
  graph::NodeRef p = c.node(i);
  if (c.dtype(i) != as) p = cast(c, p, as);
  std::vector<int64_t> shape;
  if (n != 1) {
    shape.assign(size_t(rank - axis), 1);
    shape[0] = n;
  }
  return shape == s ? p : c.make("reshape", {p}, {{"shape", shape}});
}

// A per-tensor parameter (no axis).
graph::NodeRef scalar_param(Context &c, size_t i, Type as) { return param(c, i, 0, 0, 1, as); }

// Output 0: saturate(round(v) + zero point) in `to`, from float32 v; `zp` (float32) is
// absent when its id is -1.
void quantize_output(Context &c, graph::NodeRef v, graph::NodeRef zp, Type to) {
  v = c.make("round", {v});
  if (zp.id >= 0) v = c.make("add", {v, zp});
  const bool u = to == UInt(8);
  v = c.make("clip", {v}, {{"lo", u ? 0.0 : -128.0}, {"hi", u ? 255.0 : 127.0}});
  c.output(0, "cast", {v}, {{"dtype", to.str()}});
}

// Input i as int32 less its zero point, input zp_index when present: per tensor (axis
// -1), or a vector along `axis`.
graph::NodeRef centered(Context &c, size_t i, size_t zp_index, int axis) {
  need_8bit(c, i);
  graph::NodeRef x = cast(c, c.node(i), Int(32));
  if (!c.has_input(zp_index)) return x;
  TIR_USER_CHECK(c.dtype(zp_index) == c.dtype(i))
      << "zero point '" << c.input_name(zp_index) << "' is " << c.dtype(zp_index) << " but its input is " << c.dtype(i);
  if (axis < 0 || c.rank(i) == 0) return c.make("subtract", {x, scalar_param(c, zp_index, Int(32))});
  return c.make("subtract", {x, param(c, zp_index, axis, c.rank(i), c.shape(i)[size_t(axis)], Int(32))});
}

int quant_axis(const Context &c, size_t scale) {
  return c.rank(0) == 0 || element_count(c.shape(scale)) == 1 ? 0 : normalize_axis(c.attrs().i("axis", 1), c.rank(0));
}

// y = saturate(round(x / scale) + zero point), uint8 when there is no zero point.
void quantize_linear(Context &c) {
  if (c.dtype(0) != Float(32) && c.dtype(0) != Int(32)) need_float32(c, 0);
  need_float32(c, 1);
  const int axis = quant_axis(c, 1);
  const int64_t dim = c.rank(0) ? c.shape(0)[size_t(axis)] : 1;
  graph::NodeRef x = c.dtype(0) == Float(32) ? c.node(0) : cast(c, c.node(0), Float(32));
  graph::NodeRef v = c.make("divide", {x, param(c, 1, axis, c.rank(0), dim, Float(32))});
  // From opset 21 output_dtype may name the type: that of the zero point if there is one.
  Type to = UInt(8);
  if (const int64_t code = c.attrs().i("output_dtype", 0)) {
    if (!element_type(int32_t(code), &to) || (to != UInt(8) && to != Int(8)))
      unsupported("output_dtype " + element_type_name(int32_t(code)) + " (uint8 and int8 are supported)");
    TIR_USER_CHECK(!c.has_input(2) || c.dtype(2) == to)
        << "output_dtype is " << to << " but zero point '" << c.input_name(2) << "' is " << c.dtype(2);
  }
  if (!c.has_input(2)) return quantize_output(c, v, {}, to);
  need_8bit(c, 2);
  quantize_output(c, v, param(c, 2, axis, c.rank(0), dim, Float(32)), c.dtype(2));
}

// y = (x - zero point) * scale in float32.
void dequantize_linear(Context &c) {
  if (c.dtype(0) != Int(32)) need_8bit(c, 0);
  need_float32(c, 1);
  const int axis = quant_axis(c, 1);
  const int64_t dim = c.rank(0) ? c.shape(0)[size_t(axis)] : 1;
  graph::NodeRef x = cast(c, c.node(0), Float(32));
  if (c.has_input(2)) {
    TIR_USER_CHECK(c.dtype(2) == c.dtype(0)) << "zero point and input differ in type";
    x = c.make("subtract", {x, param(c, 2, axis, c.rank(0), dim, Float(32))});
  }
  c.output(0, "multiply", {x, param(c, 1, axis, c.rank(0), dim, Float(32))});
}

// uint8 over [min(x, 0), max(x, 0)]: scale = (max - min) / 255 (1 / 255 when that is
// 0), zero point saturate(round(-min / scale)).
void dynamic_quantize_linear(Context &c) {
  need_float32(c, 0);
  auto constant = [&](double v, const std::string &name) { return c.constant(scalar(v, Float(32)), name); };
  const graph::NodeRef zero = constant(0, "zero");
  graph::NodeRef lo = c.make("minimum", {c.make("reduce_min", {c.node(0)}), zero});
  graph::NodeRef hi = c.make("maximum", {c.make("reduce_max", {c.node(0)}), zero});
  graph::NodeRef range = c.make("subtract", {hi, lo});
  range = c.make("where", {c.make("equal", {range, zero}), constant(1, "one"), range});  // all zeros: scale 1/255
  graph::NodeRef scale = c.output(1, "divide", {range, constant(255, "levels")});
  graph::NodeRef zp = c.make("neg", {c.make("divide", {lo, scale})});
  zp = c.make("clip", {c.make("round", {zp})}, {{"lo", 0.0}, {"hi", 255.0}});
  c.output(2, "cast", {zp}, {{"dtype", UInt(8).str()}});
  quantize_output(c, c.make("divide", {c.node(0), scale}), zp, UInt(8));
}

// The zero points of A are per row, those of B per column.
graph::NodeRef centered_matmul(Context &c, size_t a, size_t a_zp, size_t b, size_t b_zp) {
  const int ra = c.rank(a), rb = c.rank(b);
  graph::NodeRef x = centered(c, a, a_zp, ra >= 2 ? ra - 2 : -1);
  graph::NodeRef y = centered(c, b, b_zp, rb >= 2 ? rb - 1 : -1);
  return numpy_matmul(c, x, c.shape(a), y, c.shape(b));
}

void matmul_integer(Context &c) { c.set_output(0, centered_matmul(c, 0, 2, 1, 3)); }

// The zero point of x is per tensor, those of w per output channel.
graph::NodeRef centered_conv(Context &c, size_t x, size_t x_zp, size_t w, size_t w_zp) {
  return conv2d(c, centered(c, x, x_zp, -1), c.shape(x), centered(c, w, w_zp, 0), c.shape(w));
}

void conv_integer(Context &c) { c.set_output(0, centered_conv(c, 0, 2, 1, 3)); }

// a, a_scale, a_zp, b, b_scale, b_zp, y_scale, y_zp: the int32 product, times
// a_scale * b_scale / y_scale, quantized.
void qlinear_matmul(Context &c) {
  for (size_t i : {1, 4, 6}) need_float32(c, i);
  need_8bit(c, 7);
  const std::vector<int64_t> as = c.shape(0), bs = c.shape(3);
  graph::NodeRef acc = cast(c, centered_matmul(c, 0, 2, 3, 5), Float(32));
  const int ra = int(as.size()), rb = int(bs.size());
  graph::NodeRef sa = ra >= 2 ? param(c, 1, ra - 2, ra, as[size_t(ra - 2)], Float(32)) : scalar_param(c, 1, Float(32));
  graph::NodeRef sb = rb >= 2 ? param(c, 4, rb - 1, rb, bs.back(), Float(32)) : scalar_param(c, 4, Float(32));
  graph::NodeRef scale = c.make("divide", {c.make("multiply", {sa, sb}), scalar_param(c, 6, Float(32))});
  quantize_output(c, c.make("multiply", {acc, scale}), scalar_param(c, 7, Float(32)), c.dtype(7));
}

// x, x_scale, x_zp, w, w_scale, w_zp, y_scale, y_zp and an int32 bias B: the int32
// convolution plus B, times x_scale * w_scale / y_scale (w_scale per output channel),
// quantized.
void qlinear_conv(Context &c) {
  for (size_t i : {1, 4, 6}) need_float32(c, i);
  need_8bit(c, 7);
  graph::NodeRef acc = centered_conv(c, 0, 2, 3, 5);
  const int64_t m = c.shape(3)[0];
  if (c.has_input(8)) {
    TIR_USER_CHECK(c.dtype(8) == Int(32)) << "the bias must be int32";
    acc = c.make("add", {acc, param(c, 8, 1, 4, m, Int(32))});
  }
  acc = cast(c, acc, Float(32));
  graph::NodeRef sw = param(c, 4, 1, 4, m, Float(32));
  graph::NodeRef scale = c.make("multiply", {scalar_param(c, 1, Float(32)), sw});
  scale = c.make("divide", {scale, scalar_param(c, 6, Float(32))});
  quantize_output(c, c.make("multiply", {acc, scale}), scalar_param(c, 7, Float(32)), c.dtype(7));
}

// Opset 21's blocked quantization: scales along an axis in blocks of block_size.
std::string check_blocks(const Attributes &a) {
  const int64_t b = a.i("block_size", 0);
  return b != 0 ? "blocked quantization (block_size " + std::to_string(b) + ") is not supported" : "";
}

const bool registered = [] {
  register_converter({"QuantizeLinear", 10, 20, nullptr, quantize_linear});
  register_converter({"QuantizeLinear", 21, kLatest, check_blocks, quantize_linear});
  register_converter({"DequantizeLinear", 10, 20, nullptr, dequantize_linear});
  register_converter({"DequantizeLinear", 21, kLatest, check_blocks, dequantize_linear});
  register_converter({"DynamicQuantizeLinear", 11, kLatest, nullptr, dynamic_quantize_linear});
  register_converter({"MatMulInteger", 10, kLatest, nullptr, matmul_integer});
  register_converter({"ConvInteger", 10, kLatest, check_conv, conv_integer});
  register_converter({"QLinearMatMul", 10, kLatest, nullptr, qlinear_matmul});
  register_converter({"QLinearConv", 10, kLatest, check_conv, qlinear_conv});
  return true;
}();

}  // namespace

}  // namespace tensorir::onnx::detail
