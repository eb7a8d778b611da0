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
Tensor maximum(const Tensor &a, const Tensor &b, const std::string &name = "maximum");
Tensor minimum(const Tensor &a, const Tensor &b, const std::string &name = "minimum");
// a to the power b; float tensors only.
Tensor power(const Tensor &a, const Tensor &b, const std::string &name = "power");
// a << b and a >> b (arithmetic for signed a) on integers; shifts by b outside
// [0, bits) give 0 (or -1 for a negative a shifted right).
Tensor shift_left(const Tensor &a, const Tensor &b, const std::string &name = "shift_left");
Tensor shift_right(const Tensor &a, const Tensor &b, const std::string &name = "shift_right");
// Comparisons with NumPy broadcasting, giving bool tensors.
Tensor equal(const Tensor &a, const Tensor &b, const std::string &name = "equal");
Tensor less(const Tensor &a, const Tensor &b, const std::string &name = "less");
Tensor less_equal(const Tensor &a, const Tensor &b, const std::string &name = "less_equal");
Tensor greater(const Tensor &a, const Tensor &b, const std::string &name = "greater");
Tensor greater_equal(const Tensor &a, const Tensor &b, const std::string &name = "greater_equal");
// Logic on bool tensors with NumPy broadcasting.
Tensor logical_and(const Tensor &a, const Tensor &b, const std::string &name = "logical_and");
Tensor logical_or(const Tensor &a, const Tensor &b, const std::string &name = "logical_or");
Tensor logical_xor(const Tensor &a, const Tensor &b, const std::string &name = "logical_xor");
// cond ? a : b element by element, the three broadcast together; cond is bool, a and b
// have one dtype.
Tensor where(const Tensor &cond, const Tensor &a, const Tensor &b, const std::string &name = "where");

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

// Moves x from layout `src` to layout `dst`. A layout names one dimension per letter:
// upper case for an axis (or the outer part of a blocked one), a size and the lower-case
// letter for a block of it, innermost where it stands: "NCHW16c" is [N][C/16][H][W][16],
// "OIHW8i16o" is [O/16][I/8][H][W][8][16] (conv2d_nchwc's packed weights). Each block size
// must divide its axis. An axis only in `dst` gets extent 1 ("C" to "NCHW16c" makes a
// per-channel vector broadcastable over a blocked tensor); an axis only in `src` must
// have extent 1.
Tensor layout_transform(const Tensor &x, const std::string &src, const std::string &dst,
                        const std::string &name = "layout_transform");
// As layout_transform, but an axis that a block of `dst` does not divide is padded at its
// end with zeros to whole blocks: "NCHW" to "NCHW4c" makes an image's 3 channels one
// block of 4, the 4th zero.
Tensor layout_transform_pad(const Tensor &x, const std::string &src, const std::string &dst,
                            const std::string &name = "layout_transform_pad");

}  // namespace tensorir::ops
