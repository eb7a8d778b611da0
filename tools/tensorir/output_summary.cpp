#include "output_summary.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <vector>

namespace tensorir::cli {

std::string value_summary(const NDArray &a) {
  if (a.dtype() != Float(32) || a.numel() == 0) return "";
  const std::vector<float> v = a.to_vector<float>();
  size_t nans = 0, argmax = 0;
  double sum = 0;
  float lo = 0, hi = 0;
  for (size_t i = 0; i < v.size(); ++i) {
    if (std::isnan(v[i])) {
      ++nans;
      continue;
    }
    const bool first = nans == i;  // the first number
    if (first || v[i] > hi) hi = v[i], argmax = i;
    lo = first ? v[i] : std::min(lo, v[i]);
    sum += v[i];
  }
  char buf[160];
  std::string out;
  if (nans < v.size()) {
    std::snprintf(buf, sizeof buf, ", min %.6g, max %.6g, mean %.6g, argmax %zu", lo, hi, sum / double(v.size() - nans),
                  argmax);
    out = buf;
  }
  if (nans) {
    std::snprintf(buf, sizeof buf, ", %zu NaN%s", nans, nans == v.size() ? " (all)" : "");
    out += buf;
  }
  return out;
}

}  // namespace tensorir::cli
