// The table of GLSL helper functions (glsl_helpers.h). Reference semantics: C's results
// (IEEE-754 float, C99 Annex F for pow), which the LLVM backend computes.
#include "backends/glsl/common/glsl_helpers.h"

#include "tensorir/error.h"

namespace tensorir::glsl {

namespace {

struct Helper {
  const char *name;
  const char *deps;    // the helper it calls, "" for none
  const char *glsl430; // the GLSL 4.30 source; nullptr where the dialect lacks its types
  const char *es300;   // the GLSL ES 3.00 source; nullptr where the dialect lacks its types
  const char *opencl = nullptr;  // the OpenCL C source; nullptr where a built-in serves
};

// Divides magnitudes (as uint, so that abs(INT_MIN) divides too) and fixes the sign: the
// quotient rounds towards minus infinity. GLSL leaves / and % on negatives undefined.
const char *kFloorDiv = R"(int tir_floordiv(int a, int b) {
  if (b == 0) return 0;
  int q = int(uint(abs(a)) / uint(abs(b)));
  if ((a < 0) != (b < 0)) { q = -q; if (q * b != a) q -= 1; }
  return q;
}
)";
// The remainder takes the divisor's sign.
const char *kFloorMod = R"(int tir_floormod(int a, int b) { return b == 0 ? 0 : a - tir_floordiv(a, b) * b; }
)";
const char *kFloorDivL = R"(int64_t tir_floordiv_l(int64_t a, int64_t b) {
  if (b == 0l) return 0l;
  int64_t q = int64_t(uint64_t(abs(a)) / uint64_t(abs(b)));
  if ((a < 0l) != (b < 0l)) { q = -q; if (q * b != a) q -= 1l; }
  return q;
}
)";
const char *kFloorModL = R"(int64_t tir_floormod_l(int64_t a, int64_t b) {
  return b == 0l ? 0l : a - tir_floordiv_l(a, b) * b;
}
)";
const char *kFMod = R"(float tir_fmod(float a, float b) {
  return a - b * floor(a / b);
}
)";
// The same in OpenCL C, the magnitudes taken by hand (abs(INT_MIN) is wrong on some drivers).
const char *kFloorDivCL = R"(int tir_floordiv(int a, int b) {
  if (b == 0) return 0;
  uint ua = a < 0 ? 0u - (uint)a : (uint)a, ub = b < 0 ? 0u - (uint)b : (uint)b;
  int q = (int)(ua / ub);
  if ((a < 0) != (b < 0)) { q = (int)(0u - (uint)q); if (q * b != a) q -= 1; }
  return q;
}
)";
const char *kFloorDivLCL = R"(long tir_floordiv_l(long a, long b) {
  if (b == 0) return 0;
  ulong ua = a < 0 ? 0ul - (ulong)a : (ulong)a, ub = b < 0 ? 0ul - (ulong)b : (ulong)b;
  long q = (long)(ua / ub);
  if ((a < 0) != (b < 0)) { q = (long)(0ul - (ulong)q); if (q * b != a) q -= 1; }
  return q;
}
)";
const char *kFloorModLCL = R"(long tir_floormod_l(long a, long b) { return b == 0 ? 0 : a - tir_floordiv_l(a, b) * b; }
)";
const char *kFModDCL = R"(double tir_fmod_d(double a, double b) {
  return a - b * floor(a / b);
}
)";
const char *kSigmoidCL = R"(float tir_sigmoid(float x) { return 1.0f / (1.0f + exp(-x)); }
)";
const char *kSigmoidDCL = R"(double tir_sigmoid_d(double x) { return 1.0 / (1.0 + exp(-x)); }
)";
// C's round(): halves away from zero (GLSL's round() leaves halves to the driver).
const char *kRound = R"(float tir_round(float x) {
  float t = trunc(x);
  return abs(x - t) >= 0.5 ? t + sign(x) : t;
}
)";
const char *kRoundD = R"(double tir_round_d(double x) {
  double t = trunc(x);
  return abs(x - t) >= 0.5lf ? t + sign(x) : t;
}
)";
// C's pow() where GLSL's is undefined (x < 0; x == 0 with y <= 0): pow(x, 0) = 1;
// pow(+-0, y < 0) = +inf, -inf for -0 and an odd integer y; pow(+-0, y > 0) = +0, -0
// for -0 and an odd integer y; a negative base takes an integral exponent's parity,
// and gives NaN for any other exponent.
const char *kPow = R"(float tir_pow(float x, float y) {
  if (y == 0.0 || x == 1.0 || (x == -1.0 && isinf(y))) return 1.0;
  if (isnan(x) || isnan(y)) return uintBitsToFloat(0x7fc00000u);
  bool odd = y == trunc(y) && abs(y - 2.0 * floor(y * 0.5)) == 1.0;
  uint sign_bit = odd ? floatBitsToUint(x) & 0x80000000u : 0u;
  if (x == 0.0) return uintBitsToFloat((y < 0.0 ? 0x7f800000u : 0u) | sign_bit);
  if (x < 0.0 && y != trunc(y) && !isinf(x)) return uintBitsToFloat(0x7fc00000u);
  return uintBitsToFloat(floatBitsToUint(pow(abs(x), y)) | sign_bit);
}
)";
// C's fmod (the remainder takes the dividend's sign) where GLSL has only the floored mod:
// an infinite divisor leaves a finite dividend as it is, as in C.
const char *kTruncMod = R"(float tir_truncmod(float a, float b) {
  if (isinf(b) && !isinf(a)) return a;
  return a - b * trunc(a / b);
}
)";
const char *kSigmoid = R"(float tir_sigmoid(float x) { return 1.0 / (1.0 + exp(-x)); }
)";
// Near zero the exponential form cancels: the Maclaurin series to x^11 is exact to float
// precision for |x| < 0.4; beyond, the exponential form is stable (no inf / inf).
const char *kTanh = R"(float tir_tanh(float x) {
  float a = abs(x);
  if (a < 0.4) {
    float z = x * x;
    return x * (1.0 + z * (-0.333333333 + z * (0.133333333 + z * (-0.053968254 +
        z * (0.0218694885 + z * (-0.00886323552))))));
  }
  float e = exp(-2.0 * a);
  float t = (1.0 - e) / (1.0 + e);
  return x < 0.0 ? -t : t;
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
  float y = 1.0 - p * exp(-a * a);
  return x < 0.0 ? -y : y;
}
)";
// The inverse and hyperbolic functions: Cephes' single-precision reductions and minimax
// polynomials (relative error a few 1e-7), so that no form cancels near 0 and the
// drivers' own (often low-precision) asin, atan, sinh, ... are never called. Near zero
// each uses its polynomial rather than log(1 + u), which a compiler may rewrite.
const char *kAsin = R"(float tir_asin(float x) {
  float a = abs(x);
  if (a > 1.0) return uintBitsToFloat(0x7fc00000u);
  bool big = a > 0.5;
  float z = big ? 0.5 * (1.0 - a) : a * a;
  float s = big ? sqrt(z) : a;
  float r = ((((0.042163199048 * z + 0.024181311049) * z + 0.045470025998) * z + 0.074953002686) * z +
      0.16666752422) * z * s + s;
  if (big) r = 1.5707963267948966 - 2.0 * r;
  return x < 0.0 ? -r : r;
}
)";
const char *kAcos = R"(float tir_acos(float x) {
  if (abs(x) > 1.0) return uintBitsToFloat(0x7fc00000u);
  if (x < -0.5) return 3.141592653589793 - 2.0 * tir_asin(sqrt(0.5 * (1.0 + x)));
  if (x > 0.5) return 2.0 * tir_asin(sqrt(0.5 * (1.0 - x)));
  return 1.5707963267948966 - tir_asin(x);
}
)";
const char *kAtan = R"(float tir_atan(float x) {
  float a = abs(x), base = 0.0;
  if (a > 2.414213562373095) {
    base = 1.5707963267948966;
    a = -1.0 / a;
  } else if (a > 0.4142135623730950) {
    base = 0.7853981633974483;
    a = (a - 1.0) / (a + 1.0);
  }
  float z = a * a;
  float r = base + ((((0.0805374449538 * z - 0.138776856032) * z + 0.199777106478) * z - 0.333329491539) * z * a + a);
  return x < 0.0 ? -r : r;
}
)";
// Past 1, 0.5 e^a is (e^(a/2) sqrt(1/2))^2: e^a itself overflows float from 88.73,
// sinh and cosh only from 89.42.
const char *kSinh = R"(float tir_sinh(float x) {
  float a = abs(x), r;
  if (a > 1.0) {
    float s = exp(0.5 * a) * 0.7071067811865476;
    float h = s * s;
    r = h - 0.25 / h;
  } else {
    float z = x * x;
    r = ((0.000203721912945 * z + 0.00833028376239) * z + 0.166667160211) * z * a + a;
  }
  return x < 0.0 ? -r : r;
}
)";
const char *kCosh = R"(float tir_cosh(float x) {
  float s = exp(0.5 * abs(x)) * 0.7071067811865476;
  float h = s * s;
  return h + 0.25 / h;
}
)";
const char *kAsinh = R"(float tir_asinh(float x) {
  float a = abs(x), r;
  if (a > 1500.0) {
    r = log(a) + 0.6931471805599453;
  } else if (a >= 0.5) {
    r = log(a + sqrt(a * a + 1.0));
  } else {
    float z = x * x;
    r = (((0.020122003309 * z - 0.042699340972) * z + 0.074847586088) * z - 0.16666288134) * z * a + a;
  }
  return x < 0.0 ? -r : r;
}
)";
const char *kAcosh = R"(float tir_acosh(float x) {
  if (x < 1.0) return uintBitsToFloat(0x7fc00000u);
  if (x > 1500.0) return log(x) + 0.6931471805599453;
  float z = x - 1.0;
  if (z >= 0.5) return log(x + sqrt(z * (x + 1.0)));
  return ((((0.0017596881071 * z - 0.0075272886713) * z + 0.026454905019) * z - 0.11784741703) * z +
      1.4142135263) * sqrt(z);
}
)";
const char *kAtanh = R"(float tir_atanh(float x) {
  float a = abs(x), r;
  if (a > 1.0) return uintBitsToFloat(0x7fc00000u);
  if (a == 1.0) {
    r = uintBitsToFloat(0x7f800000u);
  } else if (a >= 0.5) {
    r = 0.5 * log((1.0 + a) / (1.0 - a));
  } else {
    float z = x * x;
    r = ((((0.181740078349 * z + 0.0824370301058) * z + 0.146691431730) * z + 0.199782164500) * z +
        0.333337300303) * z * a + a;
  }
  return x < 0.0 ? -r : r;
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

