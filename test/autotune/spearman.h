// Spearman's rank correlation, for the cost model's tests: tied values share their mean rank.
#pragma once
#include <algorithm>
#include <cmath>
#include <numeric>
#include <vector>

namespace tensorir::test {

template <typename T>
std::vector<double> ranks(const std::vector<T> &v) {
  std::vector<size_t> order(v.size());
  std::iota(order.begin(), order.end(), 0);
  std::sort(order.begin(), order.end(), [&](size_t a, size_t b) { return v[a] < v[b]; });
  std::vector<double> r(v.size());
  for (size_t i = 0; i < order.size();) {
    size_t j = i;
    while (j + 1 < order.size() && v[order[j + 1]] == v[order[i]]) ++j;
    for (size_t k = i; k <= j; ++k) r[order[k]] = (double(i) + double(j)) / 2;
    i = j + 1;
  }
  return r;
}

template <typename A, typename B>
double spearman(const std::vector<A> &a, const std::vector<B> &b) {
  const std::vector<double> ra = ranks(a), rb = ranks(b);
  const double n = double(ra.size());
  const double ma = std::accumulate(ra.begin(), ra.end(), 0.0) / n, mb = std::accumulate(rb.begin(), rb.end(), 0.0) / n;
  double sab = 0, saa = 0, sbb = 0;
  for (size_t i = 0; i < ra.size(); ++i) {
    sab += (ra[i] - ma) * (rb[i] - mb);
    saa += (ra[i] - ma) * (ra[i] - ma);
    sbb += (rb[i] - mb) * (rb[i] - mb);
  }
  return saa > 0 && sbb > 0 ? sab / std::sqrt(saa * sbb) : 0;
}

}  // namespace tensorir::test
