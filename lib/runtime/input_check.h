// Checking the inputs given to a model's run() against the inputs it declares: shared by
// graph::CompiledModel and runtime::LoadedModel, so both report mistakes alike.
#pragma once
#include <map>
#include <string>
#include <vector>

#include "tensorir/runtime/model_loader.h"

namespace tensorir::runtime {

// The given arrays in the order of `expected`. Throws an Error naming the input when one
// is unknown (listing `owner`'s inputs, e.g. "graph" or "model"), missing, or of another
// shape or dtype.
std::vector<NDArray> checked_inputs(const std::vector<ModelInput> &expected, const std::map<std::string, NDArray> &given,
                                    const std::string &owner);

}  // namespace tensorir::runtime
