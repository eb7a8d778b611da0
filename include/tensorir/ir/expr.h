// The loop-nest IR: every expression and statement node, each built by its `make`.
// Nodes are immutable and reference counted; Expr and Stmt are cheap handles.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "tensorir/ir/object.h"
#include "tensorir/ir/type.h"

namespace tensorir {

enum class IRKind : uint8_t {
  // expressions
  IntImm, FloatImm, StringImm, Variable, Cast,
  Add, Sub, Mul, Div, Mod, Min, Max,
  EQ, NE, LT, LE, GT, GE, And, Or, Not,
  Select, Load, Ramp, Broadcast, Let, Call, TensorLoad, Reduce,
  // statements
  LetStmt, AttrStmt, AssertStmt, For, Store, Provide, Allocate, Realize,
  IfThenElse, Block, Evaluate,
};

struct IRNode : Object {
  explicit IRNode(IRKind k) : kind(k) {}
  const IRKind kind;
};

struct ExprNode : IRNode {
  ExprNode(IRKind k, Type t) : IRNode(k), type(t) {}
  const Type type;
};

struct StmtNode : IRNode {
  using IRNode::IRNode;
};

// Handle to an expression. Converts from C++ literals: int -> int32, float/double -> float32.
class Expr : public Ref<const ExprNode> {
 public:
  Expr() = default;
  Expr(const ExprNode *n) : Ref<const ExprNode>(n) {}
  // By const reference, so a Var converts through the copy constructor unambiguously.
  Expr(const Ref<const ExprNode> &n) : Ref<const ExprNode>(n) {}
  Expr(int v);
  Expr(int64_t v);
  Expr(float v);
  Expr(double v);

