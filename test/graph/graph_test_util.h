// Helpers shared by the graph tests.
#pragma once
#include <unistd.h>

#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <string>
#include <vector>

namespace tensorir::graph_test {

// A fresh directory under the system's temporary one, removed with the object.
struct TempDir {
  std::filesystem::path path;
  explicit TempDir(const std::string &name)
      : path(std::filesystem::temp_directory_path() / ("tensorir_save_" + std::to_string(getpid()) + "_" + name)) {
    std::filesystem::remove_all(path);
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path, ec);
  }
  std::string str(const std::string &file = "") const { return file.empty() ? path.string() : (path / file).string(); }
};

// Each element of `got` within tol * (1 + |want|) of `want`'s.
inline void check_near(const std::vector<float> &got, const std::vector<float> &want, double tol = 1e-5) {
  REQUIRE(got.size() == want.size());
  for (size_t i = 0; i < got.size(); ++i) {
    INFO("element " << i << ": got " << got[i] << ", want " << want[i]);
    CHECK(std::fabs(got[i] - want[i]) <= tol * (1 + std::fabs(want[i])));
  }
}

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

// 2 * maxpool2x2(relu(x)) for x of shape [1, 4, 16, 16], written out: the reference of
// the small relu / max_pool2d / add chains the storage and saving tests build.
inline std::vector<float> double_pooled_relu_reference(const std::vector<float> &x) {
  REQUIRE(x.size() == 4 * 16 * 16);
  std::vector<float> out(4 * 8 * 8);
  for (int c = 0; c < 4; ++c)
    for (int i = 0; i < 8; ++i)
      for (int j = 0; j < 8; ++j) {
        float m = 0;  // relu makes every candidate >= 0
        for (int di = 0; di < 2; ++di)
          for (int dj = 0; dj < 2; ++dj) m = std::max(m, x[size_t((c * 16 + 2 * i + di) * 16 + 2 * j + dj)]);
        out[size_t((c * 8 + i) * 8 + j)] = 2 * m;
      }
  return out;
}

}  // namespace tensorir::graph_test
