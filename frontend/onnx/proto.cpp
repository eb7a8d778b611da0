// ONNX protobuf messages in, NDArrays out.
#include "frontend/onnx/proto.h"

#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/io/zero_copy_stream_impl_lite.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <sstream>

#include "runtime/half.h"

namespace tensorir::onnx::detail {

namespace fs = std::filesystem;
using ::onnx::TensorProto;

std::string read_file(const std::string &path, const std::string &what) {
  // Only a regular file: /dev/zero would be read until memory ran out, a FIFO would block.
  std::error_code ec;
  const fs::file_type type = fs::status(path, ec).type();
  TIR_USER_CHECK(type != fs::file_type::directory) << "onnx: " << what << " '" << path << "' is a directory, not a file";
  TIR_USER_CHECK(type == fs::file_type::regular || type == fs::file_type::not_found)
      << "onnx: " << what << " '" << path << "' is not a regular file (a device, a pipe or a socket)";
  std::ifstream in(path, std::ios::binary);
  TIR_USER_CHECK(in) << "onnx: cannot open " << what << " '" << path << "'";
  std::ostringstream os;
  os << in.rdbuf();
  TIR_USER_CHECK(!in.bad()) << "onnx: cannot read " << what << " '" << path << "'";
  return os.str();
}

::onnx::ModelProto parse_model(const std::string &bytes, const std::string &what) {
  ::onnx::ModelProto m;
  google::protobuf::io::ArrayInputStream raw(bytes.data(), static_cast<int>(bytes.size()));
  google::protobuf::io::CodedInputStream coded(&raw);
  coded.SetTotalBytesLimit(std::numeric_limits<int>::max());  // models beyond 64 MiB
  TIR_USER_CHECK(bytes.size() < size_t(std::numeric_limits<int>::max()))
      << "onnx: " << what << " holds " << bytes.size() << " bytes; models of 2 GiB or more keep their "
      << "tensors as external data";
  const bool ok = m.ParseFromCodedStream(&coded) && coded.ConsumedEntireMessage();
  TIR_USER_CHECK(ok) << "onnx: " << what << " is not a valid ONNX model (the protobuf does not parse: "
                     << "truncated or corrupt)";
  // Unrelated bytes may parse as a message of unknown fields: a model has a graph and an
  // IR version.
  TIR_USER_CHECK(m.has_graph() && m.ir_version() > 0)
      << "onnx: " << what << " is not an ONNX model (" << (m.has_graph() ? "no IR version" : "no graph") << ")";
  return m;
}

::onnx::ModelProto load_model(const std::string &path) {
  return parse_model(read_file(path, "model"), "'" + path + "'");
}

bool element_type(int32_t onnx_type, Type *out) {
  switch (onnx_type) {
    case TensorProto::FLOAT:
      *out = Float(32);
      return true;
    case TensorProto::FLOAT16:
      *out = Float(32);
      return true;
    case TensorProto::DOUBLE:
      *out = Float(64);
      return true;
    case TensorProto::INT8:
      *out = Int(8);
      return true;
    case TensorProto::INT16:
      *out = Int(16);
      return true;
    case TensorProto::INT32:
      *out = Int(32);
      return true;
    case TensorProto::INT64:
      *out = Int(64);
      return true;
    case TensorProto::UINT8:
      *out = UInt(8);
      return true;
    case TensorProto::UINT16:
      *out = UInt(16);
      return true;
    case TensorProto::UINT32:
      *out = UInt(32);
      return true;
    case TensorProto::UINT64:
      *out = UInt(64);
      return true;
    case TensorProto::BOOL:
      *out = Bool();
      return true;
    default:
      return false;
  }
}

std::string element_type_name(int32_t onnx_type) {
  switch (onnx_type) {
    case TensorProto::FLOAT16:
      return "float16";
    case TensorProto::STRING:
      return "string";
    case TensorProto::COMPLEX64:
      return "complex64";
    case TensorProto::COMPLEX128:
      return "complex128";
    case TensorProto::BFLOAT16:
      return "bfloat16";
    case TensorProto::UNDEFINED:
      return "undefined";
    default:
      break;
  }
  Type t;
  return element_type(onnx_type, &t) ? t.str() : "element type " + std::to_string(onnx_type);
}

int32_t onnx_type_of(Type t) {
  for (int32_t code = 1; code <= TensorProto::BFLOAT16; ++code) {
    Type u;
    if (code != TensorProto::FLOAT16 && element_type(code, &u) && u == t) return code;
  }
  return TensorProto::UNDEFINED;
}

int64_t element_count(const TensorProto &t) {
  int64_t n = 1;
  for (int64_t d : t.dims()) n *= d;
  return n;
}

namespace {

// Where external data lives: `dir` / location, which must stay inside `dir`.
std::string external_path(const TensorProto &t, const std::string &dir, int64_t *offset, int64_t *length) {
  std::string location;
  *offset = 0;
  *length = -1;
  for (const auto &kv : t.external_data()) {
    if (kv.key() == "location") location = kv.value();
    try {
      if (kv.key() == "offset") *offset = std::stoll(kv.value());
      if (kv.key() == "length") *length = std::stoll(kv.value());
    } catch (const std::exception &) {
      TIR_THROW() << "onnx: tensor '" << t.name() << "': external data " << kv.key() << " '" << kv.value()
                  << "' is not a number";
    }
  }
  TIR_USER_CHECK(!location.empty()) << "onnx: tensor '" << t.name() << "' is stored as external data but names no "
                                    << "location";
  const fs::path rel(location);
  bool inside = rel.is_relative();
  for (const fs::path &part : rel) inside = inside && part != "..";
  TIR_USER_CHECK(inside) << "onnx: tensor '" << t.name() << "': external data location '" << location
                         << "' must be a relative path inside the model's directory";
  TIR_USER_CHECK(*offset >= 0) << "onnx: tensor '" << t.name() << "': negative external data offset";
  return (fs::path(dir.empty() ? "." : dir) / rel).string();
}

// The raw bytes of an external tensor, `want` of them.
std::string external_bytes(const TensorProto &t, const std::string &dir, size_t want) {
  int64_t offset, length;
  const std::string path = external_path(t, dir, &offset, &length);
  // Not a FIFO or a device either: opening one blocks until something writes to it.
  std::error_code ec;
  const fs::file_status status = fs::status(path, ec);
  TIR_USER_CHECK(!fs::is_directory(status)) << "onnx: tensor '" << t.name() << "': its external data file '" << path
                                            << "' is a directory, not a file";
  TIR_USER_CHECK(!fs::exists(status) || fs::is_regular_file(status))
      << "onnx: tensor '" << t.name() << "': its external data file '" << path
      << "' is not a regular file (a pipe, socket or device)";
  std::ifstream in(path, std::ios::binary);
  TIR_USER_CHECK(in) << "onnx: tensor '" << t.name() << "': cannot open its external data file '" << path << "'";
  TIR_USER_CHECK(length < 0 || size_t(length) == want) << "onnx: tensor '" << t.name() << "': external data length "
                                                       << length << " but its shape needs " << want << " bytes";
  const uintmax_t size = fs::file_size(path, ec);
  TIR_USER_CHECK(!ec && uintmax_t(offset) <= size && want <= size - uintmax_t(offset))
      << "onnx: tensor '" << t.name() << "': external data file '" << path << "' ends before offset " << offset << " + "
      << want << " bytes";
  in.seekg(offset);
  std::string bytes(want, '\0');
  in.read(bytes.data(), static_cast<std::streamsize>(want));
  TIR_USER_CHECK(in && size_t(in.gcount()) == want) << "onnx: tensor '" << t.name() << "': external data file '" << path
                                                    << "' ends before offset " << offset << " + " << want << " bytes";
  return bytes;
}

template <typename To, typename Field>
void copy_field(const Field &field, NDArray &out) {
  To *dst = static_cast<To *>(out.data());
  for (int i = 0; i < field.size(); ++i) dst[i] = static_cast<To>(field.Get(i));
}

}  // namespace

namespace {

// The typed field that holds values of `t`'s element type (fixed by onnx.proto), and how
// many values it has.
int typed_size(const TensorProto &t, const char **field) {
  switch (t.data_type()) {
    case TensorProto::FLOAT:
      *field = "float_data";
      return t.float_data_size();
    case TensorProto::DOUBLE:
      *field = "double_data";
      return t.double_data_size();
    case TensorProto::INT64:
      *field = "int64_data";
      return t.int64_data_size();
    case TensorProto::UINT32:
    case TensorProto::UINT64:
      *field = "uint64_data";
      return t.uint64_data_size();
    default:
      *field = "int32_data";
      return t.int32_data_size();
  }
}

void copy_typed(const TensorProto &t, NDArray &out) {
  switch (t.data_type()) {
    case TensorProto::FLOAT:
      return copy_field<float>(t.float_data(), out);
    case TensorProto::DOUBLE:
      return copy_field<double>(t.double_data(), out);
    case TensorProto::INT64:
      return copy_field<int64_t>(t.int64_data(), out);
    case TensorProto::UINT32:
      return copy_field<uint32_t>(t.uint64_data(), out);
    case TensorProto::UINT64:
      return copy_field<uint64_t>(t.uint64_data(), out);
    case TensorProto::INT32:
      return copy_field<int32_t>(t.int32_data(), out);
    case TensorProto::INT16:
      return copy_field<int16_t>(t.int32_data(), out);
    case TensorProto::INT8:
      return copy_field<int8_t>(t.int32_data(), out);
    case TensorProto::UINT16:
      return copy_field<uint16_t>(t.int32_data(), out);
    case TensorProto::UINT8:
      return copy_field<uint8_t>(t.int32_data(), out);
    case TensorProto::BOOL: {
      uint8_t *dst = static_cast<uint8_t *>(out.data());
      for (int i = 0; i < t.int32_data_size(); ++i) dst[i] = t.int32_data(i) != 0;
      return;
    }
    case TensorProto::FLOAT16: {  // the bits of each half in an int32
      float *dst = static_cast<float *>(out.data());
      for (int i = 0; i < t.int32_data_size(); ++i) dst[i] = half_to_float(static_cast<uint16_t>(t.int32_data(i)));
      return;
    }
    default:
      TIR_THROW() << "onnx: tensor '" << t.name() << "': unexpected element type " << t.data_type();
  }
}

// `bytes` (little-endian, as ONNX stores them) into `out`.
void copy_raw(const std::string &bytes, bool half, NDArray &out) {
  const int64_t count = out.numel();
  if (half) {
    float *dst = static_cast<float *>(out.data());
    for (int64_t i = 0; i < count; ++i) {
      uint16_t h;
      std::memcpy(&h, bytes.data() + 2 * i, 2);
      dst[i] = half_to_float(h);
    }
    return;
  }
  if (!bytes.empty()) std::memcpy(out.data(), bytes.data(), bytes.size());
  if (out.dtype().is_bool())  // any non-zero byte is true
    for (int64_t i = 0; i < count; ++i) static_cast<uint8_t *>(out.data())[i] = bytes[size_t(i)] != 0;
}

}  // namespace

NDArray tensor_value(const TensorProto &t, const std::string &dir) {
  const std::string what = "onnx: tensor '" + t.name() + "'";
  Type type;
  TIR_USER_CHECK(element_type(t.data_type(), &type))
      << what << " is " << element_type_name(t.data_type()) << ", which has no tensor type here";
  TIR_USER_CHECK(!t.has_segment()) << what << " is segmented; segmented tensors are not supported";
  std::vector<int64_t> shape(t.dims().begin(), t.dims().end());
  int64_t count = 1;
  for (int64_t d : shape) {
    TIR_USER_CHECK(d >= 0 && (d == 0 || count <= std::numeric_limits<int32_t>::max() / d))
        << what << " has dims " << shape_str(shape) << "; each must be non-negative, 2^31 elements at most";
    count *= d;
  }
  const bool half = t.data_type() == TensorProto::FLOAT16;
  const size_t stored = size_t(count) * (half ? 2 : size_t(type.bytes()));
  // The data is checked against the shape before any storage is allocated for it.
  if (t.data_location() == TensorProto::EXTERNAL || t.has_raw_data()) {
    const std::string bytes =
        t.data_location() == TensorProto::EXTERNAL ? external_bytes(t, dir, stored) : t.raw_data();
    TIR_USER_CHECK(bytes.size() == stored) << what << " holds " << bytes.size() << " bytes of data but its shape "
                                           << shape_str(shape) << " and type need " << stored;
    NDArray out = NDArray::empty(shape, type);
    copy_raw(bytes, half, out);
    return out;
  }
  const char *field = "";
  const int size = typed_size(t, &field);
  TIR_USER_CHECK(size == count) << what << " has " << size << " values in " << field << " but its shape "
                                << shape_str(shape) << " needs " << count;
  NDArray out = NDArray::empty(shape, type);
  copy_typed(t, out);
  return out;
}

TensorProto tensor_proto(const std::string &name, const NDArray &a) {
  const int32_t type = onnx_type_of(a.dtype());
  TIR_USER_CHECK(type != TensorProto::UNDEFINED) << "onnx: '" << name << "' is " << a.dtype() << ", which ONNX has no type for";
  TensorProto t;
  t.set_name(name);
  t.set_data_type(type);
  for (int64_t d : a.shape()) t.add_dims(d);
  t.set_raw_data(std::string(static_cast<const char *>(a.data()), a.nbytes()));
  return t;
}

}  // namespace tensorir::onnx::detail
