// Computing on tensors known at import (initializers, Constant nodes, shapes), so that
// shape computations fold into constants: PyTorch's Shape -> Gather -> Concat -> Reshape
// chains become a constant target shape. Every function returns a new array.
#pragma once
#include <climits>
#include <cstdint>
#include <string>
#include <vector>

#include "tensorir/runtime/ndarray.h"

namespace tensorir::onnx::detail {

// The elements as int64 (integer and bool arrays; floats round toward zero).
std::vector<int64_t> to_int64s(const NDArray &a);
// The elements as double.
std::vector<double> to_doubles(const NDArray &a);
// An array of `dtype` from int64 or double values.
NDArray from_int64s(const std::vector<int64_t> &values, const std::vector<int64_t> &shape, Type dtype = Int(64));
NDArray from_doubles(const std::vector<double> &values, const std::vector<int64_t> &shape, Type dtype);
// A scalar (shape []) or vector of int64.
NDArray int64_vector(const std::vector<int64_t> &values);

// The product of the dimensions (no checks: for shapes already held).
int64_t element_count(const std::vector<int64_t> &shape);

// How large a tensor import may make. A model of a few hundred bytes can ask for any
// size (OneHot's depth, Range's limit, Tile's repeats, Pad's pads), so every size that
// comes from a value is checked before anything is allocated or a node is made.
//
// A tensor computed on the host (a folded value, a constant the importer makes) holds at
// most kMaxHostElements: host arithmetic passes values through int64 or double, so that
// is 2 GiB per copy whatever the type.
constexpr int64_t kMaxHostBytes = int64_t{1} << 31;
constexpr int64_t kMaxHostElements = kMaxHostBytes / 8;
// A graph node's result holds at most 2^31 - 1 elements: compiled kernels index with
// 32-bit integers.
constexpr int64_t kMaxGraphElements = INT32_MAX;

// The element count of a tensor of `shape` and `dtype` about to be computed on the host;
// an Error naming it as `what` when a dimension is negative or it holds more than
// kMaxHostElements (an overflowing product included).
int64_t check_host_size(const std::vector<int64_t> &shape, Type dtype, const std::string &what = "the result");
// The element count of a graph node's `shape` (of `dtype`); an Error naming it as `what`
// when a dimension is negative or it holds more than kMaxGraphElements.
int64_t check_graph_size(const std::vector<int64_t> &shape, Type dtype, const std::string &what = "the result");
// a + b, an Error naming `what` when the sum overflows int64 (extents from attributes).
int64_t checked_add(int64_t a, int64_t b, const std::string &what);
// a * b, likewise.
int64_t checked_mul(int64_t a, int64_t b, const std::string &what);
// The size of the last tensor check_host_size passed on this thread, in bytes (0 after
// reset_host_request): what to report when memory runs out anyway.
int64_t last_host_request();
void reset_host_request();

// `a` converted to `dtype` (floats to integers round toward zero, to bool: != 0).
NDArray host_cast(const NDArray &a, Type dtype);
// `a` (float32) with each value rounded to the nearest float16 (ties to even; beyond
// float16's range, infinity): float16 values are held in float32 (proto.h).
NDArray host_round_to_half(const NDArray &a);
// The same elements under another shape of as many.
NDArray host_reshape(const NDArray &a, const std::vector<int64_t> &shape);
NDArray host_transpose(const NDArray &a, const std::vector<int64_t> &perm);
// a[starts[i] :: steps[i]] with `out` elements in each dimension (all given).
NDArray host_slice(const NDArray &a, const std::vector<int64_t> &starts, const std::vector<int64_t> &steps,
                   const std::vector<int64_t> &out);
NDArray host_concat(const std::vector<NDArray> &parts, int axis);
// numpy.take(data, indices, axis); negative indices count from the end.
NDArray host_gather(const NDArray &data, const NDArray &indices, int axis);
// `a` broadcast to `shape` (NumPy rules, `shape` the full result).
NDArray host_broadcast_to(const NDArray &a, const std::vector<int64_t> &shape);
// The NumPy broadcast shape of a and b; empty `error` when they fit.
std::vector<int64_t> broadcast_shapes(const std::vector<int64_t> &a, const std::vector<int64_t> &b, std::string *error);

enum class BinaryOp { kAdd, kSub, kMul, kDiv, kMax, kMin };
// Element-wise with NumPy broadcasting, in the dtype of `a` (b must match it). Integer
// division rounds toward zero, as C does.
NDArray host_binary(BinaryOp op, const NDArray &a, const NDArray &b);

}  // namespace tensorir::onnx::detail
