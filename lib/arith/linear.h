// Canonical sums of products for integer index expressions:
//   c1*m1 + c2*m2 + ... + c0
// where each monomial m is a product of atoms (anything that is not +, -, * or an
// integer constant: variables, loads, divisions, min/max, ...). Terms keep the order
// in which they first appear; converting back puts positive terms first, subtracts
// the negative ones and adds the constant last.
#pragma once
#include <cstdint>
#include <functional>
#include <optional>
#include <vector>

#include "tensorir/ir/expr.h"

namespace tensorir::arith {

// A deterministic total order on expressions: kind, type, constants, variable
// names (then identity), children. 0 means structurally identical.
int compare_expr(const Expr &a, const Expr &b);
inline bool same_expr(const Expr &a, const Expr &b) { return a.same_as(b) || compare_expr(a, b) == 0; }

struct Monomial {
  std::vector<Expr> factors;  // sorted by compare_expr; never empty
  int64_t coeff = 0;
};

class LinearSum {
 public:
  explicit LinearSum(Type t = Int(32)) : type(t) {}

  Type type;
  std::vector<Monomial> terms;  // no zero coefficients, no two with equal factors
  int64_t constant = 0;
  // Some coefficient or the constant did not fit the type and wrapped around it: the sum
  // is right modulo 2^bits only. Written out it may overflow where the expression it came
  // from did not (x + 2147483647 + 1 is x + -2147483648, which overflows for x < 0), and
  // its constant's bounds, quotients and remainders are another number's. (Not the only
  // hazard of reordering: a partial sum of terms that did not wrap can still overflow.)
  bool wrapped = false;

  bool is_const() const { return terms.empty(); }
  // Adds coeff * (product of factors); factors need not be sorted.
  void add_term(std::vector<Expr> factors, int64_t coeff);
  void add(const LinearSum &o, int64_t scale = 1);
  void add_const(int64_t c);
  void scale(int64_t k);
  // Index of the term whose factors equal `factors` (sorted), or -1.
  int find(const std::vector<Expr> &factors) const;
  void remove(size_t i) { terms.erase(terms.begin() + static_cast<long>(i)); }
  // Greatest common divisor of the coefficients (not the constant); 0 when no terms.
  int64_t coeff_gcd() const;
};

// The product of two sums, distributed; nullopt when it would exceed `max_terms`.
std::optional<LinearSum> multiply(const LinearSum &a, const LinearSum &b, size_t max_terms = 16);

// Flattens +, -, * and integer constants of a scalar int expression. Other nodes are
// atoms; `atom` (when given) maps each atom first, and a result that is itself a
// sum is flattened in turn.
LinearSum to_linear(const Expr &e, const std::function<Expr(const Expr &)> &atom = nullptr);
Expr to_expr(const LinearSum &s);
// coeff * product of factors as an expression (coeff may be negative).
Expr monomial_expr(const std::vector<Expr> &factors);

// Folds k*(x/c)*c + k*(x%c) back into k*x, and k*x - k*(x/c)*c into k*(x%c)
// (c a positive constant). `simp` (when given) simplifies the x%c it creates.
void merge_div_mod(LinearSum &s, const std::function<Expr(const Expr &)> &simp = nullptr);

}  // namespace tensorir::arith
