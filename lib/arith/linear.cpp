// Canonical sums of products: building, merging and converting back to expressions.
#include "arith/linear.h"

#include <algorithm>
#include <numeric>

#include "arith/const_fold.h"

namespace tensorir::arith {

namespace {

int64_t mul_w(int64_t a, int64_t b) { return static_cast<int64_t>(static_cast<uint64_t>(a) * static_cast<uint64_t>(b)); }

// `v` wrapped to `t`, setting `wrapped` when it does not fit.
int64_t fit(Type t, __int128 v, bool &wrapped) {
  const int64_t w = wrap_int(t, static_cast<int64_t>(static_cast<unsigned __int128>(v)));
  if (static_cast<__int128>(w) != v) wrapped = true;
  return w;
}
int64_t add_in(Type t, int64_t a, int64_t b, bool &wrapped) { return fit(t, __int128(a) + b, wrapped); }
int64_t mul_in(Type t, int64_t a, int64_t b, bool &wrapped) { return fit(t, __int128(a) * b, wrapped); }

bool same_factors(const std::vector<Expr> &a, const std::vector<Expr> &b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i)
    if (!same_expr(a[i], b[i])) return false;
  return true;
}

void sort_factors(std::vector<Expr> &f) {
  std::stable_sort(f.begin(), f.end(), [](const Expr &x, const Expr &y) { return compare_expr(x, y) < 0; });
}

}  // namespace

int LinearSum::find(const std::vector<Expr> &factors) const {
  for (size_t i = 0; i < terms.size(); ++i)
    if (same_factors(terms[i].factors, factors)) return static_cast<int>(i);
  return -1;
}

void LinearSum::add_term(std::vector<Expr> factors, int64_t coeff) {
  coeff = fit(type, coeff, wrapped);
  if (coeff == 0) return;
  sort_factors(factors);
  int i = find(factors);
  if (i < 0) {
    terms.push_back({std::move(factors), coeff});
    return;
  }
  int64_t c = add_in(type, terms[i].coeff, coeff, wrapped);
  if (c == 0)
    remove(static_cast<size_t>(i));
  else
    terms[i].coeff = c;
}

void LinearSum::add(const LinearSum &o, int64_t scale) {
  wrapped = wrapped || o.wrapped;
  for (const Monomial &m : o.terms) add_term(m.factors, mul_in(type, m.coeff, scale, wrapped));
  add_const(mul_in(type, o.constant, scale, wrapped));
}

void LinearSum::add_const(int64_t c) { constant = add_in(type, constant, c, wrapped); }

void LinearSum::scale(int64_t k) {
  k = fit(type, k, wrapped);
  if (k == 0) {
    terms.clear();
    constant = 0;
    return;
  }
  std::vector<Monomial> kept;
  for (Monomial &m : terms) {
    m.coeff = mul_in(type, m.coeff, k, wrapped);
    if (m.coeff != 0) kept.push_back(std::move(m));
  }
  terms = std::move(kept);
  constant = mul_in(type, constant, k, wrapped);
}

int64_t LinearSum::coeff_gcd() const {
  int64_t g = 0;
  for (const Monomial &m : terms) g = std::gcd(g, m.coeff < 0 ? -m.coeff : m.coeff);
  return g;
}

std::optional<LinearSum> multiply(const LinearSum &a, const LinearSum &b, size_t max_terms) {
  size_t na = a.terms.size() + (a.constant != 0), nb = b.terms.size() + (b.constant != 0);
  if (na * nb > max_terms) return std::nullopt;
  LinearSum r(a.type);
  r.wrapped = a.wrapped || b.wrapped;
  const auto product = [&](int64_t x, int64_t y) { return mul_in(r.type, x, y, r.wrapped); };
  for (const Monomial &x : a.terms) {
    for (const Monomial &y : b.terms) {
      std::vector<Expr> f = x.factors;
      f.insert(f.end(), y.factors.begin(), y.factors.end());
      r.add_term(std::move(f), product(x.coeff, y.coeff));
    }
    r.add_term(x.factors, product(x.coeff, b.constant));
  }
  for (const Monomial &y : b.terms) r.add_term(y.factors, product(y.coeff, a.constant));
  r.add_const(product(a.constant, b.constant));
  return r;
}

namespace {

void flatten(const Expr &e, int64_t scale, LinearSum &out, const std::function<Expr(const Expr &)> &atom);

LinearSum flat(const Expr &e, const std::function<Expr(const Expr &)> &atom) {
  LinearSum s(e.type());
  flatten(e, 1, s, atom);
  return s;
}

void flatten(const Expr &e, int64_t scale, LinearSum &out, const std::function<Expr(const Expr &)> &atom) {
  switch (e->kind) {
    case IRKind::IntImm: out.add_const(mul_in(out.type, e.as<IntImmNode>()->value, scale, out.wrapped)); return;
    case IRKind::Add: {
      const auto *n = e.as<AddNode>();
      flatten(n->a, scale, out, atom);
      flatten(n->b, scale, out, atom);
      return;
    }
    case IRKind::Sub: {
      const auto *n = e.as<SubNode>();
      flatten(n->a, scale, out, atom);
      flatten(n->b, mul_in(out.type, scale, -1, out.wrapped), out, atom);
      return;
    }
    case IRKind::Mul: {
      const auto *n = e.as<MulNode>();
      if (const int64_t *c = as_const_int(n->b)) return flatten(n->a, mul_in(out.type, scale, *c, out.wrapped), out, atom);
      if (const int64_t *c = as_const_int(n->a)) return flatten(n->b, mul_in(out.type, scale, *c, out.wrapped), out, atom);
      LinearSum la = flat(n->a, atom), lb = flat(n->b, atom);
      out.wrapped = out.wrapped || la.wrapped || lb.wrapped;
      if (auto p = multiply(la, lb)) {
        out.add(*p, scale);
      } else {
        // Too many terms to distribute: the product of the two sums is one monomial.
        out.add_term({to_expr(la), to_expr(lb)}, scale);
      }
      return;
    }
    default: break;
  }
  if (!atom) {
    out.add_term({e}, scale);
    return;
  }
  Expr m = atom(e);
  switch (m->kind) {
    case IRKind::IntImm: case IRKind::Add: case IRKind::Sub: case IRKind::Mul:
      flatten(m, scale, out, nullptr);
      return;
    default: out.add_term({m}, scale);
  }
}

}  // namespace

