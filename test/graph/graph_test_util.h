// Helpers shared by the graph tests.
#pragma once
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <vector>

namespace tensorir::graph_test {

// max |a - b| / max |b|, the error measure of every graph test; b must not be all zero.
inline double max_rel_error(const std::vector<float> &a, const std::vector<float> &b) {
  REQUIRE(a.size() == b.size());
  double diff = 0, scale = 0;
  for (size_t i = 0; i < a.size(); ++i) {
    diff = std::max(diff, std::fabs(double(a[i]) - double(b[i])));
    scale = std::max(scale, std::fabs(double(b[i])));
  }
  REQUIRE(scale > 0);
  return diff / scale;
}

}  // namespace tensorir::graph_test
