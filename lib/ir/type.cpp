// Type names: str() and parse() are inverses of each other.
#include "tensorir/ir/type.h"

#include <cctype>
#include <cstdio>
#include <limits>

#include "tensorir/error.h"

namespace tensorir {

int64_t Type::min_int() const {
  TIR_ASSERT(is_int_or_uint()) << "min_int of " << str();
  if (is_uint()) return 0;
  return bits() >= 64 ? std::numeric_limits<int64_t>::min() : -(int64_t(1) << (bits() - 1));
}

std::optional<int64_t> Type::max_int() const {
  TIR_ASSERT(is_int_or_uint()) << "max_int of " << str();
  if (bits() >= 64) return is_int() ? std::optional<int64_t>(std::numeric_limits<int64_t>::max()) : std::nullopt;
  return is_uint() ? (int64_t(1) << bits()) - 1 : (int64_t(1) << (bits() - 1)) - 1;
}

std::string Type::str() const {
  const char *name = "handle";
  switch (code_) {
    case Int: name = "int"; break;
    case UInt: name = is_bool() ? "bool" : "uint"; break;
    case Float: name = "float"; break;
    case BFloat: name = "bfloat"; break;
    case Handle: name = "handle"; break;
  }
  // bool and handle have fixed widths, so their names carry no bits.
  char buf[32];
  if (is_bool() || is_handle()) {
    std::snprintf(buf, sizeof(buf), "%s", name);
  } else {
    std::snprintf(buf, sizeof(buf), "%s%d", name, bits());
  }
  std::string s = buf;
  if (lanes_ > 1) {
    std::snprintf(buf, sizeof(buf), "x%d", lanes());
    s += buf;
  }
  return s;
}

namespace {
// Reads a decimal number starting at s[pos]; returns -1 when there is none.
int read_number(const std::string &s, size_t &pos) {
  size_t start = pos;
  long v = 0;
  while (pos < s.size() && std::isdigit(static_cast<unsigned char>(s[pos]))) {
    v = v * 10 + (s[pos] - '0');
    if (v > 1 << 20) return -1;
    ++pos;
  }
  return pos == start ? -1 : static_cast<int>(v);
}
}  // namespace

Type Type::parse(const std::string &s) {
  struct Prefix {
    const char *name;
    Code code;
  };
  // Longer names first so "bfloat" is not read as "b" + "float".
  static const Prefix prefixes[] = {{"bfloat", BFloat}, {"float", Float}, {"uint", UInt},
                                    {"int", Int},       {"handle", Handle}, {"bool", UInt}};
  for (const Prefix &p : prefixes) {
    std::string name = p.name;
    if (s.compare(0, name.size(), name) != 0) continue;
    size_t pos = name.size();
    int bits;
    if (name == "bool") {
      bits = 1;
    } else if (name == "handle") {
      bits = 64;
    } else {
      bits = read_number(s, pos);
      TIR_USER_CHECK(bits > 0 && bits <= 64)
          << "cannot parse type '" << s << "': expected a bit width such as " << name << "32";
    }
    int lanes = 1;
    if (pos < s.size()) {
      TIR_USER_CHECK(s[pos] == 'x') << "cannot parse type '" << s
                                    << "': expected 'x' and a lane count after the bit width";
      ++pos;
      lanes = read_number(s, pos);
      TIR_USER_CHECK(lanes > 0 && lanes <= 65535 && pos == s.size())
          << "cannot parse type '" << s << "': bad lane count";
    }
    return Type(p.code, bits, lanes);
  }
  TIR_THROW() << "cannot parse type '" << s
              << "': expected int<bits>, uint<bits>, float<bits>, bfloat16, bool or handle, "
                 "optionally followed by x<lanes>";
}

}  // namespace tensorir
