// Scalar and vector element types: a code, a bit width and a lane count.
#pragma once
#include <cstdint>
#include <optional>
#include <ostream>
#include <string>

namespace tensorir {

class Type {
 public:
  enum Code : uint8_t { Int, UInt, Float, BFloat, Handle };

  constexpr Type() : code_(Int), bits_(32), lanes_(1) {}
  constexpr Type(Code c, int bits, int lanes = 1)
      : code_(c), bits_(static_cast<uint8_t>(bits)), lanes_(static_cast<uint16_t>(lanes)) {}

  Code code() const { return code_; }
  int bits() const { return bits_; }
  int lanes() const { return lanes_; }
  int bytes() const { return (bits_ + 7) / 8; }

  bool is_int() const { return code_ == Int; }
  bool is_uint() const { return code_ == UInt; }
  bool is_float() const { return code_ == Float || code_ == BFloat; }
  bool is_bool() const { return code_ == UInt && bits_ == 1; }
  bool is_handle() const { return code_ == Handle; }
  bool is_scalar() const { return lanes_ == 1; }
  bool is_vector() const { return lanes_ > 1; }
  bool is_int_or_uint() const { return code_ == Int || code_ == UInt; }

  // An integer type's least and greatest values (bool: 0 and 1); uint64's greatest is
  // past int64_t, so none. Only for int and uint types.
  int64_t min_int() const;
  std::optional<int64_t> max_int() const;
  // Whether the integer `v` is a value of this int or uint type.
  bool holds_int(int64_t v) const { return v >= min_int() && (!max_int() || v <= *max_int()); }

  Type with_lanes(int l) const { return Type(code_, bits_, l); }
  Type element_of() const { return with_lanes(1); }

  bool operator==(const Type &o) const {
    return code_ == o.code_ && bits_ == o.bits_ && lanes_ == o.lanes_;
  }
  bool operator!=(const Type &o) const { return !(*this == o); }

  // "float32", "int32x8", "bool", "handle".
  std::string str() const;
  // Parses the names str() produces; throws tensorir::Error otherwise.
  static Type parse(const std::string &s);

 private:
  Code code_;
  uint8_t bits_;
  uint16_t lanes_;
};

inline Type Int(int bits, int lanes = 1) { return Type(Type::Int, bits, lanes); }
inline Type UInt(int bits, int lanes = 1) { return Type(Type::UInt, bits, lanes); }
inline Type Float(int bits, int lanes = 1) { return Type(Type::Float, bits, lanes); }
inline Type BFloat(int bits, int lanes = 1) { return Type(Type::BFloat, bits, lanes); }
inline Type Bool(int lanes = 1) { return Type(Type::UInt, 1, lanes); }
inline Type Handle() { return Type(Type::Handle, 64); }

inline std::ostream &operator<<(std::ostream &os, const Type &t) { return os << t.str(); }

}  // namespace tensorir
