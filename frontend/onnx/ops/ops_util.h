// Helpers shared by the converter families in this folder.
#pragma once
#include <string>
#include <vector>

#include "frontend/onnx/converter.h"
#include "frontend/onnx/host.h"
#include "frontend/onnx/importer.h"
#include "frontend/onnx/proto.h"

namespace tensorir::onnx::detail {

// Unsupported unless input i is float32 (the dtype the heavy operators compute in).
inline void need_float32(const Context &c, size_t i) {
  if (c.dtype(i) != Float(32))
    unsupported("input '" + c.input_name(i) + "' is " + c.dtype(i).str() + "; only float32 is supported");
}

// Unsupported unless input i is a float type.
inline void need_float(const Context &c, size_t i) {
  if (!c.dtype(i).is_float())
    unsupported("input '" + c.input_name(i) + "' is " + c.dtype(i).str() + "; only float types are supported");
}

// The element type of ONNX type code `code` (a "to" or "dtype" attribute; float32 for
// float16); Unsupported for those the graph cannot hold, `what` naming the attribute.
inline Type onnx_dtype(int64_t code, const std::string &what) {
  Type t;
  if (!element_type(int32_t(code), &t) || !supported_dtype(t))
    unsupported(what + " " + element_type_name(int32_t(code)) + " is not supported");
  return t;
}

// A one-element constant (shape []) of `dtype`.
inline NDArray scalar(double value, Type dtype) { return from_doubles({value}, {}, dtype); }

// axis in [-rank, rank) as [0, rank); an Error (a malformed model) otherwise.
inline int normalize_axis(int64_t axis, int rank, const std::string &what = "axis") {
  TIR_USER_CHECK(axis >= -rank && axis < rank) << what << " " << axis << " is out of range for rank " << rank;
  return int(axis < 0 ? axis + rank : axis);
}

// "" when every value of `v` is `want`, else a reason naming the attribute.
inline std::string all_equal(const std::vector<int64_t> &v, int64_t want, const std::string &attr) {
  for (int64_t x : v)
    if (x != want) return attr + " other than " + std::to_string(want) + " is not supported";
  return "";
}

}  // namespace tensorir::onnx::detail
