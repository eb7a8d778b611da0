// The JSON value, its writer and a strict parser (RFC 8259; no comments, no trailing commas).
#include "runtime/json.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>

#include "tensorir/error.h"

namespace tensorir::json {

namespace {
const char *kind_name(Value::Kind k) {
  switch (k) {
    case Value::Null: return "null";
    case Value::Bool: return "a boolean";
    case Value::Int:
    case Value::Real: return "a number";
    case Value::String: return "a string";
    case Value::Array: return "an array";
    case Value::Object: return "an object";
  }
  return "?";
}
}  // namespace

bool Value::as_bool() const {
  TIR_USER_CHECK(kind_ == Bool) << "JSON: expected a boolean, found " << kind_name(kind_);
  return int_ != 0;
}

int64_t Value::as_int() const {
  if (kind_ == Real && std::nearbyint(real_) == real_ && std::fabs(real_) < 9.0e15) return static_cast<int64_t>(real_);
  TIR_USER_CHECK(kind_ == Int) << "JSON: expected an integer, found " << (kind_ == Real ? "a fraction" : kind_name(kind_));
  return int_;
}

double Value::as_double() const {
  TIR_USER_CHECK(is_number()) << "JSON: expected a number, found " << kind_name(kind_);
  return kind_ == Int ? static_cast<double>(int_) : real_;
}

const std::string &Value::as_string() const {
  TIR_USER_CHECK(kind_ == String) << "JSON: expected a string, found " << kind_name(kind_);
  return str_;
}

const std::vector<Value> &Value::items() const {
  TIR_USER_CHECK(kind_ == Array) << "JSON: expected an array, found " << kind_name(kind_);
  return items_;
}

const std::vector<std::pair<std::string, Value>> &Value::members() const {
  TIR_USER_CHECK(kind_ == Object) << "JSON: expected an object, found " << kind_name(kind_);
  return members_;
}

Value &Value::push(Value v) {
  TIR_ASSERT(kind_ == Array) << "JSON: push on " << kind_name(kind_);
  items_.push_back(std::move(v));
  return items_.back();
}

Value &Value::set(const std::string &key, Value v) {
  TIR_ASSERT(kind_ == Object) << "JSON: set on " << kind_name(kind_);
  for (auto &m : members_)
    if (m.first == key) return m.second = std::move(v);
  members_.emplace_back(key, std::move(v));
  return members_.back().second;
}

const Value *Value::find(const std::string &key) const {
  for (const auto &m : members())
    if (m.first == key) return &m.second;
  return nullptr;
}

const Value &Value::at(const std::string &key) const {
  const Value *v = find(key);
  TIR_USER_CHECK(v) << "JSON: the object has no member \"" << key << "\"";
  return *v;
}

size_t Value::size() const {
  if (kind_ == Array) return items_.size();
  if (kind_ == Object) return members_.size();
  return 0;
}

std::string quote(const std::string &s) {
  std::string out = "\"";
  for (unsigned char c : s) {
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\t': out += "\\t"; break;
      case '\r': out += "\\r"; break;
      case '\b': out += "\\b"; break;
      case '\f': out += "\\f"; break;
      default:
        if (c < 0x20) {
          char buf[8];
          std::snprintf(buf, sizeof buf, "\\u%04x", c);
          out += buf;
        } else {
          out += static_cast<char>(c);
        }
    }
  }
  return out + "\"";
}

void Value::write(std::string &out, int indent, int depth) const {
  auto newline = [&](int d) {
    if (indent < 0) return;
    out += '\n';
    out.append(static_cast<size_t>(indent * d), ' ');
  };
  switch (kind_) {
    case Null: out += "null"; return;
    case Bool: out += int_ ? "true" : "false"; return;
    case Int: out += std::to_string(int_); return;
    case Real: {
      TIR_USER_CHECK(std::isfinite(real_)) << "JSON cannot hold the number " << real_;
      char buf[32];
      std::snprintf(buf, sizeof buf, "%.17g", real_);
      out += buf;
      return;
    }
    case String: out += quote(str_); return;
    case Array: {
      bool flat = true;  // numbers (and empty arrays) stay on one line
      for (const Value &v : items_) flat = flat && v.is_number();
      out += '[';
      for (size_t i = 0; i < items_.size(); ++i) {
        if (i) out += flat && indent >= 0 ? ", " : ",";
        if (!flat) newline(depth + 1);
        items_[i].write(out, indent, depth + 1);
      }
      if (!flat && !items_.empty()) newline(depth);
      out += ']';
      return;
    }
    case Object: {
      out += '{';
      for (size_t i = 0; i < members_.size(); ++i) {
        if (i) out += ',';
        newline(depth + 1);
        out += quote(members_[i].first);
        out += indent >= 0 ? ": " : ":";
        members_[i].second.write(out, indent, depth + 1);
      }
      if (!members_.empty()) newline(depth);
      out += '}';
      return;
    }
  }
}

std::string Value::dump(int indent) const {
  std::string out;
  write(out, indent, 0);
  return out;
}

namespace {

class Parser {
 public:
  explicit Parser(const std::string &t) : t_(t) {}

  Value document() {
    Value v = value(0);
    space();
    if (p_ != t_.size()) fail("text after the end of the document");
    return v;
  }

