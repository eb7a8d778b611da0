// Control flow decided at import: If with a condition known at import converts only the
// branch taken; Loop with a trip count and condition known at import is unrolled, its
// body converted once per iteration, and Scan once per position of its scan inputs. A
// condition or trip count computed at run time would need the graph to branch: import
// refuses it, and a Session runs the node between stages (control_stage.h).
#include <algorithm>

#include "frontend/onnx/ops/ops_util.h"

namespace tensorir::onnx::detail {

namespace {

using Shape = std::vector<int64_t>;

// Unrolling stops being sensible well before this many iterations.
constexpr int64_t kMaxIterations = 1024;

bool known_condition(const Context &c, size_t i) {
  const std::vector<int64_t> v = c.ints(i, "condition");
  TIR_USER_CHECK(v.size() == 1) << "the condition must have one element, not " << shape_str(c.shape(i));
  return v[0] != 0;
}

void if_(Context &c) {
  const bool cond = known_condition(c, 0);
  const std::vector<Value> out = c.subgraph(cond ? "then_branch" : "else_branch", {});
  TIR_USER_CHECK(out.size() == c.num_outputs())
      << "the branch taken has " << out.size() << " outputs but the node " << c.num_outputs();
  for (size_t i = 0; i < out.size(); ++i) c.set_output(i, out[i]);
}

// Loop(M, cond, v...): the body maps (iteration, cond, v...) to (cond, v..., scans...);
// the outputs are the final v... and each scan output's values stacked along a new axis 0.
void loop(Context &c) {
  TIR_USER_CHECK(c.num_inputs() >= 2) << "Loop needs its trip count and condition inputs (either may be \"\")";
  const std::vector<int64_t> m = c.has_input(0) ? c.ints(0, "trip count") : std::vector<int64_t>{};
  TIR_USER_CHECK(!c.has_input(0) || m.size() == 1) << "the trip count must have one element, not " << m.size();
  const int64_t trips = c.has_input(0) ? std::max<int64_t>(m[0], 0) : -1;  // a negative count: no iterations
  bool cond = c.has_input(1) ? known_condition(c, 1) : true;
  if (trips < 0 && !c.has_input(1)) unsupported("neither a trip count nor a condition: the loop does not end");
  const size_t carried = c.num_inputs() - 2;
  TIR_USER_CHECK(c.num_outputs() >= carried) << "the node has fewer outputs than loop-carried values";
  std::vector<Value> v;
  for (size_t i = 0; i < carried; ++i) v.push_back(c.any_input(i + 2));
  std::vector<std::vector<Value>> scans(c.num_outputs() - carried);
  for (int64_t it = 0; cond && (trips < 0 || it < trips); ++it) {
    if (it == kMaxIterations) unsupported("more than " + std::to_string(kMaxIterations) + " iterations to unroll");
    std::vector<Value> in = {Value{-1, scalar(double(it), Int(64)), {}, Int(64)},
                             Value{-1, scalar(1, Bool()), {}, Bool()}};
    in.insert(in.end(), v.begin(), v.end());
    std::vector<Value> out = c.subgraph("body", in);
    TIR_USER_CHECK(out.size() == 1 + carried + scans.size())
        << "the body has " << out.size() << " outputs; the node needs " << 1 + carried + scans.size();
    if (!out[0].known.defined() && !c.compute_known(out[0], "the body's condition")) {
      const ::onnx::AttributeProto *body = c.attrs().get("body");
      throw Unsupported{"the body computes its condition at run time (onnx::Session and `tensorir run` run the "
                        "loop between stages)",
                        "", body && body->g().output_size() ? body->g().output(0).name() : "the body's condition"};
    }
    cond = to_int64s(out[0].known).at(0) != 0;
    v.assign(out.begin() + 1, out.begin() + std::ptrdiff_t(1 + carried));
    for (size_t k = 0; k < scans.size(); ++k) scans[k].push_back(out[1 + carried + k]);
  }
  for (size_t i = 0; i < carried; ++i) c.set_output(i, v[i]);
  for (size_t k = 0; k < scans.size(); ++k) {
    if (!c.wants_output(carried + k)) continue;
    if (scans[k].empty()) unsupported("no iterations: the scan outputs are empty");
    c.set_output(carried + k, join_values(c, scans[k], 0, true));
  }
}

// v[index] along `axis`, that dimension dropped.
Value take(Context &c, const Value &v, int axis, int64_t index) {
  TIR_USER_CHECK(v.kind == ValueKind::kTensor) << kind_name(v.kind) << " where a tensor is expected";
  Shape begin(v.shape.size(), 0), step(v.shape.size(), 1), out = v.shape, end = v.shape;
  begin[size_t(axis)] = index;
  end[size_t(axis)] = index + 1;
  out[size_t(axis)] = 1;
  Shape shape = v.shape;
  shape.erase(shape.begin() + axis);
  if (v.known.defined()) {
    NDArray a = host_reshape(host_slice(v.known, begin, step, out), shape);
    return Value{-1, a, shape, v.dtype};
  }
  graph::NodeRef r = c.make("slice", {c.node(v, "scanned")}, {{"begin", begin}, {"end", end}, {"strides", step}});
  r = c.make("reshape", {r}, {{"shape", shape}});
  return Value{r.id, NDArray(), shape, v.dtype};
}

// Scan over states [N] and scan inputs [M] (opset 9 on): the body maps (states, one slice
// of each scan input) to (states, one slice of each scan output), once per position
// along each input's scan axis (backwards for direction 1); the slices out are stacked.
// (Opset 8 names the input directions `directions`.)
std::vector<Value> scan_steps(Context &c, std::vector<Value> states, const std::vector<Value> &scans, size_t outputs,
                              const std::string &directions = "scan_input_directions") {
  const Attributes &a = c.attrs();
  const size_t m = scans.size(), k = outputs - states.size();
  const std::vector<int64_t> in_axes = a.ints("scan_input_axes", Shape(m, 0)),
                             in_dirs = a.ints(directions, Shape(m, 0)),
                             out_axes = a.ints("scan_output_axes", Shape(k, 0)),
                             out_dirs = a.ints("scan_output_directions", Shape(k, 0));
  TIR_USER_CHECK(in_axes.size() == m && in_dirs.size() == m && out_axes.size() == k && out_dirs.size() == k)
      << "the scan axes and directions do not match " << m << " scan inputs and " << k << " scan outputs";
  TIR_USER_CHECK(m > 0) << "Scan has no scan inputs";
  std::vector<int> axes;
  int64_t steps = -1;
  for (size_t j = 0; j < m; ++j) {
    axes.push_back(normalize_axis(in_axes[j], int(scans[j].shape.size()), "scan_input_axes"));
    const int64_t len = scans[j].shape[size_t(axes[j])];
    TIR_USER_CHECK(steps < 0 || steps == len) << "the scan inputs differ in length along their scan axes";
    steps = len;
  }
  std::vector<std::vector<Value>> slices(k);
  for (int64_t t = 0; t < steps; ++t) {
    std::vector<Value> in = states;
    for (size_t j = 0; j < m; ++j) in.push_back(take(c, scans[j], axes[j], in_dirs[j] ? steps - 1 - t : t));
    const std::vector<Value> out = c.subgraph("body", in);
    TIR_USER_CHECK(out.size() == outputs) << "the body has " << out.size() << " outputs; the node " << outputs;
    states.assign(out.begin(), out.begin() + std::ptrdiff_t(states.size()));
    for (size_t j = 0; j < k; ++j) slices[j].push_back(out[states.size() + j]);
  }
  if (steps == 0) unsupported("scan inputs of length 0");
  for (size_t j = 0; j < k; ++j) {
    if (out_dirs[j]) std::reverse(slices[j].begin(), slices[j].end());
    const int rank = int(slices[j][0].shape.size()) + 1;
    states.push_back(join_values(c, slices[j], normalize_axis(out_axes[j], rank, "scan_output_axes"), true));
  }
  return states;
}

void scan(Context &c) {
  const size_t m = size_t(c.attrs().i("num_scan_inputs", 0)), n = c.num_inputs() - m;
  TIR_USER_CHECK(m >= 1 && m <= c.num_inputs())
      << "num_scan_inputs " << m << " does not fit " << c.num_inputs() << " inputs";
  std::vector<Value> states, scans;
  for (size_t i = 0; i < c.num_inputs(); ++i) (i < n ? states : scans).push_back(c.input(i));
  const std::vector<Value> out = scan_steps(c, states, scans, c.num_outputs());
  for (size_t i = 0; i < out.size(); ++i) c.set_output(i, out[i]);
}

// Scan at opset 8: every input has a batch axis first, scanned one batch at a time; the
// optional sequence_lens must be the full length.
void scan_batched(Context &c) {
  const size_t m = size_t(c.attrs().i("num_scan_inputs", 0));
  TIR_USER_CHECK(m >= 1 && m + 1 <= c.num_inputs())
      << "num_scan_inputs " << m << " does not fit " << c.num_inputs() << " inputs";
  const size_t n = c.num_inputs() - 1 - m;
  TIR_USER_CHECK(c.rank(1) >= 1) << "input '" << c.input_name(1) << "' has no batch axis";
  const int64_t batch = c.shape(1)[0];
  if (batch == 0) unsupported("an empty batch");
  if (c.has_input(0)) {
    for (int64_t len : c.ints(0, "sequence_lens"))
      if (len != c.shape(1 + n)[1]) unsupported("sequence_lens shorter than the scan inputs");
  }
  std::vector<std::vector<Value>> per_output(c.num_outputs());
  for (int64_t b = 0; b < batch; ++b) {
    std::vector<Value> states, scans;
    for (size_t i = 1; i < c.num_inputs(); ++i) {
      TIR_USER_CHECK(c.rank(i) >= 1 && c.shape(i)[0] == batch) << "the inputs differ in batch size";
      (i <= n ? states : scans).push_back(take(c, c.input(i), 0, b));
    }
    const std::vector<Value> out = scan_steps(c, states, scans, c.num_outputs(), "directions");
    for (size_t i = 0; i < out.size(); ++i) per_output[i].push_back(out[i]);
  }
  for (size_t i = 0; i < per_output.size(); ++i) c.set_output(i, join_values(c, per_output[i], 0, true));
}

const bool registered = [] {
  register_converter({"If", kMinOpset, kLatest, nullptr, if_});
  register_converter({"Scan", 8, 8, nullptr, scan_batched});
  register_converter({"Scan", 9, kLatest, nullptr, scan});
  register_converter({"Loop", kMinOpset, kLatest, nullptr, loop});
  return true;
}();

}  // namespace

}  // namespace tensorir::onnx::detail
