// Reading ONNX's protobuf messages: models from files or bytes, tensors (raw, typed or
// external data) as NDArrays, and ONNX element types. Internal to libtensorir_onnx.
#pragma once
#include <onnx/onnx_pb.h>

#include <cstdint>
#include <string>

#include "tensorir/runtime/ndarray.h"

namespace tensorir::onnx::detail {

// The model in `bytes`; `what` names its source in errors ("'model.onnx'", "the bytes
// given"). Throws an Error for bytes that are not a model (corrupt, truncated, no graph).
::onnx::ModelProto parse_model(const std::string &bytes, const std::string &what);
// The model in file `path`; errors name the file.
::onnx::ModelProto load_model(const std::string &path);
// The whole of file `path`; `what` says what it is for the error.
std::string read_file(const std::string &path, const std::string &what);

// The tensor type of an ONNX element type (TensorProto::DataType); float16 is read as
// float32. Returns false for types without one (string, complex, bfloat16).
bool element_type(int32_t onnx_type, Type *out);
// Whether the ONNX element type is float16, whose values the graph holds in float32
// rounded to float16 (graph inputs, Cast's results, graph outputs).
inline bool is_float16(int32_t onnx_type) { return onnx_type == ::onnx::TensorProto::FLOAT16; }
// "float32", "int64", ... and "string", "complex64", "bfloat16" for the others.
std::string element_type_name(int32_t onnx_type);
// The ONNX element type of `t`, or 0 (UNDEFINED).
int32_t onnx_type_of(Type t);

// The values of `t` as an NDArray (float16 widened to float32). External data is read
// from `dir` (its location must be a relative path inside it). Errors name the tensor.
NDArray tensor_value(const ::onnx::TensorProto &t, const std::string &dir);
// A TensorProto called `name` holding `a` (on the CPU) as raw data.
::onnx::TensorProto tensor_proto(const std::string &name, const NDArray &a);

// The number of elements `t` declares by its dims.
int64_t element_count(const ::onnx::TensorProto &t);

}  // namespace tensorir::onnx::detail
