// Helpers shared by the end-to-end tests: random inputs, a built kernel with its lowered
// text, and element-wise comparison against a plain C++ reference.
#pragma once
#include <tensorir/tensorir.h>

#include <catch2/catch.hpp>
#include <cmath>
#include <cstdint>
#include <sstream>
#include <string>
#include <type_traits>
#include <vector>

namespace tensorir::testing {

template <typename T>
Type dtype_of() {
  return NDArray::type_of<T>();
}

// Seeded uniform values in [low, high); integer types draw integers.
template <typename T>
NDArray random_array(const std::vector<int64_t> &shape, uint64_t seed, double low = -1.0, double high = 1.0) {
  return NDArray::random(shape, dtype_of<T>(), seed, low, high);
}

inline int64_t numel(const std::vector<int64_t> &shape) {
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
  return n;
}

// Absolute and relative tolerances per element type; integers must match exactly.
struct Tolerance {
  double atol = 0, rtol = 0;
};
template <typename T>
Tolerance default_tolerance() {
  if constexpr (std::is_same_v<T, float>)
    return {1e-6, 2e-5};
  else if constexpr (std::is_same_v<T, double>)
    return {1e-12, 1e-11};
  else
    return {0, 0};
}

// Compares element by element; on failure reports how many differ and the first few.
template <typename T, typename R>
void check_close(const std::vector<T> &got, const std::vector<R> &ref,
                 Tolerance tol = default_tolerance<T>()) {
  REQUIRE(got.size() == ref.size());
  size_t bad = 0;
  std::ostringstream first;
  for (size_t i = 0; i < got.size(); ++i) {
    double g = static_cast<double>(got[i]), r = static_cast<double>(ref[i]);
    bool ok;
    if (std::isnan(r))
      ok = std::isnan(g);
    else if (std::isinf(r))
      ok = g == r;
    else
      ok = std::abs(g - r) <= tol.atol + tol.rtol * std::abs(r);
    if (!ok && bad++ < 8) first << "  [" << i << "] got " << g << ", expected " << r << "\n";
  }
  INFO(bad << " of " << got.size() << " elements differ (atol " << tol.atol << ", rtol " << tol.rtol << "):\n"
           << first.str());
  CHECK(bad == 0);
}

template <typename T, typename R>
void check_close(const NDArray &got, const std::vector<R> &ref, Tolerance tol = default_tolerance<T>()) {
  check_close<T, R>(got.to_vector<T>(), ref, tol);
}

// Floor division and modulo as the library defines them on integers.
template <typename T>
T floordiv_ref(T a, T b) {
  T q = a / b;
  if ((a % b != 0) && ((a < 0) != (b < 0))) --q;
  return q;
}
template <typename T>
T floormod_ref(T a, T b) {
  return a - floordiv_ref(a, b) * b;
}

// A schedule built for the CPU, with its lowered text kept for failure reports.
struct Kernel {
  std::string name;
  std::string lowered;
  Module module;

  template <typename... Args>
  void operator()(const Args &...args) const {
    module(name)(args...);
  }
};

inline std::string lowered_text(const Schedule &s, const std::vector<BuildArg> &args,
                                const std::string &name) {
  std::ostringstream os;
  os << lower(s, args, name);
  return os.str();
}

inline Kernel build_kernel(const Schedule &s, const std::vector<BuildArg> &args, const std::string &name) {
  Kernel k;
  k.name = name;
  k.lowered = lowered_text(s, args, name);
  k.module = build(s, args, "llvm", name);
  return k;
}

// Default schedule for `outputs`, built with `args`.
inline Kernel build_kernel(const std::vector<Tensor> &outputs, const std::vector<BuildArg> &args,
                           const std::string &name) {
  return build_kernel(create_schedule(outputs), args, name);
}

// argmax as a reducer over (index, value) pairs: the first maximum wins ties; the
// identity is (-1, the lowest value of the type).
inline Reducer argmax_reducer() {
  return comm_reducer(
      [](const std::vector<Expr> &a, const std::vector<Expr> &b) {
        Expr take_b = b[1] > a[1];
        return std::vector<Expr>{select(take_b, b[0], a[0]), select(take_b, b[1], a[1])};
      },
      [](const std::vector<Type> &t) { return std::vector<Expr>{make_const(t[0], -1), min_value(t[1])}; }, "argmax");
}

}  // namespace tensorir::testing
