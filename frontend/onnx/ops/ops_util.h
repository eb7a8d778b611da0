// Helpers shared by the converter families in this folder.
#pragma once
#include <functional>
#include <string>
#include <vector>

#include "frontend/onnx/converter.h"
#include "frontend/onnx/host.h"
#include "frontend/onnx/importer.h"
#include "frontend/onnx/proto.h"

namespace tensorir::onnx::detail {

// Unsupported unless input i is float32 (the dtype the heavy operators compute in).
inline void need_float32(const Context &c, size_t i) {
  if (c.dtype(i) != Float(32))
    unsupported("input '" + c.input_name(i) + "' is " + c.dtype(i).str() + "; only float32 is supported");
}

// Unsupported unless input i is a float type.
inline void need_float(const Context &c, size_t i) {
  if (!c.dtype(i).is_float())
    unsupported("input '" + c.input_name(i) + "' is " + c.dtype(i).str() + "; only float types are supported");
}

// The element type of ONNX type code `code` (a "to" or "dtype" attribute; float32 for
// float16); Unsupported for those the graph cannot hold, `what` naming the attribute.
inline Type onnx_dtype(int64_t code, const std::string &what) {
  Type t;
  if (!element_type(int32_t(code), &t) || !supported_dtype(t))
    unsupported(what + " " + element_type_name(int32_t(code)) + " is not supported");
  return t;
}

// A one-element constant (shape []) of `dtype`.
inline NDArray scalar(double value, Type dtype) { return from_doubles({value}, {}, dtype); }

// axis in [-rank, rank) as [0, rank); an Error (a malformed model) otherwise.
inline int normalize_axis(int64_t axis, int rank, const std::string &what = "axis") {
  TIR_USER_CHECK(axis >= -rank && axis < rank) << what << " " << axis << " is out of range for rank " << rank;
  return int(axis < 0 ? axis + rank : axis);
}

// Values that set extents (strides, dilations, pads, kernel sizes): each in [lo, 2^31 - 1],
// as the graph's operators take them; an Error naming them otherwise. Within that range,
// extents computed from them in int64 cannot overflow.
inline void check_extents(const std::vector<int64_t> &v, const std::string &what, int64_t lo) {
  for (int64_t x : v)
    TIR_USER_CHECK(x >= lo && x <= kMaxGraphElements)
        << what << " " << shape_str(v) << ": " << x << " is " << (x < lo ? "below " + std::to_string(lo) : "too large")
        << "; each value must lie in [" << lo << ", " << kMaxGraphElements << "]";
}

// "" when every value of `v` is `want`, else a reason naming the attribute.
inline std::string all_equal(const std::vector<int64_t> &v, int64_t want, const std::string &attr) {
  for (int64_t x : v)
    if (x != want) return attr + " other than " + std::to_string(want) + " is not supported";
  return "";
}

// LayerNormalization and GroupNormalization (from 21) compute their statistics in float only.
inline std::string check_stash_type(const Attributes &a) {
  return a.i("stash_type", 1) == 1 ? "" : "stash_type other than 1 (float) is not supported";
}

// An attribute that from opset `since` is input `input`: a model that still has it is
// refused (ignoring it would change the result), as ONNX's checker and ONNX Runtime do.
inline std::string attribute_now_input(const Attributes &a, const std::string &name, int since, int input) {
  if (!a.has(name)) return "";
  return name + " is an attribute, but from opset " + std::to_string(since) + " it is input " +
         std::to_string(input) + " (the model is invalid)";
}

// Output i as an empty array of `shape` (a dimension of 0) and `dtype`.
inline void empty_output(Context &c, size_t i, const std::vector<int64_t> &shape, Type dtype) {
  c.set_output(i, NDArray::empty(shape, dtype));
}

// The permutation that undoes `perm`.
inline std::vector<int64_t> inverse_permutation(const std::vector<int64_t> &perm) {
  std::vector<int64_t> back(perm.size(), 0);
  for (size_t i = 0; i < perm.size(); ++i) back[size_t(perm[i])] = int64_t(i);
  return back;
}

// Before opset 7 BatchNormalization and Dropout compute as at inference only in test mode.
inline std::string check_is_test(const Attributes &a) {
  return a.i("is_test", 0) != 0 ? "" : "is_test = 0 (training mode) is not supported";
}

// Before opset 7 the binary operators broadcast B (input 1) onto A (input 0) only with
// broadcast = 1, B's dimensions matching A's from `axis` on (by default its last ones).
// Checks the node against those rules and reshapes B so that NumPy's rules, which the
// converters apply, give the same result.
void legacy_broadcast(Context &c);

// Registers the converter of a binary operator from opset `since` on: before opset 7 it
// converts the node after legacy_broadcast.
void register_binary(const std::string &onnx_op, int since, const std::function<void(Context &)> &convert);

// Multi-node patterns onto one operator (fusion.cpp), tried by the converter of the
// pattern's last node: false, converting nothing, when the node does not end one.
// The two terms whose sum is softplus(x) = log(exp(x) + 1): relu(x) and log(exp(-|x|) + 1),
// which do not overflow (exp(x) is inf from x = 89 in float32, where softplus is x). `one`
// is 1 of x's type. For Softplus and the RNN activation.
std::vector<graph::NodeRef> softplus_terms(Context &c, graph::NodeRef x, graph::NodeRef one);

bool fuse_layer_norm(Context &c);  // at an Add
bool fuse_gelu(Context &c);        // at a Mul

// Input i, a vector [C], shaped [C, 1, ...] to broadcast along dimension 1 of a tensor
// of rank `rank` (a known one as a new constant).
graph::NodeRef channel_vector(Context &c, size_t i, int rank);

// A 2-D convolution of x (NCHW, shape xs) by weight (OIHW, shape ws) with the node's
// Conv attributes (strides, pads, auto_pad, dilations, group); defined in nn.cpp.
graph::NodeRef conv2d(Context &c, graph::NodeRef x, const std::vector<int64_t> &xs, graph::NodeRef weight,
                      const std::vector<int64_t> &ws);
// The tensor values `items` (one shape but along `axis`, one type) concatenated along
// `axis`, or with `new_axis` stacked along a new dimension `axis`; defined in sequence.cpp.
Value join_values(Context &c, const std::vector<Value> &items, int axis, bool new_axis);
// a [..., M, K] times b [..., K, N] as NumPy's matmul (1-D operands gain a dimension
// that the result drops; leading dimensions broadcast), in their type; the shapes are
// a's and b's. Defined in linear.cpp.
graph::NodeRef numpy_matmul(Context &c, graph::NodeRef a, std::vector<int64_t> as, graph::NodeRef b,
                            std::vector<int64_t> bs);
// x (of `shape` and float `dtype`) resampled along `axis` to `out` elements with Resize's
// antialiased linear or cubic filter (`mode`) at `scale` < 1, the source positions by
// coordinate_transformation_mode `coord`. Defined in resize_antialias.cpp.
graph::NodeRef antialias_axis(Context &c, graph::NodeRef x, const std::vector<int64_t> &shape, int axis, int64_t out,
                              double scale, const std::string &mode, const std::string &coord, double cubic_a,
                              bool exclude_outside, Type dtype);
// Why Conv's attributes rule a node out, or "".
std::string check_conv(const Attributes &a);

// Input i of an operator whose result's shape depends on the input's values
// (NonMaxSuppression's boxes, Unique's X, Compress's condition): known at import, or the
// node is unsupported, naming the value (UnsupportedNode::value) for a Session to compute
// the node between stages. Unlike Context::value, a graph input is not offered for fixing
// at import: it is data, and a model fixed to one value of it computes nothing.
inline const NDArray &data_value(const Context &c, size_t i, const std::string &what) {
  if (!c.known(i))
    throw Unsupported{what + " '" + c.input_name(i) + "' is computed at run time, and the result's shape depends on "
                             "its values: import computes this operator only from constants (onnx::Session and "
                             "`tensorir run` compute it between stages of the model)",
                      "", c.input_name(i)};
  return c.input(i).known;
}

}  // namespace tensorir::onnx::detail
