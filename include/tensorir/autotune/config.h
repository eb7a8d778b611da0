// The knobs of a schedule template and the configuration that chooses their values.
//
// A schedule asks its Config for each tunable value instead of computing it:
//
//   const int64_t tile = cfg.define_split("tile_ow", width, 16, column_tile(width));
//   const bool unroll = cfg.define_knob("unroll_kw", {0, 1}, 0);
//
// The last argument is the fallback: the value the schedule had before it was tunable,
// which a Config without a configuration (the default) returns, so untuned builds keep
// their kernels. A Config in define mode returns the fallbacks too and records each knob
// and its choices (how a Task learns its space); one made from an index or from a
// record's values returns those choices. A template must ask the same knobs, with the
// same choices, in the same order, whatever the values of earlier knobs.
#pragma once
#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace tensorir::autotune {

class Config {
 public:
  enum class Mode { kFallback, kDefine, kIndex, kValues };

  Config() = default;  // every knob its fallback
  static Config define();
  // The configuration `index` of the space: mixed-radix over the knobs' choice counts,
  // knob 0 varying fastest.
  static Config from_index(int64_t index);
  // Knob values by name (a record's configuration). A knob asked with a value that is
  // not among its choices throws an Error naming it; knobs not named take their fallback.
  static Config from_values(std::map<std::string, int64_t> values);

  // One of `choices` (the fallback joins them when it is not among them). In define and
  // index modes a knob that makes the space exceed 2^63 - 1 configurations throws an Error.
  int64_t define_knob(const std::string &name, std::vector<int64_t> choices, int64_t fallback);
  // A knob added to a template after logs of it were written, for knobs that refine a
  // kernel without changing what the others mean: a record without it is still of this
  // template and gets `before`, the value that reproduces the kernel it measured
  // (define_knob's records must name every knob). `before` is among the choices.
  int64_t define_optional_knob(const std::string &name, std::vector<int64_t> choices, int64_t fallback,
                               int64_t before);
  // A knob that decides which thread computes which part of the result (rows, or channel
  // groups, in parallel). A kernel timed alone cannot judge it: inside a model the kernel
  // before wrote the input in its own partition, into the caches of the cores that made
  // each part, and a partition that crosses it reads the other cores' data. So the tuner
  // keeps it at its fallback unless asked to search it (TuneOptions::tune_partition).
  int64_t define_partition_knob(const std::string &name, std::vector<int64_t> choices, int64_t fallback);
  // A partition knob added after logs were written: optional as define_optional_knob.
  int64_t define_optional_partition_knob(const std::string &name, std::vector<int64_t> choices, int64_t fallback,
                                         int64_t before);
  // A factor of `extent`: its divisors up to `most`, and the fallback. A non-positive
  // extent has no divisors (the fallback alone); one above 2^31 - 1 is an Error.
  int64_t define_split(const std::string &name, int64_t extent, int64_t most, int64_t fallback);

  Mode mode() const { return mode_; }
  // The knobs asked so far, in order, with their choices and the values returned.
  const std::vector<std::string> &names() const { return names_; }
  const std::vector<std::vector<int64_t>> &choices() const { return choices_; }
  const std::vector<int64_t> &values() const { return values_; }
  // Whether knob i (in names() order) was asked by define_optional_knob; an Error for an
  // i past the knobs asked.
  bool optional(size_t i) const;
  // Whether knob i was asked by define_partition_knob; likewise.
  bool partition(size_t i) const;
  // The values returned, as a JSON object (name -> value).
  std::string json() const;

 private:
  Mode mode_ = Mode::kFallback;
  int64_t index_ = 0;
  int64_t stride_ = 1;  // the configurations of the knobs asked so far (define and index modes)
  std::map<std::string, int64_t> given_;
  std::vector<std::string> names_;
  std::vector<std::vector<int64_t>> choices_;
  std::vector<int64_t> values_;
  std::vector<bool> optional_;
  std::vector<bool> partition_;
};

// A JSON object of `names` -> `values` (equal lengths).
std::string config_json(const std::vector<std::string> &names, const std::vector<int64_t> &values);

}  // namespace tensorir::autotune
