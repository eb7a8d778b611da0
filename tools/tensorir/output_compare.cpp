#include "output_compare.h"

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <limits>
#include <vector>

#include "cli.h"

namespace tensorir::cli {

namespace {

// long double holds every int64 and uint64 exactly, where double rounds past 2^53.
static_assert(std::numeric_limits<long double>::digits >= 64, "integers are compared in long double");
template <typename T>
std::vector<long double> widen(const NDArray &a) {
  const std::vector<T> v = a.to_vector<T>();
  return std::vector<long double>(v.begin(), v.end());
}

std::vector<long double> as_numbers(const NDArray &a) {
  const Type t = a.dtype();
  if (t == Float(32)) return widen<float>(a);
  if (t == Float(64)) return widen<double>(a);
  if (t == Int(64)) return widen<int64_t>(a);
  if (t == Int(32)) return widen<int32_t>(a);
  if (t == Int(16)) return widen<int16_t>(a);
  if (t == Int(8)) return widen<int8_t>(a);
  if (t == UInt(8) || t == Bool()) return widen<uint8_t>(a);
  if (t == UInt(16)) return widen<uint16_t>(a);
  if (t == UInt(32)) return widen<uint32_t>(a);
  if (t == UInt(64)) return widen<uint64_t>(a);
  throw UsageError{"cannot compare arrays of " + t.str()};
}

std::string number(long double v, bool exact) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*Lg", exact ? 20 : 9, v);
  return buf;
}

}  // namespace

ElementComparison compare_elements(const NDArray &got, const NDArray &want, double rtol, double atol) {
  const std::vector<long double> g = as_numbers(got), w = as_numbers(want);
  const bool exact = !got.dtype().is_float();
  ElementComparison r;
  r.count = g.size();
  long double worst_excess = -1;
  for (size_t i = 0; i < g.size(); ++i) {
    const bool match = g[i] == w[i] || (std::isnan(g[i]) && std::isnan(w[i]));
    const long double diff = std::fabs(g[i] - w[i]);
    const long double excess = match ? -1 : diff - (atol + rtol * std::fabs(w[i]));
    if (std::isnan(excess) || excess > 0) ++r.bad;
    if (std::isnan(excess) || excess > worst_excess) {
      worst_excess = std::isnan(excess) ? INFINITY : excess;
      r.worst = i;
    }
  }
  if (r.count) {
    r.got = number(g[r.worst], exact);
    r.want = number(w[r.worst], exact);
  }
  char buf[96];
  std::snprintf(buf, sizeof buf, "outside rtol %g, atol %g", rtol, atol);
  r.criterion = buf;
  return r;
}

}  // namespace tensorir::cli
