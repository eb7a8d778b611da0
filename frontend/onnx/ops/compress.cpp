// Compress with a condition known at import: the positions it selects are then fixed, and
// the operator is a take of constant indices (without an axis, of the flattened input).
// A condition computed at run time would decide the result's shape: the node is then a
// boundary between the stages a Session runs (stages.h).
#include "frontend/onnx/ops/ops_util.h"

namespace tensorir::onnx::detail {

namespace {

void compress(Context &c) {
  const std::vector<int64_t> cond = to_int64s(data_value(c, 1, "condition"));
  TIR_USER_CHECK(c.rank(1) == 1) << "condition " << shape_str(c.shape(1)) << " must be a vector";
  const bool flat = !c.attrs().has("axis");
  const std::vector<int64_t> shape = flat ? std::vector<int64_t>{element_count(c.shape(0))} : c.shape(0);
  const int axis = flat ? 0 : normalize_axis(c.attrs().i("axis", 0), c.rank(0));
  const int64_t dim = shape[size_t(axis)];
  TIR_USER_CHECK(int64_t(cond.size()) <= dim)
      << "condition of " << cond.size() << " is longer than dimension " << axis << " (" << dim << ")";
  std::vector<int64_t> picked;  // positions past the condition's end are dropped
  for (size_t i = 0; i < cond.size(); ++i)
    if (cond[i]) picked.push_back(int64_t(i));
  if (picked.empty()) {
    std::vector<int64_t> out = shape;
    out[size_t(axis)] = 0;
    return empty_output(c, 0, out, c.dtype(0));
  }
  const NDArray indices = from_int64s(picked, {int64_t(picked.size())});
  if (c.known(0)) return c.set_output(0, host_gather(host_reshape(c.input(0).known, shape), indices, axis));
  graph::NodeRef x = flat ? c.make("reshape", {c.node(0)}, {{"shape", shape}}) : c.node(0);
  c.output(0, "take", {x, c.constant(indices, "indices")}, {{"axis", int64_t(axis)}});
}

const bool registered = [] {
  register_converter({"Compress", 9, kLatest, nullptr, compress});
  return true;
}();

}  // namespace

}  // namespace tensorir::onnx::detail
