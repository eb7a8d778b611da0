// The search over a task's configurations: which to measure next. Two strategies:
// "random" (uniform, never repeating) and "xgb" (simulated annealing on a cost model's
// predictions, retrained after each batch, as AutoTVM's XGBTuner). Both are seeded and,
// given no deadline, reproducible; neither proposes a configuration twice.
#pragma once
#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <random>
#include <string>
#include <unordered_map>
#include <vector>

namespace tensorir::autotune {

struct SearchSpace {
  // Mixed radix, knob 0 varies fastest (Task::knob_sizes).
  std::vector<int64_t> knob_sizes;
  // Feature vectors (features.h) of configurations, for the model; may run in parallel.
  std::function<std::vector<std::vector<float>>(const std::vector<int64_t> &)> features;
  // A configuration proposed first, or -1: the task's default (Task::default_index), so
  // that the best measured is never slower than the untuned kernel by the same clock.
  int64_t first = -1;
  int64_t size() const;
};

class Search {
 public:
  virtual ~Search() = default;
  // Up to `n` configurations never proposed before; fewer once the space runs out. A
  // search whose proposals take time (the model's annealing lowers every configuration it
  // scores) stops looking at `by` and proposes the best it has found.
  virtual std::vector<int64_t> next_batch(int n, std::chrono::steady_clock::time_point by) = 0;
  std::vector<int64_t> next_batch(int n) { return next_batch(n, std::chrono::steady_clock::time_point::max()); }
  // What the proposed configurations measured: throughput, higher is better, 0 when the
  // configuration failed.
  virtual void update(const std::vector<int64_t> &indices, const std::vector<double> &throughput) = 0;
};

// "random" or "xgb"; another name throws an Error listing these.
std::unique_ptr<Search> make_search(const std::string &name, SearchSpace space, uint64_t seed);

// The configurations not yet taken, drawn uniformly without repeats in O(1) each (a
// Fisher-Yates shuffle kept sparse, so a space of 10^12 costs only what is drawn).
class UniqueSampler {
 public:
  // `first` (when in [0, n)) is the first draw.
  explicit UniqueSampler(int64_t n, int64_t first = -1);
  int64_t left() const { return left_ + (first_ >= 0); }
  bool taken(int64_t v) const { return pos_of(v) >= left_; }
  // A configuration not taken yet, now taken; -1 when none is left.
  int64_t draw(std::mt19937_64 &rng);
  // Takes `v`; false when it was already taken.
  bool take(int64_t v);

 private:
  int64_t val_at(int64_t p) const;
  int64_t pos_of(int64_t v) const;
  void put(int64_t p, int64_t v);
  void take_at(int64_t p);
  int64_t left_;
  int64_t first_ = -1;  // taken, not yet drawn
  std::unordered_map<int64_t, int64_t> at_, where_;  // position <-> value, where moved
};

std::unique_ptr<Search> make_random_search(SearchSpace space, uint64_t seed);
std::unique_ptr<Search> make_model_search(SearchSpace space, uint64_t seed);

}  // namespace tensorir::autotune
