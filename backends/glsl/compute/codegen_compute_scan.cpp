// Launch shape, kernel inputs and lane splitting for the compute code generator.
#include "backends/glsl/compute/codegen_compute_scan.h"

#include <unordered_set>

#include "tensorir/error.h"
#include "tensorir/ir/op.h"
#include "tensorir/ir/printer.h"
#include "tensorir/ir/structural.h"
#include "tensorir/ir/visitor.h"

namespace tensorir::glsl::compute_detail {

int thread_slot(const std::string &tag) {
  static const char *tags[] = {"blockIdx.x", "blockIdx.y", "blockIdx.z", "threadIdx.x", "threadIdx.y", "threadIdx.z"};
  for (int i = 0; i < 6; ++i)
    if (tag == tags[i]) return i;
  return -1;
}

namespace {

const IterVarNode *thread_of(const AttrStmtNode *a) {
  return a->key == "thread_extent" ? static_cast<const IterVarNode *>(a->node.get()) : nullptr;
}

class AttrCollector : public IRVisitor {
 public:
  std::vector<const AttrStmtNode *> attrs;
  using IRVisitor::visit;

 protected:
  void visit(const AttrStmtNode *op) override {
    if (thread_of(op)) attrs.push_back(op);
    IRVisitor::visit(op);
  }
};

}  // namespace

std::vector<const AttrStmtNode *> inner_thread_attrs(const Stmt &body) {
  AttrCollector c;
  c.visit(body);
  return c.attrs;
}

LaunchShape launch_shape(const DeviceKernel &k, const ComputeLimits &limits) {
  LaunchShape shape;
  bool leading[6] = {false, false, false, false, false, false};
  Expr extent[6];
  auto tag_error = [&](const std::string &tag, const Expr &e) {
    TIR_THROW() << "kernel '" << k.name << "': thread index '" << tag << "' has the extent " << e
                << ", which is not a constant; work-group sizes must be constants: split the axis by a "
                   "constant factor and bind the inner loop to "
                << tag;
  };
  for (const ThreadExtent &t : k.threads) {
    int slot = thread_slot(t.tag);
    TIR_USER_CHECK(slot >= 0) << "kernel '" << k.name << "': unknown thread index '" << t.tag << "'";
    if (slot >= 3 && !as_const_int(t.extent)) tag_error(t.tag, t.extent);
    leading[slot] = true;
    extent[slot] = t.extent;
  }
  // Indices bound only inside the body: the largest constant extent (all equal otherwise).
  for (const AttrStmtNode *a : inner_thread_attrs(k.body)) {
    const IterVarNode *iv = thread_of(a);
    int slot = thread_slot(iv->thread_tag);
    TIR_USER_CHECK(slot >= 0) << "kernel '" << k.name << "': unknown thread index '" << iv->thread_tag << "'";
    if (leading[slot]) continue;
    if (slot >= 3 && !as_const_int(a->value)) tag_error(iv->thread_tag, a->value);
    if (!extent[slot].defined()) {
      extent[slot] = a->value;
    } else if (!structural_equal(extent[slot], a->value)) {
      const int64_t *x = as_const_int(extent[slot]), *y = as_const_int(a->value);
      TIR_USER_CHECK(x && y) << "kernel '" << k.name << "': thread index '" << iv->thread_tag
                             << "' is bound with the extents " << extent[slot] << " and " << a->value
                             << "; bind it to loops of one extent";
      if (*y > *x) extent[slot] = a->value;
    }
  }
  int64_t invocations = 1;
  for (int d = 0; d < 3; ++d) {
    shape.groups[d] = extent[d].defined() ? extent[d] : make_const(Int(32), 1);
    shape.uses_blocks = shape.uses_blocks || extent[d].defined();
    int64_t n = extent[3 + d].defined() ? *as_const_int(extent[3 + d]) : 1;
    static const char *names[] = {"threadIdx.x", "threadIdx.y", "threadIdx.z"};
    TIR_USER_CHECK(n >= 1 && n <= limits.max_group_size[d])
        << "kernel '" << k.name << "': " << names[d] << " has extent " << n << "; this device allows 1 to "
        << limits.max_group_size[d] << " invocations along it: split the axis by a smaller factor";
    shape.local[d] = static_cast<int>(n);
    invocations *= n;
  }
  TIR_USER_CHECK(invocations <= limits.max_invocations)
      << "kernel '" << k.name << "': a work group of " << shape.local[0] << " x " << shape.local[1] << " x "
      << shape.local[2] << " = " << invocations << " invocations exceeds this device's limit of "
      << limits.max_invocations << "; bind smaller threadIdx extents";
  return shape;
}

ThreadLoop thread_loop_kind(const AttrStmtNode *a, const LaunchShape &shape) {
  const auto *iv = static_cast<const IterVarNode *>(a->node.get());
  int slot = thread_slot(iv->thread_tag);
  const int64_t *e = as_const_int(a->value);
  if (slot >= 3) {
    int64_t local = shape.local[slot - 3];
    if (e && *e == local) return ThreadLoop::Alias;
    return e && *e < local ? ThreadLoop::Guard : ThreadLoop::Strided;
  }
  if (structural_equal(a->value, shape.groups[slot])) return ThreadLoop::Alias;
  const int64_t *groups = as_const_int(shape.groups[slot]);
  return e && groups && *e < *groups ? ThreadLoop::Guard : ThreadLoop::Strided;
}

namespace {

class InputCollector : public IRVisitor {
 public:
  KernelInputs out;
  std::unordered_set<const VarNode *> defined, seen;
  using IRVisitor::visit;

