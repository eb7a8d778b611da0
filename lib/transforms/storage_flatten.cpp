#include "transforms/storage_flatten.h"

#include <map>

#include "tensorir/ir/visitor.h"

namespace tensorir {

namespace {
struct FlatBuffer {
  Var handle;
  Type dtype;
  std::vector<Expr> mins, extents;
};

class Flattener : public IRMutator {
 public:
  Flattener(const std::vector<BufferBinding> &args, const std::string &func) : func_(func) {
    for (const BufferBinding &b : args) {
      FlatBuffer fb{b.handle, b.tensor.dtype(), {}, b.tensor.shape()};
      for (size_t d = 0; d < fb.extents.size(); ++d) fb.mins.push_back(0);
      buffers_[{b.tensor.op().get(), b.tensor.value_index()}] = fb;
    }
  }
  using IRMutator::mutate;

 protected:
  Stmt visit(const RealizeNode *op, const Stmt &self) override {
    Key key{op->producer.get(), op->value_index};
    if (buffers_.count(key)) return mutate(op->body);  // an argument holds it already
    FlatBuffer fb{Var(op->name, Handle()), op->type, {}, {}};
    for (const Range &r : op->bounds) {
      fb.mins.push_back(r.min);
      fb.extents.push_back(r.extent);
    }
    buffers_[key] = fb;
    Stmt body = mutate(op->body);
    buffers_.erase(key);
    return AllocateNode::make(fb.handle, fb.dtype, fb.extents, op->scope, body);
  }

  Stmt visit(const ProvideNode *op, const Stmt &self) override {
    const FlatBuffer &fb = lookup(op->producer.get(), op->value_index, op->name, "writes");
    std::vector<Expr> args;
    for (const Expr &a : op->args) args.push_back(mutate(a));
    return StoreNode::make(fb.handle, mutate(op->value), index(fb, args));
  }

  // A prefetch names its tensor's buffer, which must exist around the loop.
  Stmt visit(const AttrStmtNode *op, const Stmt &self) override {
    if (op->key != "prefetch") return IRMutator::visit(op, self);
    const auto *load = op->value.as<CallNode>()->args[0].as<TensorLoadNode>();
    const auto *loop = dynamic_cast<const IterVarNode *>(op->node.get());
    TIR_USER_CHECK(buffers_.count({load->producer.get(), load->value_index}))
        << "function '" << func_ << "': prefetch of tensor '" << load->name << "' at loop '"
        << (loop ? loop->var.name() : std::string("?"))
        << "', where it has no buffer: it is computed inside that loop, or it is neither computed in the "
           "function nor one of its arguments; prefetch an argument or a tensor computed outside the loop";
    return IRMutator::visit(op, self);
  }

  // tensorir.stride(T(...), d): the distance between neighbours along dimension d of T.
  Expr visit(const CallNode *op, const Expr &self) override {
    if (op->name != "tensorir.stride") return IRMutator::visit(op, self);
    const auto *load = op->args[0].as<TensorLoadNode>();
    const FlatBuffer &fb = lookup(load->producer.get(), load->value_index, load->name, "reads");
    Expr stride = make_const(Int(32), 1);
    for (size_t d = static_cast<size_t>(*as_const_int(op->args[1])) + 1; d < fb.extents.size(); ++d)
      stride = stride * fb.extents[d];
    return stride;
  }

  Expr visit(const TensorLoadNode *op, const Expr &self) override {
    const FlatBuffer &fb = lookup(op->producer.get(), op->value_index, op->name, "reads");
    std::vector<Expr> args;
    for (const Expr &a : op->args) args.push_back(mutate(a));
    return LoadNode::make(fb.dtype, fb.handle, index(fb, args));
  }

 private:
  using Key = std::pair<const Object *, int>;

  const FlatBuffer &lookup(const Object *producer, int vi, const std::string &name, const char *verb) {
    auto it = buffers_.find({producer, vi});
    TIR_USER_CHECK(it != buffers_.end())
        << "function '" << func_ << "' " << verb << " tensor '" << name
        << "', which is not one of its arguments; add it to the argument list of lower()/build()";
    return it->second;
  }

  static Expr index(const FlatBuffer &fb, const std::vector<Expr> &args) {
    Expr idx = 0;
    for (size_t d = 0; d < args.size(); ++d) idx = idx * fb.extents[d] + (args[d] - fb.mins[d]);
    return idx;
  }

  std::string func_;
  std::map<Key, FlatBuffer> buffers_;
};
}  // namespace

Stmt storage_flatten(const Stmt &s, const std::vector<BufferBinding> &args, const std::string &func_name) {
  return Flattener(args, func_name).mutate(s);
}

}  // namespace tensorir
