// Pseudo-code printing: one line per statement, two spaces per nesting level.
#include "tensorir/ir/printer.h"

#include <charconv>
#include <cmath>
#include <sstream>

#include "tensorir/ir/visitor.h"

#include <unordered_map>

namespace tensorir {

namespace {

// Shortest text that reads back as the same value.
template <typename T>
std::string shortest(T v) {
  char buf[64];
  auto res = std::to_chars(buf, buf + sizeof(buf), v);
  return std::string(buf, res.ptr);
}

std::string float_text(Type t, double v) {
  if (!std::isfinite(v)) {
    std::string s = std::isnan(v) ? "nan" : (v > 0 ? "inf" : "-inf");
    return t.str() + "(" + s + ")";
  }
  // Conventions: float32 `1.5f`, float64 `1.5d`, other widths `float16(1.5)`.
  if (t.code() == Type::Float && t.bits() == 32) return shortest(static_cast<float>(v)) + "f";
  if (t.code() == Type::Float && t.bits() == 64) return shortest(v) + "d";
  return t.str() + "(" + shortest(v) + ")";
}

std::string quote(const std::string &s) {
  std::string out = "\"";
  for (char c : s) {
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\t': out += "\\t"; break;
      default: out += c;
    }
  }
  return out + "\"";
}

class Printer : public IRVisitor {
 public:
  explicit Printer(std::ostream &os) : os_(os) {}
  using IRVisitor::visit;

  void print_range(const Range &r) {
    os_ << "[";
    visit(r.min);
    os_ << ", ";
    const int64_t *mn = as_const_int(r.min), *ext = as_const_int(r.extent);
    if (mn && ext) {
      os_ << *mn + *ext;
    } else if (mn && *mn == 0) {
      visit(r.extent);
    } else {
      visit(r.min);
      os_ << " + ";
      visit(r.extent);
    }
    os_ << ")";
  }

 protected:
  // Distinct variables that share a name print as name, name_1, name_2, ... so that a
  // loop nest never shows two different variables as one.
  std::string name_of(const VarNode *v) {
    auto it = names_.find(v);
    if (it != names_.end()) return it->second;
    int &count = name_counts_[v->name];
    std::string name = count == 0 ? v->name : v->name + "_" + std::to_string(count);
    ++count;
    return names_[v] = name;
  }
  std::unordered_map<const VarNode *, std::string> names_;
  std::unordered_map<std::string, int> name_counts_;

