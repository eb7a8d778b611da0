// The cost model: gradient-boosted trees (XGBoost) over feature vectors (features.h),
// trained to rank configurations by measured throughput.
#pragma once
#include <cstdint>
#include <memory>
#include <vector>

namespace tensorir::autotune {

class CostModel {
 public:
  // `rows` feature vectors of `cols` entries each, row-major.
  explicit CostModel(int cols, uint64_t seed = 0);
  ~CostModel();
  CostModel(const CostModel &) = delete;
  CostModel &operator=(const CostModel &) = delete;

  // Trains from scratch on `x` (rows of cols()) and their throughputs `y` (higher is
  // better; 0 for failed configurations), with the pairwise ranking objective AutoTVM
  // uses on throughputs normalised by their maximum.
  void fit(const std::vector<float> &x, const std::vector<double> &y);
  // A score per row of `x`: higher ranks better. Zeros before the first fit().
  std::vector<float> predict(const std::vector<float> &x) const;
  bool trained() const { return booster_ != nullptr; }
  int cols() const { return cols_; }

 private:
  int cols_;
  uint64_t seed_;
  void *booster_ = nullptr;  // BoosterHandle
};

}  // namespace tensorir::autotune
