// `tensorir test`'s comparison of an output with the expected one (tools/tensorir/output_compare.h), and
// what `tensorir run` prints of an output (output_summary.h).
#include <catch2/catch.hpp>

#include <cstdint>
#include <limits>
#include <vector>

#include "output_compare.h"
#include "output_summary.h"

using namespace tensorir;
using tensorir::cli::compare_elements;
using tensorir::cli::value_summary;

TEST_CASE("tensorir test: floats within tolerance, equal infinities and NaN match", "[cli]") {
  const float inf = std::numeric_limits<float>::infinity(), nan = std::numeric_limits<float>::quiet_NaN();
  const NDArray want = NDArray::from_vector<float>({1, -inf, inf, nan, 100}, {5});
  auto cmp = [&](const std::vector<float> &g) {
    return compare_elements(NDArray::from_vector<float>(g, {5}), want, 1e-3, 1e-7);
  };
  CHECK(cmp({1, -inf, inf, nan, 100.05f}).bad == 0);
  const auto off = cmp({1, -inf, inf, nan, 100.2f});
  CHECK(off.bad == 1);
  CHECK(off.worst == 4);
  CHECK(off.criterion == "outside rtol 0.001, atol 1e-07");
  const auto sign = cmp({1, inf, inf, nan, 100});
  CHECK(sign.bad == 1);
  CHECK(sign.worst == 1);
  CHECK(sign.got == "inf");
  CHECK(cmp({1, -inf, 3, 0, 100}).bad == 2);  // a finite value for inf, and for NaN
  CHECK(cmp({nan, -inf, inf, nan, 100}).worst == 0);
}

TEST_CASE("tensorir test: integers compare in exact arithmetic, past 2^53 too", "[cli]") {
  const int64_t big = int64_t{1} << 60;
  const NDArray want = NDArray::from_vector<int64_t>({big + 1, 5, -7}, {3});
  const auto r = compare_elements(NDArray::from_vector<int64_t>({big, 5, -7}, {3}), want, 0, 0);
  CHECK(r.bad == 1);
  CHECK(r.worst == 0);
  CHECK(r.got == "1152921504606846976");
  CHECK(r.want == "1152921504606846977");
  CHECK(r.criterion == "outside rtol 0, atol 0");
  CHECK(compare_elements(want, want, 0, 0).bad == 0);
  // The tolerances apply as to floats: off by one within atol 1, not within atol 0.5.
  const NDArray q = NDArray::from_vector<uint8_t>({7, 200}, {2}), q1 = NDArray::from_vector<uint8_t>({8, 200}, {2});
  CHECK(compare_elements(q, q1, 0, 1).bad == 0);
  CHECK(compare_elements(q, q1, 0, 0.5).bad == 1);
  const uint64_t top = std::numeric_limits<uint64_t>::max();
  CHECK(compare_elements(NDArray::from_vector<uint64_t>({top - 1}, {1}), NDArray::from_vector<uint64_t>({top}, {1}), 0,
                         0)
            .bad == 1);
}

TEST_CASE("tensorir run: an output's summary counts NaNs apart, wherever they are", "[cli]") {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const std::string plain = ", min -2, max 5, mean 1.5, argmax 1";
  CHECK(value_summary(NDArray::from_vector<float>({-2, 5}, {2})) == plain);
  // A NaN first, between or last: the same numbers, and the NaN counted.
  CHECK(value_summary(NDArray::from_vector<float>({nan, -2, 5}, {3})) == ", min -2, max 5, mean 1.5, argmax 2, 1 NaN");
  CHECK(value_summary(NDArray::from_vector<float>({-2, nan, 5}, {3})) == ", min -2, max 5, mean 1.5, argmax 2, 1 NaN");
  CHECK(value_summary(NDArray::from_vector<float>({-2, 5, nan}, {3})) == plain + ", 1 NaN");
  CHECK(value_summary(NDArray::from_vector<float>({nan, nan}, {2})) == ", 2 NaN (all)");
  CHECK(value_summary(NDArray::from_vector<int32_t>({1, 2}, {2})).empty());
}
