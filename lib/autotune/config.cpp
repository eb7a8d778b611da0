// Config: knob values for schedule templates (tensorir/autotune/config.h).
#include "tensorir/autotune/config.h"

#include <algorithm>
#include <cstdint>
#include <limits>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>

#include "tensorir/error.h"

namespace tensorir::autotune {

namespace {

std::string list(const std::vector<int64_t> &v) {
  std::ostringstream os;
  os << "{";
  for (size_t i = 0; i < v.size(); ++i) os << (i ? ", " : "") << v[i];
  return os.str() + "}";
}

// The divisors of `extent` up to `most`, ascending: d and extent / d for each d up to the
// square root, at most 46341 steps for the largest extent a loop can have.
std::vector<int64_t> divisors_up_to(int64_t extent, int64_t most) {
  std::vector<int64_t> low, high;
  for (int64_t d = 1; d * d <= extent; ++d)
    if (extent % d == 0) {
      low.push_back(d);
      if (d != extent / d) high.push_back(extent / d);
    }
  low.insert(low.end(), high.rbegin(), high.rend());
  low.erase(std::upper_bound(low.begin(), low.end(), most), low.end());
  return low;
}

}  // namespace

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
  // Where the space is enumerated (a Task learning it, an index decoded), its size must fit
  // the 64-bit index: past that the mixed-radix stride would wrap.
  int64_t size = 0;
  if ((mode_ == Mode::kDefine || mode_ == Mode::kIndex) &&
      __builtin_mul_overflow(stride_, int64_t(choices.size()), &size))
    TIR_THROW() << "autotune: knob '" << name << "' (" << choices.size() << " choices, after knobs making "
                << stride_ << " configurations) makes the template's configuration space larger than 2^63 - 1 "
                << "configurations, the most a 64-bit configuration index can number; give the template's knobs "
                   "fewer choices";
  int64_t value = fallback;
  if (mode_ == Mode::kDefine) {
    stride_ = size;
  } else if (mode_ == Mode::kIndex) {
    value = choices[size_t(index_ / stride_ % int64_t(choices.size()))];
    stride_ = size;
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
  TIR_USER_CHECK(std::find(choices.begin(), choices.end(), before) != choices.end())
      << "autotune: optional knob '" << name << "': the value for records without it, " << before
      << ", is not one of its choices " << list(choices) << "; pass as `before` the choice that reproduces the "
      << "kernel the template made before the knob existed";
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
  TIR_USER_CHECK(extent <= INT32_MAX) << "autotune: split '" << name << "' of an extent of " << extent
                                      << ", above 2147483647, the largest loop extent compiled code indexes";
  return define_knob(name, divisors_up_to(extent, most), fallback);
}

std::string Config::json() const { return config_json(names_, values_); }

bool Config::optional(size_t i) const {
  TIR_USER_CHECK(i < optional_.size()) << "autotune: knob " << i << " of a configuration of " << optional_.size()
                                       << " knob(s)";
  return optional_[i];
}

bool Config::partition(size_t i) const {
  TIR_USER_CHECK(i < partition_.size()) << "autotune: knob " << i << " of a configuration of " << partition_.size()
                                        << " knob(s)";
  return partition_[i];
}

std::string config_json(const std::vector<std::string> &names, const std::vector<int64_t> &values) {
  TIR_USER_CHECK(names.size() == values.size()) << "autotune: config_json takes a value per name: " << names.size()
                                                << " names, " << values.size() << " values";
  // Through the JSON library, so that knob names are escaped; ordered: the template's order.
  nlohmann::ordered_json j = nlohmann::ordered_json::object();
  for (size_t i = 0; i < names.size(); ++i) {
    TIR_USER_CHECK(!j.contains(names[i])) << "autotune: the configuration names knob '" << names[i] << "' twice";
    j[names[i]] = values[i];
  }
  try {
    return j.dump();
  } catch (const nlohmann::ordered_json::exception &e) {
    TIR_THROW() << "autotune: a knob name of the configuration is not valid UTF-8 (" << e.what()
                << "); name knobs in UTF-8";
  }
  return {};
}

}  // namespace tensorir::autotune
