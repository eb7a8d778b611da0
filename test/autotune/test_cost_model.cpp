// The cost model ranks configurations it has not seen better than chance: on a known
// synthetic function of the features (deterministic, so the test cannot flake).
#include <catch2/catch.hpp>

#include <cmath>
#include <random>

#include "autotune/cost_model.h"
#include "spearman.h"
#include "tensorir/error.h"

using namespace tensorir;
using namespace tensorir::autotune;

namespace {

constexpr int kCols = 6;

double synthetic(const float *x) { return std::exp(2 * x[0]) + 3 * x[1] * x[2] - x[3] * x[3] + (x[4] > 0.5f ? 1 : 0); }

void sample(int rows, std::mt19937 &rng, std::vector<float> &x, std::vector<double> &y) {
  std::uniform_real_distribution<float> u(0, 1);
  for (int r = 0; r < rows; ++r) {
    for (int c = 0; c < kCols; ++c) x.push_back(u(rng));
    y.push_back(synthetic(&x[x.size() - kCols]));
  }
}

}  // namespace

TEST_CASE("the cost model ranks held-out points of a known function", "[autotune]") {
  std::mt19937 rng(1234);
  std::vector<float> xtrain, xtest;
  std::vector<double> ytrain, ytest;
  sample(300, rng, xtrain, ytrain);
  sample(200, rng, xtest, ytest);
  CostModel m(kCols, 0);
  REQUIRE_FALSE(m.trained());
  REQUIRE(m.predict(xtest) == std::vector<float>(200, 0.f));
  m.fit(xtrain, ytrain);
  REQUIRE(m.trained());
  const std::vector<float> p = m.predict(xtest);
  REQUIRE(p.size() == 200);
  const double rho = test::spearman(p, ytest);
  std::printf("cost model on a synthetic function: Spearman %.3f on 200 held-out points\n", rho);
  REQUIRE(rho > 0.5);
  // The same data and seed give the same model.
  CostModel again(kCols, 0);
  again.fit(xtrain, ytrain);
  REQUIRE(again.predict(xtest) == p);
}

TEST_CASE("the cost model refuses labels that do not match its features", "[autotune]") {
  CostModel m(kCols, 0);
  REQUIRE_THROWS_WITH(m.fit(std::vector<float>(12, 0.f), {1.0}), Catch::Contains("1 labels for 12 features"));
}
