// Config: knob values for schedule templates (tensorir/autotune/config.h).
#include "tensorir/autotune/config.h"

#include <algorithm>

#include "tensorir/error.h"

namespace tensorir::autotune {

Config Config::define() {
  Config c;
  c.mode_ = Mode::kDefine;
  return c;
}

Config Config::from_index(int64_t index) {
  TIR_USER_CHECK(index >= 0) << "autotune: configuration index " << index << " is negative";
  Config c;
  c.mode_ = Mode::kIndex;
  c.index_ = index;
  return c;
}

Config Config::from_values(std::map<std::string, int64_t> values) {
  Config c;
  c.mode_ = Mode::kValues;
  c.given_ = std::move(values);
  return c;
}

int64_t Config::define_knob(const std::string &name, std::vector<int64_t> choices, int64_t fallback) {
  TIR_USER_CHECK(std::find(names_.begin(), names_.end(), name) == names_.end())
      << "autotune: the schedule asks for knob '" << name << "' twice";
  if (std::find(choices.begin(), choices.end(), fallback) == choices.end()) choices.push_back(fallback);
  int64_t value = fallback;
  if (mode_ == Mode::kIndex) {
    value = choices[size_t(index_ / stride_ % int64_t(choices.size()))];
    stride_ *= int64_t(choices.size());
  } else if (mode_ == Mode::kValues) {
    auto it = given_.find(name);
    if (it != given_.end()) {
      TIR_USER_CHECK(std::find(choices.begin(), choices.end(), it->second) != choices.end())
          << "autotune: knob '" << name << "' = " << it->second
          << " is not one of its choices for this workload; the configuration was made for another template";
      value = it->second;
    }
  }
  names_.push_back(name);
  choices_.push_back(std::move(choices));
  values_.push_back(value);
  optional_.push_back(false);
  partition_.push_back(false);
  return value;
}

int64_t Config::define_partition_knob(const std::string &name, std::vector<int64_t> choices, int64_t fallback) {
  const int64_t value = define_knob(name, std::move(choices), fallback);
  partition_.back() = true;
  return value;
}

int64_t Config::define_optional_knob(const std::string &name, std::vector<int64_t> choices, int64_t fallback,
                                     int64_t before) {
  TIR_ASSERT(std::find(choices.begin(), choices.end(), before) != choices.end())
      << "knob '" << name << "': the value for records without it, " << before << ", is not one of its choices";
  // A record's configuration (values) that does not name the knob: the kernel it measured.
  const bool absent = mode_ == Mode::kValues && !given_.count(name);
  const int64_t value = define_knob(name, std::move(choices), absent ? before : fallback);
  optional_.back() = true;
  return value;
}

int64_t Config::define_optional_partition_knob(const std::string &name, std::vector<int64_t> choices,
                                               int64_t fallback, int64_t before) {
  const int64_t value = define_optional_knob(name, std::move(choices), fallback, before);
  partition_.back() = true;
  return value;
}

int64_t Config::define_split(const std::string &name, int64_t extent, int64_t most, int64_t fallback) {
  std::vector<int64_t> divisors;
  for (int64_t d = 1; d <= std::min(extent, most); ++d)
    if (extent % d == 0) divisors.push_back(d);
  return define_knob(name, std::move(divisors), fallback);
}

std::string Config::json() const { return config_json(names_, values_); }

std::string config_json(const std::vector<std::string> &names, const std::vector<int64_t> &values) {
  TIR_ASSERT(names.size() == values.size()) << "config_json: " << names.size() << " names, " << values.size()
                                            << " values";
  std::string s = "{";
  for (size_t i = 0; i < names.size(); ++i)
    s += (i ? ",\"" : "\"") + names[i] + "\":" + std::to_string(values[i]);
  return s + "}";
}

}  // namespace tensorir::autotune