  Type type() const { return get()->type; }
  template <typename T>
  const T *as() const {
    return get() && get()->kind == T::kKind ? static_cast<const T *>(get()) : nullptr;
  }
};

class Stmt : public Ref<const StmtNode> {
 public:
  Stmt() = default;
  Stmt(const StmtNode *n) : Ref<const StmtNode>(n) {}
  template <typename T>
  const T *as() const {
    return get() && get()->kind == T::kKind ? static_cast<const T *>(get()) : nullptr;
  }
};

// ---------------------------------------------------------------- leaves
struct IntImmNode : ExprNode {
  static constexpr IRKind kKind = IRKind::IntImm;
  IntImmNode(Type t, int64_t v) : ExprNode(kKind, t), value(v) {}
  const int64_t value;  // also holds uint and bool constants
  static Expr make(Type t, int64_t v);
};

struct FloatImmNode : ExprNode {
  static constexpr IRKind kKind = IRKind::FloatImm;
  FloatImmNode(Type t, double v) : ExprNode(kKind, t), value(v) {}
  const double value;
  static Expr make(Type t, double v);
};

struct StringImmNode : ExprNode {
  static constexpr IRKind kKind = IRKind::StringImm;
  explicit StringImmNode(std::string v) : ExprNode(kKind, Handle()), value(std::move(v)) {}
  const std::string value;
  static Expr make(std::string v);
};

struct VarNode : ExprNode {
  static constexpr IRKind kKind = IRKind::Variable;
  VarNode(Type t, std::string n) : ExprNode(kKind, t), name(std::move(n)) {}
  const std::string name;  // for printing only: identity is the node itself
};

// A variable handle; two Vars with the same name are still different variables.
class Var : public Expr {
 public:
  explicit Var(const std::string &name = "v", Type t = Int(32));
  explicit Var(const VarNode *n) : Expr(n) {}
  const VarNode *get() const { return static_cast<const VarNode *>(Expr::get()); }
  const VarNode *operator->() const { return get(); }
  const std::string &name() const { return get()->name; }
};

// ---------------------------------------------------------------- arithmetic
struct CastNode : ExprNode {
  static constexpr IRKind kKind = IRKind::Cast;
  CastNode(Type t, Expr v) : ExprNode(kKind, t), value(std::move(v)) {}
  const Expr value;
  static Expr make(Type t, Expr v);
};

// Binary nodes share a shape; Div and Mod on integers use floor semantics
// (floordiv/floormod: the quotient rounds towards minus infinity, the remainder
// takes the divisor's sign). On floats Div is IEEE division and Mod is a - b*floor(a/b).
template <IRKind K>
struct BinaryNode : ExprNode {
  static constexpr IRKind kKind = K;
  BinaryNode(Type t, Expr x, Expr y) : ExprNode(K, t), a(std::move(x)), b(std::move(y)) {}
  const Expr a, b;
  // Operands must already have one type (operator overloads in op.h promote).
  static Expr make(Expr a, Expr b);
};
using AddNode = BinaryNode<IRKind::Add>;
using SubNode = BinaryNode<IRKind::Sub>;
using MulNode = BinaryNode<IRKind::Mul>;
using DivNode = BinaryNode<IRKind::Div>;
using ModNode = BinaryNode<IRKind::Mod>;
using MinNode = BinaryNode<IRKind::Min>;
using MaxNode = BinaryNode<IRKind::Max>;
// Comparisons and logic yield bool (with the operands' lanes).
using EQNode = BinaryNode<IRKind::EQ>;
using NENode = BinaryNode<IRKind::NE>;
using LTNode = BinaryNode<IRKind::LT>;
using LENode = BinaryNode<IRKind::LE>;
using GTNode = BinaryNode<IRKind::GT>;
using GENode = BinaryNode<IRKind::GE>;
using AndNode = BinaryNode<IRKind::And>;
using OrNode = BinaryNode<IRKind::Or>;

struct NotNode : ExprNode {
  static constexpr IRKind kKind = IRKind::Not;
  explicit NotNode(Expr v) : ExprNode(kKind, v.type()), a(std::move(v)) {}
  const Expr a;
  static Expr make(Expr a);
};

struct SelectNode : ExprNode {
  static constexpr IRKind kKind = IRKind::Select;
  SelectNode(Expr c, Expr t, Expr f)
      : ExprNode(kKind, t.type()), condition(std::move(c)), true_value(std::move(t)),
        false_value(std::move(f)) {}
  const Expr condition, true_value, false_value;
  static Expr make(Expr c, Expr t, Expr f);
};

// ---------------------------------------------------------------- memory and vectors
// Reads element `index` (a Ramp for a vector load) of the flat buffer behind `buffer`.
struct LoadNode : ExprNode {
  static constexpr IRKind kKind = IRKind::Load;
  LoadNode(Type t, Var buf, Expr idx) : ExprNode(kKind, t), buffer(std::move(buf)), index(std::move(idx)) {}
  const Var buffer;
  const Expr index;
  static Expr make(Type t, Var buffer, Expr index);
};

// base, base + stride, ..., base + (lanes-1)*stride
struct RampNode : ExprNode {
  static constexpr IRKind kKind = IRKind::Ramp;
  RampNode(Expr b, Expr s, int l)
      : ExprNode(kKind, b.type().with_lanes(l)), base(std::move(b)), stride(std::move(s)), lanes(l) {}
  const Expr base, stride;
  const int lanes;
  static Expr make(Expr base, Expr stride, int lanes);
};

struct BroadcastNode : ExprNode {
  static constexpr IRKind kKind = IRKind::Broadcast;
  BroadcastNode(Expr v, int l) : ExprNode(kKind, v.type().with_lanes(l)), value(std::move(v)), lanes(l) {}
  const Expr value;
  const int lanes;
  static Expr make(Expr value, int lanes);
};

struct LetNode : ExprNode {
  static constexpr IRKind kKind = IRKind::Let;
  LetNode(Var v, Expr val, Expr b)
      : ExprNode(kKind, b.type()), var(std::move(v)), value(std::move(val)), body(std::move(b)) {}
  const Var var;
  const Expr value, body;
  static Expr make(Var var, Expr value, Expr body);
};

struct CallNode : ExprNode {
  static constexpr IRKind kKind = IRKind::Call;
  enum CallType : uint8_t {
    PureIntrinsic,  // math known to every backend: exp, log, sqrt, ... (see op.h)
    Extern,         // a C function with this name, resolved when the module is built
  };
  CallNode(Type t, std::string n, std::vector<Expr> a, CallType ct)
      : ExprNode(kKind, t), name(std::move(n)), args(std::move(a)), call_type(ct) {}
  const std::string name;
  const std::vector<Expr> args;
  const CallType call_type;
  static Expr make(Type t, std::string name, std::vector<Expr> args, CallType ct = PureIntrinsic);
};

// ---------------------------------------------------------------- tensor-level nodes
// These exist between tensor expressions and flattening; codegen never sees them.

// Element `args` of output `value_index` of `producer` (a te operation).
struct TensorLoadNode : ExprNode {
  static constexpr IRKind kKind = IRKind::TensorLoad;
  TensorLoadNode(Type t, Ref<const Object> p, int vi, std::string n, std::vector<Expr> a)
      : ExprNode(kKind, t), producer(std::move(p)), value_index(vi), name(std::move(n)), args(std::move(a)) {}
  const Ref<const Object> producer;
  const int value_index;
  const std::string name;
  const std::vector<Expr> args;
  static Expr make(Type t, Ref<const Object> producer, int value_index, std::string name,
                   std::vector<Expr> args);
};

// [min, min + extent)
struct Range {
  Expr min, extent;
  Range() = default;
  // The half-open interval [begin, end), as reduce_axis({0, K}) reads.
  Range(Expr begin, Expr end);
  static Range from_min_extent(Expr min, Expr extent);
};

enum class IterVarType : uint8_t {
  DataPar,     // an output axis
  Reduce,      // a reduction axis
  Ordered,     // a sequential axis (scans)
  Opaque,
  Unrolled,
  Vectorized,
  Parallelized,
  ThreadIndex,  // bound to a GPU thread or block index
};

struct IterVarNode : Object {
  IterVarNode(Range d, Var v, IterVarType t, std::string tag)
      : dom(std::move(d)), var(std::move(v)), iter_type(t), thread_tag(std::move(tag)) {}
  const Range dom;  // may be undefined for axes whose range bound inference derives
  const Var var;
  const IterVarType iter_type;
  const std::string thread_tag;
};

// An iteration axis: a variable, its range and its kind. Converts to its variable.
class IterVar : public Ref<const IterVarNode> {
 public:
  IterVar() = default;
  IterVar(const IterVarNode *n) : Ref<const IterVarNode>(n) {}
  static IterVar make(Range dom, Var var, IterVarType t, std::string thread_tag = "");
  operator Expr() const { return get()->var; }
  const Var &var() const { return get()->var; }
  const Range &dom() const { return get()->dom; }
  IterVarType iter_type() const { return get()->iter_type; }
  const std::string &name() const { return get()->var.name(); }
};

// A commutative reducer: result(lhs, rhs) with identity; several values for argmax-like tuples.
struct CommReducerNode : Object {
  CommReducerNode(std::vector<Var> l, std::vector<Var> r, std::vector<Expr> res, std::vector<Expr> id)
      : lhs(std::move(l)), rhs(std::move(r)), result(std::move(res)), identity(std::move(id)) {}
  const std::vector<Var> lhs, rhs;
  const std::vector<Expr> result, identity;
  // Substitutes a and b into the combining expressions.
  std::vector<Expr> combine(const std::vector<Expr> &a, const std::vector<Expr> &b) const;
};
using CommReducer = Ref<const CommReducerNode>;

struct ReduceNode : ExprNode {
  static constexpr IRKind kKind = IRKind::Reduce;
  ReduceNode(CommReducer c, std::vector<Expr> src, std::vector<IterVar> ax, Expr cond, int vi)
      : ExprNode(kKind, src[vi].type()), combiner(std::move(c)), source(std::move(src)),
        axis(std::move(ax)), condition(std::move(cond)), value_index(vi) {}
  const CommReducer combiner;
  const std::vector<Expr> source;
  const std::vector<IterVar> axis;
  const Expr condition;  // elements where it is false are skipped
  const int value_index;
  static Expr make(CommReducer c, std::vector<Expr> source, std::vector<IterVar> axis,
                   Expr condition, int value_index);
};

// ---------------------------------------------------------------- statements
struct LetStmtNode : StmtNode {
  static constexpr IRKind kKind = IRKind::LetStmt;
  LetStmtNode(Var v, Expr val, Stmt b) : StmtNode(kKind), var(std::move(v)), value(std::move(val)), body(std::move(b)) {}
  const Var var;
  const Expr value;
  const Stmt body;
  static Stmt make(Var var, Expr value, Stmt body);
};

// Annotates `body` with (key, value) about `node` (a realize scope, a thread extent, ...).
struct AttrStmtNode : StmtNode {
  static constexpr IRKind kKind = IRKind::AttrStmt;
  AttrStmtNode(Ref<const Object> n, std::string k, Expr v, Stmt b)
      : StmtNode(kKind), node(std::move(n)), key(std::move(k)), value(std::move(v)), body(std::move(b)) {}
  const Ref<const Object> node;
  const std::string key;
  const Expr value;
  const Stmt body;
  static Stmt make(Ref<const Object> node, std::string key, Expr value, Stmt body);
};

struct AssertStmtNode : StmtNode {
  static constexpr IRKind kKind = IRKind::AssertStmt;
  AssertStmtNode(Expr c, std::string m, Stmt b) : StmtNode(kKind), condition(std::move(c)), message(std::move(m)), body(std::move(b)) {}
  const Expr condition;
  const std::string message;
  const Stmt body;
  static Stmt make(Expr condition, std::string message, Stmt body);
};

enum class ForKind : uint8_t { Serial, Parallel, Vectorized, Unrolled };

struct ForNode : StmtNode {
  static constexpr IRKind kKind = IRKind::For;
  ForNode(Var v, Expr mn, Expr ext, ForKind k, Stmt b)
      : StmtNode(kKind), loop_var(std::move(v)), min(std::move(mn)), extent(std::move(ext)), for_kind(k), body(std::move(b)) {}
  const Var loop_var;
  const Expr min, extent;
  const ForKind for_kind;
  const Stmt body;
  static Stmt make(Var loop_var, Expr min, Expr extent, ForKind kind, Stmt body);
  // Whether `other` runs its iterations the same way (serial, parallel, vectorized, unrolled).
  bool same_loop_kind(const ForNode &other) const { return for_kind == other.for_kind; }
};

struct StoreNode : StmtNode {
  static constexpr IRKind kKind = IRKind::Store;
  StoreNode(Var buf, Expr v, Expr idx) : StmtNode(kKind), buffer(std::move(buf)), value(std::move(v)), index(std::move(idx)) {}
  const Var buffer;
  const Expr value, index;
  static Stmt make(Var buffer, Expr value, Expr index);
};

// Tensor-level store: producer(args) = value, before flattening.
struct ProvideNode : StmtNode {
  static constexpr IRKind kKind = IRKind::Provide;
  ProvideNode(Ref<const Object> p, int vi, std::string n, Expr v, std::vector<Expr> a)
      : StmtNode(kKind), producer(std::move(p)), value_index(vi), name(std::move(n)), value(std::move(v)), args(std::move(a)) {}
  const Ref<const Object> producer;
  const int value_index;
  const std::string name;
  const Expr value;
  const std::vector<Expr> args;
  static Stmt make(Ref<const Object> producer, int value_index, std::string name, Expr value,
                   std::vector<Expr> args);
};

struct AllocateNode : StmtNode {
  static constexpr IRKind kKind = IRKind::Allocate;
  AllocateNode(Var buf, Type t, std::vector<Expr> ext, std::string sc, Stmt b)
      : StmtNode(kKind), buffer(std::move(buf)), type(t), extents(std::move(ext)), scope(std::move(sc)), body(std::move(b)) {}
  const Var buffer;
  const Type type;
  const std::vector<Expr> extents;  // element count is their product
  const std::string scope;          // "global", "local", "shared"
  const Stmt body;
  static Stmt make(Var buffer, Type type, std::vector<Expr> extents, std::string scope, Stmt body);
};

// Tensor-level allocation of output `value_index` of `producer` over `bounds`.
struct RealizeNode : StmtNode {
  static constexpr IRKind kKind = IRKind::Realize;
  RealizeNode(Ref<const Object> p, int vi, std::string n, Type t, std::vector<Range> bd, std::string sc, Stmt b)
      : StmtNode(kKind), producer(std::move(p)), value_index(vi), name(std::move(n)), type(t), bounds(std::move(bd)), scope(std::move(sc)), body(std::move(b)) {}
  const Ref<const Object> producer;
  const int value_index;
  const std::string name;
  const Type type;
  const std::vector<Range> bounds;
  const std::string scope;
  const Stmt body;
  static Stmt make(Ref<const Object> producer, int value_index, std::string name, Type type,
                   std::vector<Range> bounds, std::string scope, Stmt body);
};

struct IfThenElseNode : StmtNode {
  static constexpr IRKind kKind = IRKind::IfThenElse;
  IfThenElseNode(Expr c, Stmt t, Stmt e) : StmtNode(kKind), condition(std::move(c)), then_case(std::move(t)), else_case(std::move(e)) {}
  const Expr condition;
  const Stmt then_case, else_case;  // else_case may be undefined
  static Stmt make(Expr condition, Stmt then_case, Stmt else_case = Stmt());
};

struct BlockNode : StmtNode {
  static constexpr IRKind kKind = IRKind::Block;
  explicit BlockNode(std::vector<Stmt> s) : StmtNode(kKind), stmts(std::move(s)) {}
  const std::vector<Stmt> stmts;
  // Drops undefined statements, flattens nested blocks, and returns a lone statement as is.
  static Stmt make(std::vector<Stmt> stmts);
};

struct EvaluateNode : StmtNode {
  static constexpr IRKind kKind = IRKind::Evaluate;
  explicit EvaluateNode(Expr v) : StmtNode(kKind), value(std::move(v)) {}
  const Expr value;
  static Stmt make(Expr value);
};

// ---------------------------------------------------------------- small helpers
inline const int64_t *as_const_int(const Expr &e) {
  const IntImmNode *n = e.as<IntImmNode>();
  return n ? &n->value : nullptr;
}
inline bool is_const_int(const Expr &e, int64_t v) {
  const int64_t *p = as_const_int(e);
  return p && *p == v;
}
// A constant of type t (any lanes: a vector type gives a Broadcast).
Expr make_const(Type t, double value);
Expr make_zero(Type t);

}  // namespace tensorir