  // ------------------------------------------------------------ expressions
  void visit(const IntImmNode *op) override {
    Type t = op->type;
    if (t.is_bool()) {
      os_ << (op->value ? "true" : "false");
    } else if (t == Int(32)) {
      os_ << op->value;
    } else if (t == Int(64)) {
      os_ << op->value << "L";
    } else if (t.is_uint() && t.bits() == 64) {
      os_ << t << "(" << static_cast<uint64_t>(op->value) << ")";
    } else {
      os_ << t << "(" << op->value << ")";
    }
  }
  void visit(const FloatImmNode *op) override { os_ << float_text(op->type, op->value); }
  void visit(const StringImmNode *op) override { os_ << quote(op->value); }
  void visit(const VarNode *op) override { os_ << name_of(op); }
  void visit(const CastNode *op) override {
    os_ << op->type << "(";
    visit(op->value);
    os_ << ")";
  }
  void binary(const Expr &a, const char *sym, const Expr &b) {
    os_ << "(";
    visit(a);
    os_ << sym;
    visit(b);
    os_ << ")";
  }
  void call2(const char *name, const Expr &a, const Expr &b) {
    os_ << name << "(";
    visit(a);
    os_ << ", ";
    visit(b);
    os_ << ")";
  }
  void visit(const AddNode *op) override { binary(op->a, " + ", op->b); }
  void visit(const SubNode *op) override { binary(op->a, " - ", op->b); }
  void visit(const MulNode *op) override { binary(op->a, "*", op->b); }
  void visit(const DivNode *op) override { binary(op->a, "/", op->b); }
  void visit(const ModNode *op) override { binary(op->a, " % ", op->b); }
  void visit(const MinNode *op) override { call2("min", op->a, op->b); }
  void visit(const MaxNode *op) override { call2("max", op->a, op->b); }
  void visit(const EQNode *op) override { binary(op->a, " == ", op->b); }
  void visit(const NENode *op) override { binary(op->a, " != ", op->b); }
  void visit(const LTNode *op) override { binary(op->a, " < ", op->b); }
  void visit(const LENode *op) override { binary(op->a, " <= ", op->b); }
  void visit(const GTNode *op) override { binary(op->a, " > ", op->b); }
  void visit(const GENode *op) override { binary(op->a, " >= ", op->b); }
  void visit(const AndNode *op) override { binary(op->a, " && ", op->b); }
  void visit(const OrNode *op) override { binary(op->a, " || ", op->b); }
  void visit(const NotNode *op) override {
    os_ << "!";
    visit(op->a);
  }
  void visit(const SelectNode *op) override {
    os_ << "select(";
    visit(op->condition);
    os_ << ", ";
    visit(op->true_value);
    os_ << ", ";
    visit(op->false_value);
    os_ << ")";
  }
  void visit(const LoadNode *op) override {
    os_ << name_of(op->buffer.get()) << "[";
    visit(op->index);
    os_ << "]";
  }
  void visit(const RampNode *op) override {
    os_ << "ramp(";
    visit(op->base);
    os_ << ", ";
    visit(op->stride);
    os_ << ", " << op->lanes << ")";
  }
  void visit(const BroadcastNode *op) override {
    os_ << "x" << op->lanes << "(";
    visit(op->value);
    os_ << ")";
  }
  void visit(const LetNode *op) override {
    os_ << "(let " << name_of(op->var.get()) << " = ";
    visit(op->value);
    os_ << " in ";
    visit(op->body);
    os_ << ")";
  }
  void args(const std::vector<Expr> &a) {
    for (size_t i = 0; i < a.size(); ++i) {
      if (i) os_ << ", ";
      visit(a[i]);
    }
  }
  void visit(const CallNode *op) override {
    os_ << op->name << "(";
    args(op->args);
    os_ << ")";
  }
  void visit(const TensorLoadNode *op) override {
    os_ << op->name;
    if (op->value_index) os_ << ".v" << op->value_index;
    os_ << "(";
    args(op->args);
    os_ << ")";
  }
  // One name plainly, several as a parenthesised tuple.
  void var_list(const std::vector<Var> &vs) {
    if (vs.size() != 1) os_ << "(";
    for (size_t i = 0; i < vs.size(); ++i) os_ << (i ? ", " : "") << name_of(vs[i].get());
    if (vs.size() != 1) os_ << ")";
  }
  void visit(const ReduceNode *op) override {
    const CommReducerNode *c = op->combiner.get();
    // reduce((x, y) => (x + y), init 0f; source, axes: k in [0, 64), where cond)
    os_ << "reduce((";
    var_list(c->lhs);
    os_ << ", ";
    var_list(c->rhs);
    os_ << ") => ";
    args(c->result);
    os_ << ", init ";
    args(c->identity);
    os_ << "; ";
    args(op->source);
    if (op->source.size() > 1) os_ << " [" << op->value_index << "]";
    os_ << ", axes: ";
    for (size_t i = 0; i < op->axis.size(); ++i) {
      if (i) os_ << ", ";
      os_ << name_of(op->axis[i].var().get()) << " in ";
      if (op->axis[i].dom().min.defined()) {
        print_range(op->axis[i].dom());
      } else {
        os_ << "?";
      }
    }
    if (op->condition.defined() && !is_const_int(op->condition, 1)) {
      os_ << ", where ";
      visit(op->condition);
    }
    os_ << ")";
  }

