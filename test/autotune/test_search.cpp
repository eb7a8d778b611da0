// The searches: no configuration twice, reproducible, and the model-guided one finds the
// optimum of a synthetic space in fewer trials than the space holds.
#include <catch2/catch.hpp>

#include <chrono>
#include <memory>
#include <set>

#include "autotune/search.h"
#include "tensorir/error.h"

using namespace tensorir;
using namespace tensorir::autotune;

namespace {

// Knob digits of a configuration in a mixed-radix space.
std::vector<int64_t> digits(int64_t index, const std::vector<int64_t> &sizes) {
  std::vector<int64_t> d;
  for (int64_t s : sizes) {
    d.push_back(index % s);
    index /= s;
  }
  return d;
}

// A known objective with one optimum, at digits (5, 2, 1, 3).
double objective(int64_t index, const std::vector<int64_t> &sizes) {
  const std::vector<int64_t> d = digits(index, sizes);
  return 100.0 - double((d[0] - 5) * (d[0] - 5) + (d[1] - 2) * (d[1] - 2)) + (d[2] == 1 ? 3 : 0) +
         (d[3] == 3 ? 2 : 0);
}

SearchSpace synthetic_space(const std::vector<int64_t> &sizes) {
  SearchSpace s;
  s.knob_sizes = sizes;
  s.features = [sizes](const std::vector<int64_t> &indices) {
    std::vector<std::vector<float>> out;
    for (int64_t i : indices) {
      std::vector<float> f;
      for (int64_t d : digits(i, sizes)) f.push_back(float(d));
      out.push_back(f);
    }
    return out;
  };
  return s;
}

// Runs a search over the whole space; the configurations in the order proposed.
std::vector<int64_t> exhaust(Search &search, const std::vector<int64_t> &sizes, int batch) {
  std::vector<int64_t> all;
  for (std::vector<int64_t> b = search.next_batch(batch); !b.empty(); b = search.next_batch(batch)) {
    std::vector<double> y;
    for (int64_t i : b) y.push_back(objective(i, sizes));
    search.update(b, y);
    all.insert(all.end(), b.begin(), b.end());
  }
  return all;
}

}  // namespace

TEST_CASE("the sampler draws every configuration once, around those taken", "[autotune]") {
  UniqueSampler s(100);
  std::mt19937_64 rng(7);
  REQUIRE(s.take(42));
  REQUIRE_FALSE(s.take(42));
  REQUIRE(s.take(99));
  std::set<int64_t> seen = {42, 99};
  for (int64_t v = s.draw(rng); v >= 0; v = s.draw(rng)) REQUIRE(seen.insert(v).second);
  REQUIRE(seen.size() == 100);
  REQUIRE(s.left() == 0);
  REQUIRE(s.draw(rng) == -1);
}

TEST_CASE("random and xgb searches never repeat a configuration and cover a small space", "[autotune]") {
  const std::vector<int64_t> sizes = {8, 8, 4, 4};
  for (const char *name : {"random", "xgb"}) {
    auto search = make_search(name, synthetic_space(sizes), 3);
    const std::vector<int64_t> all = exhaust(*search, sizes, 8);
    INFO(name);
    REQUIRE(all.size() == 1024);
    REQUIRE(std::set<int64_t>(all.begin(), all.end()).size() == 1024);
  }
}

TEST_CASE("random search over a huge space never repeats", "[autotune]") {
  SearchSpace space;
  space.knob_sizes = {1000, 1000, 1000};
  auto search = make_search("random", space, 11);
  std::set<int64_t> seen;
  for (int b = 0; b < 200; ++b)
    for (int64_t i : search->next_batch(50)) {
      REQUIRE(i >= 0);
      REQUIRE(i < space.size());
      REQUIRE(seen.insert(i).second);
    }
}

TEST_CASE("searches are reproducible from their seed", "[autotune]") {
  const std::vector<int64_t> sizes = {8, 8, 4, 4};
  for (const char *name : {"random", "xgb"}) {
    auto a = make_search(name, synthetic_space(sizes), 5), b = make_search(name, synthetic_space(sizes), 5);
    std::vector<int64_t> ra = exhaust(*a, sizes, 8), rb = exhaust(*b, sizes, 8);
    ra.resize(200);
    rb.resize(200);
    INFO(name);
    REQUIRE(ra == rb);
  }
}

TEST_CASE("the xgb search finds the optimum of a synthetic space in fewer trials than it holds", "[autotune]") {
  const std::vector<int64_t> sizes = {8, 8, 4, 4};  // 1024 configurations, optimum at (5, 2, 1, 3)
  const int64_t optimum = 5 + 8 * (2 + 8 * (1 + 4 * 3));
  for (uint64_t seed : {1, 2, 3}) {
    auto search = make_search("xgb", synthetic_space(sizes), seed);
    const std::vector<int64_t> order = exhaust(*search, sizes, 8);
    const size_t trials = std::find(order.begin(), order.end(), optimum) - order.begin() + 1;
    // Random order finds it after 512 trials on average.
    std::printf("xgb search, seed %llu: the optimum after %zu of 1024 trials\n", (unsigned long long)seed, trials);
    REQUIRE(trials < 1024 / 4);
  }
}

TEST_CASE("an unknown tuner is an error naming the ones there are", "[autotune]") {
  REQUIRE_THROWS_WITH(make_search("grid", synthetic_space({2, 2}), 0),
                      Catch::Contains("unknown tuner 'grid'") && Catch::Contains("random"));
}

TEST_CASE("the xgb search stops annealing at its deadline and still proposes a whole batch", "[autotune]") {
  const std::vector<int64_t> sizes = {16, 16, 16, 16};  // too many to score all: annealing
  SearchSpace space = synthetic_space(sizes);
  auto scored = std::make_shared<size_t>(0);
  space.features = [inner = space.features, scored](const std::vector<int64_t> &indices) {
    *scored += indices.size();
    return inner(indices);
  };
  auto search = make_search("xgb", space, 9);
  std::set<int64_t> proposed;
  const auto propose = [&](std::chrono::steady_clock::time_point by) {
    const std::vector<int64_t> batch = search->next_batch(8, by);
    REQUIRE(batch.size() == 8);
    std::vector<double> y;
    for (int64_t i : batch) {
      REQUIRE(proposed.insert(i).second);
      y.push_back(objective(i, sizes));
    }
    search->update(batch, y);
  };
  propose(std::chrono::steady_clock::time_point::max());  // random: nothing to anneal on yet
  // Past its deadline: the chains' starting points are scored, and no step is taken.
  *scored = 0;
  propose(std::chrono::steady_clock::now() - std::chrono::seconds(1));
  CHECK(*scored <= 32 + 8);  // the starts, and the batch's features for the update
  // With time: every step scores each chain's neighbour.
  *scored = 0;
  propose(std::chrono::steady_clock::time_point::max());
  CHECK(*scored > 32 * 20);
}
