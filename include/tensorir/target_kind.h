// The registry of target kinds. Each backend registers the kinds it builds for, from a
// static initializer in its own folder, with the options a target of the kind may have
// and the capabilities (TargetCaps) that follow from them:
//
//   const bool registered = [] {
//     TargetKindInfo k;
//     k.name = "llvm";
//     k.help = "native code for this machine's CPU";
//     k.options = {TargetOption::string("mcpu", "CPU name, or native (the default)")};
//     k.caps = [](const Target &) { TargetCaps c; c.runs_in_process = c.cpu_schedules = true; return c; };
//     register_target_kind(std::move(k));
//     return true;
//   }();
#pragma once
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "tensorir/target.h"

namespace tensorir {

// One option of a target kind, written "-name=value" ("-name" for a flag).
struct TargetOption {
  enum Type {
    Flag,     // no value
    Integer,  // a whole number in [min, max]
    String,   // any non-empty value the backend checks itself
    OneOf,    // one of `choices`
  };
  std::string name;  // without the dash
  Type type = Flag;
  std::string help;  // one line
  int64_t min = 1, max = INT64_MAX;
  std::vector<std::string> choices;

  static TargetOption flag(std::string name, std::string help);
  static TargetOption integer(std::string name, int64_t min, int64_t max, std::string help);
  static TargetOption string(std::string name, std::string help);
  static TargetOption one_of(std::string name, std::vector<std::string> choices, std::string help);
  // "-mode=compute|fragment", "-max-texture-size=<1..2147483647>", "-no-default-schedule".
  std::string usage() const;
  // Throws an Error naming `target`, the option and the values it accepts when `value`
  // (as parsed: "true" for a bare flag) is not one of them.
  void check(const std::string &value, const std::string &target) const;
};

struct TargetKindInfo {
  std::string name;  // "llvm"
  std::string help;  // one line: what code of this kind is and where it runs
  std::vector<TargetOption> options;
  // The capabilities of a target of this kind with (checked) options; unset: the
  // defaults of TargetCaps.
  std::function<TargetCaps(const Target &)> caps;

  // nullptr when the kind has no option `name`.
  const TargetOption *find_option(const std::string &name) const;
  // "-mcpu=<...> (help), -mattr=<...> (help)", or "none".
  std::string options_usage() const;
};

// Registers a kind; registering one name twice is an internal error. Safe from static
// initializers (the registry is created on first use).
void register_target_kind(TargetKindInfo info);
// The registered kind called `name`, or nullptr.
const TargetKindInfo *find_target_kind(const std::string &name);
// Every registered kind's name, sorted.
std::vector<std::string> target_kind_names();

}  // namespace tensorir
