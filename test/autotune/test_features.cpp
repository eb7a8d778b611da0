// Loop-nest features (lib/autotune/features.h): the layout's entries on schedules whose
// loops, vectors and strides are known.
#include <catch2/catch.hpp>

#include <cmath>

#include "autotune/features.h"
#include "matmul_task.h"
#include "tensorir/te/schedule.h"

using namespace tensorir;
using namespace tensorir::autotune;

namespace {

std::vector<float> features_of(const Instance &inst) { return extract_features(lower(inst.schedule, inst.args, inst.name)); }

float lg(double x) { return float(std::log2(1 + x)); }

const float *loop_slot(const std::vector<float> &f, int s) { return &f[kGlobalFeatures + s * kLoopFeatures]; }
const float *buffer_slot(const std::vector<float> &f, int b) {
  return &f[kGlobalFeatures + kLoopSlots * kLoopFeatures + b * kBufferFeatures];
}

}  // namespace

TEST_CASE("features have the documented length and are deterministic", "[autotune]") {
  const Instance inst = test::matmul_instance(64, test::MatmulConfig::of(17));
  const std::vector<float> f = features_of(inst);
  REQUIRE(f.size() == size_t(kFeatureLength));
  REQUIRE(features_of(test::matmul_instance(64, test::MatmulConfig::of(17))) == f);
}

TEST_CASE("features see vector lanes, trip counts and float operations", "[autotune]") {
  test::MatmulConfig c{4, 8, 4, false, false};
  const std::vector<float> scalar = features_of(test::matmul_instance(64, c));
  c.vectorize = true;
  const std::vector<float> vec = features_of(test::matmul_instance(64, c));
  REQUIRE(scalar[4] == 1);
  REQUIRE(vec[4] == 8);
  // 64^3 multiply-adds either way (counted by lanes).
  REQUIRE(scalar[8] == Approx(lg(64.0 * 64 * 64)));
  REQUIRE(vec[8] == Approx(lg(64.0 * 64 * 64)));
  // The main store (the accumulation) runs 64^3 times as scalars, 64^3 / 8 as vectors.
  REQUIRE(scalar[13] == Approx(lg(64.0 * 64 * 64)));
  REQUIRE(vec[13] == Approx(lg(64.0 * 64 * 64 / 8)));
}

TEST_CASE("features see parallel loops", "[autotune]") {
  Instance inst = test::matmul_instance(64, {16, 16, 4, false, false});
  const std::vector<float> serial = features_of(inst);
  REQUIRE(serial[3] == 0);
  Tensor C = inst.args[2].tensor();
  inst.schedule[C].parallel(inst.schedule[C]->leaf_iter_vars[0]);
  const std::vector<float> par = features_of(inst);
  REQUIRE(par[3] == 1);
  REQUIRE(par[2] == Approx(lg(4)));  // io: 64 / 16
}

TEST_CASE("features see the loop order through the strides along the innermost loop", "[autotune]") {
  // Innermost j: C[i, j] moves by 1 along it. Innermost k (j vectorized across): C stays.
  const std::vector<float> j_inner = features_of(test::matmul_instance(64, {4, 1 * 4, 16, false, false}));
  // The most accessed buffer is C (read and written by the accumulation).
  REQUIRE(buffer_slot(j_inner, 0)[5] == 1);       // written
  REQUIRE(loop_slot(j_inner, 0)[0] == Approx(lg(4)));  // ji, extent 4
  REQUIRE(loop_slot(j_inner, 0)[2] == Approx(lg(1)));  // C's stride along it
  REQUIRE(buffer_slot(j_inner, 0)[3] == Approx(lg(1)));

  Instance k_inner = test::matmul_instance(64, {4, 4, 16, false, false});
  Tensor C = k_inner.args[2].tensor();
  const auto &leaves = k_inner.schedule[C]->leaf_iter_vars;  // io jo ko ki ii ji
  k_inner.schedule[C].reorder({leaves[0], leaves[1], leaves[4], leaves[5], leaves[2], leaves[3]});
  const std::vector<float> f = features_of(k_inner);
  REQUIRE(loop_slot(f, 0)[0] == Approx(lg(16)));  // ki
  REQUIRE(loop_slot(f, 0)[2] == 0);               // C does not move along k: reuse
  REQUIRE(buffer_slot(f, 0)[2] > 0);
}
