// Sequences and optionals known at import: each is a list of tensor values (converter.h)
// built, read and taken apart as the graph is imported, while the tensors in them may be
// computed at run time. A position or split computed at run time would make the list
// itself a run-time value: unsupported.
#include "frontend/onnx/ops/ops_util.h"

namespace tensorir::onnx::detail {

namespace {

using Shape = std::vector<int64_t>;

Value list_value(ValueKind kind, std::vector<Value> items, Type dtype) {
  Value v;
  v.kind = kind;
  v.items = std::move(items);
  v.dtype = dtype;
  return v;
}

// Input i, a known position in a sequence of n elements, in [0, n) or, to insert at the
// end, [0, n].
size_t position(const Context &c, size_t i, size_t n, bool insert) {
  const std::vector<int64_t> p = c.ints(i, "position");
  TIR_USER_CHECK(p.size() == 1) << "position must be a scalar, not " << shape_str(c.shape(i));
  const int64_t len = int64_t(n), pos = p[0];
  TIR_USER_CHECK(pos >= -len && pos < len + (insert ? 1 : 0))
      << "position " << pos << " is out of range for a sequence of " << len;
  return size_t(pos < 0 ? pos + len : pos);
}

void check_element(const Context &c, size_t i, Type dtype) {
  TIR_USER_CHECK(c.dtype(i) == dtype) << "tensor '" << c.input_name(i) << "' is " << c.dtype(i)
                                      << " but the sequence holds " << dtype;
}

void construct(Context &c) {
  std::vector<Value> items;
  for (size_t i = 0; i < c.num_inputs(); ++i) {
    check_element(c, i, c.dtype(0));
    items.push_back(c.input(i));
  }
  TIR_USER_CHECK(!items.empty()) << "SequenceConstruct has no inputs";
  c.set_output(0, list_value(ValueKind::kSequence, std::move(items), c.dtype(0)));
}

void insert(Context &c) {
  std::vector<Value> items = c.items(0);
  check_element(c, 1, c.any_input(0).dtype);
  const size_t pos = c.has_input(2) ? position(c, 2, items.size(), true) : items.size();
  items.insert(items.begin() + std::ptrdiff_t(pos), c.input(1));
  c.set_output(0, list_value(ValueKind::kSequence, std::move(items), c.dtype(1)));
}

void erase(Context &c) {
  std::vector<Value> items = c.items(0);
  TIR_USER_CHECK(!items.empty()) << "SequenceErase of an empty sequence";
  const size_t pos = c.has_input(1) ? position(c, 1, items.size(), false) : items.size() - 1;
  items.erase(items.begin() + std::ptrdiff_t(pos));
  c.set_output(0, list_value(ValueKind::kSequence, std::move(items), c.any_input(0).dtype));
}

// ConcatFromSequence: the elements joined along `axis`, or stacked along a new one.
void concat_from_sequence(Context &c) {
  const std::vector<Value> &items = c.items(0);
  TIR_USER_CHECK(c.attrs().has("axis")) << "ConcatFromSequence needs the axis attribute";
  TIR_USER_CHECK(!items.empty()) << "ConcatFromSequence of an empty sequence";
  const bool new_axis = c.attrs().i("new_axis", 0) != 0;
  const int rank = int(items[0].shape.size()) + (new_axis ? 1 : 0);
  c.set_output(0, join_values(c, items, normalize_axis(c.attrs().i("axis", 0), rank), new_axis));
}

// SplitToSequence: parts of the given sizes, of one size (the last what is left), or
// without `split` of 1 along the axis, which keepdims = 0 then drops.
void split_to_sequence(Context &c) {
  const Shape &in = c.shape(0);
  const int axis = normalize_axis(c.attrs().i("axis", 0), c.rank(0));
  const int64_t dim = in[size_t(axis)];
  Shape sizes;
  bool drop_axis = false;
  if (!c.has_input(1)) {
    sizes.assign(size_t(dim), 1);
    drop_axis = c.attrs().i("keepdims", 1) == 0;
  } else if (c.rank(1) == 0) {
    const int64_t len = c.ints(1, "split")[0];
    TIR_USER_CHECK(len > 0) << "split " << len << " must be positive";
    for (int64_t at = 0; at < dim; at += len) sizes.push_back(std::min(len, dim - at));
  } else {
    sizes = c.ints(1, "split");
    int64_t total = 0;
    for (int64_t len : sizes) {
      TIR_USER_CHECK(len >= 0) << "split sizes " << shape_str(sizes) << " must not be negative";
      total += len;
    }
    TIR_USER_CHECK(total == dim) << "the parts " << shape_str(sizes) << " add up to " << total
                                 << " but the dimension is " << dim;
  }
  std::vector<Value> items;
  int64_t offset = 0;
  for (size_t i = 0; i < sizes.size(); ++i) {
    Shape begin(in.size(), 0), step(in.size(), 1), out = in, end = in;
    begin[size_t(axis)] = offset;
    end[size_t(axis)] = offset + sizes[i];
    out[size_t(axis)] = sizes[i];
    offset += sizes[i];
    Shape shape = out;
    if (drop_axis) shape.erase(shape.begin() + axis);
    Value v{-1, NDArray(), shape, c.dtype(0)};
    if (c.known(0)) {
      v.known = host_reshape(host_slice(c.input(0).known, begin, step, out), shape);
    } else {
      if (sizes[i] == 0) unsupported("an empty part");
      graph::NodeRef r = c.make("slice", {c.node(0)}, {{"begin", begin}, {"end", end}, {"strides", step}});
      if (drop_axis) r = c.make("reshape", {r}, {{"shape", shape}});
      v.node = r.id;
    }
    items.push_back(v);
  }
  c.set_output(0, list_value(ValueKind::kSequence, std::move(items), c.dtype(0)));
}

// Optional: with an input, an optional holding it; without, an empty one.
void optional(Context &c) {
  if (!c.has_input(0)) return c.set_output(0, list_value(ValueKind::kOptional, {}, Type()));
  const Value &v = c.any_input(0);
  c.set_output(0, list_value(ValueKind::kOptional, {v}, v.dtype));
}

// OptionalHasElement and OptionalGetElement also take a tensor or a sequence (opset 18),
// which is there; an absent input is an empty optional.
void optional_has_element(Context &c) {
  const bool has = c.has_input(0) && (c.any_input(0).kind != ValueKind::kOptional || !c.any_input(0).items.empty());
  c.set_output(0, scalar(has ? 1 : 0, Bool()));
}

void optional_get_element(Context &c) {
  const Value &v = c.any_input(0);
  if (v.kind != ValueKind::kOptional) return c.forward(0, 0);
  TIR_USER_CHECK(!v.items.empty()) << "optional '" << c.input_name(0) << "' is empty";
  c.set_output(0, v.items[0]);
}

const bool registered = [] {
  register_converter({"SequenceEmpty", 11, kLatest, nullptr, [](Context &c) {
                        const Type t = onnx_dtype(c.attrs().i("dtype", ::onnx::TensorProto::FLOAT), "dtype");
                        c.set_output(0, list_value(ValueKind::kSequence, {}, t));
                      }});
  register_converter({"SequenceConstruct", 11, kLatest, nullptr, construct});
  register_converter({"SequenceInsert", 11, kLatest, nullptr, insert});
  register_converter({"SequenceErase", 11, kLatest, nullptr, erase});
  register_converter({"SequenceAt", 11, kLatest, nullptr, [](Context &c) {
                        const std::vector<Value> &items = c.items(0);
                        c.set_output(0, items[position(c, 1, items.size(), false)]);
                      }});
  register_converter({"SequenceLength", 11, kLatest, nullptr,
                      [](Context &c) { c.set_output(0, scalar(double(c.items(0).size()), Int(64))); }});
  register_converter({"ConcatFromSequence", 11, kLatest, nullptr, concat_from_sequence});
  register_converter({"SplitToSequence", 11, kLatest, nullptr, split_to_sequence});
  register_converter({"Optional", 15, kLatest, nullptr, optional});
  register_converter({"OptionalHasElement", 15, kLatest, nullptr, optional_has_element});
  register_converter({"OptionalGetElement", 15, kLatest, nullptr, optional_get_element});
  return true;
}();

}  // namespace

Value join_values(Context &c, const std::vector<Value> &items, int axis, bool new_axis) {
  std::vector<Value> parts;  // each shaped for a plain concatenation
  for (const Value &v : items) {
    Shape a = items[0].shape, b = v.shape;
    TIR_USER_CHECK(a.size() == b.size() && v.dtype == items[0].dtype) << "the values joined differ in rank or type";
    if (!new_axis) a[size_t(axis)] = b[size_t(axis)] = 0;
    TIR_USER_CHECK(a == b) << "values " << shape_str(items[0].shape) << " and " << shape_str(v.shape)
                           << (new_axis ? " differ" : " differ outside the axis");
    Value p = v;
    if (new_axis) p.shape.insert(p.shape.begin() + axis, 1);
    parts.push_back(p);
  }
  bool known = true;
  for (const Value &p : parts) known = known && p.known.defined();
  if (known) {
    std::vector<NDArray> values;
    for (const Value &p : parts) values.push_back(host_reshape(p.known, p.shape));
    NDArray a = host_concat(values, axis);
    return Value{-1, a, a.shape(), a.dtype()};
  }
  std::vector<graph::NodeRef> in;
  for (size_t i = 0; i < parts.size(); ++i) {
    graph::NodeRef r = c.node(items[i], "part" + std::to_string(i));
    if (new_axis || parts.size() == 1) r = c.make("reshape", {r}, {{"shape", parts[i].shape}});
    in.push_back(r);
  }
  graph::NodeRef r = in.size() == 1 ? in[0] : c.make("concatenate", in, {{"axis", int64_t(axis)}});
  const graph::Node &n = c.graph_node(r);
  return Value{r.id, NDArray(), n.shape, n.dtype};
}

}  // namespace tensorir::onnx::detail
