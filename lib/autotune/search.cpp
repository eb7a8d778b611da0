// The sampler without repeats, the random search, and the choice of a search by name.
#include "autotune/search.h"

#include <utility>

#include "tensorir/error.h"

namespace tensorir::autotune {

int64_t SearchSpace::size() const {
  int64_t n = 1;
  for (int64_t k : knob_sizes) n *= k;
  return n;
}

int64_t UniqueSampler::val_at(int64_t p) const {
  auto it = at_.find(p);
  return it == at_.end() ? p : it->second;
}

int64_t UniqueSampler::pos_of(int64_t v) const {
  auto it = where_.find(v);
  return it == where_.end() ? v : it->second;
}

void UniqueSampler::put(int64_t p, int64_t v) {
  at_[p] = v;
  where_[v] = p;
}

// Swaps position p with the last position left, which then no longer counts.
void UniqueSampler::take_at(int64_t p) {
  const int64_t last = left_ - 1, v = val_at(p), w = val_at(last);
  put(p, w);
  put(last, v);
  --left_;
}

UniqueSampler::UniqueSampler(int64_t n, int64_t first) : left_(n) {
  if (first >= 0 && first < n && take(first)) first_ = first;
}

int64_t UniqueSampler::draw(std::mt19937_64 &rng) {
  if (first_ >= 0) return std::exchange(first_, -1);
  if (left_ <= 0) return -1;
  const int64_t p = std::uniform_int_distribution<int64_t>(0, left_ - 1)(rng);
  const int64_t v = val_at(p);
  take_at(p);
  return v;
}

bool UniqueSampler::take(int64_t v) {
  const int64_t p = pos_of(v);
  if (p >= left_) return false;
  take_at(p);
  return true;
}

namespace {

class RandomSearch : public Search {
 public:
  RandomSearch(SearchSpace space, uint64_t seed) : sampler_(space.size(), space.first), rng_(seed) {}
  using Search::next_batch;
  std::vector<int64_t> next_batch(int n, std::chrono::steady_clock::time_point) override {
    std::vector<int64_t> out;
    for (int i = 0; i < n && sampler_.left() > 0; ++i) out.push_back(sampler_.draw(rng_));
    return out;
  }
  void update(const std::vector<int64_t> &, const std::vector<double> &) override {}

 private:
  UniqueSampler sampler_;
  std::mt19937_64 rng_;
};

}  // namespace

std::unique_ptr<Search> make_random_search(SearchSpace space, uint64_t seed) {
  return std::make_unique<RandomSearch>(std::move(space), seed);
}

std::unique_ptr<Search> make_search(const std::string &name, SearchSpace space, uint64_t seed) {
  TIR_USER_CHECK(space.size() > 0) << "tuning: the task's space is empty (a knob with no choices)";
  if (name == "random") return make_random_search(std::move(space), seed);
  if (name == "xgb") return make_model_search(std::move(space), seed);
  TIR_USER_CHECK(false) << "tuning: unknown tuner '" << name << "'; use \"xgb\" (cost-model guided) or \"random\"";
  return nullptr;
}

}  // namespace tensorir::autotune
