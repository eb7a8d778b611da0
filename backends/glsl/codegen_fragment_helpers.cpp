// GLSL ES 3.00 helper functions the fragment shaders call (the IR's floor division and
// modulo on ints, the intrinsics GLSL lacks or computes less accurately than the CPU, a
// lane chosen at run time), and the GLSL names and types of IR names and types.
#include <utility>
#include <vector>

#include "glsl/codegen_fragment_emit.h"

namespace tensorir::glsl {

namespace {

// GLSL ES leaves / and % undefined for negative operands, so divide magnitudes and fix
// the sign: the quotient rounds towards minus infinity.
const char *kFloorDiv = R"(int tir_floordiv(int a, int b) {
  int q = abs(a) / abs(b);
  if ((a < 0) != (b < 0)) {
    q = -q;
    if (q * b != a) q -= 1;
  }
  return q;
}
)";

// The remainder takes the divisor's sign.
const char *kFloorMod = R"(int tir_floormod(int a, int b) {
  return a - tir_floordiv(a, b) * b;
}
)";

const char *kFMod = R"(float tir_fmod(float a, float b) {
  return a - b * floor(a / b);
}
)";

// pow of a negative base with an integral exponent, and of zero, as C's pow gives them
// (GLSL's pow is undefined there).
const char *kPow = R"(float tir_pow(float x, float y) {
  if (y == 0.0) return 1.0;
  if (x == 0.0) return y < 0.0 ? uintBitsToFloat(0x7f800000u) : 0.0;
  float r = pow(abs(x), y);
  if (x < 0.0) {
    if (y != floor(y)) return uintBitsToFloat(0x7fc00000u);
    if (tir_odd(y)) r = -r;
  }
  return r;
}
)";
const char *kOdd = R"(bool tir_odd(float y) {
  return abs(y - 2.0 * floor(y * 0.5)) == 1.0;
}
)";

// Near zero the exponential form cancels; the Maclaurin series to x^11 is exact to
// float precision for |x| < 0.4.
const char *kTanh = R"(float tir_tanh(float x) {
  float a = abs(x);
  if (a < 0.4) {
    float z = x * x;
    return x * (1.0 + z * (-0.333333333 + z * (0.133333333 + z * (-0.053968254 +
        z * (0.0218694885 + z * (-0.00886323552))))));
  }
  float e = exp(-2.0 * a);
  return sign(x) * (1.0 - e) / (1.0 + e);
}
)";

const char *kSigmoid = R"(float tir_sigmoid(float x) {
  return 1.0 / (1.0 + exp(-x));
}
)";

// |x| < 0.5: the Maclaurin series to x^13 (error < 1e-9); beyond, the rational
// approximation of Abramowitz and Stegun 7.1.26 (absolute error < 1.5e-7).
const char *kErf = R"(float tir_erf(float x) {
  float a = abs(x);
  if (a < 0.5) {
    float z = x * x;
    return 1.12837917 * x * (1.0 + z * (-0.333333333 + z * (0.1 + z * (-0.0238095238 +
        z * (0.00462962963 + z * (-0.000757575758 + z * 0.000106837607))))));
  }
  float t = 1.0 / (1.0 + 0.3275911 * a);
  float p = t * (0.254829592 + t * (-0.284496736 + t * (1.421413741 + t * (-1.453152027 +
      t * 1.061405429))));
  return sign(x) * (1.0 - p * exp(-a * a));
}
)";

// A lane chosen at run time. Indexing a vector with a variable (v[i]) is legal GLSL ES,
// but ANGLE's translation of it runs for minutes per draw on SwiftShader (Chromium's
// software WebGL); selects are cheap on every driver.
const char *kLane = R"(float tir_lane(vec4 v, int i) {
  return i == 0 ? v.x : (i == 1 ? v.y : (i == 2 ? v.z : v.w));
}
int tir_lane(ivec4 v, int i) {
  return i == 0 ? v.x : (i == 1 ? v.y : (i == 2 ? v.z : v.w));
}
)";

}  // namespace

std::string glsl_stem(const std::string &name) {
  std::string s;
  for (char c : name) {
    bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
    char out = ok ? c : '_';
    if (out == '_' && (s.empty() || s.back() == '_')) continue;  // "__" is reserved in GLSL
    s += out;
  }
  while (!s.empty() && s.back() == '_') s.pop_back();
  if (s.size() > 24) s.resize(24);
  while (!s.empty() && s.back() == '_') s.pop_back();
  // Reserved prefixes (gl_, webgl_) and names that start with a digit get a letter first.
  if (s.empty() || (s[0] >= '0' && s[0] <= '9') || s.rfind("gl", 0) == 0 || s.rfind("webgl", 0) == 0)
    s = "v" + s;
  return s;
}

std::string fragment_type(Type t, const std::string &where) {
  TIR_ASSERT(t.lanes() == 1) << where << ": vector type " << t << " in a tensor expression";
  if (t.is_bool()) return "bool";
  if (t.code() == Type::Float && t.bits() == 32) return "float";
  if (t.code() == Type::Int && (t.bits() == 32 || t.bits() == 64)) return "int";
  if (t.code() == Type::Float && t.bits() == 64)
    TIR_THROW() << where << ": float64 is not supported by WebGL/fragment targets; use float32";
  TIR_THROW() << where << ": type " << t
              << " is not supported by WebGL/fragment targets, which compute in float32, int32 and bool; "
                 "cast to one of those";
}

std::string fragment_helpers(const std::set<std::string> &used) {
  // In dependency order: a helper comes after those it calls.
  static const std::vector<std::pair<const char *, const char *>> all = {
      {"tir_floordiv", kFloorDiv}, {"tir_floormod", kFloorMod}, {"tir_fmod", kFMod},
      {"tir_odd", kOdd},           {"tir_pow", kPow},           {"tir_tanh", kTanh},
      {"tir_sigmoid", kSigmoid},   {"tir_erf", kErf},           {"tir_lane", kLane},
  };
  std::set<std::string> need = used;
  if (need.count("tir_floormod")) need.insert("tir_floordiv");
  if (need.count("tir_pow")) need.insert("tir_odd");
  std::string out;
  for (const auto &[name, text] : all)
    if (need.count(name)) out += text;
  return out;
}

}  // namespace tensorir::glsl