 protected:
  void visit(const VarNode *op) override {
    if (defined.count(op) || !seen.insert(op).second) return;
    (op->type.is_handle() ? out.buffers : out.scalars).emplace_back(op);
  }
  void visit(const ForNode *op) override {
    defined.insert(op->loop_var.get());
    IRVisitor::visit(op);
  }
  void visit(const LetStmtNode *op) override {
    defined.insert(op->var.get());
    IRVisitor::visit(op);
  }
  void visit(const LetNode *op) override {
    defined.insert(op->var.get());
    IRVisitor::visit(op);
  }
  void visit(const AllocateNode *op) override {
    defined.insert(op->buffer.get());
    IRVisitor::visit(op);
  }
  void visit(const AttrStmtNode *op) override {
    if (const IterVarNode *iv = thread_of(op)) defined.insert(iv->var.get());
    IRVisitor::visit(op);
  }
};

}  // namespace

KernelInputs kernel_inputs(const DeviceKernel &k) {
  InputCollector c;
  for (const ThreadExtent &t : k.threads) c.defined.insert(t.var.get());
  for (const ThreadExtent &t : k.threads) c.visit(t.extent);
  c.visit(k.body);
  return c.out;
}

Expr lane_of(const Expr &e, int lane) {
  if (!e.defined() || e.type().is_scalar()) return e;
  auto bin = [&](auto *node) {
    using N = std::remove_pointer_t<decltype(node)>;
    return N::make(lane_of(node->a, lane), lane_of(node->b, lane));
  };
  switch (e->kind) {
    case IRKind::Ramp: {
      const auto *r = e.as<RampNode>();
      return r->base + r->stride * make_const(r->stride.type(), lane);
    }
    case IRKind::Broadcast: return e.as<BroadcastNode>()->value;
    case IRKind::Cast: return CastNode::make(e.type().element_of(), lane_of(e.as<CastNode>()->value, lane));
    case IRKind::Add: return bin(e.as<AddNode>());
    case IRKind::Sub: return bin(e.as<SubNode>());
    case IRKind::Mul: return bin(e.as<MulNode>());
    case IRKind::Div: return bin(e.as<DivNode>());
    case IRKind::Mod: return bin(e.as<ModNode>());
    case IRKind::Min: return bin(e.as<MinNode>());
    case IRKind::Max: return bin(e.as<MaxNode>());
    case IRKind::EQ: return bin(e.as<EQNode>());
    case IRKind::NE: return bin(e.as<NENode>());
    case IRKind::LT: return bin(e.as<LTNode>());
    case IRKind::LE: return bin(e.as<LENode>());
    case IRKind::GT: return bin(e.as<GTNode>());
    case IRKind::GE: return bin(e.as<GENode>());
    case IRKind::And: return bin(e.as<AndNode>());
    case IRKind::Or: return bin(e.as<OrNode>());
    case IRKind::Not: return NotNode::make(lane_of(e.as<NotNode>()->a, lane));
    case IRKind::Select: {
      const auto *s = e.as<SelectNode>();
      return SelectNode::make(lane_of(s->condition, lane), lane_of(s->true_value, lane),
                              lane_of(s->false_value, lane));
    }
    case IRKind::Load: {
      const auto *l = e.as<LoadNode>();
      return LoadNode::make(e.type().element_of(), l->buffer, lane_of(l->index, lane));
    }
    case IRKind::Call: {
      const auto *c = e.as<CallNode>();
      std::vector<Expr> args;
      for (const Expr &a : c->args) args.push_back(lane_of(a, lane));
      return CallNode::make(e.type().element_of(), c->name, args, c->call_type);
    }
    case IRKind::Let: {
      const auto *l = e.as<LetNode>();
      TIR_USER_CHECK(l->value.type().is_scalar())
          << "vectorize is not supported by the opengl target for this loop (vector variable '" << l->var.name()
          << "'); remove s[T].vectorize(...) when building for opengl";
      return LetNode::make(l->var, l->value, lane_of(l->body, lane));
    }
    default:
      TIR_THROW() << "vectorize is not supported by the opengl target for this loop (vector expression " << e
                  << "); remove s[T].vectorize(...) when building for opengl";
  }
}

}  // namespace tensorir::glsl::compute_detail
