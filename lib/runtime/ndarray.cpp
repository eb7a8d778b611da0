// NDArray: allocation through the device APIs, element access and seeded random fill.
#include "tensorir/runtime/ndarray.h"

#include <cmath>
#include <cstring>
#include <limits>
#include <sstream>

#include "runtime/device_api.h"
#include "runtime/half.h"

namespace tensorir {

NDArrayNode::~NDArrayNode() {
  if (data == nullptr) return;
  DeviceAPI *api = device.is_cpu() && base.defined() ? nullptr : find_device_api(device.kind);
  if (!api) return;
  if (base.defined())  // a view's storage belongs to its base; off the CPU it has a handle
    api->free_view(device, data);
  else
    api->free(device, data);
}

std::string shape_str(const std::vector<int64_t> &shape) {
  std::ostringstream os;
  os << "[";
  for (size_t i = 0; i < shape.size(); ++i) os << (i ? ", " : "") << shape[i];
  os << "]";
  return os.str();
}

namespace {

bool is_storable(Type t) {
  if (t.lanes() != 1) return false;
  switch (t.code()) {
    case Type::Int: return t.bits() == 8 || t.bits() == 16 || t.bits() == 32 || t.bits() == 64;
    case Type::UInt:
      return t.bits() == 1 || t.bits() == 8 || t.bits() == 16 || t.bits() == 32 || t.bits() == 64;
    case Type::Float: return t.bits() == 16 || t.bits() == 32 || t.bits() == 64;
    case Type::BFloat: return t.bits() == 16;
    case Type::Handle: return false;
  }
  return false;
}

// Number of elements of `shape`, checking every dimension and that the byte size fits.
int64_t checked_numel(const std::vector<int64_t> &shape, Type dtype) {
  int64_t n = 1;
  for (size_t i = 0; i < shape.size(); ++i) {
    TIR_USER_CHECK(shape[i] >= 0) << "NDArray shape " << shape_str(shape)
                                  << " has a negative dimension " << shape[i] << " at index "
                                  << i;
    TIR_USER_CHECK(shape[i] == 0 || n <= std::numeric_limits<int64_t>::max() / shape[i] /
                                             std::max(1, dtype.bytes()))
        << "NDArray shape " << shape_str(shape) << " of " << dtype << " is too large";
    n *= shape[i];
  }
  return n;
}

// splitmix64 of the element index: every element is a pure function of (seed, index),
// so the result does not depend on the platform's standard library.
uint64_t random_bits(uint64_t seed, uint64_t index) {
  uint64_t z = seed + (index + 1) * 0x9e3779b97f4a7c15ull;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

// A uniform double in [0, 1) from the top 53 bits.
double unit_double(uint64_t bits) { return static_cast<double>(bits >> 11) * 0x1.0p-53; }

// Refuses bounds between which the type has no value, where the rounding below would
// leave [low, high).
void check_some_value(bool some, Type dtype, double low, double high) {
  TIR_USER_CHECK(some) << "NDArray::random: no " << dtype << " value lies in [" << low << ", " << high << ")";
}

template <typename T>
void fill_float(T *out, int64_t n, uint64_t seed, double low, double high, Type dtype) {
  T first = static_cast<T>(low);
  if (first < low) first = std::nextafter(first, std::numeric_limits<T>::infinity());
  check_some_value(first < high, dtype, low, high);
  for (int64_t i = 0; i < n; ++i) {
    T v = static_cast<T>(low + (high - low) * unit_double(random_bits(seed, i)));
    // Rounding to T can land on `high` (or below a `low` that T cannot represent).
    if (v >= high) v = std::nextafter(v, -std::numeric_limits<T>::infinity());
    if (v < low) v = std::nextafter(v, std::numeric_limits<T>::infinity());
    out[i] = v;
  }
}

// 16-bit floats: encode/decode convert between bits and float.
template <typename Encode, typename Decode>
void fill_half(uint16_t *out, int64_t n, uint64_t seed, double low, double high, Encode encode,
               Decode decode, Type dtype) {
  uint16_t first = encode(static_cast<float>(low));
  if (decode(first) < low) first = half_bits_next_up(first);
  check_some_value(decode(first) < high, dtype, low, high);
  for (int64_t i = 0; i < n; ++i) {
    uint16_t h = encode(static_cast<float>(low + (high - low) * unit_double(random_bits(seed, i))));
    if (decode(h) >= high) h = half_bits_next_down(h);
    if (decode(h) < low) h = half_bits_next_up(h);
    out[i] = h;
  }
}

template <typename T>
void fill_int(T *out, int64_t n, uint64_t seed, double low, double high, Type dtype) {
  using Limits = std::numeric_limits<T>;
  // Integers in [floor(low), ceil(high)) intersected with T's range, in 128-bit arithmetic.
  double lo = std::max(std::floor(low), static_cast<double>(Limits::min()));
  double hi = std::min(std::ceil(high), static_cast<double>(Limits::max()) + 1.0);
  TIR_USER_CHECK(lo < hi) << "NDArray::random: no " << dtype << " value lies in [" << low << ", "
                          << high << ")";
  __int128 first = static_cast<__int128>(lo);
  unsigned __int128 count = static_cast<unsigned __int128>(static_cast<__int128>(hi) - first);
  for (int64_t i = 0; i < n; ++i) {
    uint64_t bits = random_bits(seed, i);
    // Multiply-shift maps 64 random bits onto [0, count) without a division.
    unsigned __int128 r = count > UINT64_MAX ? bits : (static_cast<unsigned __int128>(bits) * count) >> 64;
    out[i] = static_cast<T>(first + static_cast<__int128>(r));
  }
}

}  // namespace

bool NDArray::can_hold(Type t) { return is_storable(t); }

const char *NDArray::holdable_types() { return "bool, int8-64, uint8-64, float16/32/64 or bfloat16"; }

NDArray NDArray::empty(const std::vector<int64_t> &shape, Type dtype, Device dev) {
  TIR_USER_CHECK(is_storable(dtype)) << "NDArray cannot hold elements of type " << dtype << "; supported: "
                                     << holdable_types();
  int64_t n = checked_numel(shape, dtype);
  size_t bytes = static_cast<size_t>(n) * dtype.bytes();
  DeviceAPI &api = device_api(dev);
  auto *node = new NDArrayNode;
  NDArray a;
  a.n_ = Ref<NDArrayNode>(node);  // owns the node from here on, even if alloc throws
  node->shape = shape;
  node->dtype = dtype;
  node->device = dev;
  node->data = api.alloc(dev, bytes);
  return a;
}

NDArray NDArray::random(const std::vector<int64_t> &shape, Type dtype, uint64_t seed, double low,
                        double high) {
  TIR_USER_CHECK(std::isfinite(low) && std::isfinite(high) && low < high)
      << "NDArray::random needs finite bounds with low < high, got [" << low << ", " << high
      << ")";
  NDArray a = empty(shape, dtype, Device::cpu());
  int64_t n = a.numel();
  void *p = a.data();
  switch (dtype.code()) {
    case Type::Float:
      if (dtype.bits() == 32) fill_float(static_cast<float *>(p), n, seed, low, high, dtype);
      if (dtype.bits() == 64) fill_float(static_cast<double *>(p), n, seed, low, high, dtype);
      if (dtype.bits() == 16)
        fill_half(static_cast<uint16_t *>(p), n, seed, low, high, float_to_half, half_to_float, dtype);
      break;
    case Type::BFloat:
      fill_half(static_cast<uint16_t *>(p), n, seed, low, high, float_to_bfloat16, bfloat16_to_float, dtype);
      break;
    case Type::Int:
      if (dtype.bits() == 8) fill_int(static_cast<int8_t *>(p), n, seed, low, high, dtype);
      if (dtype.bits() == 16) fill_int(static_cast<int16_t *>(p), n, seed, low, high, dtype);
      if (dtype.bits() == 32) fill_int(static_cast<int32_t *>(p), n, seed, low, high, dtype);
      if (dtype.bits() == 64) fill_int(static_cast<int64_t *>(p), n, seed, low, high, dtype);
      break;
    case Type::UInt:
      if (dtype.bits() == 1) {
        auto *b = static_cast<uint8_t *>(p);
        for (int64_t i = 0; i < n; ++i) b[i] = random_bits(seed, i) >> 63;
      }
      if (dtype.bits() == 8) fill_int(static_cast<uint8_t *>(p), n, seed, low, high, dtype);
      if (dtype.bits() == 16) fill_int(static_cast<uint16_t *>(p), n, seed, low, high, dtype);
      if (dtype.bits() == 32) fill_int(static_cast<uint32_t *>(p), n, seed, low, high, dtype);
      if (dtype.bits() == 64) fill_int(static_cast<uint64_t *>(p), n, seed, low, high, dtype);
      break;
    case Type::Handle: break;  // rejected by empty()
  }
  return a;
}

template <typename T>
NDArray NDArray::from_vector(const std::vector<T> &values, const std::vector<int64_t> &shape) {
  Type dtype = type_of<T>();
  int64_t n = checked_numel(shape, dtype);
  TIR_USER_CHECK(static_cast<int64_t>(values.size()) == n)
      << "NDArray::from_vector: " << values.size() << " values do not fill shape "
      << shape_str(shape) << " (" << n << " elements)";
  NDArray a = empty(shape, dtype, Device::cpu());
  if (n > 0) std::memcpy(a.data(), values.data(), n * sizeof(T));
  return a;
}

template <typename T>
std::vector<T> NDArray::to_vector() const {
  const NDArrayNode &nd = node();
  TIR_USER_CHECK(nd.dtype == type_of<T>() || (nd.dtype.is_bool() && type_of<T>() == UInt(8)))
      << "NDArray::to_vector: the array holds " << nd.dtype << " but was read as "
      << type_of<T>() << "; use to_vector<T> with the C++ type of " << nd.dtype;
  std::vector<T> out(numel());
  copy_between_devices(nd.data, nd.device, out.data(), Device::cpu(), nbytes());
  return out;
}

template <>
NDArray NDArray::from_vector<bool>(const std::vector<bool> &values, const std::vector<int64_t> &shape) {
  NDArray a = from_vector(std::vector<uint8_t>(values.begin(), values.end()), shape);
  a.n_->dtype = Bool();  // the same bytes: 0 or 1 each
  return a;
}

template <>
std::vector<bool> NDArray::to_vector<bool>() const {
  TIR_USER_CHECK(node().dtype.is_bool())
      << "NDArray::to_vector: the array holds " << node().dtype << " but was read as bool; use to_vector<T> with "
      << "the C++ type of " << node().dtype;
  const std::vector<uint8_t> bytes = to_vector<uint8_t>();
  return std::vector<bool>(bytes.begin(), bytes.end());
}

int64_t NDArray::numel() const {
  int64_t n = 1;
  for (int64_t d : node().shape) n *= d;
  return n;
}

size_t NDArray::nbytes() const { return static_cast<size_t>(numel()) * node().dtype.bytes(); }

NDArray NDArray::to(Device dev) const {
  const NDArrayNode &nd = node();
  NDArray out = empty(nd.shape, nd.dtype, dev);
  copy_between_devices(nd.data, nd.device, out.data(), dev, nbytes());
  return out;
}

NDArray NDArray::view(const std::vector<int64_t> &shape, Type dtype, size_t byte_offset) const {
  const NDArrayNode &nd = node();
  TIR_USER_CHECK(has_view(nd.device, nd.data, byte_offset))
      << "NDArray::view: the array is on " << nd.device << ", whose storage has no view at offset " << byte_offset
      << "; views exist for CPU arrays, on OpenGL at offset 0, and on OpenCL at offsets the device aligns sub-buffers to";
  TIR_USER_CHECK(is_storable(dtype)) << "NDArray::view: cannot store elements of type " << dtype;
  const int64_t n = checked_numel(shape, dtype);
  const size_t need = static_cast<size_t>(n) * static_cast<size_t>(dtype.bytes());
  TIR_USER_CHECK(byte_offset <= nbytes() && need <= nbytes() - byte_offset)
      << "NDArray::view: " << shape_str(shape) << " " << dtype << " needs " << need << " bytes"
      << (byte_offset ? " at offset " + std::to_string(byte_offset) : std::string()) << " but the array has only "
      << nbytes();
  auto *v = new NDArrayNode;
  NDArray a;
  a.n_ = Ref<NDArrayNode>(v);
  v->shape = shape;
  v->dtype = dtype;
  v->device = nd.device;
  if (nd.device.is_cpu()) {
    v->data = static_cast<char *>(nd.data) + byte_offset;
  } else {
    v->data = device_api(nd.device).view(nd.device, nd.data, byte_offset, need);
    TIR_ASSERT(v->data != nullptr) << "no view at offset " << byte_offset << " on " << nd.device;
  }
  // Chain to the owner, not to another view, so views of views stay one hop away.
  v->base = nd.base.defined() ? nd.base : Ref<Object>(&nd);
  return a;
}

void NDArray::copy_from_bytes(const void *src, size_t nbytes) {
  const NDArrayNode &nd = node();
  TIR_USER_CHECK(nbytes == this->nbytes())
      << "copy_from_bytes: got " << nbytes << " bytes but the " << nd.dtype << " array of shape "
      << shape_str(nd.shape) << " holds " << this->nbytes() << " bytes";
  copy_between_devices(src, Device::cpu(), nd.data, nd.device, nbytes);
}

void NDArray::copy_to_bytes(void *dst, size_t nbytes) const {
  const NDArrayNode &nd = node();
  TIR_USER_CHECK(nbytes == this->nbytes())
      << "copy_to_bytes: the destination has " << nbytes << " bytes but the " << nd.dtype
      << " array of shape " << shape_str(nd.shape) << " holds " << this->nbytes() << " bytes";
  copy_between_devices(nd.data, nd.device, dst, Device::cpu(), nbytes);
}

const NDArrayNode &NDArray::node() const {
  TIR_USER_CHECK(n_.defined())
      << "use of an undefined NDArray; create one with NDArray::empty, random or from_vector";
  return *n_;
}

void NDArray::check_element_type(Type t) const {
  const NDArrayNode &nd = node();
  TIR_USER_CHECK(nd.dtype == t || (nd.dtype.is_bool() && t == UInt(8)))
      << "NDArray::data_as: the array holds " << nd.dtype << " but was accessed as " << t;
  TIR_USER_CHECK(nd.device.is_cpu())
      << "NDArray::data_as: the array is on " << nd.device
      << ", not in host memory; copy it with .to(Device::cpu()) first";
}

#define TENSORIR_INSTANTIATE_NDARRAY(T)                                                        \
  template NDArray NDArray::from_vector<T>(const std::vector<T> &, const std::vector<int64_t> &); \
  template std::vector<T> NDArray::to_vector<T>() const;

TENSORIR_INSTANTIATE_NDARRAY(float)
TENSORIR_INSTANTIATE_NDARRAY(double)
TENSORIR_INSTANTIATE_NDARRAY(int8_t)
TENSORIR_INSTANTIATE_NDARRAY(int16_t)
TENSORIR_INSTANTIATE_NDARRAY(int32_t)
TENSORIR_INSTANTIATE_NDARRAY(int64_t)
TENSORIR_INSTANTIATE_NDARRAY(uint8_t)
TENSORIR_INSTANTIATE_NDARRAY(uint16_t)
TENSORIR_INSTANTIATE_NDARRAY(uint32_t)
TENSORIR_INSTANTIATE_NDARRAY(uint64_t)
#undef TENSORIR_INSTANTIATE_NDARRAY

}  // namespace tensorir
