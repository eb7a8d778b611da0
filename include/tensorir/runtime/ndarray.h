// NDArray: a reference-counted, 64-byte aligned, dense row-major tensor.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "tensorir/error.h"
#include "tensorir/ir/object.h"
#include "tensorir/ir/type.h"
#include "tensorir/runtime/device.h"

namespace tensorir {

struct NDArrayNode : Object {
  std::vector<int64_t> shape;
  Type dtype;
  Device device;
  void *data = nullptr;  // owned: freed with the node, unless `base` is set
  // Set on a view (NDArray::view): the array whose storage `data` points into, kept alive
  // by the view; the view frees nothing but its own device handle (off the CPU).
  Ref<Object> base;
  ~NDArrayNode() override;
};

class NDArray {
 public:
  NDArray() = default;

  // Uninitialised storage (zeroed on CPU, so reads are never garbage).
  static NDArray empty(const std::vector<int64_t> &shape, Type dtype, Device dev = Device::cpu());
  // Uniform values in [low, high) from a seeded generator: the same seed gives the same
  // array on every machine. Integer types draw integers in [floor(low), ceil(high)),
  // clipped to the type's range; bool draws false and true with equal odds.
  static NDArray random(const std::vector<int64_t> &shape, Type dtype, uint64_t seed,
                        double low = -1.0, double high = 1.0);
  template <typename T>
  static NDArray from_vector(const std::vector<T> &values, const std::vector<int64_t> &shape);
  // NumPy .npy files (version 1.0/2.0, little-endian, C order).
  static NDArray load_npy(const std::string &path);
  void save_npy(const std::string &path) const;

  template <typename T>
  std::vector<T> to_vector() const;

  bool defined() const { return n_.defined(); }
  const std::vector<int64_t> &shape() const { return node().shape; }
  int ndim() const { return static_cast<int>(node().shape.size()); }
  Type dtype() const { return node().dtype; }
  Device device() const { return node().device; }
  int64_t numel() const;
  size_t nbytes() const;
  void *data() const { return node().data; }
  template <typename T>
  T *data_as() const {
    check_element_type(type_of<T>());
    return static_cast<T *>(node().data);
  }
  // A copy on `dev` (a copy even when already there).
  NDArray to(Device dev) const;
  // An array of `shape` and `dtype` over this one's storage from `byte_offset` on (no
  // copy): writes through either are seen by both, and the view keeps this storage
  // alive. The view must fit in nbytes(). CPU arrays, and arrays on devices whose storage
  // has views at that offset (OpenGL: offset 0; OpenCL: sub-buffers, at offsets the
  // device aligns them to).
  NDArray view(const std::vector<int64_t> &shape, Type dtype, size_t byte_offset = 0) const;
  // Copies from a host buffer of exactly nbytes() bytes.
  void copy_from_bytes(const void *src, size_t nbytes);
  void copy_to_bytes(void *dst, size_t nbytes) const;

  template <typename T>
  static Type type_of();
  // Whether arrays hold elements of `t`: bool, int8-64, uint8-64, float16/32/64, bfloat16
  // (scalar types only).
  static bool can_hold(Type t);
  // Those types in words, for messages: "bool, int8-64, ... or bfloat16".
  static const char *holdable_types();

 private:
  const NDArrayNode &node() const;
  void check_element_type(Type t) const;
  Ref<NDArrayNode> n_;
};

// The element type NDArray uses for each C++ type it reads and writes (a bool array is
// stored one byte per element and may also be read and written as uint8_t).
template <> inline Type NDArray::type_of<float>() { return Float(32); }
template <> inline Type NDArray::type_of<double>() { return Float(64); }
template <> inline Type NDArray::type_of<int8_t>() { return Int(8); }
template <> inline Type NDArray::type_of<int16_t>() { return Int(16); }
template <> inline Type NDArray::type_of<int32_t>() { return Int(32); }
template <> inline Type NDArray::type_of<int64_t>() { return Int(64); }
template <> inline Type NDArray::type_of<uint8_t>() { return UInt(8); }
template <> inline Type NDArray::type_of<uint16_t>() { return UInt(16); }
template <> inline Type NDArray::type_of<uint32_t>() { return UInt(32); }
template <> inline Type NDArray::type_of<uint64_t>() { return UInt(64); }
template <> inline Type NDArray::type_of<bool>() { return Bool(); }

// std::vector<bool> packs its bits: these convert to and from one byte per element.
template <>
NDArray NDArray::from_vector<bool>(const std::vector<bool> &values, const std::vector<int64_t> &shape);
template <>
std::vector<bool> NDArray::to_vector<bool>() const;

std::string shape_str(const std::vector<int64_t> &shape);

}  // namespace tensorir
