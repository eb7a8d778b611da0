// Host-side tensor arithmetic for constant folding at import.
#include "frontend/onnx/host.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <functional>
#include <iomanip>
#include <limits>
#include <sstream>
#include <type_traits>

namespace tensorir::onnx::detail {

namespace {

[[noreturn]] void no_host_type(Type t) { TIR_THROW() << "no host arithmetic for " << t; }

// Calls f(T{}) with the C++ element type of `t`.
template <typename F>
auto with_type(Type t, F f) {
  if (t == Float(32)) return f(float{});
  if (t == Float(64)) return f(double{});
  if (t == Int(8)) return f(int8_t{});
  if (t == Int(16)) return f(int16_t{});
  if (t == Int(32)) return f(int32_t{});
  if (t == Int(64)) return f(int64_t{});
  if (t == UInt(8) || t.is_bool()) return f(uint8_t{});
  if (t == UInt(16)) return f(uint16_t{});
  if (t == UInt(32)) return f(uint32_t{});
  if (t == UInt(64)) return f(uint64_t{});
  no_host_type(t);
}

std::vector<int64_t> strides_of(const std::vector<int64_t> &shape) {
  std::vector<int64_t> s(shape.size(), 1);
  for (int i = int(shape.size()) - 2; i >= 0; --i) s[size_t(i)] = s[size_t(i) + 1] * shape[size_t(i) + 1];
  return s;
}

// Walks the elements of `out` in row-major order, keeping for each operand the flat
// index the element reads: per output dimension each operand has a stride (0 where it
// is broadcast) and a base offset. No index table is built, so that transposing a large
// weight costs no more than the copy.
class Walker {
 public:
  Walker(const std::vector<int64_t> &out, std::vector<std::vector<int64_t>> strides, std::vector<int64_t> base)
      : out_(out), strides_(std::move(strides)), flat_(std::move(base)), pos_(out.size(), 0) {}

  int64_t operator[](size_t operand) const { return flat_[operand]; }

  void next() {
    for (int d = int(out_.size()) - 1; d >= 0; --d) {
      const size_t i = size_t(d);
      if (++pos_[i] < out_[i]) {
        for (size_t k = 0; k < flat_.size(); ++k) flat_[k] += strides_[k][i];
        return;
      }
      for (size_t k = 0; k < flat_.size(); ++k) flat_[k] -= strides_[k][i] * (out_[i] - 1);
      pos_[i] = 0;
    }
  }

