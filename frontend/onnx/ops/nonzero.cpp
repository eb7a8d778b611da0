// NonZero of a tensor known at import, computed then: how many elements are not zero
// decides the result's shape. An input computed at run time makes the node a boundary
// between the stages a Session runs (stages.h).
#include "frontend/onnx/ops/ops_util.h"

namespace tensorir::onnx::detail {

namespace {

// [rank, count]: the indices of the elements that are not zero (NaN is not), in row-major
// order; a scalar's is [0, count].
void nonzero(Context &c) {
  const NDArray &x = data_value(c, 0, "X");
  const std::vector<int64_t> &shape = x.shape();
  const std::vector<double> v = to_doubles(x);
  std::vector<int64_t> flat;
  for (size_t i = 0; i < v.size(); ++i)
    if (v[i] != 0) flat.push_back(int64_t(i));
  const int64_t rank = int64_t(shape.size()), count = int64_t(flat.size());
  if (count == 0 && rank > 0) return empty_output(c, 0, {rank, 0}, Int(64));
  if (rank == 0) unsupported("a scalar input");
  std::vector<int64_t> out(size_t(rank * count));
  for (int64_t k = 0; k < count; ++k) {
    int64_t rest = flat[size_t(k)];
    for (int64_t d = rank - 1; d >= 0; --d) {
      out[size_t(d * count + k)] = rest % shape[size_t(d)];
      rest /= shape[size_t(d)];
    }
  }
  c.set_output(0, from_int64s(out, {rank, count}));
}

const bool registered = [] {
  register_converter({"NonZero", 9, kLatest, nullptr, nonzero});
  return true;
}();

}  // namespace

}  // namespace tensorir::onnx::detail
