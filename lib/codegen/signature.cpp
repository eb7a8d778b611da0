// make_signature: a LoweredFunc's arguments as the runtime's ArgSpecs, with every buffer
// dimension reduced to coeff * symbol + offset.
#include "codegen/signature.h"

#include <optional>

#include "tensorir/ir/printer.h"

namespace tensorir {

namespace {

// A linear form in at most one symbol; symbol < 0 (or coeff 0) is a constant.
using Affine = DimSpec;

class AffineReader {
 public:
  explicit AffineReader(const std::vector<Var> &symbols) : symbols_(symbols) {}

  std::optional<Affine> read(const Expr &e) const {
    if (!e.defined()) return std::nullopt;
    if (const auto *imm = e.as<IntImmNode>()) return Affine{0, -1, imm->value};
    if (const auto *v = e.as<VarNode>()) {
      for (size_t i = 0; i < symbols_.size(); ++i)
        if (symbols_[i].get() == v) return Affine{1, static_cast<int>(i), 0};
      return std::nullopt;
    }
    // Widening or narrowing between integer types keeps the form (shapes are small).
    if (const auto *c = e.as<CastNode>()) {
      if (!c->type.is_int_or_uint() || !c->value.type().is_int_or_uint()) return std::nullopt;
      return read(c->value);
    }
    if (const auto *n = e.as<AddNode>()) return combine(read(n->a), read(n->b), 1);
    if (const auto *n = e.as<SubNode>()) return combine(read(n->a), read(n->b), -1);
    if (const auto *n = e.as<MulNode>()) {
      auto a = read(n->a), b = read(n->b);
      if (!a || !b) return std::nullopt;
      if (is_const(*b)) return scale(*a, b->offset);
      if (is_const(*a)) return scale(*b, a->offset);
      return std::nullopt;
    }
    return std::nullopt;
  }

 private:
  static bool is_const(const Affine &a) { return a.symbol < 0 || a.coeff == 0; }
  static Affine normalise(Affine a) {
    if (a.coeff == 0) a.symbol = -1;
    if (a.symbol < 0) a.coeff = 0;
    return a;
  }
  static Affine scale(const Affine &a, int64_t k) {
    return normalise(Affine{a.coeff * k, a.symbol, a.offset * k});
  }
  // a + sign * b, when both mention at most the same symbol.
  static std::optional<Affine> combine(std::optional<Affine> a, std::optional<Affine> b,
                                       int64_t sign) {
    if (!a || !b) return std::nullopt;
    Affine x = normalise(*a), y = normalise(*b);
    if (x.symbol >= 0 && y.symbol >= 0 && x.symbol != y.symbol) return std::nullopt;
    int symbol = x.symbol >= 0 ? x.symbol : y.symbol;
    return normalise(Affine{x.coeff + sign * y.coeff, symbol, x.offset + sign * y.offset});
  }

  const std::vector<Var> &symbols_;
};

}  // namespace

FuncSignature make_signature(const LoweredFunc &f, Device::Kind device) {
  TIR_ASSERT(f.defined()) << "make_signature of an undefined function";
  FuncSignature sig;
  sig.name = f->name;
  sig.device = device;
  for (const Var &s : f->symbols) sig.symbols.push_back(s.name());
  AffineReader reader(f->symbols);
  for (const LoweredArg &arg : f->args) {
    ArgSpec spec;
    spec.kind = arg.is_buffer ? ArgSpec::Buffer : ArgSpec::Scalar;
    spec.name = arg.name;
    spec.dtype = arg.dtype;
    spec.written = arg.is_buffer && arg.written;
    spec.may_alias = arg.is_buffer && arg.may_alias;
    if (arg.is_buffer) {
      for (size_t d = 0; d < arg.shape.size(); ++d) {
        std::optional<Affine> a = reader.read(arg.shape[d]);
        TIR_USER_CHECK(a.has_value())
            << f->name << ": argument " << arg.name << ": dimension " << d << " has shape expression `"
            << (arg.shape[d].defined() ? to_string(arg.shape[d]) : std::string("<undefined>"))
            << "` that is not affine in one shape variable; a buffer dimension must be a "
               "constant or a*n + b for one shape variable n";
        spec.shape.push_back(*a);
      }
    }
    sig.args.push_back(std::move(spec));
  }
  return sig;
}

}  // namespace tensorir
