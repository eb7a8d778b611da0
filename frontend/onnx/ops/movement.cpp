// Data movement: Transpose, Concat, Gather, Slice, Split, Tile, Pad. On known values each is
// computed on the host (shape computations gather and slice shapes); on computed ones it
// becomes the graph's transpose, concatenate, slice and pad (edge and reflect padding:
// slices concatenated around the input).
#include <algorithm>
#include <cmath>

#include "frontend/onnx/ops/ops_util.h"

namespace tensorir::onnx::detail {

namespace {

using Shape = std::vector<int64_t>;

void transpose(Context &c) {
  const int r = c.rank(0);
  Shape perm = c.attrs().ints("perm");
  if (perm.empty())
    for (int i = r - 1; i >= 0; --i) perm.push_back(i);
  TIR_USER_CHECK(int(perm.size()) == r) << "perm has " << perm.size() << " values for rank " << r;
  std::vector<bool> seen(size_t(r), false);
  for (int64_t p : perm) {
    TIR_USER_CHECK(p >= 0 && p < r && !seen[size_t(p)]) << "perm " << shape_str(perm) << " is not a permutation";
    seen[size_t(p)] = true;
  }
  if (c.known(0)) return c.set_output(0, host_transpose(c.input(0).known, perm));
  c.output(0, "transpose", {c.node(0)}, {{"axes", perm}});
}

// Concat: axis is required from opset 4; before, it defaults to 1.
void concat(Context &c, int64_t default_axis) {
  const int axis = normalize_axis(c.attrs().i("axis", default_axis), c.rank(0));
  for (size_t i = 1; i < c.num_inputs(); ++i) {
    Shape a = c.shape(0), b = c.shape(i);
    TIR_USER_CHECK(a.size() == b.size() && c.dtype(i) == c.dtype(0))
        << "input '" << c.input_name(i) << "' differs in rank or type from '" << c.input_name(0) << "'";
    a[size_t(axis)] = b[size_t(axis)] = 0;
    TIR_USER_CHECK(a == b) << "inputs " << shape_str(c.shape(0)) << " and " << shape_str(c.shape(i))
                           << " differ outside axis " << axis;
  }
  std::vector<size_t> parts;  // empty inputs add nothing
  for (size_t i = 0; i < c.num_inputs(); ++i)
    if (element_count(c.shape(i)) > 0) parts.push_back(i);
  if (parts.empty()) {  // every input is empty: so is the result, along the summed extent
    Shape s = c.shape(0);
    s[size_t(axis)] = 0;
    for (size_t i = 0; i < c.num_inputs(); ++i) s[size_t(axis)] += c.shape(i)[size_t(axis)];
    return c.set_output(0, NDArray::empty(s, c.dtype(0)));
  }
  if (c.all_known()) {
    std::vector<NDArray> values;
    for (size_t i : parts) values.push_back(c.input(i).known);
    return c.set_output(0, host_concat(values, axis));
  }
  if (parts.size() == 1) return c.forward(0, parts[0]);
  Shape joined = c.shape(parts[0]);
  joined[size_t(axis)] = 0;
  for (size_t i : parts)
    joined[size_t(axis)] = checked_add(joined[size_t(axis)], c.shape(i)[size_t(axis)], "the concatenated extent");
  check_graph_size(joined, c.dtype(0));
  std::vector<graph::NodeRef> in;
  for (size_t i : parts) in.push_back(c.node(i));
  c.output(0, "concatenate", in, {{"axis", int64_t(axis)}});
}

// Slice of a computed value: one dimension of the graph's slice, the others whole.
graph::NodeRef slice_node(Context &c, graph::NodeRef x, const Shape &shape, int axis, int64_t begin, int64_t step,
                          int64_t len, bool is_output) {
  Shape b(shape.size(), 0), e = shape, s(shape.size(), 1);
  b[size_t(axis)] = begin;
  e[size_t(axis)] = begin + len * step;
  s[size_t(axis)] = step;
  std::map<std::string, graph::AttrValue> attrs = {{"begin", b}, {"end", e}, {"strides", s}};
  return is_output ? c.output(0, "slice", {x}, attrs) : c.make("slice", {x}, attrs);
}

// Up to this many copies of a computed value are concatenated; more are broadcast, so that
// the graph's size does not grow with a repeat count taken from the model.
constexpr int64_t kMaxCopies = 16;

// x (of `shape`, a computed value, of extent 1 along `axis`) repeated `count` times along
// `axis`: broadcast against a constant of neutral values.
graph::NodeRef repeat_unit(Context &c, graph::NodeRef x, const Shape &shape, int axis, int64_t count) {
  TIR_ASSERT(shape[size_t(axis)] == 1) << shape_str(shape);
  const Type t = c.graph_node(x).dtype;
  Shape neutral(shape.size() - size_t(axis), 1);
  neutral[0] = count;
  check_host_size(neutral, t, "the constant to broadcast against");
  const NDArray zeros = host_broadcast_to(scalar(0, t), neutral);  // false for bool
  return c.make(t.is_bool() ? "logical_or" : "add", {x, c.constant(zeros, "repeat")});
}

// Gather: computed indices become the graph's take. Known ones into a computed value: a
// scalar index is a slice with its dimension dropped, a vector of indices a concatenation
// of such slices, more dimensions a take.
void gather(Context &c) {
  const int axis = normalize_axis(c.attrs().i("axis", 0), c.rank(0));
  if (!c.known(1)) {  // computed indices: the graph's take
    if (!c.dtype(1).is_int()) unsupported("indices '" + c.input_name(1) + "' are " + c.dtype(1).str());
    if (c.rank(0) + c.rank(1) == 1) unsupported("a scalar result");
    return void(c.output(0, "take", {c.node(0), c.node(1)}, {{"axis", int64_t(axis)}}));
  }
  const Shape idx = c.ints(1, "indices");
  if (c.known(0)) return c.set_output(0, host_gather(c.input(0).known, c.input(1).known, axis));
  const Shape &in = c.shape(0);
  if (c.rank(1) > 1) return void(c.output(0, "take", {c.node(0), c.node(1)}, {{"axis", int64_t(axis)}}));
  if (idx.empty()) {
    Shape out = in;
    out.erase(out.begin() + axis);
    out.insert(out.begin() + axis, c.shape(1).begin(), c.shape(1).end());
    return empty_output(c, 0, out, c.dtype(0));
  }
  std::vector<graph::NodeRef> parts;
  for (int64_t k : idx) {
    const int64_t j = k < 0 ? k + in[size_t(axis)] : k;
    TIR_USER_CHECK(j >= 0 && j < in[size_t(axis)]) << "index " << k << " is out of range for " << shape_str(in);
    parts.push_back(slice_node(c, c.node(0), in, axis, j, 1, 1, false));
  }
  Shape out = in;
  if (c.rank(1) == 0) {
    out.erase(out.begin() + axis);
    return void(c.output(0, "reshape", {parts[0]}, {{"shape", out}}));
  }
  if (parts.size() == 1) return c.set_output(0, parts[0]);
  c.output(0, "concatenate", parts, {{"axis", int64_t(axis)}});
}

// One dimension of Slice, normalized as ONNX says: negative values count from the end,
// then starts and ends are clamped (to [0, dim] going forward, [-1, dim - 1] back).
struct Range {
  int64_t start, step, len;
};
Range slice_range(int64_t start, int64_t end, int64_t step, int64_t dim) {
  TIR_USER_CHECK(step != 0) << "a step of 0";
  if (start < 0) start += dim;
  if (end < 0) end += dim;
  // Steps beyond the dimension take one element; this keeps the arithmetic in range.
  step = std::clamp<int64_t>(step, -dim - 1, dim + 1);
  if (step > 0) {
    start = std::clamp<int64_t>(start, 0, dim);
    end = std::clamp<int64_t>(end, 0, dim);
    return {start, step, end > start ? 1 + (end - start - 1) / step : 0};
  }
  start = std::clamp<int64_t>(start, 0, dim - 1);
  end = std::clamp<int64_t>(end, -1, dim - 1);
  return {start, step, start > end ? 1 + (start - end - 1) / -step : 0};
}

void slice(Context &c, bool inputs) {
  const Shape &in = c.shape(0);
  Shape starts, ends, axes, steps;
  if (inputs) {
    starts = c.ints(1, "starts");
    ends = c.ints(2, "ends");
    if (c.has_input(3)) axes = c.ints(3, "axes");
    if (c.has_input(4)) steps = c.ints(4, "steps");
  } else {
    starts = c.attrs().ints("starts");
    ends = c.attrs().ints("ends");
    axes = c.attrs().ints("axes");
  }
  if (axes.empty())
    for (size_t i = 0; i < starts.size(); ++i) axes.push_back(int64_t(i));
  if (steps.empty()) steps.assign(starts.size(), 1);
  TIR_USER_CHECK(ends.size() == starts.size() && axes.size() == starts.size() && steps.size() == starts.size())
      << "starts, ends, axes and steps differ in length";
  Shape begin(in.size(), 0), step(in.size(), 1), out = in;
  for (size_t i = 0; i < starts.size(); ++i) {
    const int a = normalize_axis(axes[i], int(in.size()));
    const Range r = slice_range(starts[i], ends[i], steps[i], in[size_t(a)]);
    begin[size_t(a)] = r.start;
    step[size_t(a)] = r.step;
    out[size_t(a)] = r.len;
  }
  if (c.known(0)) return c.set_output(0, host_slice(c.input(0).known, begin, step, out));
  if (element_count(out) == 0) return empty_output(c, 0, out, c.dtype(0));
  // The whole of every axis, in order: a reversal (step -1) keeps the shape too.
  if (out == in && std::all_of(step.begin(), step.end(), [](int64_t s) { return s == 1; })) return c.forward(0, 0);
  Shape end(in.size());
  for (size_t i = 0; i < in.size(); ++i) end[i] = begin[i] + out[i] * step[i];
  c.output(0, "slice", {c.node(0)}, {{"begin", begin}, {"end", end}, {"strides", step}});
}

// A known input of whole numbers: an integer tensor, or a float one (opset 1's Split and
// Tile type their sizes and counts as the data).
Shape whole_numbers(Context &c, size_t i, const std::string &what) {
  if (!c.value(i, what).dtype().is_float()) return c.ints(i, what);
  Shape out;
  for (double d : to_doubles(c.input(i).known)) {
    TIR_USER_CHECK(std::isfinite(d) && d == std::trunc(d) && std::fabs(d) < 1e15)
        << what << " '" << c.input_name(i) << "' holds " << d << ", which is not a whole number";
    out.push_back(int64_t(d));
  }
  return out;
}

// Split into the outputs along axis: sizes from the attribute (to opset 12) or input
// (13 on; in opset 1 either, the input a float tensor), else equal parts (from opset 18
// with num_outputs, the last part may be smaller).
void split(Context &c, int version) {
  const Shape &in = c.shape(0);
  const int axis = normalize_axis(c.attrs().i("axis", 0), int(in.size()));
  Shape sizes = version >= 13 ? (c.has_input(1) ? c.ints(1, "split") : Shape{}) : c.attrs().ints("split");
  if (version == 1 && c.has_input(1)) sizes = whole_numbers(c, 1, "split");
  const int64_t n = int64_t(c.num_outputs()), dim = in[size_t(axis)];
  TIR_USER_CHECK(n >= 1) << "Split has no outputs";
  if (version >= 18 && c.attrs().has("num_outputs")) {
    // Parts of ceil(dim / n), the last one what is left.
    TIR_USER_CHECK(sizes.empty()) << "both split and num_outputs are given";
    TIR_USER_CHECK(c.attrs().i("num_outputs", 0) == n)
        << "num_outputs is " << c.attrs().i("num_outputs", 0) << " but the node has " << n << " outputs";
    sizes.assign(size_t(n), (dim + n - 1) / n);
    sizes.back() = dim - (n - 1) * sizes[0];
  } else if (sizes.empty()) {
    TIR_USER_CHECK(dim % n == 0) << "dimension " << dim << " does not split into " << n << " equal parts";
    sizes.assign(size_t(n), dim / n);
  }
  TIR_USER_CHECK(int64_t(sizes.size()) == n) << sizes.size() << " sizes for " << n << " outputs";
  int64_t total = 0;
  for (int64_t len : sizes) {
    TIR_USER_CHECK(len >= 0 && len <= dim) << "split sizes " << shape_str(sizes) << " do not fit dimension " << dim;
    total += len;
  }
  TIR_USER_CHECK(total == dim) << "the parts " << shape_str(sizes) << " add up to " << total << " but the dimension is "
                               << dim;
  int64_t offset = 0;
  for (size_t i = 0; i < sizes.size(); ++i) {
    const int64_t len = sizes[i];
    if (c.wants_output(i)) {
      Shape begin(in.size(), 0), step(in.size(), 1), out = in;
      begin[size_t(axis)] = offset;
      out[size_t(axis)] = len;
      if (c.known(0)) {
        c.set_output(i, host_slice(c.input(0).known, begin, step, out));
      } else if (len <= 0) {
        empty_output(c, i, out, c.dtype(0));
      } else {
        Shape end = in;
        end[size_t(axis)] = offset + len;
        graph::NodeRef r = c.make("slice", {c.node(0)}, {{"begin", begin}, {"end", end}, {"strides", step}});
        c.set_output(i, r);
      }
    }
    offset += len;
  }
}

// Pad in edge, reflect or wrap mode of x (of `shape`: input 0, or the part of it negative
// pads keep): along each padded axis, the border element repeated (edge), the elements
// next to it mirrored (reflect) or those of the other end (wrap) are concatenated on
// either side.
void pad_border(Context &c, graph::NodeRef x, Shape shape, const Shape &before, const Shape &after,
                const std::string &mode) {
  if (element_count(shape) == 0) unsupported("an empty input");
  const bool reflect = mode == "reflect", wrap = mode == "wrap";
  for (size_t i = 0; i < shape.size() && wrap; ++i)
    if ((before[i] + after[i]) / shape[i] > kMaxCopies)
      unsupported("wrap pads of " + std::to_string(before[i]) + " and " + std::to_string(after[i]) +
                  " around dimension " + std::to_string(i) + " of " + std::to_string(shape[i]) + " (at most " +
                  std::to_string(kMaxCopies) + " times its length)");
  for (size_t i = 0; i < shape.size() && reflect; ++i) {
    TIR_USER_CHECK(before[i] < shape[i] && after[i] < shape[i])
        << "reflect pads " << before[i] << " and " << after[i] << " of dimension " << shape[i];
  }
  size_t last = shape.size();
  for (size_t i = 0; i < shape.size(); ++i)
    if (before[i] > 0 || after[i] > 0) last = i;
  TIR_ASSERT(last < shape.size()) << "pad_border without pads";
  for (size_t i = 0; i <= last; ++i) {
    const int64_t n = shape[i], b = before[i], a = after[i];
    if (b == 0 && a == 0) continue;
    std::vector<graph::NodeRef> parts;
    auto edge = [&](int64_t at, int64_t count) {
      graph::NodeRef e = slice_node(c, x, shape, int(i), at, 1, 1, false);
      if (count > kMaxCopies) {
        Shape unit = shape;
        unit[i] = 1;
        return parts.push_back(repeat_unit(c, e, unit, int(i), count));
      }
      for (int64_t k = 0; k < count; ++k) parts.push_back(e);
    };
    // `count` elements from `at` on, going round to the start past the end.
    auto around = [&](int64_t at, int64_t count) {
      for (; count > 0; at = 0) {
        const int64_t take = std::min(n - at, count);
        parts.push_back(take == n ? x : slice_node(c, x, shape, int(i), at, 1, take, false));
        count -= take;
      }
    };
    if (b > 0) {
      if (wrap)
        around((n - b % n) % n, b);
      else if (reflect)
        parts.push_back(slice_node(c, x, shape, int(i), b, -1, b, false));
      else
        edge(0, b);
    }
    parts.push_back(x);
    if (a > 0) {
      if (wrap)
        around(0, a);
      else if (reflect)
        parts.push_back(slice_node(c, x, shape, int(i), n - 2, -1, a, false));
      else
        edge(n - 1, a);
    }
    const std::map<std::string, graph::AttrValue> attrs = {{"axis", int64_t(i)}};
    x = i == last ? c.output(0, "concatenate", parts, attrs) : c.make("concatenate", parts, attrs);
    shape[i] = n + b + a;
  }
}

// Pad in constant mode: pads [begin of each dimension..., end of each...], an attribute
// (named paddings in opset 1) up to opset 10, an input from 11; from 18 the optional input
// axes names the dimensions pads gives.
void pad(Context &c, int version) {
  const bool inputs = version >= 11;
  Shape pads = inputs ? c.ints(1, "pads") : c.attrs().ints(version == 1 ? "paddings" : "pads");
  const size_t r = c.shape(0).size();
  if (version >= 18 && c.num_inputs() > 3 && c.has_input(3)) {
    const Shape axes = c.ints(3, "axes");
    TIR_USER_CHECK(pads.size() == 2 * axes.size()) << "pads has " << pads.size() << " values for " << axes.size()
                                                   << " axes";
    Shape all(2 * r, 0);
    std::vector<bool> seen(r, false);
    for (size_t i = 0; i < axes.size(); ++i) {
      const size_t a = size_t(normalize_axis(axes[i], int(r)));
      TIR_USER_CHECK(!seen[a]) << "axis " << axes[i] << " is given twice";
      seen[a] = true;
      all[a] = pads[i];
      all[r + a] = pads[axes.size() + i];
    }
    pads = all;
  }
  TIR_USER_CHECK(pads.size() == 2 * r) << "pads has " << pads.size() << " values for rank " << r;
  Shape out = c.shape(0);
  for (size_t i = 0; i < r; ++i)
    out[i] = checked_add(checked_add(out[i], pads[i], "the padded extent"), pads[r + i], "the padded extent");
  for (int64_t d : out)
    TIR_USER_CHECK(d >= 0) << "pads " << shape_str(pads) << " remove more than every element of "
                           << shape_str(c.shape(0));
  if (element_count(out) == 0)
    return empty_output(c, 0, out, c.dtype(0));
  const std::string mode = c.attrs().s("mode", "constant");
  // Read only in constant mode, where it is used: the other modes ignore input 2.
  auto constant_value = [&]() -> double {
    if (!inputs || !c.has_input(2)) return c.attrs().f("value", 0);
    const std::vector<double> v = to_doubles(c.value(2, "constant_value"));
    TIR_USER_CHECK(v.size() == 1) << "constant_value has " << v.size() << " elements; Pad takes one";
    return v[0];
  };
  if (element_count(c.shape(0)) == 0) {  // an empty input (a staged run's, or a constant): all padding
    if (mode != "constant") unsupported("mode " + mode + " of an empty input, which has no element to repeat");
    return c.set_output(0, host_broadcast_to(scalar(constant_value(), c.dtype(0)), out));
  }
  check_graph_size(out, c.dtype(0));
  // Negative pads remove elements: the input is cut first, then padded. The same as
  // padding first and cutting after, as ONNX defines it, since the two act on opposite
  // ends (where a reflection would read a removed element, the cut input is too short
  // for it, and that is refused).
  graph::NodeRef x = c.node(0);
  Shape shape = c.shape(0), begin(r, 0), end = c.shape(0);
  bool cut = false, padded = false;
  for (size_t i = 0; i < r; ++i) {
    for (size_t side : {i, r + i}) {
      if (pads[side] >= 0) {
        padded = padded || pads[side] > 0;
        continue;
      }
      if (side == i) begin[i] -= pads[side];
      else end[i] += pads[side];
      pads[side] = 0;
      cut = true;
    }
    shape[i] = end[i] - begin[i];
  }
  if (cut) {
    const std::map<std::string, graph::AttrValue> attrs = {{"begin", begin}, {"end", end}, {"strides", Shape(r, 1)}};
    if (!padded) return void(c.output(0, "slice", {x}, attrs));
    x = c.make("slice", {x}, attrs);
  } else if (!padded) {
    return c.forward(0, 0);
  }
  // Wrapping would bring in what a negative pad removes at the other end.
  if (mode == "wrap" && cut) unsupported("mode wrap with negative pads");
  if (mode != "constant") return pad_border(c, x, shape, Shape(pads.begin(), pads.begin() + long(r)),
                                            Shape(pads.begin() + long(r), pads.end()), mode);
  const double value = constant_value();
  if (c.dtype(0).is_bool()) unsupported("bool input");
  c.output(0, "pad", {x},
           {{"before", Shape(pads.begin(), pads.begin() + long(r))},
            {"after", Shape(pads.begin() + long(r), pads.end())},
            {"value", value}});
}

// Tile with known repeats: the input concatenated with itself along each repeated axis.
// Before opset 6 the inputs are a number of tiles and the one axis they repeat along.
void tile(Context &c, bool tiles_axis) {
  const Shape &in = c.shape(0);
  Shape reps;
  if (tiles_axis) {
    const Shape tiles = whole_numbers(c, 1, "tiles"), axis = whole_numbers(c, 2, "axis");
    TIR_USER_CHECK(tiles.size() == 1 && axis.size() == 1) << "tiles and axis must be scalars";
    reps.assign(in.size(), 1);
    reps[size_t(normalize_axis(axis[0], int(in.size())))] = tiles[0];
  } else {
    reps = c.ints(1, "repeats");
  }
  TIR_USER_CHECK(reps.size() == in.size()) << "repeats has " << reps.size() << " values for rank " << in.size();
  for (int64_t r : reps) TIR_USER_CHECK(r >= 0) << "a negative repeat " << r;
  Shape out = in;
  for (size_t i = 0; i < in.size(); ++i)
    TIR_USER_CHECK(!__builtin_mul_overflow(in[i], reps[i], &out[i]))
        << "the result would have more than 2^63 elements: dimension " << i << " (" << in[i] << ") repeated "
        << reps[i] << " times";
  if (c.known(0)) {
    check_host_size(out, c.dtype(0));
    NDArray v = c.input(0).known;
    for (size_t i = 0; i < in.size(); ++i)
      if (reps[i] != 1) v = host_concat(std::vector<NDArray>(size_t(reps[i]), v), int(i));
    return c.set_output(0, v);
  }
  check_graph_size(out, c.dtype(0));
  if (element_count(out) == 0) return empty_output(c, 0, out, c.dtype(0));
  if (out == in) return c.forward(0, 0);
  size_t last = 0;
  for (size_t i = 0; i < in.size(); ++i)
    if (reps[i] != 1) last = i;
  graph::NodeRef x = c.node(0);
  Shape shape = in;
  for (size_t i = 0; i < in.size(); ++i) {
    if (reps[i] == 1) continue;
    const std::map<std::string, graph::AttrValue> attrs = {{"axis", int64_t(i)}};
    if (reps[i] <= kMaxCopies) {
      const std::vector<graph::NodeRef> parts(size_t(reps[i]), x);
      x = i == last ? c.output(0, "concatenate", parts, attrs) : c.make("concatenate", parts, attrs);
    } else {  // [..., n, ...] as [..., 1, n, ...], repeated along the new axis, then merged
      Shape split = shape;
      split.insert(split.begin() + long(i), 1);
      x = repeat_unit(c, c.make("reshape", {x}, {{"shape", split}}), split, int(i), reps[i]);
      shape[i] = out[i];  // the merged extent
      x = i == last ? c.output(0, "reshape", {x}, {{"shape", shape}}) : c.make("reshape", {x}, {{"shape", shape}});
    }
    shape[i] = out[i];
  }
}

std::string pad_mode(const Attributes &a) {
  const std::string mode = a.s("mode", "constant");
  return mode == "constant" || mode == "edge" || mode == "reflect" ? "" : "mode '" + mode + "' is not supported";
}

// Opset 19 adds "wrap".
std::string pad19_mode(const Attributes &a) { return a.s("mode", "constant") == "wrap" ? "" : pad_mode(a); }

const bool registered = [] {
  register_converter({"Transpose", kMinOpset, kLatest, nullptr, transpose});
  register_converter({"Concat", kMinOpset, 3, nullptr, [](Context &c) { concat(c, 1); }});
  register_converter({"Concat", 4, kLatest, nullptr, [](Context &c) { concat(c, 0); }});
  register_converter({"Gather", kMinOpset, kLatest, nullptr, gather});
  register_converter({"Slice", kMinOpset, 9, nullptr, [](Context &c) { slice(c, false); }});
  register_converter({"Slice", 10, kLatest, nullptr, [](Context &c) { slice(c, true); }});
  register_converter({"Split", kMinOpset, 1, nullptr, [](Context &c) { split(c, 1); }});
  register_converter({"Split", 2, 12, nullptr, [](Context &c) { split(c, 2); }});
  register_converter({"Split", 13, 17, nullptr, [](Context &c) { split(c, 13); }});
  register_converter({"Split", 18, kLatest, nullptr, [](Context &c) { split(c, 18); }});
  register_converter({"Tile", kMinOpset, 5, nullptr, [](Context &c) { tile(c, true); }});
  register_converter({"Tile", 6, kLatest, nullptr, [](Context &c) { tile(c, false); }});
  register_converter({"Pad", kMinOpset, 1, pad_mode, [](Context &c) { pad(c, 1); }});
  register_converter({"Pad", 2, 10, pad_mode, [](Context &c) { pad(c, 2); }});
  register_converter({"Pad", 11, 17, pad_mode, [](Context &c) { pad(c, 11); }});
  register_converter({"Pad", 18, 18, pad_mode, [](Context &c) { pad(c, 18); }});
  register_converter({"Pad", 19, kLatest, pad19_mode, [](Context &c) { pad(c, 18); }});
  return true;
}();

}  // namespace

}  // namespace tensorir::onnx::detail