LinearSum to_linear(const Expr &e, const std::function<Expr(const Expr &)> &atom) { return flat(e, atom); }

Expr monomial_expr(const std::vector<Expr> &factors) {
  Expr r = factors[0];
  for (size_t i = 1; i < factors.size(); ++i) r = MulNode::make(r, factors[i]);
  return r;
}

Expr to_expr(const LinearSum &s) {
  Type t = s.type;
  auto scaled = [&](const Monomial &m, int64_t c) {
    Expr x = monomial_expr(m.factors);
    return c == 1 ? x : MulNode::make(x, int_const(t, c));
  };
  Expr r;
  // Positive terms first, in order of appearance.
  for (const Monomial &m : s.terms) {
    if (m.coeff <= 0) continue;
    Expr x = scaled(m, m.coeff);
    r = r.defined() ? AddNode::make(r, x) : x;
  }
  // With no positive term the constant leads: 3 - x, 0 - x, -5 - (x*2).
  bool const_used = false;
  if (!r.defined() && !s.terms.empty()) {
    r = int_const(t, s.constant);
    const_used = true;
  }
  for (const Monomial &m : s.terms) {
    if (m.coeff > 0) continue;
    // -INT_MIN wraps to itself: keep such a coefficient as a product.
    int64_t neg = wrap_int(t, -static_cast<uint64_t>(m.coeff));
    if (neg > 0)
      r = SubNode::make(r, scaled(m, neg));
    else
      r = AddNode::make(r, scaled(m, m.coeff));
  }
  if (!r.defined()) return int_const(t, s.constant);
  if (!const_used && s.constant != 0) {
    int64_t neg = wrap_int(t, -static_cast<uint64_t>(s.constant));
    if (s.constant < 0 && neg > 0)
      r = SubNode::make(r, int_const(t, neg));
    else
      r = AddNode::make(r, int_const(t, s.constant));
  }
  return r;
}

// ---------------------------------------------------------------- div/mod pairs
namespace {
// The x and c of x/c or x%c with a positive constant c.
template <typename N>
bool match_by_const(const Monomial &m, Expr *x, int64_t *c) {
  if (m.factors.size() != 1) return false;
  const N *n = m.factors[0].as<N>();
  const int64_t *k = n ? as_const_int(n->b) : nullptr;
  if (!k || *k <= 0) return false;
  *x = n->a;
  *c = *k;
  return true;
}
}  // namespace

void merge_div_mod(LinearSum &s, const std::function<Expr(const Expr &)> &simp) {
  for (int round = 0; round < 8; ++round) {
    bool changed = false;
    // k*(x/c)*c + k*(x%c) = k*x
    for (size_t i = 0; i < s.terms.size() && !changed; ++i) {
      Expr x;
      int64_t c, k = s.terms[i].coeff;
      if (!match_by_const<ModNode>(s.terms[i], &x, &c)) continue;
      for (size_t j = 0; j < s.terms.size(); ++j) {
        Expr y;
        int64_t d;
        if (!match_by_const<DivNode>(s.terms[j], &y, &d) || d != c || s.terms[j].coeff != mul_w(k, c)) continue;
        if (!same_expr(x, y)) continue;
        s.remove(std::max(i, j));
        s.remove(std::min(i, j));
        s.add(to_linear(x), k);
        changed = true;
        break;
      }
    }
    // k*x - k*(x/c)*c = k*(x%c), when the sum holds k*x term by term.
    for (size_t i = 0; i < s.terms.size() && !changed; ++i) {
      Expr x;
      int64_t c, coeff = s.terms[i].coeff;
      if (!match_by_const<DivNode>(s.terms[i], &x, &c) || coeff % c != 0) continue;
      int64_t k = mul_w(coeff / c, -1);
      LinearSum lx = to_linear(x);
      if (lx.terms.empty()) continue;
      bool holds = std::all_of(lx.terms.begin(), lx.terms.end(), [&](const Monomial &m) {
        int j = s.find(m.factors);
        return j >= 0 && s.terms[j].coeff == mul_w(m.coeff, k);
      });
      if (!holds) continue;
      s.remove(i);
      s.add(lx, -k);
      Expr mod = ModNode::make(x, int_const(x.type(), c));
      s.add(to_linear(simp ? simp(mod) : mod), k);
      changed = true;
    }
    if (!changed) return;
  }
}

}  // namespace tensorir::arith