  // ------------------------------------------------------------ statements
  void indent() {
    for (int i = 0; i < depth_; ++i) os_ << "  ";
  }
  void nested(const Stmt &s) {
    ++depth_;
    visit(s);
    --depth_;
  }
  void visit(const LetStmtNode *op) override {
    indent();
    os_ << "let " << name_of(op->var.get()) << " = ";
    visit(op->value);
    os_ << "\n";
    visit(op->body);
  }
  void visit(const AttrStmtNode *op) override {
    indent();
    os_ << "// attr ";
    if (const IterVarNode *iv = dynamic_cast<const IterVarNode *>(op->node.get())) {
      os_ << "[" << name_of(iv->var.get()) << "] ";
    } else if (const VarNode *v = dynamic_cast<const VarNode *>(op->node.get())) {
      os_ << "[" << name_of(v) << "] ";
    }
    os_ << op->key << " = ";
    if (op->value.defined()) visit(op->value);
    os_ << "\n";
    visit(op->body);
  }
  void visit(const AssertStmtNode *op) override {
    indent();
    os_ << "assert(";
    visit(op->condition);
    os_ << ", " << quote(op->message) << ")\n";
    visit(op->body);
  }
  void visit(const ForNode *op) override {
    indent();
    switch (op->for_kind) {
      case ForKind::Serial: break;
      case ForKind::Parallel: os_ << "parallel "; break;
      case ForKind::Vectorized: os_ << "vectorized "; break;
      case ForKind::Unrolled: os_ << "unrolled "; break;
    }
    os_ << "for (" << name_of(op->loop_var.get()) << ", ";
    visit(op->min);
    os_ << ", ";
    visit(op->extent);
    os_ << ") {\n";
    nested(op->body);
    indent();
    os_ << "}\n";
  }
  void visit(const StoreNode *op) override {
    indent();
    os_ << name_of(op->buffer.get()) << "[";
    visit(op->index);
    os_ << "] = ";
    visit(op->value);
    os_ << "\n";
  }
  void visit(const ProvideNode *op) override {
    indent();
    os_ << op->name;
    if (op->value_index) os_ << ".v" << op->value_index;
    os_ << "(";
    args(op->args);
    os_ << ") = ";
    visit(op->value);
    os_ << "\n";
  }
  void visit(const AllocateNode *op) override {
    indent();
    os_ << "allocate " << name_of(op->buffer.get()) << "[" << op->type;
    for (const Expr &e : op->extents) {
      os_ << " * ";
      visit(e);
    }
    os_ << "] in " << op->scope << "\n";
    visit(op->body);
  }
  void visit(const RealizeNode *op) override {
    indent();
    os_ << "realize " << op->name;
    if (op->value_index) os_ << ".v" << op->value_index;
    os_ << "(";
    for (size_t i = 0; i < op->bounds.size(); ++i) {
      if (i) os_ << ", ";
      print_range(op->bounds[i]);
    }
    os_ << ")";
    if (!op->scope.empty()) os_ << " in " << op->scope;
    os_ << " {\n";
    nested(op->body);
    indent();
    os_ << "}\n";
  }
  void visit(const IfThenElseNode *op) override {
    indent();
    os_ << "if (";
    visit(op->condition);
    os_ << ") {\n";
    nested(op->then_case);
    indent();
    if (op->else_case.defined()) {
      os_ << "} else {\n";
      nested(op->else_case);
      indent();
    }
    os_ << "}\n";
  }
  void visit(const BlockNode *op) override {
    for (const Stmt &s : op->stmts) visit(s);
  }
  void visit(const EvaluateNode *op) override {
    indent();
    visit(op->value);
    os_ << "\n";
  }

 private:
  std::ostream &os_;
  int depth_ = 0;
};

}  // namespace

std::ostream &operator<<(std::ostream &os, const Expr &e) {
  if (!e.defined()) return os << "(undefined)";
  Printer(os).visit(e);
  return os;
}

std::ostream &operator<<(std::ostream &os, const Stmt &s) {
  if (!s.defined()) return os << "(no statement)\n";
  Printer(os).visit(s);
  return os;
}

std::ostream &operator<<(std::ostream &os, const Range &r) {
  if (!r.min.defined() || !r.extent.defined()) return os << "[undefined range)";
  Printer(os).print_range(r);
  return os;
}

std::string to_string(const Expr &e) {
  std::ostringstream os;
  os << e;
  return os.str();
}

std::string to_string(const Stmt &s) {
  std::ostringstream os;
  os << s;
  return os.str();
}

}  // namespace tensorir
