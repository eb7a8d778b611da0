// A small JSON value: built in code and written out (model files, plan descriptions), or
// parsed back from text the library wrote itself. Objects keep their keys in insertion
// order so that written files read in a stable, meaningful order. Part of the runtime
// library: the saved-model loader reads model.json with it, without the compiler.
#pragma once
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace tensorir::json {

class Value {
 public:
  enum Kind { Null, Bool, Int, Real, String, Array, Object };

  Value() = default;
  Value(bool b) : kind_(Bool), int_(b) {}
  Value(int v) : kind_(Int), int_(v) {}
  Value(int64_t v) : kind_(Int), int_(v) {}
  Value(uint64_t v) : kind_(Int), int_(static_cast<int64_t>(v)) {}
  Value(double v) : kind_(Real), real_(v) {}
  Value(const char *s) : kind_(String), str_(s) {}
  Value(std::string s) : kind_(String), str_(std::move(s)) {}
  static Value array() { return Value(Array); }
  static Value object() { return Value(Object); }
  template <typename T>
  static Value array_of(const std::vector<T> &items) {
    Value a = array();
    for (const T &x : items) a.push(Value(x));
    return a;
  }

  Kind kind() const { return kind_; }
  bool is_null() const { return kind_ == Null; }
  bool is_number() const { return kind_ == Int || kind_ == Real; }

  // Typed access; the wrong kind throws tensorir::Error.
  bool as_bool() const;
  int64_t as_int() const;  // also a Real that holds an integer
  double as_double() const;
  const std::string &as_string() const;
  const std::vector<Value> &items() const;                             // Array
  const std::vector<std::pair<std::string, Value>> &members() const;  // Object

  // Array: appends. Object: sets (replaces an existing key in place).
  Value &push(Value v);
  Value &set(const std::string &key, Value v);
  // Object members; `at` throws when missing, `find` returns nullptr.
  const Value &at(const std::string &key) const;
  const Value *find(const std::string &key) const;
  size_t size() const;  // Array items or Object members

  // Compact text when indent < 0; else one member or item per line, nested `indent`
  // spaces deeper each level, except that arrays of numbers stay on one line.
  std::string dump(int indent = -1) const;

 private:
  explicit Value(Kind k) : kind_(k) {}
  void write(std::string &out, int indent, int depth) const;

  Kind kind_ = Null;
  int64_t int_ = 0;
  double real_ = 0;
  std::string str_;
  std::vector<Value> items_;
  std::vector<std::pair<std::string, Value>> members_;
};

// Parses one JSON document; throws tensorir::Error naming the offset of a syntax error.
Value parse(const std::string &text);

// `s` as a quoted JSON string literal.
std::string quote(const std::string &s);

}  // namespace tensorir::json
