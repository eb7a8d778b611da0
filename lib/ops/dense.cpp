// Fully connected layer: out[i, j] = sum_k data[i, k] * weight[j, k], with the weight as
// it is or packed in panels of output columns.
#include "op_util.h"
#include "tensorir/ops/nn.h"

namespace tensorir::ops {

using namespace detail;

Tensor dense(const Tensor &data, const Tensor &weight, const std::string &name) {
  check_ndim(data, 2, "dense", "[batch, in_features]");
  check_ndim(weight, 2, "dense", "[out_features, in_features]");
  check_same_dtype(data, weight, "dense");
  const std::vector<int64_t> d = const_shape(data, "dense"), w = const_shape(weight, "dense");
  TIR_USER_CHECK(d[1] == w[1]) << "dense: data " << data.name() << " has " << d[1] << " features (dimension 1) but weight "
                               << weight.name() << " expects " << w[1] << " (its dimension 1)";
  IterVar k = reduce_axis({0, static_cast<int>(d[1])}, "k");
  return compute(
      to_exprs({d[0], w[0]}), [&](Var i, Var j) { return sum(data(i, k) * weight(j, k), {k}); }, name, "dense");
}

Tensor dense_packed(const Tensor &data, const Tensor &packed, const std::string &name) {
  check_ndim(data, 2, "dense_packed", "[batch, in_features]");
  check_ndim(packed, 3, "dense_packed", "[out_features / block, in_features, block]");
  check_same_dtype(data, packed, "dense_packed");
  const std::vector<int64_t> d = const_shape(data, "dense_packed"), w = const_shape(packed, "dense_packed");
  TIR_USER_CHECK(d[1] == w[1]) << "dense_packed: data " << data.name() << " has " << d[1]
                               << " features (dimension 1) but the packed weight " << packed.name() << " expects "
                               << w[1] << " (its dimension 1)";
  const int64_t block = w[2];
  IterVar k = reduce_axis({0, static_cast<int>(d[1])}, "k");
  return compute(
      to_exprs({d[0], w[0] * block}),
      [&](Var i, Var j) { return sum(data(i, k) * packed(j / Expr(int(block)), k, j % Expr(int(block))), {k}); }, name,
      "dense_packed");
}

}  // namespace tensorir::ops
