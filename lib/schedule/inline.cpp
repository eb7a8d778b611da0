// Resolves what every stage reads: loads of replaced operations read their replacements,
// and loads of inlined stages become the inlined expression.
#include "schedule/schedule_internal.h"
#include "tensorir/ir/visitor.h"

namespace tensorir {

namespace {
class InlineLoads : public IRMutator {
 public:
  InlineLoads(const Schedule &s, const EffectiveBodies &done) : s_(s), done_(done) {}
  using IRMutator::mutate;

 protected:
  Expr visit(const TensorLoadNode *op, const Expr &self) override {
    Expr e = IRMutator::visit(op, self);
    const auto *load = e.as<TensorLoadNode>();
    Operation cur = s_.current(Operation(static_cast<const OperationNode *>(load->producer.get())));
    if (cur.get() != load->producer.get()) {
      e = TensorLoadNode::make(load->type, Ref<const Object>(cur.get()), load->value_index, load->name, load->args);
      load = e.as<TensorLoadNode>();
    }
    auto *producer = cur.get();
    auto *compute = dynamic_cast<const ComputeOpNode *>(producer);
    if (!compute || s_[Operation(producer)]->attach_type != AttachType::Inline) return e;
    std::vector<std::pair<Var, Expr>> map;
    for (size_t d = 0; d < compute->axis.size(); ++d) map.emplace_back(compute->axis[d].var(), load->args[d]);
    return substitute(done_.at(producer)[load->value_index], map);
  }

 private:
  const Schedule &s_;
  const EffectiveBodies &done_;
};
}  // namespace

EffectiveBodies inline_stages(const Schedule &s) {
  EffectiveBodies bodies;
  for (const Stage &st : s.stages()) {
    auto *compute = st.op().as<ComputeOpNode>();
    if (!compute) continue;
    InlineLoads inliner(s, bodies);
    std::vector<Expr> out;
    for (const Expr &e : compute->body) out.push_back(inliner.mutate(e));
    bodies[compute] = out;
  }
  return bodies;
}

}  // namespace tensorir
