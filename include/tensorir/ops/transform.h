// Shape and element-wise operators as tensor expressions. Shapes must be constant.
// Every stage here is tagged "injective" (each output element reads a fixed set of
// input elements, no reduction), so schedule_generic inlines it into its readers.
#pragma once
#include <string>
#include <vector>

#include "tensorir/te/tensor.h"

namespace tensorir::ops {

// Element-wise arithmetic with NumPy broadcasting: shapes align at the right, and each
// pair of dimensions must be equal or contain a 1. Both tensors must have one dtype.
Tensor add(const Tensor &a, const Tensor &b, const std::string &name = "add");
Tensor subtract(const Tensor &a, const Tensor &b, const std::string &name = "subtract");
Tensor multiply(const Tensor &a, const Tensor &b, const std::string &name = "multiply");
Tensor divide(const Tensor &a, const Tensor &b, const std::string &name = "divide");

// [d0, d1, ...] -> [d0, d1 * d2 * ...].
Tensor flatten(const Tensor &x, const std::string &name = "flatten");
// Row-major reshape; one dimension may be -1 and is then inferred.
Tensor reshape(const Tensor &x, const std::vector<int64_t> &shape, const std::string &name = "reshape");
// Output dimension i is input dimension axes[i]; empty axes reverse the dimensions.
Tensor transpose(const Tensor &x, const std::vector<int> &axes = {}, const std::string &name = "transpose");
// Joins tensors of one dtype and rank along `axis`; the other dimensions must match.
Tensor concatenate(const std::vector<Tensor> &tensors, int axis, const std::string &name = "concatenate");
// Adds before[i] and after[i] elements of `value` around dimension i (missing entries: 0).
Tensor pad(const Tensor &x, const std::vector<int> &before, const std::vector<int> &after, double value = 0.0,
           const std::string &name = "pad");

}  // namespace tensorir::ops