// In emission order: a helper after the one it calls.
const Helper kHelpers[] = {
    {"tir_floordiv", "", kFloorDiv, kFloorDiv, kFloorDivCL},
    {"tir_floormod", "tir_floordiv", kFloorMod, kFloorMod, kFloorMod},
    {"tir_floordiv_l", "", kFloorDivL, nullptr, kFloorDivLCL},
    {"tir_floormod_l", "tir_floordiv_l", kFloorModL, nullptr, kFloorModLCL},
    {"tir_fmod", "", kFMod, kFMod, kFMod},
    {"tir_fmod_d", "", nullptr, nullptr, kFModDCL},
    {"tir_sigmoid_d", "", nullptr, nullptr, kSigmoidDCL},
    {"tir_round", "", kRound, kRound},
    {"tir_round_d", "", kRoundD, nullptr},
    {"tir_pow", "", kPow, kPow},
    {"tir_truncmod", "", kTruncMod, kTruncMod},
    {"tir_sigmoid", "", kSigmoid, kSigmoid, kSigmoidCL},
    {"tir_tanh", "", kTanh, kTanh},
    {"tir_erf", "", kErf, kErf},
    {"tir_asin", "", kAsin, kAsin},
    {"tir_acos", "tir_asin", kAcos, kAcos},
    {"tir_atan", "", kAtan, kAtan},
    {"tir_sinh", "", kSinh, kSinh},
    {"tir_cosh", "", kCosh, kCosh},
    {"tir_asinh", "", kAsinh, kAsinh},
    {"tir_acosh", "", kAcosh, kAcosh},
    {"tir_atanh", "", kAtanh, kAtanh},
    {"tir_lane", "", kLane, kLane},
};

const Helper *find(const std::string &name) {
  for (const Helper &h : kHelpers)
    if (name == h.name) return &h;
  return nullptr;
}

const char *source(const Helper &h, Dialect d) {
  return d == Dialect::ES300 ? h.es300 : d == Dialect::OpenCL ? h.opencl : h.glsl430;
}

}  // namespace

bool has_glsl_helper(const std::string &name, Dialect d) {
  const Helper *h = find(name);
  return h && source(*h, d);
}

std::set<std::string> glsl_helper_closure(const std::string &name) {
  std::set<std::string> out;
  for (const Helper *h = find(name); h && out.insert(h->name).second; h = find(h->deps)) {
  }
  TIR_ASSERT(!out.empty()) << "unknown GLSL helper " << name;
  return out;
}

std::string glsl_helper_sources(const std::set<std::string> &used, Dialect d) {
  std::set<std::string> need;
  for (const std::string &name : used) need.merge(glsl_helper_closure(name));
  std::string out;
  for (const Helper &h : kHelpers) {
    if (!need.count(h.name)) continue;
    const char *src = source(h, d);
    TIR_ASSERT(src) << "GLSL helper " << h.name << " has no version in this dialect";
    out += src;
  }
  return out;
}

}  // namespace tensorir::glsl
