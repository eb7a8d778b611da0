// Host-side tensor arithmetic for constant folding at import.
#include "frontend/onnx/host.h"

#include <algorithm>
#include <cmath>
#include <cstring>

namespace tensorir::onnx::detail {

namespace {

[[noreturn]] void no_host_type(Type t) { TIR_THROW() << "onnx: no host arithmetic for " << t; }

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

// For each element of `out`, the flat index of `in` that it reads, given per output
// dimension the input stride (0 for a broadcast dimension) and a base offset.
std::vector<int64_t> gather_index(const std::vector<int64_t> &out, const std::vector<int64_t> &in_strides,
                                  int64_t base) {
  const int64_t n = element_count(out);
  std::vector<int64_t> idx(static_cast<size_t>(n));
  std::vector<int64_t> pos(out.size(), 0);
  int64_t flat = base;
  for (int64_t i = 0; i < n; ++i) {
    idx[size_t(i)] = flat;
    for (int d = int(out.size()) - 1; d >= 0; --d) {
      if (++pos[size_t(d)] < out[size_t(d)]) {
        flat += in_strides[size_t(d)];
        break;
      }
      flat -= in_strides[size_t(d)] * (out[size_t(d)] - 1);
      pos[size_t(d)] = 0;
    }
  }
  return idx;
}

// An array of `shape` whose element i is element index[i] of `a`.
NDArray pick(const NDArray &a, const std::vector<int64_t> &shape, const std::vector<int64_t> &index) {
  NDArray out = NDArray::empty(shape, a.dtype());
  const size_t size = size_t(a.dtype().bytes());
  const char *src = static_cast<const char *>(a.data());
  char *dst = static_cast<char *>(out.data());
  for (size_t i = 0; i < index.size(); ++i) std::memcpy(dst + i * size, src + size_t(index[i]) * size, size);
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
  return pick(a, out, gather_index(out, in_strides, 0));
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
  return pick(a, out, gather_index(out, in_strides, base));
}

NDArray host_concat(const std::vector<NDArray> &parts, int axis) {
  std::vector<int64_t> out = parts[0].shape();
  out[size_t(axis)] = 0;
  for (const NDArray &p : parts) out[size_t(axis)] += p.shape()[size_t(axis)];
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
  const std::vector<int64_t> idx = to_int64s(indices);
  std::vector<int64_t> out(ds.begin(), ds.begin() + axis);
  out.insert(out.end(), indices.shape().begin(), indices.shape().end());
  out.insert(out.end(), ds.begin() + axis + 1, ds.end());
  int64_t outer = 1, inner = 1;
  for (int i = 0; i < axis; ++i) outer *= ds[size_t(i)];
  for (size_t i = size_t(axis) + 1; i < ds.size(); ++i) inner *= ds[i];
  const int64_t n = ds[size_t(axis)];
  std::vector<int64_t> flat;
  flat.reserve(size_t(outer) * idx.size() * size_t(inner));
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t k : idx) {
      const int64_t j = k < 0 ? k + n : k;
      TIR_USER_CHECK(j >= 0 && j < n) << "onnx: Gather index " << k << " is out of range for a dimension of " << n;
      for (int64_t i = 0; i < inner; ++i) flat.push_back((o * n + j) * inner + i);
    }
  return pick(data, out, flat);
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
  return pick(a, shape, gather_index(shape, broadcast_strides(a.shape(), shape), 0));
}

NDArray host_binary(BinaryOp op, const NDArray &a, const NDArray &b) {
  TIR_ASSERT(a.dtype() == b.dtype()) << a.dtype() << " vs " << b.dtype();
  std::string error;
  const std::vector<int64_t> out = broadcast_shapes(a.shape(), b.shape(), &error);
  TIR_USER_CHECK(error.empty()) << "onnx: " << error;
  const std::vector<int64_t> ia = gather_index(out, broadcast_strides(a.shape(), out), 0);
  const std::vector<int64_t> ib = gather_index(out, broadcast_strides(b.shape(), out), 0);
  auto apply = [&](auto x, auto y) {
    using T = decltype(x);
    switch (op) {
      case BinaryOp::kAdd:
        return T(x + y);
      case BinaryOp::kSub:
        return T(x - y);
      case BinaryOp::kMul:
        return T(x * y);
      case BinaryOp::kDiv:
        if constexpr (std::is_integral_v<T>) {
          TIR_USER_CHECK(y != 0) << "onnx: integer division by zero";
        }
        return T(x / y);
      case BinaryOp::kMax:
        return std::max(x, y);
      case BinaryOp::kMin:
        return std::min(x, y);
    }
    return x;
  };
  if (a.dtype().is_float()) {
    const std::vector<double> va = to_doubles(a), vb = to_doubles(b);
    std::vector<double> r(ia.size());
    for (size_t i = 0; i < r.size(); ++i) r[i] = apply(va[size_t(ia[i])], vb[size_t(ib[i])]);
    return from_doubles(r, out, a.dtype());
  }
  const std::vector<int64_t> va = to_int64s(a), vb = to_int64s(b);
  std::vector<int64_t> r(ia.size());
  for (size_t i = 0; i < r.size(); ++i) r[i] = apply(va[size_t(ia[i])], vb[size_t(ib[i])]);
  return from_int64s(r, out, a.dtype());
}

}  // namespace tensorir::onnx::detail
