// Where code runs: "llvm", "llvm -mcpu=native", "opengl", "opengl -mode=fragment", "webgl",
// "wasm" (WebAssembly with 128-bit SIMD, for browsers), "c".
#pragma once
#include <cstdint>
#include <map>
#include <string>

namespace tensorir {

struct Target {
  std::string kind;                            // "llvm", "opengl", ...
  std::map<std::string, std::string> options;  // "-mcpu=native" -> {"mcpu": "native"}

  Target() = default;
  Target(const char *s) : Target(parse(s)) {}
  Target(const std::string &s) : Target(parse(s)) {}
  // Throws tensorir::Error naming the malformed part.
  static Target parse(const std::string &s);
  std::string option(const std::string &key, const std::string &fallback = "") const;
  // An option that must be a whole number in [1, max] ("-max-texture-size=4096"), or
  // `fallback` when absent; anything else throws an Error naming the option.
  int64_t positive_option(const std::string &key, int64_t fallback, int64_t max = INT64_MAX) const;
  std::string str() const;
};

}  // namespace tensorir
