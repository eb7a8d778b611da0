// Shapes and constants: Constant, Shape, Size, ConstantOfShape, Cast, CastLike, Reshape,
// Flatten, Squeeze, Unsqueeze, Expand. Whatever reads only known values is computed here, on the
// host, so that shape computations (Shape -> Gather -> Concat -> Reshape) leave known
// targets behind.
#include <algorithm>
#include <cstdint>

#include "frontend/onnx/importer.h"
#include "frontend/onnx/ops/ops_util.h"
#include "frontend/onnx/proto.h"

namespace tensorir::onnx::detail {

namespace {

using Shape = std::vector<int64_t>;

// Output 0 as input 0 reshaped to `shape`: on the host when known.
void reshape_to(Context &c, const Shape &shape) {
  if (c.known(0)) return c.set_output(0, host_reshape(c.input(0).known, shape));
  if (shape == c.shape(0)) return c.forward(0, 0);
  c.output(0, "reshape", {c.node(0)}, {{"shape", shape}});
}

void constant(Context &c) {
  const Attributes &a = c.attrs();
  if (const ::onnx::TensorProto *t = a.tensor("value")) {
    Type dtype;
    if (t->data_type() == ::onnx::TensorProto::FLOAT16 || !element_type(t->data_type(), &dtype) ||
        !supported_dtype(dtype))
      unsupported("a constant of " + element_type_name(t->data_type()));
    return c.set_output(0, tensor_value(*t, c.data_dir()));
  }
  if (a.has("value_float")) return c.set_output(0, scalar(a.f("value_float", 0), Float(32)));
  if (a.has("value_int")) return c.set_output(0, from_int64s({a.i("value_int", 0)}, {}));
  if (a.has("value_floats")) {
    const std::vector<float> v = a.floats("value_floats");
    return c.set_output(0, from_doubles(std::vector<double>(v.begin(), v.end()), {int64_t(v.size())}, Float(32)));
  }
  if (a.has("value_ints")) return c.set_output(0, int64_vector(a.ints("value_ints")));
  unsupported("only tensor, float and integer constants are supported");
}

// Shape, with start and end from opset 15 (clamped, negative from the end).
void shape_of(Context &c) {
  const Shape &s = c.shape(0);
  const int64_t r = int64_t(s.size());
  auto clamp = [&](int64_t v) { return std::clamp(v < 0 ? v + r : v, int64_t{0}, r); };
  const int64_t start = clamp(c.attrs().i("start", 0)), end = clamp(c.attrs().i("end", r));
  c.set_output(0, int64_vector(Shape(s.begin() + start, s.begin() + std::max(start, end))));
}

void constant_of_shape(Context &c) {
  const Shape shape = c.ints(0, "shape");
  NDArray fill = scalar(0.0, Float(32));
  if (const ::onnx::TensorProto *t = c.attrs().tensor("value")) {
    TIR_USER_CHECK(element_count(*t) == 1) << "value must hold one element";
    fill = tensor_value(*t, c.data_dir());
  }
  check_host_size(shape, fill.dtype());
  c.set_output(0, host_broadcast_to(host_reshape(fill, {}), shape));
}

// Output 0 is input 0 cast to `to`; to float16 (`half`, `to` float32): rounded to float16
// (cast to float16 and back on the graph).
void cast_to(Context &c, Type to, bool half) {
  if (c.known(0)) {
    const NDArray v = host_cast(c.input(0).known, to);
    return c.set_output(0, half ? host_round_to_half(v) : v);
  }
  if (!half && to == c.dtype(0)) return c.forward(0, 0);
  graph::NodeRef x = c.node(0);
  if (half) x = c.make("cast", {x}, {{"dtype", Float(16).str()}});
  c.output(0, "cast", {x}, {{"dtype", to.str()}});
}

// Cast: `to` is a type's name ("FLOAT") before opset 6, its number after.
void cast(Context &c, bool named) {
  int64_t code = 0;
  if (named) {
    ::onnx::TensorProto_DataType t;
    const std::string name = c.attrs().s("to", "");
    TIR_USER_CHECK(::onnx::TensorProto_DataType_Parse(name, &t)) << "to '" << name << "' is not a type";
    code = t;
  } else {
    code = c.attrs().i("to", 0);
  }
  cast_to(c, onnx_dtype(code, "cast to"), is_float16(int32_t(code)));
}

// CastLike: to the type of input 1, rounded to float16 where the model declares it so.
void cast_like(Context &c) { cast_to(c, c.dtype(1), c.declared_half(1)); }

// Reshape's target: 0 copies the input's dimension (unless allowzero), -1 is inferred.
// Before opset 5 it is the attribute `shape`, from 5 the input.
void reshape(Context &c, bool attr) {
  TIR_USER_CHECK(!attr || c.attrs().has("shape")) << "the shape attribute is missing";
  Shape target = attr ? c.attrs().ints("shape") : c.ints(1, "shape");
  const Shape &in = c.shape(0);
  const bool allow_zero = c.attrs().i("allowzero", 0) != 0;
  int infer = -1;
  int64_t known = 1;
  bool overflow = false;  // then the product cannot be the input's count, which fits int64
  for (size_t i = 0; i < target.size(); ++i) {
    if (target[i] == 0 && !allow_zero) {
      TIR_USER_CHECK(i < in.size()) << "shape " << shape_str(target) << " copies dimension " << i << " of "
                                    << shape_str(in);
      target[i] = in[i];
    }
    if (target[i] == -1) {
      TIR_USER_CHECK(infer < 0) << "shape " << shape_str(target) << " has two -1";
      infer = int(i);
    } else {
      // Empty data (a dimension of 0) takes any dimensions whose product is 0.
      TIR_USER_CHECK(target[i] >= 0 && (element_count(in) == 0 || target[i] <= element_count(in)))
          << "cannot reshape " << shape_str(in) << " to " << shape_str(target);
      overflow = overflow || __builtin_mul_overflow(known, target[i], &known);
    }
  }
  const int64_t total = element_count(in);
  TIR_USER_CHECK(!overflow) << "cannot reshape " << shape_str(in) << " to " << shape_str(target);
  if (infer >= 0) {
    TIR_USER_CHECK(known > 0 && total % known == 0)
        << "cannot reshape " << shape_str(in) << " to " << shape_str(target);
    target[size_t(infer)] = total / known;
  }
  TIR_USER_CHECK(element_count(target) == total) << "cannot reshape " << shape_str(in) << " to " << shape_str(target);
  reshape_to(c, target);
}

void flatten(Context &c) {
  const Shape &in = c.shape(0);
  const int r = int(in.size());
  int64_t axis = c.attrs().i("axis", 1);
  TIR_USER_CHECK(axis >= -r && axis <= r) << "axis " << axis << " is out of range for rank " << r;
  if (axis < 0) axis += r;
  // Each side's own product: with a dimension of 0 the total says nothing of the other.
  int64_t outer = 1, inner = 1;
  for (int64_t i = 0; i < r; ++i) {
    int64_t &side = i < axis ? outer : inner;
    TIR_USER_CHECK(!__builtin_mul_overflow(side, in[size_t(i)], &side))
        << "flattening " << shape_str(in) << " at axis " << axis << " overflows int64";
  }
  reshape_to(c, {outer, inner});
}

// Squeeze's and Unsqueeze's axes: an attribute up to opset 12, an input from 13.
Shape axes_of(Context &c, bool input) {
  if (!input) return c.attrs().ints("axes");
  return c.has_input(1) ? c.ints(1, "axes") : Shape{};
}

void squeeze(Context &c, bool axes_input) {
  const Shape &in = c.shape(0);
  Shape axes = axes_of(c, axes_input);
  std::vector<bool> drop(in.size(), false);
  for (int64_t a : axes) {
    const int i = normalize_axis(a, int(in.size()));
    TIR_USER_CHECK(in[size_t(i)] == 1) << "cannot squeeze dimension " << i << " of " << shape_str(in)
                                       << ": it is not 1";
    drop[size_t(i)] = true;
  }
  Shape out;
  for (size_t i = 0; i < in.size(); ++i)
    if (!(axes.empty() ? in[i] == 1 : drop[i])) out.push_back(in[i]);
  reshape_to(c, out);
}

void unsqueeze(Context &c, bool axes_input) {
  const Shape &in = c.shape(0);
  const Shape axes = axes_of(c, axes_input);
  const int rank = int(in.size() + axes.size());
  std::vector<bool> added(size_t(rank), false);
  for (int64_t a : axes) {
    const int i = normalize_axis(a, rank);
    TIR_USER_CHECK(!added[size_t(i)]) << "axis " << a << " is given twice";
    added[size_t(i)] = true;
  }
  Shape out;
  size_t next = 0;
  for (int i = 0; i < rank; ++i) out.push_back(added[size_t(i)] ? 1 : in[next++]);
  reshape_to(c, out);
}

// Expand: NumPy broadcast of the input and the given shape. A computed value is added
// to zeros of the result's shape (or'ed with false for bool, as attention masks are).
void expand(Context &c) {
  std::string error;
  const Shape out = broadcast_shapes(c.shape(0), c.ints(1, "shape"), &error);
  TIR_USER_CHECK(error.empty()) << error;
  if (c.known(0)) {
    check_host_size(out, c.dtype(0));
    return c.set_output(0, host_broadcast_to(c.input(0).known, out));
  }
  if (out == c.shape(0)) return c.forward(0, 0);
  check_graph_size(out, c.dtype(0));
  check_host_size(out, c.dtype(0), "the constant of zeros to broadcast against");
  const std::string op = c.dtype(0).is_bool() ? "logical_or" : "add";
  c.output(0, op, {c.node(0), c.constant(host_broadcast_to(scalar(0, c.dtype(0)), out), "zeros")});
}

const bool registered = [] {
  register_converter({"Constant", kMinOpset, kLatest, nullptr, constant});
  register_converter({"Shape", kMinOpset, kLatest, nullptr, shape_of});
  register_converter({"Size", kMinOpset, kLatest, nullptr,
                      [](Context &c) { c.set_output(0, from_int64s({element_count(c.shape(0))}, {})); }});
  register_converter({"ConstantOfShape", 9, kLatest, nullptr, constant_of_shape});
  register_converter({"Cast", kMinOpset, 5, nullptr, [](Context &c) { cast(c, true); }});
  register_converter({"Cast", 6, kLatest, nullptr, [](Context &c) { cast(c, false); }});
  register_converter({"CastLike", 15, kLatest, nullptr, cast_like});
  register_converter({"Reshape", kMinOpset, 4, nullptr, [](Context &c) { reshape(c, true); }});
  register_converter({"Reshape", 5, kLatest, nullptr, [](Context &c) { reshape(c, false); }});
  register_converter({"Flatten", kMinOpset, kLatest, nullptr, flatten});
  register_converter({"Squeeze", kMinOpset, 12, nullptr, [](Context &c) { squeeze(c, false); }});
  register_converter({"Squeeze", 13, kLatest, nullptr, [](Context &c) { squeeze(c, true); }});
  register_converter({"Unsqueeze", kMinOpset, 12, nullptr, [](Context &c) { unsqueeze(c, false); }});
  register_converter({"Unsqueeze", 13, kLatest, nullptr, [](Context &c) { unsqueeze(c, true); }});
  register_converter({"Expand", 8, kLatest, nullptr, expand});
  return true;
}();

}  // namespace

}  // namespace tensorir::onnx::detail
