// Reading nlohmann::json from untrusted text (tuning logs, RPC frames) with a bound on
// nesting, and quoting a value in a message with a bound on length. Copying, printing or
// comparing a value recurses once per level, so a document nested 100000 deep would
// overflow the stack long after it was read; no record or frame nests more than a few
// levels, so deeper ones are refused as they are read.
#pragma once
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

#include "tensorir/error.h"

namespace tensorir::support {

constexpr int kMaxJsonDepth = 64;

// J::parse of `text` (throwing J::parse_error and the like for malformed text), and
// tensorir::Error for arrays and objects nested more than kMaxJsonDepth deep.
template <typename J>
J parse_json(std::string_view text) {
  return J::parse(text, [](int depth, typename J::parse_event_t, J &) {
    if (depth > kMaxJsonDepth) TIR_THROW() << "JSON nested more than " << kMaxJsonDepth << " levels deep";
    return true;
  });
}

// `text` for a message: at most `limit` characters, "..." after a cut.
inline std::string cut_text(std::string text, size_t limit = 200) {
  if (text.size() > limit) text = text.substr(0, limit) + "...";
  return text;
}

// `v` as JSON text for a message, cut to at most `limit` characters.
template <typename J>
std::string quote_json(const J &v, size_t limit = 80) {
  return cut_text(v.dump(), limit);
}

}  // namespace tensorir::support
