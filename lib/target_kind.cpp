// The registry of target kinds and the checks of their options.
#include "tensorir/target_kind.h"

#include <cctype>
#include <map>
#include <memory>
#include <mutex>

#include "tensorir/error.h"

namespace tensorir {

namespace {

struct KindRegistry {
  std::mutex mu;
  // Node-based: the infos handed out stay where they are when others register.
  std::map<std::string, std::unique_ptr<const TargetKindInfo>> kinds;
};

// Function-local and never destroyed: kinds register from static initializers in other
// files, and targets may be parsed while the process exits.
KindRegistry &registry() {
  static KindRegistry *r = new KindRegistry;
  return *r;
}

bool is_integer(const std::string &s, int64_t &v) {
  try {
    size_t used = 0;
    v = std::stoll(s, &used);
    return used == s.size() && (s[0] == '-' || std::isdigit(static_cast<unsigned char>(s[0])));
  } catch (...) {  // not a number, or out of range
    return false;
  }
}

}  // namespace

// Here rather than in target.cpp: it reads integers as the schema's check does.
int64_t Target::positive_option(const std::string &key, int64_t fallback, int64_t max) const {
  const std::string opt = option(key);
  if (opt.empty()) return fallback;
  int64_t v = 0;
  if (!is_integer(opt, v)) v = 0;
  TIR_USER_CHECK(v > 0 && v <= max) << "target '" << str() << "': -" << key << "=" << opt
                                    << " is not a positive number" << (max < INT64_MAX ? " up to " + std::to_string(max) : "");
  return v;
}

TargetOption TargetOption::flag(std::string name, std::string help) {
  TargetOption o;
  o.name = std::move(name);
  o.type = Flag;
  o.help = std::move(help);
  return o;
}

TargetOption TargetOption::integer(std::string name, int64_t min, int64_t max, std::string help) {
  TargetOption o;
  o.name = std::move(name);
  o.type = Integer;
  o.min = min;
  o.max = max;
  o.help = std::move(help);
  return o;
}

TargetOption TargetOption::string(std::string name, std::string help) {
  TargetOption o;
  o.name = std::move(name);
  o.type = String;
  o.help = std::move(help);
  return o;
}

TargetOption TargetOption::one_of(std::string name, std::vector<std::string> choices, std::string help) {
  TargetOption o;
  o.name = std::move(name);
  o.type = OneOf;
  o.choices = std::move(choices);
  o.help = std::move(help);
  return o;
}

std::string TargetOption::usage() const {
  switch (type) {
    case Flag: return "-" + name;
    case Integer: return "-" + name + "=<" + std::to_string(min) + ".." + std::to_string(max) + ">";
    case String: return "-" + name + "=<...>";
    case OneOf: {
      std::string s = "-" + name + "=";
      for (size_t i = 0; i < choices.size(); ++i) s += (i ? "|" : "") + choices[i];
      return s;
    }
  }
  return "-" + name;
}

void TargetOption::check(const std::string &value, const std::string &target) const {
  switch (type) {
    case Flag:
      TIR_USER_CHECK(value == "true") << "target '" << target << "': -" << name << " is a flag and takes no value; "
                                      << "write -" << name << " alone";
      return;
    case Integer: {
      int64_t v = 0;
      const bool ok = is_integer(value, v) && v >= min && v <= max;
      if (!ok && min == 1)
        TIR_THROW() << "target '" << target << "': -" << name << "=" << value << " is not a positive number"
                    << (max < INT64_MAX ? " up to " + std::to_string(max) : std::string());
      TIR_USER_CHECK(ok) << "target '" << target << "': -" << name << "=" << value
                         << " is not a whole number from " << min << " to " << max;
      return;
    }
    case String:
      return;
    case OneOf: {
      for (const std::string &c : choices)
        if (c == value) return;
      std::string list;
      for (const std::string &c : choices) list += (list.empty() ? "" : ", ") + c;
      TIR_THROW() << "target '" << target << "': unknown " << name << " '" << value << "' (-" << name << "="
                  << value << "); -" << name << " takes one of: " << list << " (" << help << ")";
    }
  }
}

const TargetOption *TargetKindInfo::find_option(const std::string &option) const {
  for (const TargetOption &o : options)
    if (o.name == option) return &o;
  return nullptr;
}

std::string TargetKindInfo::options_usage() const {
  std::string s;
  for (const TargetOption &o : options) s += (s.empty() ? "" : ", ") + o.usage() + " (" + o.help + ")";
  return s.empty() ? "none" : s;
}

void register_target_kind(TargetKindInfo info) {
  TIR_ASSERT(!info.name.empty()) << "register_target_kind: a kind without a name";
  KindRegistry &r = registry();
  std::lock_guard<std::mutex> lock(r.mu);
  const std::string name = info.name;
  auto added = r.kinds.emplace(name, std::make_unique<const TargetKindInfo>(std::move(info))).second;
  TIR_ASSERT(added) << "register_target_kind: the target kind '" << name << "' is registered twice";
}

const TargetKindInfo *find_target_kind(const std::string &name) {
  KindRegistry &r = registry();
  std::lock_guard<std::mutex> lock(r.mu);
  auto it = r.kinds.find(name);
  return it == r.kinds.end() ? nullptr : it->second.get();
}

std::vector<std::string> target_kind_names() {
  KindRegistry &r = registry();
  std::lock_guard<std::mutex> lock(r.mu);
  std::vector<std::string> names;
  for (const auto &entry : r.kinds) names.push_back(entry.first);
  return names;
}

}  // namespace tensorir