 private:
  const std::vector<int64_t> &out_;
  std::vector<std::vector<int64_t>> strides_;
  std::vector<int64_t> flat_, pos_;
};

// An array of `shape` whose elements are those of `a` that a walk with `strides` from
// `base` reads.
NDArray pick(const NDArray &a, const std::vector<int64_t> &shape, const std::vector<int64_t> &strides, int64_t base) {
  NDArray out = NDArray::empty(shape, a.dtype());
  const int64_t n = out.numel();
  Walker w(shape, {strides}, {base});
  with_type(a.dtype(), [&](auto z) {
    using T = decltype(z);
    const T *src = static_cast<const T *>(a.data());
    T *dst = static_cast<T *>(out.data());
    for (int64_t i = 0; i < n; ++i, w.next()) dst[i] = src[w[0]];
    return 0;
  });
  return out;
}

// The input strides of `a` seen from an output of `out` dims, NumPy-broadcast.
std::vector<int64_t> broadcast_strides(const std::vector<int64_t> &a, const std::vector<int64_t> &out) {
  const std::vector<int64_t> st = strides_of(a);
  std::vector<int64_t> s(out.size(), 0);
  const size_t skip = out.size() - a.size();
  for (size_t i = 0; i < a.size(); ++i) s[skip + i] = a[i] == 1 ? 0 : st[i];
  return s;
}

}  // namespace

int64_t element_count(const std::vector<int64_t> &shape) {
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
  return n;
}

namespace {

thread_local int64_t last_request = 0;

// "8 GiB", "1.5 GiB", "12 MiB".
std::string size_str(long double bytes) {
  std::ostringstream os;
  os << std::setprecision(bytes >= 1024.0L * 1024 * 1024 * 1024 ? 6 : 3);
  if (bytes >= 1024.0L * 1024 * 1024)
    os << bytes / (1024.0L * 1024 * 1024) << " GiB";
  else
    os << bytes / (1024.0L * 1024) << " MiB";
  return os.str();
}

// The element count of `shape`, or an Error when it is negative or above `limit`; `why`
// ends the message, saying what the limit is.
int64_t check_size(const std::vector<int64_t> &shape, Type dtype, const std::string &what, int64_t limit,
                   const std::string &why) {
  for (int64_t d : shape)
    TIR_USER_CHECK(d >= 0) << what << " would have the negative dimension " << d << " (shape " << shape_str(shape)
                           << ")";
  int64_t n = 1;
  bool overflow = false;
  long double approx = 1;  // for the message when the count overflows
  for (int64_t d : shape) {
    approx *= static_cast<long double>(d);
    overflow = overflow || __builtin_mul_overflow(n, d, &n);
  }
  if (approx == 0) return 0;
  const long double bytes = approx * std::max(1, dtype.bytes());
  if (overflow || n > limit) {
    std::ostringstream os;
    os << what << " would have ";
    if (overflow)
      os << "more than 2^63 elements (shape " << shape_str(shape) << ")";
    else
      os << n << " elements (" << size_str(bytes) << " of " << dtype << ", shape " << shape_str(shape) << ")";
    os << ", more than the limit of " << limit << " elements " << why;
    TIR_THROW() << os.str();
  }
  return n;
}

}  // namespace

int64_t check_host_size(const std::vector<int64_t> &shape, Type dtype, const std::string &what) {
  const int64_t n = check_size(shape, dtype, what, kMaxHostElements,
                               "(" + size_str(kMaxHostBytes) +
                                   " as int64 or double) that tensorir computes at import; "
                                   "check the values that set this size");
  last_request = n * std::max(1, dtype.bytes());
  return n;
}

int64_t check_graph_size(const std::vector<int64_t> &shape, Type dtype, const std::string &what) {
  return check_size(shape, dtype, what, kMaxGraphElements,
                    "that a tensor may hold (compiled kernels index with 32-bit integers); "
                    "check the values that set this size");
}

int64_t checked_add(int64_t a, int64_t b, const std::string &what) {
  int64_t r;
  TIR_USER_CHECK(!__builtin_add_overflow(a, b, &r)) << what << " overflows: " << a << " + " << b;
  return r;
}

int64_t checked_mul(int64_t a, int64_t b, const std::string &what) {
  int64_t r;
  TIR_USER_CHECK(!__builtin_mul_overflow(a, b, &r)) << what << " overflows: " << a << " * " << b;
  return r;
}

int64_t last_host_request() { return last_request; }
void reset_host_request() { last_request = 0; }

std::vector<int64_t> to_int64s(const NDArray &a) {
  return with_type(a.dtype(), [&](auto z) {
    using T = decltype(z);
    const T *p = static_cast<const T *>(a.data());
    std::vector<int64_t> out(size_t(a.numel()));
    for (size_t i = 0; i < out.size(); ++i) out[i] = static_cast<int64_t>(p[i]);
    return out;
  });
}

std::vector<double> to_doubles(const NDArray &a) {
  return with_type(a.dtype(), [&](auto z) {
    using T = decltype(z);
    const T *p = static_cast<const T *>(a.data());
    std::vector<double> out(size_t(a.numel()));
    for (size_t i = 0; i < out.size(); ++i) out[i] = static_cast<double>(p[i]);
    return out;
  });
}

NDArray from_int64s(const std::vector<int64_t> &values, const std::vector<int64_t> &shape, Type dtype) {
  NDArray out = NDArray::empty(shape, dtype);
  TIR_ASSERT(int64_t(values.size()) == out.numel());
  with_type(dtype, [&](auto z) {
    using T = decltype(z);
    T *p = static_cast<T *>(out.data());
    for (size_t i = 0; i < values.size(); ++i) p[i] = dtype.is_bool() ? T(values[i] != 0) : static_cast<T>(values[i]);
    return 0;
  });
  return out;
}

NDArray from_doubles(const std::vector<double> &values, const std::vector<int64_t> &shape, Type dtype) {
  NDArray out = NDArray::empty(shape, dtype);
  TIR_ASSERT(int64_t(values.size()) == out.numel());
  with_type(dtype, [&](auto z) {
    using T = decltype(z);
    T *p = static_cast<T *>(out.data());
    for (size_t i = 0; i < values.size(); ++i) {
      const double v = values[i];
      if (dtype.is_bool())
        p[i] = T(v != 0);
      else if (dtype.is_float())
        p[i] = static_cast<T>(v);
      else
        p[i] = std::isfinite(v) ? static_cast<T>(static_cast<int64_t>(v)) : T(0);  // toward zero
    }
    return 0;
  });
  return out;
}

NDArray int64_vector(const std::vector<int64_t> &values) { return from_int64s(values, {int64_t(values.size())}); }

NDArray host_cast(const NDArray &a, Type dtype) {
  if (a.dtype() == dtype) return host_reshape(a, a.shape());
  if (a.dtype().is_float()) return from_doubles(to_doubles(a), a.shape(), dtype);
  if (dtype.is_float()) return from_doubles(to_doubles(a), a.shape(), dtype);
  return from_int64s(to_int64s(a), a.shape(), dtype);
}

NDArray host_round_to_half(const NDArray &a) {
  TIR_ASSERT(a.dtype() == Float(32)) << a.dtype();
  NDArray out = host_reshape(a, a.shape());
  float *p = static_cast<float *>(out.data());
  for (int64_t i = 0; i < out.numel(); ++i) {
    uint32_t bits;
    std::memcpy(&bits, &p[i], 4);
    const uint32_t sign = bits & 0x80000000u, mag = bits ^ sign;
    if (mag >= 0x7f800000u) continue;  // infinities and NaN stay
    float r;
    if (mag >= 0x477ff000u) {  // 65520 and above round to infinity
      r = std::numeric_limits<float>::infinity();
    } else if (mag < 0x38800000u) {  // below 2^-14: multiples of 2^-24, ties to even
      r = std::nearbyint(std::fabs(p[i]) * 16777216.0f) / 16777216.0f;
    } else {  // 10 bits of significand, ties to even
      const uint32_t m = (mag + 0xfffu + ((mag >> 13) & 1u)) & ~0x1fffu;
      std::memcpy(&r, &m, 4);
    }
    p[i] = sign ? -r : r;
  }
  return out;
}

NDArray host_reshape(const NDArray &a, const std::vector<int64_t> &shape) {
  TIR_ASSERT(element_count(shape) == a.numel()) << shape_str(a.shape()) << " -> " << shape_str(shape);
  NDArray out = NDArray::empty(shape, a.dtype());
  if (a.nbytes()) std::memcpy(out.data(), a.data(), a.nbytes());
  return out;
}

NDArray host_transpose(const NDArray &a, const std::vector<int64_t> &perm) {
  const std::vector<int64_t> st = strides_of(a.shape());
  std::vector<int64_t> out(perm.size()), in_strides(perm.size());
  for (size_t i = 0; i < perm.size(); ++i) {
    out[i] = a.shape()[size_t(perm[i])];
    in_strides[i] = st[size_t(perm[i])];
  }
  return pick(a, out, in_strides, 0);
}

NDArray host_slice(const NDArray &a, const std::vector<int64_t> &starts, const std::vector<int64_t> &steps,
                   const std::vector<int64_t> &out) {
  const std::vector<int64_t> st = strides_of(a.shape());
  std::vector<int64_t> in_strides(out.size());
  int64_t base = 0;
  for (size_t i = 0; i < out.size(); ++i) {
    in_strides[i] = st[i] * steps[i];
    base += st[i] * starts[i];
  }
  return pick(a, out, in_strides, base);
}

NDArray host_concat(const std::vector<NDArray> &parts, int axis) {
  std::vector<int64_t> out = parts[0].shape();
  out[size_t(axis)] = 0;
  for (const NDArray &p : parts)
    out[size_t(axis)] = checked_add(out[size_t(axis)], p.shape()[size_t(axis)], "the concatenated extent");
  check_host_size(out, parts[0].dtype());  // one part may be given many times
  NDArray result = NDArray::empty(out, parts[0].dtype());
  // Rows of the outer dimensions, each a run of bytes per part.
  int64_t outer = 1;
  for (int i = 0; i < axis; ++i) outer *= out[size_t(i)];
  const size_t size = size_t(parts[0].dtype().bytes());
  char *dst = static_cast<char *>(result.data());
  for (int64_t o = 0; o < outer; ++o)
    for (const NDArray &p : parts) {
      const size_t run = size_t(p.numel() / std::max<int64_t>(outer, 1)) * size;
      if (!run) continue;
      std::memcpy(dst, static_cast<const char *>(p.data()) + size_t(o) * run, run);
      dst += run;
    }
  return result;
}

NDArray host_gather(const NDArray &data, const NDArray &indices, int axis) {
  const std::vector<int64_t> &ds = data.shape();
  std::vector<int64_t> out(ds.begin(), ds.begin() + axis);
  out.insert(out.end(), indices.shape().begin(), indices.shape().end());
  out.insert(out.end(), ds.begin() + axis + 1, ds.end());
  check_host_size(out, data.dtype());  // an index may repeat
  const std::vector<int64_t> idx = to_int64s(indices);
  int64_t outer = 1, inner = 1;
  for (int i = 0; i < axis; ++i) outer *= ds[size_t(i)];
  for (size_t i = size_t(axis) + 1; i < ds.size(); ++i) inner *= ds[i];
  const int64_t n = ds[size_t(axis)];
  for (int64_t k : idx)
    TIR_USER_CHECK(k >= -n && k < n) << "Gather index " << k << " is out of range for a dimension of " << n;
  // Runs of `inner` elements, one per (outer, index).
  NDArray result = NDArray::empty(out, data.dtype());
  const size_t size = size_t(data.dtype().bytes()), run = size_t(inner) * size;
  const char *src = static_cast<const char *>(data.data());
  char *dst = static_cast<char *>(result.data());
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t k : idx) {
      const int64_t j = k < 0 ? k + n : k;
      if (run) std::memcpy(dst, src + size_t(o * n + j) * run, run);
      dst += run;
    }
  return result;
}

