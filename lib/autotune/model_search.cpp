// The cost-model guided search (AutoTVM's XGBTuner): the first batch is random (after
// SearchSpace::first); after each batch the model is retrained on everything measured,
// and the next batch is the configurations it ranks highest among those not measured,
// found by simulated annealing (a neighbour changes one knob) until the proposal's
// deadline, with an epsilon of random ones so that the model keeps seeing parts of the
// space it ranks low.
#include <algorithm>
#include <cmath>
#include <memory>
#include <unordered_map>

#include "autotune/cost_model.h"
#include "autotune/search.h"

namespace tensorir::autotune {

namespace {

constexpr double kEpsilon = 0.05;  // share of random picks in a batch
constexpr int kChains = 32, kSteps = 40;

class ModelSearch : public Search {
 public:
  ModelSearch(SearchSpace space, uint64_t seed)
      : space_(std::move(space)), sampler_(space_.size(), space_.first), rng_(seed), seed_(seed) {}

  using Search::next_batch;
  std::vector<int64_t> next_batch(int n, std::chrono::steady_clock::time_point by) override {
    std::vector<int64_t> out;
    std::vector<int64_t> ranked = model_ && model_->trained() ? best_predicted(n, by) : std::vector<int64_t>{};
    size_t next = 0;
    std::uniform_real_distribution<double> u(0, 1);
    while (static_cast<int>(out.size()) < n && sampler_.left() > 0) {
      const bool explore = u(rng_) < kEpsilon;
      while (!explore && next < ranked.size() && sampler_.taken(ranked[next])) ++next;
      if (!explore && next < ranked.size()) {
        sampler_.take(ranked[next]);
        out.push_back(ranked[next++]);
      } else {
        out.push_back(sampler_.draw(rng_));
      }
    }
    return out;
  }

  void update(const std::vector<int64_t> &indices, const std::vector<double> &throughput) override {
    const std::vector<const std::vector<float> *> f = features(indices);
    for (size_t i = 0; i < indices.size(); ++i) {
      x_.insert(x_.end(), f[i]->begin(), f[i]->end());
      y_.push_back(throughput[i]);
      measured_.push_back(indices[i]);
    }
    if (!model_ && !f.empty()) model_ = std::make_unique<CostModel>(static_cast<int>(f[0]->size()), seed_);
    if (model_ && *std::max_element(y_.begin(), y_.end()) > 0) model_->fit(x_, y_);
  }

 private:
  // Feature vectors of `indices`, computed once each.
  std::vector<const std::vector<float> *> features(const std::vector<int64_t> &indices) {
    std::vector<int64_t> missing;
    for (int64_t i : indices)
      if (!cache_.count(i) && std::find(missing.begin(), missing.end(), i) == missing.end()) missing.push_back(i);
    if (!missing.empty()) {
      std::vector<std::vector<float>> f = space_.features(missing);
      for (size_t k = 0; k < missing.size(); ++k) cache_[missing[k]] = std::move(f[k]);
    }
    std::vector<const std::vector<float> *> out;
    for (int64_t i : indices) out.push_back(&cache_.at(i));
    return out;
  }

  std::vector<float> predict(const std::vector<int64_t> &indices) {
    std::vector<float> x;
    for (const std::vector<float> *f : features(indices)) x.insert(x.end(), f->begin(), f->end());
    return model_->predict(x);
  }

  // A configuration that differs from `index` in one knob.
  int64_t neighbour(int64_t index) {
    std::vector<size_t> knobs;
    for (size_t k = 0; k < space_.knob_sizes.size(); ++k)
      if (space_.knob_sizes[k] > 1) knobs.push_back(k);
    if (knobs.empty()) return index;
    const size_t k = knobs[std::uniform_int_distribution<size_t>(0, knobs.size() - 1)(rng_)];
    int64_t stride = 1;
    for (size_t j = 0; j < k; ++j) stride *= space_.knob_sizes[j];
    const int64_t size = space_.knob_sizes[k], digit = (index / stride) % size;
    const int64_t other = (digit + std::uniform_int_distribution<int64_t>(1, size - 1)(rng_)) % size;
    return index + (other - digit) * stride;
  }

  // Up to `n` configurations not measured, best predicted first.
  std::vector<int64_t> best_predicted(int n, std::chrono::steady_clock::time_point by) {
    std::unordered_map<int64_t, float> seen;  // configurations not measured, and their scores
    const int64_t total = space_.size();
    if (total <= int64_t(kChains) * kSteps) {
      std::vector<int64_t> all;
      for (int64_t i = 0; i < total; ++i)
        if (!sampler_.taken(i)) all.push_back(i);
      const std::vector<float> s = predict(all);
      for (size_t i = 0; i < all.size(); ++i) seen[all[i]] = s[i];
    } else {
      anneal(seen, by);
    }
    std::vector<std::pair<float, int64_t>> ranked;
    for (const auto &[index, score] : seen) ranked.push_back({score, index});
    // Ties broken by index: the order of an unordered_map is not part of the result.
    std::sort(ranked.begin(), ranked.end(), [](const auto &a, const auto &b) {
      return a.first != b.first ? a.first > b.first : a.second < b.second;
    });
    std::vector<int64_t> out;
    for (size_t i = 0; i < ranked.size() && static_cast<int>(out.size()) < n; ++i) out.push_back(ranked[i].second);
    return out;
  }

  // Chains start at the best measured configurations and at random ones; a worse
  // neighbour is accepted with a probability that falls as the temperature does. Steps
  // stop at `by`, the last one done.
  void anneal(std::unordered_map<int64_t, float> &seen, std::chrono::steady_clock::time_point by) {
    std::vector<size_t> order(y_.size());
    for (size_t i = 0; i < order.size(); ++i) order[i] = i;
    std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return y_[a] > y_[b]; });
    std::vector<int64_t> cur;
    for (size_t i = 0; i < order.size() && cur.size() < kChains / 2; ++i) cur.push_back(measured_[order[i]]);
    std::uniform_int_distribution<int64_t> any(0, space_.size() - 1);
    while (cur.size() < kChains) cur.push_back(any(rng_));
    std::vector<float> cur_score = predict(cur);
    for (size_t i = 0; i < cur.size(); ++i)
      if (!sampler_.taken(cur[i])) seen[cur[i]] = cur_score[i];
    std::uniform_real_distribution<double> u(0, 1);
    for (int step = 0; step < kSteps && std::chrono::steady_clock::now() < by; ++step) {
      const double temperature = std::max(1e-3, 1.0 - double(step) / kSteps);
      std::vector<int64_t> next;
      for (int64_t c : cur) next.push_back(neighbour(c));
      const std::vector<float> s = predict(next);
      for (size_t i = 0; i < cur.size(); ++i) {
        if (!sampler_.taken(next[i])) seen[next[i]] = s[i];
        if (s[i] >= cur_score[i] || std::exp((s[i] - cur_score[i]) / temperature) > u(rng_)) {
          cur[i] = next[i];
          cur_score[i] = s[i];
        }
      }
    }
  }

  SearchSpace space_;
  UniqueSampler sampler_;
  std::mt19937_64 rng_;
  uint64_t seed_;
  std::unique_ptr<CostModel> model_;  // made at the first update, as wide as the features
  std::vector<float> x_;
  std::vector<double> y_;
  std::vector<int64_t> measured_;
  std::unordered_map<int64_t, std::vector<float>> cache_;
};

}  // namespace

std::unique_ptr<Search> make_model_search(SearchSpace space, uint64_t seed) {
  return std::make_unique<ModelSearch>(std::move(space), seed);
}

}  // namespace tensorir::autotune
