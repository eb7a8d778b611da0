// The cost model on XGBoost's C API (kept out of every header).
#include "autotune/cost_model.h"

#include <xgboost/c_api.h>

#include <algorithm>
#include <string>

#include "tensorir/error.h"

namespace tensorir::autotune {

namespace {

void check(int status, const char *what) {
  TIR_USER_CHECK(status == 0) << "cost model: XGBoost " << what << " failed: " << XGBGetLastError();
}

// A DMatrix freed when it goes out of scope.
struct Matrix {
  DMatrixHandle h = nullptr;
  Matrix(const std::vector<float> &x, int cols) {
    const bst_ulong rows = x.size() / static_cast<size_t>(cols);
    check(XGDMatrixCreateFromMat(x.data(), rows, static_cast<bst_ulong>(cols), -1e30f, &h), "XGDMatrixCreateFromMat");
  }
  ~Matrix() { XGDMatrixFree(h); }
};

constexpr int kRounds = 60;

}  // namespace

CostModel::CostModel(int cols, uint64_t seed) : cols_(cols), seed_(seed) {}

CostModel::~CostModel() {
  if (booster_) XGBoosterFree(booster_);
}

void CostModel::fit(const std::vector<float> &x, const std::vector<double> &y) {
  TIR_USER_CHECK(cols_ > 0 && x.size() == y.size() * static_cast<size_t>(cols_) && !y.empty())
      << "cost model: " << y.size() << " labels for " << x.size() << " features of " << cols_ << " each";
  const double best = std::max(*std::max_element(y.begin(), y.end()), 1e-30);
  std::vector<float> labels;
  for (double v : y) labels.push_back(static_cast<float>(std::max(v, 0.0) / best));
  Matrix m(x, cols_);
  check(XGDMatrixSetFloatInfo(m.h, "label", labels.data(), labels.size()), "XGDMatrixSetFloatInfo");
  const unsigned group = static_cast<unsigned>(y.size());  // one ranking over all rows
  check(XGDMatrixSetUIntInfo(m.h, "group", &group, 1), "XGDMatrixSetUIntInfo");

  BoosterHandle b = nullptr;
  check(XGBoosterCreate(&m.h, 1, &b), "XGBoosterCreate");
  const std::string seed = std::to_string(seed_ % 2147483647u);
  const std::pair<const char *, std::string> params[] = {
      {"objective", "rank:pairwise"}, {"max_depth", "6"},  {"eta", "0.3"},     {"gamma", "0.0001"},
      {"min_child_weight", "1"},      {"subsample", "1"},  {"lambda", "1"},    {"alpha", "0"},
      {"tree_method", "exact"},       {"nthread", "1"},    {"seed", seed},     {"verbosity", "0"}};
  for (const auto &[k, v] : params) check(XGBoosterSetParam(b, k, v.c_str()), "XGBoosterSetParam");
  for (int i = 0; i < kRounds; ++i) {
    const int st = XGBoosterUpdateOneIter(b, i, m.h);
    if (st != 0) {
      XGBoosterFree(b);
      check(st, "XGBoosterUpdateOneIter");
    }
  }
  if (booster_) XGBoosterFree(booster_);
  booster_ = b;
}

std::vector<float> CostModel::predict(const std::vector<float> &x) const {
  const size_t rows = x.size() / static_cast<size_t>(cols_);
  if (!booster_ || rows == 0) return std::vector<float>(rows, 0.f);
  Matrix m(x, cols_);
  bst_ulong n = 0;
  const float *out = nullptr;
  check(XGBoosterPredict(booster_, m.h, 0, 0, 0, &n, &out), "XGBoosterPredict");
  return std::vector<float>(out, out + n);
}

}  // namespace tensorir::autotune