std::vector<int64_t> broadcast_shapes(const std::vector<int64_t> &a, const std::vector<int64_t> &b,
                                      std::string *error) {
  const size_t nd = std::max(a.size(), b.size());
  std::vector<int64_t> out(nd);
  for (size_t i = 0; i < nd; ++i) {
    const int64_t da = i < nd - a.size() ? 1 : a[i - (nd - a.size())];
    const int64_t db = i < nd - b.size() ? 1 : b[i - (nd - b.size())];
    if (da != db && da != 1 && db != 1) {
      *error = "cannot broadcast " + shape_str(a) + " with " + shape_str(b);
      return {};
    }
    out[i] = da == 1 ? db : da;
  }
  return out;
}

NDArray host_broadcast_to(const NDArray &a, const std::vector<int64_t> &shape) {
  check_host_size(shape, a.dtype());
  return pick(a, shape, broadcast_strides(a.shape(), shape), 0);
}

namespace {

template <typename T>
T apply(BinaryOp op, T x, T y) {
  // Integers wrap as two's complement: computed unsigned, since signed overflow is undefined.
  const auto wrap = [](auto f, T a, T b) -> T {
    if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool>) {
      using U = std::make_unsigned_t<std::common_type_t<T, int>>;  // no promotion to signed int
      return T(f(U(a), U(b)));
    } else {
      return T(f(a, b));
    }
  };
  switch (op) {
    case BinaryOp::kAdd:
      return wrap(std::plus<>(), x, y);
    case BinaryOp::kSub:
      return wrap(std::minus<>(), x, y);
    case BinaryOp::kMul:
      return wrap(std::multiplies<>(), x, y);
    case BinaryOp::kDiv:
      if constexpr (std::is_integral_v<T>) {
        if (y == 0) return T(0);  // as the graph's divide computes it at run time
        if constexpr (std::is_signed_v<T>) {
          if (x == std::numeric_limits<T>::min() && y == T(-1)) return x;  // wraps, as ONNX Runtime's
        }
      }
      return T(x / y);  // toward zero on integers, as C
    case BinaryOp::kMax:
    case BinaryOp::kMin:
      // NaN when either is NaN, as the compiled max and min (std::max keeps the first).
      if constexpr (std::is_floating_point_v<T>) {
        if (std::isnan(x) || std::isnan(y)) return std::numeric_limits<T>::quiet_NaN();
      }
      return op == BinaryOp::kMax ? std::max(x, y) : std::min(x, y);
  }
  return x;
}

}  // namespace

