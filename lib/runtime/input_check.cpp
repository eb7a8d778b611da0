#include "runtime/input_check.h"

#include <sstream>

namespace tensorir::runtime {

std::vector<NDArray> checked_inputs(const std::vector<ModelInput> &expected, const std::map<std::string, NDArray> &given,
                                    const std::string &owner) {
  for (const auto &[name, value] : given) {
    bool known = false;
    for (const ModelInput &in : expected) known |= in.name == name;
    if (!known) {
      std::ostringstream names;
      for (const ModelInput &in : expected) names << " '" << in.name << "'";
      TIR_THROW() << "run: the " << owner << " has no input called '" << name << "'; its inputs are" << names.str();
    }
  }
  std::vector<NDArray> out;
  for (const ModelInput &in : expected) {
    auto it = given.find(in.name);
    TIR_USER_CHECK(it != given.end()) << "run: input '" << in.name << "' " << shape_str(in.shape) << " " << in.dtype
                                      << " was not given";
    const NDArray &v = it->second;
    TIR_USER_CHECK(v.defined() && v.shape() == in.shape && v.dtype() == in.dtype)
        << "run: input '" << in.name << "' must be " << shape_str(in.shape) << " " << in.dtype << " but is "
        << (v.defined() ? shape_str(v.shape()) + " " + v.dtype().str() : std::string("undefined"));
    out.push_back(v);
  }
  return out;
}

}  // namespace tensorir::runtime
