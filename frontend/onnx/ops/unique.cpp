// Unique of a tensor known at import, computed then: how many distinct values (or slices
// along `axis`) there are decides the result's shape, so an input computed at run time
// makes the node a boundary between the stages a Session runs (stages.h).
#include <algorithm>
#include <cmath>
#include <map>
#include <numeric>

#include "frontend/onnx/ops/ops_util.h"

namespace tensorir::onnx::detail {

namespace {

void unique(Context &c) {
  const NDArray &x = data_value(c, 0, "X");
  const bool flat = !c.attrs().has("axis");
  const NDArray data = flat ? host_reshape(x, {x.numel()}) : x;
  const int axis = flat ? 0 : normalize_axis(c.attrs().i("axis", 0), c.rank(0));
  // Slice k along the axis, its elements in order: the outer (before the axis) index
  // times the inner block.
  const std::vector<double> v = to_doubles(data);
  const std::vector<int64_t> &shape = data.shape();
  const int64_t len = shape[size_t(axis)];
  int64_t outer = 1, inner = 1;
  for (int i = 0; i < axis; ++i) outer *= shape[size_t(i)];
  for (size_t i = size_t(axis) + 1; i < shape.size(); ++i) inner *= shape[i];
  if (len == 0) {  // no slices: every output empty
    const std::vector<std::pair<std::vector<int64_t>, Type>> outs = {
        {shape, data.dtype()}, {{0}, Int(64)}, {{0}, Int(64)}, {{0}, Int(64)}};
    for (size_t i = 0; i < outs.size() && i < c.num_outputs(); ++i)
      if (c.wants_output(i)) empty_output(c, i, outs[i].first, outs[i].second);
    return;
  }
  for (double e : v)
    if (std::isnan(e)) unsupported("NaN values (they compare unequal to themselves)");
  std::vector<std::vector<double>> slices(static_cast<size_t>(len));
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t k = 0; k < len; ++k)
      for (int64_t i = 0; i < inner; ++i) slices[size_t(k)].push_back(v[size_t((o * len + k) * inner + i)]);
  std::map<std::vector<double>, int64_t> first;  // slice -> its first position
  std::vector<int64_t> order;                    // first positions of the distinct slices
  for (int64_t k = 0; k < len; ++k)
    if (first.emplace(slices[size_t(k)], k).second) order.push_back(k);
  if (c.attrs().i("sorted", 1) != 0)
    std::sort(order.begin(), order.end(), [&](int64_t a, int64_t b) { return slices[size_t(a)] < slices[size_t(b)]; });
  std::map<std::vector<double>, int64_t> rank;  // slice -> its place in the result
  for (size_t j = 0; j < order.size(); ++j) rank[slices[size_t(order[j])]] = int64_t(j);
  std::vector<int64_t> inverse, counts(order.size(), 0);
  for (int64_t k = 0; k < len; ++k) {
    inverse.push_back(rank[slices[size_t(k)]]);
    ++counts[size_t(inverse.back())];
  }
  const int64_t u = int64_t(order.size());
  c.set_output(0, host_gather(data, from_int64s(order, {u}), axis));
  c.set_output(1, from_int64s(order, {u}));
  c.set_output(2, from_int64s(inverse, {len}));
  c.set_output(3, from_int64s(counts, {u}));
}

const bool registered = [] {
  register_converter({"Unique", 11, kLatest, nullptr, unique});
  return true;
}();

}  // namespace

}  // namespace tensorir::onnx::detail