NDArray host_binary(BinaryOp op, const NDArray &a, const NDArray &b) {
  TIR_ASSERT(a.dtype() == b.dtype()) << a.dtype() << " vs " << b.dtype();
  std::string error;
  const std::vector<int64_t> out = broadcast_shapes(a.shape(), b.shape(), &error);
  TIR_USER_CHECK(error.empty()) << error;
  // Broadcasting makes more than either operand holds only from values like [N, 1] and [1, N].
  if (element_count(out) > std::max(a.numel(), b.numel())) check_host_size(out, a.dtype());
  NDArray result = NDArray::empty(out, a.dtype());
  const int64_t n = result.numel();
  Walker w(out, {broadcast_strides(a.shape(), out), broadcast_strides(b.shape(), out)}, {0, 0});
  // Floats in double (each single operation then rounds once, exactly as in the type),
  // integers in int64 (uint64 in itself: from 2^63 up it has no int64) and wrapped back
  // to their width.
  with_type(a.dtype(), [&](auto z) {
    using T = decltype(z);
    using Wide = std::conditional_t<std::is_floating_point_v<T>, double,
                                    std::conditional_t<std::is_same_v<T, uint64_t>, uint64_t, int64_t>>;
    const T *pa = static_cast<const T *>(a.data()), *pb = static_cast<const T *>(b.data());
    T *dst = static_cast<T *>(result.data());
    for (int64_t i = 0; i < n; ++i, w.next()) dst[i] = T(apply<Wide>(op, Wide(pa[w[0]]), Wide(pb[w[1]])));
    return 0;
  });
  if (a.dtype().is_bool())
    for (int64_t i = 0; i < n; ++i)
      static_cast<uint8_t *>(result.data())[i] = static_cast<uint8_t *>(result.data())[i] != 0;
  return result;
}

}  // namespace tensorir::onnx::detail