 private:
  [[noreturn]] void fail(const std::string &what) const {
    TIR_THROW() << "JSON: " << what << " at offset " << p_;
  }
  void space() {
    while (p_ < t_.size() && (t_[p_] == ' ' || t_[p_] == '\n' || t_[p_] == '\r' || t_[p_] == '\t')) ++p_;
  }
  bool eat(char c) {
    space();
    if (p_ < t_.size() && t_[p_] == c) {
      ++p_;
      return true;
    }
    return false;
  }
  void expect(char c) {
    if (!eat(c)) fail(std::string("expected '") + c + "'");
  }
  bool word(const char *w) {
    size_t n = std::char_traits<char>::length(w);
    if (t_.compare(p_, n, w) != 0) return false;
    p_ += n;
    return true;
  }

  Value value(int depth) {
    if (depth > 256) fail("nesting too deep");
    space();
    if (p_ >= t_.size()) fail("unexpected end of text");
    char c = t_[p_];
    if (c == '{') return object(depth);
    if (c == '[') return array(depth);
    if (c == '"') return Value(string());
    if (word("true")) return Value(true);
    if (word("false")) return Value(false);
    if (word("null")) return Value();
    if (c == '-' || (c >= '0' && c <= '9')) return number();
    fail(std::string("unexpected character '") + c + "'");
  }

  Value object(int depth) {
    ++p_;
    Value o = Value::object();
    if (eat('}')) return o;
    do {
      space();
      if (p_ >= t_.size() || t_[p_] != '"') fail("expected a member name");
      std::string key = string();
      expect(':');
      o.set(key, value(depth + 1));
    } while (eat(','));
    expect('}');
    return o;
  }

  Value array(int depth) {
    ++p_;
    Value a = Value::array();
    if (eat(']')) return a;
    do a.push(value(depth + 1));
    while (eat(','));
    expect(']');
    return a;
  }

  Value number() {
    size_t start = p_;
    bool real = false;
    if (t_[p_] == '-') ++p_;
    auto digits = [&] {
      size_t s = p_;
      while (p_ < t_.size() && t_[p_] >= '0' && t_[p_] <= '9') ++p_;
      if (p_ == s) fail("malformed number");
    };
    digits();
    if (p_ < t_.size() && t_[p_] == '.') {
      ++p_;
      real = true;
      digits();
    }
    if (p_ < t_.size() && (t_[p_] == 'e' || t_[p_] == 'E')) {
      ++p_;
      real = true;
      if (p_ < t_.size() && (t_[p_] == '+' || t_[p_] == '-')) ++p_;
      digits();
    }
    std::string s = t_.substr(start, p_ - start);
    if (!real && s.size() < 19) return Value(static_cast<int64_t>(std::strtoll(s.c_str(), nullptr, 10)));
    const double v = std::strtod(s.c_str(), nullptr);
    // JSON has no infinities: a number beyond double's range is an error here, not inf
    // (which the document could not be written back with).
    if (!std::isfinite(v)) fail("the number " + s + " is beyond the range of a double");
    return Value(v);
  }

  unsigned hex4() {
    if (p_ + 4 > t_.size()) fail("short \\u escape");
    unsigned v = 0;
    for (int i = 0; i < 4; ++i) {
      char c = t_[p_++];
      v <<= 4;
      if (c >= '0' && c <= '9') v |= unsigned(c - '0');
      else if (c >= 'a' && c <= 'f') v |= unsigned(c - 'a' + 10);
      else if (c >= 'A' && c <= 'F') v |= unsigned(c - 'A' + 10);
      else fail("bad \\u escape");
    }
    return v;
  }

  void utf8(std::string &out, unsigned cp) {
    if (cp < 0x80) {
      out += char(cp);
    } else if (cp < 0x800) {
      out += char(0xC0 | (cp >> 6));
      out += char(0x80 | (cp & 0x3F));
    } else if (cp < 0x10000) {
      out += char(0xE0 | (cp >> 12));
      out += char(0x80 | ((cp >> 6) & 0x3F));
      out += char(0x80 | (cp & 0x3F));
    } else {
      out += char(0xF0 | (cp >> 18));
      out += char(0x80 | ((cp >> 12) & 0x3F));
      out += char(0x80 | ((cp >> 6) & 0x3F));
      out += char(0x80 | (cp & 0x3F));
    }
  }

  std::string string() {
    ++p_;  // the opening quote
    std::string out;
    while (true) {
      if (p_ >= t_.size()) fail("unterminated string");
      char c = t_[p_++];
      if (c == '"') return out;
      if (static_cast<unsigned char>(c) < 0x20) fail("control character in a string");
      if (c != '\\') {
        out += c;
        continue;
      }
      if (p_ >= t_.size()) fail("unterminated string");
      char e = t_[p_++];
      switch (e) {
        case '"': out += '"'; break;
        case '\\': out += '\\'; break;
        case '/': out += '/'; break;
        case 'b': out += '\b'; break;
        case 'f': out += '\f'; break;
        case 'n': out += '\n'; break;
        case 'r': out += '\r'; break;
        case 't': out += '\t'; break;
        case 'u': {
          unsigned cp = hex4();
          if (cp >= 0xD800 && cp < 0xDC00 && t_.compare(p_, 2, "\\u") == 0) {
            p_ += 2;
            unsigned lo = hex4();
            if (lo < 0xDC00 || lo >= 0xE000) fail("bad surrogate pair");
            cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
          }
          utf8(out, cp);
          break;
        }
        default: fail(std::string("bad escape \\") + e);
      }
    }
  }

  const std::string &t_;
  size_t p_ = 0;
};

}  // namespace

Value parse(const std::string &text) { return Parser(text).document(); }

}  // namespace tensorir::json
