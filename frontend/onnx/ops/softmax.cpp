// Softmax and LogSoftmax. Up to opset 12 the input is seen as 2-D, [product of the
// dimensions before axis, product of the rest], and normalized over whole rows; from 13
// over the one axis (default -1).
#include "frontend/onnx/ops/ops_util.h"

namespace tensorir::onnx::detail {

namespace {

void softmax(Context &c, const std::string &op, bool rows) {
  need_float(c, 0);
  const std::vector<int64_t> s = c.shape(0);
  const int rank = int(s.size());
  if (rank == 0) unsupported("a scalar input");
  const int axis = normalize_axis(c.attrs().i("axis", rows ? 1 : -1), rank);
  if (!rows || axis == rank - 1) return void(c.output(0, op, {c.node(0)}, {{"axis", int64_t(axis)}}));
  int64_t outer = 1, inner = 1;
  for (int i = 0; i < rank; ++i) (i < axis ? outer : inner) *= s[size_t(i)];
  graph::NodeRef x = c.make("reshape", {c.node(0)}, {{"shape", std::vector<int64_t>{outer, inner}}});
  graph::NodeRef y = c.make(op, {x}, {{"axis", int64_t{1}}});
  c.output(0, "reshape", {y}, {{"shape", s}});
}

const bool registered = [] {
  register_converter({"Softmax", kMinOpset, 12, nullptr, [](Context &c) { softmax(c, "softmax", true); }});
  register_converter({"Softmax", 13, kLatest, nullptr, [](Context &c) { softmax(c, "softmax", false); }});
  register_converter({"LogSoftmax", kMinOpset, 12, nullptr, [](Context &c) { softmax(c, "log_softmax", true); }});
  register_converter({"LogSoftmax", 13, kLatest, nullptr, [](Context &c) { softmax(c, "log_softmax", false); }});
  return true;
}();

}  // namespace

}  // namespace tensorir::onnx::detail
