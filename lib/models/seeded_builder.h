// What every model of the zoo shares: a Builder whose parameters come from the seeded
// weight recipe of models.h (per-name seeds, uniform draws), and the conv/bn/linear
// layers with torchvision's parameter names and initial ranges.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "tensorir/graph/graph.h"

namespace tensorir::graph::detail {

class SeededModelBuilder {
 public:
  explicit SeededModelBuilder(uint64_t seed) : seed_(seed) {}

  // A constant of `shape` drawn uniformly from [lo, hi) by the recipe.
  NodeRef param(const std::string &name, const std::vector<int64_t> &shape, double lo, double hi);
  // name.weight [cout, cin / groups, k, k]; fan-in cin / groups * k * k. Padding `pad`
  // (-1: k / 2).
  NodeRef conv(NodeRef x, const std::string &name, int64_t cout, int k, int stride, int pad = -1, int groups = 1);
  // name.weight / .bias / .running_mean / .running_var, eps 1e-5.
  NodeRef bn(NodeRef x, const std::string &name);
  // name.weight [out, in] and name.bias, both in +-1/sqrt(in); the bias node is name.bias_add.
  NodeRef linear(NodeRef x, const std::string &name, int64_t out);

  Builder b;

 private:
  uint64_t seed_;
};

}  // namespace tensorir::graph::detail
