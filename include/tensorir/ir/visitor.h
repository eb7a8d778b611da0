// IRVisitor walks a tree; IRMutator rebuilds it, returning the same node when nothing changed.
#pragma once
#include "tensorir/ir/expr.h"

namespace tensorir {

class IRVisitor {
 public:
  virtual ~IRVisitor() = default;
  virtual void visit(const Expr &e);
  virtual void visit(const Stmt &s);

 protected:
#define TIR_VISIT(Node) virtual void visit(const Node *op);
  TIR_VISIT(IntImmNode) TIR_VISIT(FloatImmNode) TIR_VISIT(StringImmNode) TIR_VISIT(VarNode)
  TIR_VISIT(CastNode) TIR_VISIT(AddNode) TIR_VISIT(SubNode) TIR_VISIT(MulNode) TIR_VISIT(DivNode)
  TIR_VISIT(ModNode) TIR_VISIT(MinNode) TIR_VISIT(MaxNode) TIR_VISIT(EQNode) TIR_VISIT(NENode)
  TIR_VISIT(LTNode) TIR_VISIT(LENode) TIR_VISIT(GTNode) TIR_VISIT(GENode) TIR_VISIT(AndNode)
  TIR_VISIT(OrNode) TIR_VISIT(NotNode) TIR_VISIT(SelectNode) TIR_VISIT(LoadNode) TIR_VISIT(RampNode)
  TIR_VISIT(BroadcastNode) TIR_VISIT(LetNode) TIR_VISIT(CallNode) TIR_VISIT(TensorLoadNode)
  TIR_VISIT(ReduceNode)
  TIR_VISIT(LetStmtNode) TIR_VISIT(AttrStmtNode) TIR_VISIT(AssertStmtNode) TIR_VISIT(ForNode)
  TIR_VISIT(StoreNode) TIR_VISIT(ProvideNode) TIR_VISIT(AllocateNode) TIR_VISIT(RealizeNode)
  TIR_VISIT(IfThenElseNode) TIR_VISIT(BlockNode) TIR_VISIT(EvaluateNode)
#undef TIR_VISIT
};

class IRMutator {
 public:
  virtual ~IRMutator() = default;
  virtual Expr mutate(const Expr &e);
  virtual Stmt mutate(const Stmt &s);

 protected:
  // Each visit gets the handle too, so it can return it unchanged.
#define TIR_MUTATE_E(Node) virtual Expr visit(const Node *op, const Expr &self);
#define TIR_MUTATE_S(Node) virtual Stmt visit(const Node *op, const Stmt &self);
  TIR_MUTATE_E(IntImmNode) TIR_MUTATE_E(FloatImmNode) TIR_MUTATE_E(StringImmNode)
  TIR_MUTATE_E(VarNode) TIR_MUTATE_E(CastNode) TIR_MUTATE_E(AddNode) TIR_MUTATE_E(SubNode)
  TIR_MUTATE_E(MulNode) TIR_MUTATE_E(DivNode) TIR_MUTATE_E(ModNode) TIR_MUTATE_E(MinNode)
  TIR_MUTATE_E(MaxNode) TIR_MUTATE_E(EQNode) TIR_MUTATE_E(NENode) TIR_MUTATE_E(LTNode)
  TIR_MUTATE_E(LENode) TIR_MUTATE_E(GTNode) TIR_MUTATE_E(GENode) TIR_MUTATE_E(AndNode)
  TIR_MUTATE_E(OrNode) TIR_MUTATE_E(NotNode) TIR_MUTATE_E(SelectNode) TIR_MUTATE_E(LoadNode)
  TIR_MUTATE_E(RampNode) TIR_MUTATE_E(BroadcastNode) TIR_MUTATE_E(LetNode) TIR_MUTATE_E(CallNode)
  TIR_MUTATE_E(TensorLoadNode) TIR_MUTATE_E(ReduceNode)
  TIR_MUTATE_S(LetStmtNode) TIR_MUTATE_S(AttrStmtNode) TIR_MUTATE_S(AssertStmtNode)
  TIR_MUTATE_S(ForNode) TIR_MUTATE_S(StoreNode) TIR_MUTATE_S(ProvideNode) TIR_MUTATE_S(AllocateNode)
  TIR_MUTATE_S(RealizeNode) TIR_MUTATE_S(IfThenElseNode) TIR_MUTATE_S(BlockNode)
  TIR_MUTATE_S(EvaluateNode)
#undef TIR_MUTATE_E
#undef TIR_MUTATE_S
};

// Replaces variables (by identity) with expressions.
Expr substitute(const Expr &e, const std::vector<std::pair<Var, Expr>> &map);
Stmt substitute(const Stmt &s, const std::vector<std::pair<Var, Expr>> &map);
// True if `e` mentions any of `vars`.
bool uses_var(const Expr &e, const std::vector<Var> &vars);

}  // namespace tensorir
