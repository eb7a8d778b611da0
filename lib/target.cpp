// Target strings: "<kind> -key=value -flag ...", parsed in this one place and checked
// against the registered kinds (target_kind.h).
#include "tensorir/target.h"

#include <sstream>
#include <string>
#include <vector>

#include "tensorir/error.h"
#include "tensorir/target_kind.h"

namespace tensorir {

namespace {

std::string registered_kinds() {
  std::string list;
  for (const std::string &k : target_kind_names()) list += (list.empty() ? "" : ", ") + k;
  return list.empty() ? "none (the library was built without backends)" : list;
}

}  // namespace

Target Target::parse(const std::string &s) {
  std::istringstream in(s);
  std::string token;
  Target t;
  TIR_USER_CHECK(in >> t.kind) << "empty target string; expected a kind such as \"llvm\"";
  TIR_USER_CHECK(find_target_kind(t.kind) != nullptr)
      << "unknown target kind '" << t.kind << "' in \"" << s << "\"; known kinds: " << registered_kinds();
  while (in >> token) {
    TIR_USER_CHECK(token.size() > 1 && token[0] == '-' && token[1] != '=' && token[1] != '-')
        << "malformed option '" << token << "' in target \"" << s
        << "\"; options look like -key=value or -flag";
    size_t eq = token.find('=');
    std::string key = token.substr(1, eq == std::string::npos ? std::string::npos : eq - 1);
    const TargetOption *known = eq == std::string::npos ? find_target_kind(t.kind)->find_option(key) : nullptr;
    TIR_USER_CHECK(!known || known->type == TargetOption::Flag)
        << "option -" << key << " in target \"" << s << "\" needs a value: " << known->usage();
    // A bare flag means "true", which str() writes back as the bare flag.
    std::string value = eq == std::string::npos ? "true" : token.substr(eq + 1);
    TIR_USER_CHECK(!value.empty()) << "option '" << token << "' in target \"" << s
                                   << "\" has no value after '='";
    TIR_USER_CHECK(t.options.count(key) == 0)
        << "option -" << key << " appears twice in target \"" << s << "\"";
    t.options[key] = value;
  }
  t.check();
  return t;
}

void Target::check() const {
  const TargetKindInfo &info = kind_info();
  for (const auto &[key, value] : options) {
    const TargetOption *o = info.find_option(key);
    TIR_USER_CHECK(o != nullptr) << "unknown option '-" << key << "' for target '" << kind
                                 << "' (known: " << info.options_usage() << ")";
    o->check(value, str());
  }
}

const TargetKindInfo &Target::kind_info() const {
  TIR_USER_CHECK(!kind.empty()) << "the target has no kind; use a target string such as \"llvm\"";
  const TargetKindInfo *info = find_target_kind(kind);
  TIR_USER_CHECK(info != nullptr) << "unknown target kind '" << kind << "'; known kinds: " << registered_kinds();
  return *info;
}

TargetCaps Target::caps() const {
  const TargetKindInfo &info = kind_info();
  return info.caps ? info.caps(*this) : TargetCaps{};
}

std::string Target::option(const std::string &key, const std::string &fallback) const {
  auto it = options.find(key);
  return it == options.end() ? fallback : it->second;
}

std::string Target::str() const {
  std::string s = kind;
  const TargetKindInfo *info = find_target_kind(kind);
  for (const auto &[key, value] : options) {
    // Only a flag is written bare: "-mcpu=true" must read back as it was given.
    const TargetOption *o = info ? info->find_option(key) : nullptr;
    const bool flag = value == "true" && (!o || o->type == TargetOption::Flag);
    s += " -" + key + (flag ? "" : "=" + value);
  }
  return s;
}

}  // namespace tensorir
