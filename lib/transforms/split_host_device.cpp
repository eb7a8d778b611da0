#include "transforms/split_host_device.h"

#include <unordered_map>
#include <unordered_set>

#include "tensorir/arith/simplify.h"
#include "tensorir/ir/printer.h"
#include "tensorir/ir/visitor.h"

namespace tensorir {

namespace {
// The variables a kernel body uses that it does not define itself.
class FreeVars : public IRVisitor {
 public:
  std::vector<Var> buffers, scalars;
  using IRVisitor::visit;

 protected:
  void visit(const VarNode *op) override {
    if (defined_.count(op) || !seen_.insert(op).second) return;
    (op->type.is_handle() ? buffers : scalars).emplace_back(op);
  }
  void visit(const LoadNode *op) override {
    visit(static_cast<const VarNode *>(op->buffer.get()));
    IRVisitor::visit(op);
  }
  void visit(const StoreNode *op) override {
    visit(static_cast<const VarNode *>(op->buffer.get()));
    IRVisitor::visit(op);
  }
  void visit(const ForNode *op) override {
    defined_.insert(op->loop_var.get());
    IRVisitor::visit(op);
  }
  void visit(const LetStmtNode *op) override {
    defined_.insert(op->var.get());
    IRVisitor::visit(op);
  }
  void visit(const LetNode *op) override {
    defined_.insert(op->var.get());
    IRVisitor::visit(op);
  }
  void visit(const AllocateNode *op) override {
    defined_.insert(op->buffer.get());
    IRVisitor::visit(op);
  }

 public:
  std::unordered_set<const VarNode *> defined_, seen_;
};

// The buffers a statement stores to.
class StoredBuffers : public IRVisitor {
 public:
  std::unordered_set<const VarNode *> buffers;
  using IRVisitor::visit;

 protected:
  void visit(const StoreNode *op) override {
    buffers.insert(static_cast<const VarNode *>(op->buffer.get()));
    IRVisitor::visit(op);
  }
};

class Splitter {
 public:
  explicit Splitter(const LoweredFunc &f) : f_(f) {
    for (const LoweredArg &a : f->args)
      if (a.is_buffer) {
        Expr n = make_const(Int(64), 1);
        for (const Expr &e : a.shape) n = n * cast(Int(64), e);
        elements_[a.var.get()] = n;
      }
  }

  HostPlan run() {
    host(f_->body);
    return plan_;
  }

 private:
  void host(const Stmt &s) {
    if (!s.defined()) return;
    if (const auto *b = s.as<BlockNode>()) {
      for (const Stmt &x : b->stmts) host(x);
    } else if (const auto *a = s.as<AllocateNode>()) {
      TIR_USER_CHECK(a->scope == "global")
          << "function '" << f_->name << "': buffer '" << a->buffer.name() << "' in scope '" << a->scope
          << "' is allocated outside any kernel; compute it at a loop bound to a thread index";
      Expr n = make_const(Int(32), 1);
      for (const Expr &e : a->extents) n = n * e;
      plan_.temps.push_back({a->buffer, a->type, n});
      elements_[a->buffer.get()] = cast(Int(64), n);
      host(a->body);
    } else if (s.as<AttrStmtNode>() && s.as<AttrStmtNode>()->key == "thread_extent") {
      kernel(s);
    } else if (const auto *e = s.as<EvaluateNode>(); e && as_const_int(e->value)) {
      // a no-op
    } else if (writes_single_elements(s)) {
      // A 0-d result (a reduction over every axis): no loop to bind, one invocation.
      kernel(s);
    } else {
      const auto *loop = s.as<ForNode>();
      TIR_THROW() << "function '" << f_->name << "': "
                  << (loop ? "loop '" + loop->loop_var.name() + "'" : std::string("a statement"))
                  << " runs outside any GPU thread index; bind the stage's outer loops with "
                  << "s[T].bind(axis, thread_axis(\"blockIdx.x\")) and thread_axis(\"threadIdx.x\") "
                  << "(or leave the default GPU schedule on)";
    }
  }

  void kernel(Stmt s) {
    DeviceKernel k;
    k.name = f_->name + "_kernel" + std::to_string(plan_.kernels.size());
    std::vector<std::pair<Var, Var>> renames;  // later vars with an already-seen tag use the first one
    while (const auto *a = s.as<AttrStmtNode>()) {
      if (a->key != "thread_extent") break;
      const auto *iv = static_cast<const IterVarNode *>(a->node.get());
      bool seen = false;
      for (const ThreadExtent &t : k.threads)
        if (t.tag == iv->thread_tag) {
          TIR_USER_CHECK(is_const_int(t.extent, 0) || to_string(t.extent) == to_string(a->value))
              << "function '" << f_->name << "': thread index '" << t.tag << "' is bound twice in one kernel with "
              << "different extents (" << t.extent << " and " << a->value << ")";
          renames.emplace_back(iv->var, t.var);
          seen = true;
        }
      if (!seen) k.threads.push_back({iv->thread_tag, iv->var, a->value});
      s = a->body;
    }
    for (const auto &[from, to] : renames) s = substitute(s, {{from, to}});
    k.body = s;
    FreeVars fv;
    for (const ThreadExtent &t : k.threads) fv.defined_.insert(t.var.get());
    fv.visit(k.body);
    k.buffers = fv.buffers;
    k.scalars = fv.scalars;
    plan_.kernels.push_back(std::move(k));
  }

  // Whether every buffer `s` stores to holds one element.
  bool writes_single_elements(const Stmt &s) const {
    StoredBuffers stored;
    stored.visit(s);
    for (const VarNode *b : stored.buffers) {
      auto it = elements_.find(b);
      if (it == elements_.end() || !is_const_int(simplify(it->second), 1)) return false;
    }
    return !stored.buffers.empty();
  }

  const LoweredFunc &f_;
  HostPlan plan_;
  std::unordered_map<const VarNode *, Expr> elements_;  // buffer -> its element count
};
}  // namespace

HostPlan split_host_device(const LoweredFunc &f) { return Splitter(f).run(); }

}  // namespace tensorir
