// Node constructors: each `make` checks the invariants later passes rely on.
#include "tensorir/ir/expr.h"

#include <cmath>

#include "tensorir/error.h"
#include "tensorir/ir/op.h"
#include "tensorir/ir/printer.h"
#include "tensorir/ir/visitor.h"

namespace tensorir {

Expr::Expr(int v) : Expr(IntImmNode::make(Int(32), v)) {}
Expr::Expr(int64_t v) : Expr(IntImmNode::make(Int(64), v)) {}
Expr::Expr(float v) : Expr(FloatImmNode::make(Float(32), v)) {}
Expr::Expr(double v) : Expr(FloatImmNode::make(Float(32), v)) {}

Var::Var(const std::string &name, Type t) : Expr(new VarNode(t, name)) {}

// ---------------------------------------------------------------- leaves
Expr IntImmNode::make(Type t, int64_t v) {
  TIR_ASSERT(t.is_int_or_uint() && t.is_scalar()) << "IntImm needs a scalar int type, got " << t;
  // Wrap to the type's width so the stored value is what the hardware would hold.
  if (t.is_bool()) {
    v = v != 0;
  } else if (t.bits() < 64) {
    uint64_t mask = (uint64_t(1) << t.bits()) - 1;
    uint64_t u = static_cast<uint64_t>(v) & mask;
    if (t.is_int() && (u >> (t.bits() - 1)) & 1) u |= ~mask;  // sign-extend
    v = static_cast<int64_t>(u);
  }
  return Expr(new IntImmNode(t, v));
}

Expr FloatImmNode::make(Type t, double v) {
  TIR_ASSERT(t.is_float() && t.is_scalar()) << "FloatImm needs a scalar float type, got " << t;
  // Store float32 constants exactly as float32 holds them.
  if (t.code() == Type::Float && t.bits() == 32) v = static_cast<double>(static_cast<float>(v));
  return Expr(new FloatImmNode(t, v));
}

Expr StringImmNode::make(std::string v) { return Expr(new StringImmNode(std::move(v))); }

// ---------------------------------------------------------------- arithmetic
Expr CastNode::make(Type t, Expr v) {
  TIR_ASSERT(v.defined()) << "Cast of an undefined expression";
  TIR_ASSERT(t.lanes() == v.type().lanes()) << "Cast from " << v.type() << " to " << t
                                            << " changes the lane count";
  return Expr(new CastNode(t, std::move(v)));
}

namespace {
constexpr bool is_compare(IRKind k) {
  return k == IRKind::EQ || k == IRKind::NE || k == IRKind::LT || k == IRKind::LE ||
         k == IRKind::GT || k == IRKind::GE;
}
constexpr bool is_logic(IRKind k) { return k == IRKind::And || k == IRKind::Or; }
}  // namespace

template <IRKind K>
Expr BinaryNode<K>::make(Expr a, Expr b) {
  TIR_ASSERT(a.defined() && b.defined()) << "binary node with an undefined operand";
  TIR_ASSERT(a.type() == b.type()) << "binary node operands differ in type: " << a.type()
                                   << " vs " << b.type() << " in " << a << " and " << b;
  Type t = a.type();
  if (is_logic(K)) {
    TIR_ASSERT(t.is_bool()) << "logical operator on non-bool " << t;
  } else {
    TIR_ASSERT(!t.is_handle()) << "arithmetic on a handle";
  }
  Type rt = is_compare(K) ? Bool(t.lanes()) : t;
  return Expr(new BinaryNode<K>(rt, std::move(a), std::move(b)));
}

template struct BinaryNode<IRKind::Add>;
template struct BinaryNode<IRKind::Sub>;
template struct BinaryNode<IRKind::Mul>;
template struct BinaryNode<IRKind::Div>;
template struct BinaryNode<IRKind::Mod>;
template struct BinaryNode<IRKind::Min>;
template struct BinaryNode<IRKind::Max>;
template struct BinaryNode<IRKind::EQ>;
template struct BinaryNode<IRKind::NE>;
template struct BinaryNode<IRKind::LT>;
template struct BinaryNode<IRKind::LE>;
template struct BinaryNode<IRKind::GT>;
template struct BinaryNode<IRKind::GE>;
template struct BinaryNode<IRKind::And>;
template struct BinaryNode<IRKind::Or>;

Expr NotNode::make(Expr a) {
  TIR_ASSERT(a.defined() && a.type().is_bool()) << "Not needs a bool operand";
  return Expr(new NotNode(std::move(a)));
}

Expr SelectNode::make(Expr c, Expr t, Expr f) {
  TIR_ASSERT(c.defined() && t.defined() && f.defined()) << "Select with an undefined operand";
  TIR_ASSERT(c.type().is_bool()) << "Select condition must be bool, got " << c.type();
  TIR_ASSERT(t.type() == f.type()) << "Select branches differ: " << t.type() << " vs " << f.type();
  TIR_ASSERT(c.type().lanes() == 1 || c.type().lanes() == t.type().lanes())
      << "Select condition lanes do not match its values";
  return Expr(new SelectNode(std::move(c), std::move(t), std::move(f)));
}

// ---------------------------------------------------------------- memory and vectors
Expr LoadNode::make(Type t, Var buffer, Expr index) {
  TIR_ASSERT(buffer.defined() && buffer.type().is_handle())
      << "Load buffer must be a handle variable";
  TIR_ASSERT(index.defined() && index.type().is_int_or_uint()) << "Load index must be an integer";
  TIR_ASSERT(index.type().lanes() == t.lanes()) << "Load of " << t << " with index of type "
                                                << index.type();
  return Expr(new LoadNode(t, std::move(buffer), std::move(index)));
}

Expr RampNode::make(Expr base, Expr stride, int lanes) {
  TIR_ASSERT(base.defined() && stride.defined()) << "Ramp with an undefined operand";
  TIR_ASSERT(base.type().is_scalar() && stride.type().is_scalar()) << "Ramp base and stride must be scalar";
  TIR_ASSERT(base.type() == stride.type()) << "Ramp base " << base.type() << " and stride "
                                           << stride.type() << " differ";
  TIR_ASSERT(lanes > 1) << "Ramp needs at least 2 lanes, got " << lanes;
  return Expr(new RampNode(std::move(base), std::move(stride), lanes));
}

Expr BroadcastNode::make(Expr value, int lanes) {
  TIR_ASSERT(value.defined() && value.type().is_scalar()) << "Broadcast of a non-scalar";
  TIR_ASSERT(lanes >= 1) << "Broadcast to " << lanes << " lanes";
  if (lanes == 1) return value;  // a one-lane broadcast is the value itself
  return Expr(new BroadcastNode(std::move(value), lanes));
}

Expr LetNode::make(Var var, Expr value, Expr body) {
  TIR_ASSERT(var.defined() && value.defined() && body.defined()) << "Let with an undefined part";
  TIR_ASSERT(var.type() == value.type()) << "Let " << var.name() << " of type " << var.type()
                                         << " bound to " << value.type();
  return Expr(new LetNode(std::move(var), std::move(value), std::move(body)));
}

Expr CallNode::make(Type t, std::string name, std::vector<Expr> args, CallType ct) {
  TIR_ASSERT(!name.empty()) << "Call without a name";
  for (const Expr &a : args) TIR_ASSERT(a.defined()) << "Call " << name << " with an undefined argument";
  return Expr(new CallNode(t, std::move(name), std::move(args), ct));
}

// ---------------------------------------------------------------- tensor-level nodes
Expr TensorLoadNode::make(Type t, Ref<const Object> producer, int value_index, std::string name,
                          std::vector<Expr> args) {
  TIR_ASSERT(value_index >= 0) << "TensorLoad of " << name << " with negative value index";
  for (const Expr &a : args) {
    TIR_ASSERT(a.defined() && a.type().is_int_or_uint()) << "TensorLoad of " << name
                                                         << " needs integer indices";
  }
  return Expr(new TensorLoadNode(t, std::move(producer), value_index, std::move(name), std::move(args)));
}

Range::Range(Expr begin, Expr end) : min(begin), extent(end - begin) {}

Range Range::from_min_extent(Expr min, Expr extent) {
  Range r;
  r.min = std::move(min);
  r.extent = std::move(extent);
  return r;
}

IterVar IterVar::make(Range dom, Var var, IterVarType t, std::string thread_tag) {
  TIR_ASSERT(var.defined()) << "IterVar without a variable";
  return IterVar(new IterVarNode(std::move(dom), std::move(var), t, std::move(thread_tag)));
}

std::vector<Expr> CommReducerNode::combine(const std::vector<Expr> &a, const std::vector<Expr> &b) const {
  TIR_ASSERT(a.size() == lhs.size() && b.size() == rhs.size())
      << "combiner takes " << lhs.size() << " values per side";
  std::vector<std::pair<Var, Expr>> map;
  for (size_t i = 0; i < lhs.size(); ++i) {
    map.emplace_back(lhs[i], a[i]);
    map.emplace_back(rhs[i], b[i]);
  }
  std::vector<Expr> out;
  for (const Expr &r : result) out.push_back(substitute(r, map));
  return out;
}

Expr ReduceNode::make(CommReducer c, std::vector<Expr> source, std::vector<IterVar> axis,
                      Expr condition, int value_index) {
  TIR_ASSERT(c.defined()) << "Reduce without a combiner";
  TIR_ASSERT(value_index >= 0 && static_cast<size_t>(value_index) < source.size())
      << "Reduce value index " << value_index << " out of " << source.size() << " sources";
  TIR_ASSERT(source.size() == c->result.size()) << "Reduce source count does not match its combiner";
  for (const Expr &s : source) TIR_ASSERT(s.defined()) << "Reduce with an undefined source";
  // No condition means every element takes part.
  if (!condition.defined()) condition = make_const(Bool(), 1);
  TIR_ASSERT(condition.type().is_bool()) << "Reduce condition must be bool";
  return Expr(new ReduceNode(std::move(c), std::move(source), std::move(axis), std::move(condition),
                             value_index));
}

// ---------------------------------------------------------------- statements
Stmt LetStmtNode::make(Var var, Expr value, Stmt body) {
  TIR_ASSERT(var.defined() && value.defined() && body.defined()) << "LetStmt with an undefined part";
  TIR_ASSERT(var.type() == value.type()) << "LetStmt " << var.name() << " of type " << var.type()
                                         << " bound to " << value.type();
  return Stmt(new LetStmtNode(std::move(var), std::move(value), std::move(body)));
}

Stmt AttrStmtNode::make(Ref<const Object> node, std::string key, Expr value, Stmt body) {
  TIR_ASSERT(body.defined()) << "AttrStmt " << key << " without a body";
  return Stmt(new AttrStmtNode(std::move(node), std::move(key), std::move(value), std::move(body)));
}

Stmt AssertStmtNode::make(Expr condition, std::string message, Stmt body) {
  TIR_ASSERT(condition.defined() && condition.type().is_bool()) << "assert needs a bool condition";
  // An assertion guarding nothing still has to run.
  if (!body.defined()) body = EvaluateNode::make(0);
  return Stmt(new AssertStmtNode(std::move(condition), std::move(message), std::move(body)));
}

Stmt ForNode::make(Var loop_var, Expr min, Expr extent, ForKind kind, Stmt body) {
  TIR_ASSERT(loop_var.defined() && min.defined() && extent.defined() && body.defined())
      << "For with an undefined part";
  TIR_ASSERT(loop_var.type().is_int_or_uint() && loop_var.type().is_scalar())
      << "loop variable " << loop_var.name() << " must be a scalar integer";
  TIR_ASSERT(min.type().is_int_or_uint() && min.type().is_scalar() &&
             extent.type().is_int_or_uint() && extent.type().is_scalar())
      << "loop " << loop_var.name() << " bounds must be scalar integers";
  return Stmt(new ForNode(std::move(loop_var), std::move(min), std::move(extent), kind, std::move(body)));
}

Stmt StoreNode::make(Var buffer, Expr value, Expr index) {
  TIR_ASSERT(buffer.defined() && buffer.type().is_handle()) << "Store buffer must be a handle variable";
  TIR_ASSERT(value.defined() && index.defined()) << "Store with an undefined part";
  TIR_ASSERT(index.type().is_int_or_uint()) << "Store index must be an integer";
  TIR_ASSERT(value.type().lanes() == index.type().lanes())
      << "Store of " << value.type() << " with index of type " << index.type();
  return Stmt(new StoreNode(std::move(buffer), std::move(value), std::move(index)));
}

Stmt ProvideNode::make(Ref<const Object> producer, int value_index, std::string name, Expr value,
                       std::vector<Expr> args) {
  TIR_ASSERT(value.defined()) << "Provide to " << name << " without a value";
  for (const Expr &a : args) TIR_ASSERT(a.defined()) << "Provide to " << name << " with an undefined index";
  return Stmt(new ProvideNode(std::move(producer), value_index, std::move(name), std::move(value),
                              std::move(args)));
}

Stmt AllocateNode::make(Var buffer, Type type, std::vector<Expr> extents, std::string scope, Stmt body) {
  TIR_ASSERT(buffer.defined() && buffer.type().is_handle()) << "Allocate buffer must be a handle variable";
  TIR_ASSERT(body.defined()) << "Allocate " << buffer.name() << " without a body";
  for (const Expr &e : extents) {
    TIR_ASSERT(e.defined() && e.type().is_int_or_uint()) << "Allocate " << buffer.name()
                                                         << " needs integer extents";
  }
  return Stmt(new AllocateNode(std::move(buffer), type, std::move(extents), std::move(scope), std::move(body)));
}

Stmt RealizeNode::make(Ref<const Object> producer, int value_index, std::string name, Type type,
                       std::vector<Range> bounds, std::string scope, Stmt body) {
  TIR_ASSERT(body.defined()) << "Realize " << name << " without a body";
  for (const Range &r : bounds) {
    TIR_ASSERT(r.min.defined() && r.extent.defined()) << "Realize " << name << " with an undefined bound";
  }
  return Stmt(new RealizeNode(std::move(producer), value_index, std::move(name), type, std::move(bounds),
                              std::move(scope), std::move(body)));
}

Stmt IfThenElseNode::make(Expr condition, Stmt then_case, Stmt else_case) {
  TIR_ASSERT(condition.defined() && condition.type().is_bool() && condition.type().is_scalar())
      << "if needs a scalar bool condition";
  TIR_ASSERT(then_case.defined()) << "if without a then branch";
  return Stmt(new IfThenElseNode(std::move(condition), std::move(then_case), std::move(else_case)));
}

Stmt BlockNode::make(std::vector<Stmt> stmts) {
  std::vector<Stmt> flat;
  for (Stmt &s : stmts) {
    if (!s.defined()) continue;
    if (const BlockNode *b = s.as<BlockNode>()) {
      flat.insert(flat.end(), b->stmts.begin(), b->stmts.end());
    } else {
      flat.push_back(std::move(s));
    }
  }
  if (flat.empty()) return Stmt();
  if (flat.size() == 1) return flat[0];
  return Stmt(new BlockNode(std::move(flat)));
}

Stmt EvaluateNode::make(Expr value) {
  TIR_ASSERT(value.defined()) << "Evaluate of an undefined expression";
  return Stmt(new EvaluateNode(std::move(value)));
}

// ---------------------------------------------------------------- helpers
Expr make_const(Type t, double value) {
  if (t.lanes() > 1) return BroadcastNode::make(make_const(t.element_of(), value), t.lanes());
  if (t.is_float()) return FloatImmNode::make(t, value);
  TIR_ASSERT(t.is_int_or_uint()) << "no constants of type " << t;
  if (t.is_bool()) return IntImmNode::make(t, value != 0);
  // Out-of-range doubles have no int64 value; clamp rather than invoke undefined behaviour.
  if (!(value > -9.2233720368547758e18)) return IntImmNode::make(t, INT64_MIN);
  if (!(value < 9.2233720368547758e18)) {
    return IntImmNode::make(t, t.is_uint() ? -1 : INT64_MAX);
  }
  return IntImmNode::make(t, static_cast<int64_t>(value));
}

Expr make_zero(Type t) { return make_const(t, 0); }

}  // namespace tensorir
