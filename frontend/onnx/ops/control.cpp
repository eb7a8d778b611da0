// Control flow decided at import: If with a condition known at import converts only the
// branch taken; Loop with a trip count and condition known at import is unrolled, its
// body converted once per iteration. A condition computed at run time would need the
// graph to branch: unsupported.
#include "frontend/onnx/ops/ops_util.h"

namespace tensorir::onnx::detail {

namespace {

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
  const int64_t trips = c.has_input(0) ? c.ints(0, "trip count").at(0) : -1;
  bool cond = c.has_input(1) ? known_condition(c, 1) : true;
  if (trips < 0 && !c.has_input(1)) unsupported("neither a trip count nor a condition: the loop does not end");
  const size_t carried = c.num_inputs() - 2;
  TIR_USER_CHECK(c.num_outputs() >= carried) << "the node has fewer outputs than loop-carried values";
  std::vector<Value> v;
  for (size_t i = 0; i < carried; ++i) v.push_back(c.any_input(i + 2));
  std::vector<std::vector<Value>> scans(c.num_outputs() - carried);
  for (int64_t it = 0; cond && (trips < 0 || it < trips); ++it) {
    if (it == kMaxIterations) unsupported("more than " + std::to_string(kMaxIterations) + " iterations to unroll");
    std::vector<Value> in = {Value{-1, scalar(double(it), Int(64)), {}, Int(64)}, Value{-1, scalar(1, Bool()), {}, Bool()}};
    in.insert(in.end(), v.begin(), v.end());
    const std::vector<Value> out = c.subgraph("body", in);
    TIR_USER_CHECK(out.size() == 1 + carried + scans.size())
        << "the body has " << out.size() << " outputs; the node needs " << 1 + carried + scans.size();
    if (!out[0].known.defined()) unsupported("the body computes its condition at run time");
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

const bool registered = [] {
  register_converter({"If", kMinOpset, kLatest, nullptr, if_});
  register_converter({"Loop", kMinOpset, kLatest, nullptr, loop});
  return true;
}();

}  // namespace

}  // namespace tensorir::onnx::detail
