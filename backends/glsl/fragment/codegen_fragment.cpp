// plan_fragment: the tensors, uniforms and passes of a function on the fragment path.
// Every computed (non-inlined) stage becomes one pass per output value the function
// needs; loop transformations in the schedule do not apply (a fragment is one element).
#include <unordered_set>

#include "backends/glsl/fragment/codegen_fragment_emit.h"
#include "backends/glsl/fragment/fragment_phases.h"
#include "schedule/schedule_internal.h"
#include "transforms/passes.h"
#include "tensorir/arith/simplify.h"
#include "tensorir/ir/printer.h"
#include "tensorir/ir/visitor.h"

namespace tensorir::glsl {

namespace {

// The tensors an expression reads, as (producer, value index).
std::vector<std::pair<const Object *, int>> reads_of(const Expr &e) {
  struct Finder : IRVisitor {
    std::vector<std::pair<const Object *, int>> found;
    using IRVisitor::visit;
    void visit(const TensorLoadNode *op) override {
      found.emplace_back(op->producer.get(), op->value_index);
      IRVisitor::visit(op);
    }
  };
  Finder f;
  f.visit(e);
  return f.found;
}

// Packing pays when the four lanes of a fragment (neighbours along the innermost axis)
// share a reduction loop and read neighbouring texels. A reduction whose reads move by
// whole rows from one lane to the next (a row sum) runs faster one element per
// fragment, and so does a tensor too small to spread over several fragments.
bool worth_packing(const ComputeOpNode *op, const std::vector<Expr> &bodies) {
  int64_t numel = 1;
  bool constant = true;
  for (const Expr &d : op->shape) {
    const int64_t *v = as_const_int(d);
    if (v) numel *= *v;
    else constant = false;
  }
  if (op->axis.empty() || (constant && numel < 16)) return false;
  const ReduceNode *r = bodies[0].as<ReduceNode>();
  if (!r) return true;
  struct StridedReads : IRVisitor {
    std::vector<Var> inner;
    bool found = false;
    using IRVisitor::visit;
    void visit(const TensorLoadNode *op) override {
      for (size_t i = 0; i + 1 < op->args.size(); ++i) found = found || uses_var(op->args[i], inner);
      if (!op->args.empty() && uses_var(op->args.back(), inner)) {
        // The last index may move with the axis, by a few elements per lane at most.
        const Expr &last = op->args.back();
        Expr step = simplify(substitute(last, {{inner[0], inner[0] + 1}}) - last);
        const int64_t *c = as_const_int(step);
        found = found || !c || *c > 4 || *c < -4;
      }
      IRVisitor::visit(op);
    }
  };
  StridedReads reads;
  reads.inner = {op->axis.back().var()};
  for (const Expr &s : r->source) reads.visit(s);
  if (r->condition.defined()) reads.visit(r->condition);
  return !reads.found;
}

std::vector<const VarNode *> vars_of(const Expr &e) {
  struct Finder : IRVisitor {
    std::vector<const VarNode *> found;
    using IRVisitor::visit;
    void visit(const VarNode *op) override { found.push_back(op); }
  };
  Finder f;
  f.visit(e);
  return f.found;
}

void check_tensor_dtype(Type t, const std::string &where) {
  TIR_USER_CHECK(!(t.code() == Type::Float && t.bits() == 64))
      << where << " is float64: float64 is not supported by WebGL/fragment targets; use float32";
  TIR_USER_CHECK(t == Float(32) || t == Int(32))
      << where << " has type " << t
      << ", but WebGL/fragment targets store tensors as float32 or int32 textures; cast it to one of those";
}

class Planner {
 public:
  Planner(const StageFunction &sf, const FragmentOptions &o)
      : f_(sf.func), schedule_(sf.schedule), arg_tensors_(sf.arg_tensors), pack_(o.pack), pack_all_(o.pack_all),
        max_phases_(o.max_phases), reduce_chunk_(o.reduce_chunk), max_unrolled_(o.max_unrolled) {
    plan_.name = f_->name;
    plan_.max_texture_size = o.max_texture_size;
  }

  FragmentPlan run() {
    TIR_ASSERT(schedule_.get()) << f_->name << ": planned without a schedule";
    TIR_ASSERT(arg_tensors_.size() == f_->args.size()) << f_->name << ": arg_tensors";
    add_variable_uniforms();
    add_argument_tensors();
    std::vector<Candidate> candidates = collect_stages();
    std::vector<bool> keep = needed(candidates);
    check_outputs_computed(candidates);
    fuse_epilogues(candidates, keep);
    finish_tensors();
    for (size_t c = 0; c < candidates.size(); ++c) {
      if (!keep[c]) continue;
      const Candidate &k = candidates[c];
      std::vector<int> phases = add_phases(k);
      plan_.passes.push_back(emit_fragment_pass(plan_, index_, k.op, k.value_index, k.body, k.tensor, phases, max_unrolled_));
      plan_.passes.back().loop_iterations = k.iterations;
      if (!phases.empty()) plan_.passes.push_back(emit_interleave_pass(plan_, phases, k.tensor));
    }
    return std::move(plan_);
  }

 private:
  struct Candidate {
    const ComputeOpNode *op;
    int value_index;
    Expr body;
    int tensor;
    Expr iterations;  // of its reduction loop, at most; undefined without one
  };

  std::string unique(const std::string &name) { return glsl_stem(name) + "_" + std::to_string(counter_++); }

  // The phase tensors of a pass that computes several texels of a row per fragment
  // (choose_phases), none when it computes one.
  std::vector<int> add_phases(const Candidate &k) {
    const int n = choose_phases(plan_, k.op, k.body, k.tensor, max_phases_);
    std::vector<int> phases;
    for (int p = 0; p < n && n > 1; ++p) {
      FragmentTensor ft = plan_.tensors[static_cast<size_t>(k.tensor)];
      ft.phase_texels = phase_texel_count(ft, n);
      ft.name += ".phase" + std::to_string(p);
      ft.ident = unique(ft.name);
      ft.arg_index = -1;
      ft.is_input = ft.is_output = false;
      ft.phases = n;
      std::vector<int64_t> dims;
      for (const Expr &d : ft.shape) dims.push_back(*as_const_int(d));
      ft.const_width = tensor_layout(ft, dims, plan_.max_texture_size, f_->name + ": tensor " + ft.name).width;
      phases.push_back(static_cast<int>(plan_.tensors.size()));
      plan_.tensors.push_back(std::move(ft));
    }
    return phases;
  }

  void add_variable_uniforms() {
    for (size_t i = 0; i < f_->args.size(); ++i) {
      const LoweredArg &a = f_->args[i];
      if (a.is_buffer) continue;
      fragment_type(a.dtype, f_->name + ": scalar argument " + a.name);
      FragmentUniform u;
      u.name = unique(a.name);
      u.var = a.var;
      u.arg_index = static_cast<int>(i);
      plan_.uniforms.push_back(u);
    }
    for (size_t s = 0; s < f_->symbols.size(); ++s) {
      FragmentUniform u;
      u.name = unique(f_->symbols[s].name());
      u.var = f_->symbols[s];
      u.symbol = static_cast<int>(s);
      plan_.uniforms.push_back(u);
    }
  }

  int add_tensor(const Tensor &t, const std::string &name, int arg_index) {
    auto key = std::make_pair(static_cast<const Object *>(t.op().get()), t.value_index());
    auto it = index_.find(key);
    if (it != index_.end()) return it->second;
    FragmentTensor ft;
    ft.name = name;
    ft.ident = unique(name);
    ft.dtype = t.dtype();
    ft.shape = t.shape();
    ft.arg_index = arg_index;
    ft.is_input = t.op().as<PlaceholderOpNode>() != nullptr;
    ft.is_output = !ft.is_input && arg_index >= 0;
    int idx = static_cast<int>(plan_.tensors.size());
    plan_.tensors.push_back(ft);
    index_[key] = idx;
    return idx;
  }

  void add_argument_tensors() {
    for (size_t i = 0; i < f_->args.size(); ++i) {
      const LoweredArg &a = f_->args[i];
      if (!a.is_buffer) continue;
      const Tensor &t = arg_tensors_[i];
      TIR_ASSERT(t.defined()) << f_->name << ": buffer argument " << a.name << " has no tensor";
      check_tensor_dtype(t.dtype(), f_->name + ": argument " + a.name);
      int idx = add_tensor(t, a.name, static_cast<int>(i));
      if (pack_all_) plan_.tensors[idx].packed = true;
    }
  }

  bool packs(const ComputeOpNode *op, const std::vector<Expr> &bodies) const {
    return pack_all_ || (pack_ && worth_packing(op, bodies));
  }

  std::vector<Candidate> collect_stages() {
    EffectiveBodies bodies = inline_stages(schedule_);
    for (auto &[op, exprs] : bodies)  // shaders cannot fail a call: indices are clamped
      for (Expr &e : exprs) e = clamp_checked_indices(e);
    std::vector<Candidate> out;
    for (const Stage &st : schedule_.stages()) {
      const Operation &op = st.op();
      if (op.as<PlaceholderOpNode>()) continue;
      const auto *compute = op.as<ComputeOpNode>();
      TIR_USER_CHECK(compute) << f_->name << ": stage " << op->name
                              << " is neither a compute nor a placeholder; the fragment target cannot run it";
      if (st->attach_type == AttachType::Inline) {
        for (int v = 0; v < compute->num_outputs(); ++v)
          TIR_USER_CHECK(!index_.count({compute, v}))
              << f_->name << ": " << op->name << " is an argument of the function but is compute_inline()d; "
                 "an argument must be computed, so drop the compute_inline";
        continue;
      }
      add_stage(op, bodies.at(compute), out);
    }
    return out;
  }

  std::vector<int> add_outputs(const Operation &op, const std::vector<Expr> &bodies) {
    bool packed = packs(op.as<ComputeOpNode>(), bodies);
    std::vector<int> tensors;
    for (int v = 0; v < op->num_outputs(); ++v) {
      std::string name = op->num_outputs() == 1 ? op->name : op->name + ".v" + std::to_string(v);
      check_tensor_dtype(op->output_dtype(v), f_->name + ": tensor " + name);
      tensors.push_back(add_tensor(op.output(v), name, -1));
      plan_.tensors[tensors.back()].packed = packed;
    }
    return tensors;
  }

  // One candidate pass per output value; a long reduction first gets partial passes.
  void add_stage(const Operation &op, const std::vector<Expr> &bodies, std::vector<Candidate> &out) {
    const auto *compute = op.as<ComputeOpNode>();
    std::vector<int> tensors = add_outputs(op, bodies);
    Expr iterations;
    if (const ReduceNode *r = bodies[0].as<ReduceNode>()) {
      iterations = reduction_bound(compute, r);
      TIR_USER_CHECK(iterations.defined())
          << f_->name << ": stage " << op->name << ": the fragment target cannot bound the iteration count of "
          << "its reduction; give the reduction axes extents that stay bounded over the output's axes";
      const int64_t *n = as_const_int(iterations);
      if (!n || *n > reduce_chunk_) {
        ReductionSplit split = split_reduction(compute, bodies, iterations, reduce_chunk_);
        made_.push_back(split.partial);
        const auto *partial = split.partial.as<ComputeOpNode>();
        for (int t : tensors) plan_.tensors[t].packed = packs(compute, split.final_bodies);
        std::vector<int> parts = add_outputs(split.partial, partial->body);
        for (int v = 0; v < partial->num_outputs(); ++v)
          out.push_back({partial, v, partial->body[v], parts[v], Expr(static_cast<int>(reduce_chunk_))});
        for (int v = 0; v < compute->num_outputs(); ++v)
          out.push_back({compute, v, split.final_bodies[v], tensors[v], split.chunks});
        return;
      }
    }
    for (int v = 0; v < compute->num_outputs(); ++v) out.push_back({compute, v, bodies[v], tensors[v], iterations});
  }

  // A pass runs when its tensor is an output argument or a later kept pass reads it.
  std::vector<bool> needed(const std::vector<Candidate> &cands) {
    std::unordered_set<int> wanted;
    for (size_t t = 0; t < plan_.tensors.size(); ++t)
      if (plan_.tensors[t].is_output) wanted.insert(static_cast<int>(t));
    std::vector<bool> keep(cands.size(), false);
    for (size_t c = cands.size(); c-- > 0;) {
      if (!wanted.count(cands[c].tensor)) continue;
      keep[c] = true;
      for (const auto &key : reads_of(cands[c].body)) {
        auto it = index_.find(key);
        TIR_USER_CHECK(it != index_.end())
            << f_->name << ": stage " << cands[c].op->name << " reads a tensor that is not an argument of "
            << "the function; pass every placeholder the outputs depend on as an argument";
        wanted.insert(it->second);
      }
    }
    return keep;
  }

  // An element-wise pass that reads a reduction only at its own output index (a bias,
  // residual add or activation after a convolution or dense layer) computes the
  // reduction itself: one pass instead of two, and no intermediate texture. The
  // reduction's tensor must be read by nothing else.
  void fuse_epilogues(std::vector<Candidate> &cands, std::vector<bool> &keep) {
    for (size_t b = 0; b < cands.size(); ++b) {
      Candidate &consumer = cands[b];
      if (!keep[b] || consumer.body.as<ReduceNode>() || consumer.op->num_outputs() != 1) continue;
      for (const auto &key : reads_of(consumer.body)) {
        auto it = index_.find(key);
        if (it == index_.end()) continue;
        int a = producer_of(cands, keep, it->second);
        if (a < 0 || !fusable(cands, keep, static_cast<size_t>(a), b)) continue;
        const Candidate &producer = cands[static_cast<size_t>(a)];
        std::vector<std::pair<Var, Expr>> map;
        for (size_t d = 0; d < producer.op->axis.size(); ++d)
          map.emplace_back(producer.op->axis[d].var(), consumer.op->axis[d].var());
        Expr inner = substitute(producer.body, map);
        struct Inline : IRMutator {
          const Object *op;
          int value;
          Expr body;
          using IRMutator::visit;
          Expr visit(const TensorLoadNode *n, const Expr &self) override {
            if (n->producer.get() == op && n->value_index == value) return body;
            return IRMutator::visit(n, self);
          }
        };
        Inline in;
        in.op = producer.op;
        in.value = producer.value_index;
        in.body = inner;
        consumer.body = in.mutate(consumer.body);
        consumer.iterations = producer.iterations;
        keep[static_cast<size_t>(a)] = false;
        break;  // one reduction per pass
      }
    }
  }

  int producer_of(const std::vector<Candidate> &cands, const std::vector<bool> &keep, int tensor) {
    for (size_t c = 0; c < cands.size(); ++c)
      if (keep[c] && cands[c].tensor == tensor) return static_cast<int>(c);
    return -1;
  }

  bool fusable(const std::vector<Candidate> &cands, const std::vector<bool> &keep, size_t a, size_t b) {
    const Candidate &p = cands[a], &q = cands[b];
    const FragmentTensor &pt = plan_.tensors[static_cast<size_t>(p.tensor)];
    if (!p.body.as<ReduceNode>() || p.op->num_outputs() != 1 || pt.is_output) return false;
    if (p.op->axis.size() != q.op->axis.size()) return false;
    for (size_t d = 0; d < p.op->axis.size(); ++d)
      if (!is_const_int(simplify(p.op->shape[d] - q.op->shape[d]), 0)) return false;
    // Every read of the reduction, by any kept pass, is the consumer's read at its own index.
    struct Reads : IRVisitor {
      const Object *op;
      int value;
      const ComputeOpNode *at;
      bool ok = true;
      int count = 0;
      using IRVisitor::visit;
      void visit(const TensorLoadNode *n) override {
        if (n->producer.get() == op && n->value_index == value) {
          ++count;
          if (!at || n->args.size() != at->axis.size()) {
            ok = false;
          } else {
            // The index itself, or one equal to it over the axis's range (a 0 for an
            // axis of extent 1).
            for (size_t d = 0; d < n->args.size(); ++d) {
              const IterVar &ax = at->axis[d];
              bool unit = is_const_int(ax.dom().extent, 1) && is_const_int(simplify(n->args[d] - ax.dom().min), 0);
              ok = ok && (unit || n->args[d].same_as(ax.var()) || is_const_int(simplify(n->args[d] - ax.var()), 0));
            }
          }
        }
        IRVisitor::visit(n);
      }
    };
    for (size_t c = 0; c < cands.size(); ++c) {
      if (!keep[c] || c == a) continue;
      Reads r;
      r.op = p.op;
      r.value = p.value_index;
      r.at = c == b ? q.op : nullptr;
      r.visit(cands[c].body);
      if (!r.ok || r.count != (c == b ? 1 : 0)) return false;
    }
    return true;
  }

  void check_outputs_computed(const std::vector<Candidate> &cands) {
    for (size_t t = 0; t < plan_.tensors.size(); ++t) {
      if (!plan_.tensors[t].is_output) continue;
      bool found = false;
      for (const Candidate &c : cands) found = found || c.tensor == static_cast<int>(t);
      TIR_USER_CHECK(found) << f_->name << ": argument " << plan_.tensors[t].name
                            << " is computed by no stage of the schedule; create the schedule with it "
                               "among the outputs";
    }
  }

  // Layout widths of constant shapes are fixed now; others are uniforms set per call.
  void finish_tensors() {
    std::unordered_set<const VarNode *> known;
    for (const FragmentUniform &u : plan_.uniforms) known.insert(u.var.get());
    for (size_t t = 0; t < plan_.tensors.size(); ++t) {
      FragmentTensor &ft = plan_.tensors[t];
      bool constant = true;
      std::vector<int64_t> dims;
      for (const Expr &d : ft.shape) {
        for (const VarNode *v : vars_of(d))
          TIR_USER_CHECK(known.count(v))
              << f_->name << ": the shape of " << ft.name << " uses the variable " << v->name
              << ", which no argument's shape or scalar argument determines";
        if (const int64_t *c = as_const_int(d)) dims.push_back(*c);
        else constant = false;
      }
      if (constant) {
        TextureLayout l = tensor_layout(ft, dims, plan_.max_texture_size, f_->name + ": tensor " + ft.name);
        ft.const_width = l.width > 0 ? l.width : 1;
      } else {
        ft.width_uniform = "width_" + ft.ident;
        FragmentUniform u;
        u.kind = FragmentUniform::Width;
        u.name = ft.width_uniform;
        u.tensor = static_cast<int>(t);
        plan_.uniforms.push_back(u);
      }
    }
  }

  const LoweredFunc &f_;
  const Schedule &schedule_;
  const std::vector<Tensor> &arg_tensors_;
  bool pack_;
  bool pack_all_;
  int max_phases_;
  int64_t reduce_chunk_;
  int64_t max_unrolled_;
  std::vector<Operation> made_;  // operations the plan made (partial reductions), kept alive
  FragmentPlan plan_;
  TensorIndex index_;
  int counter_ = 0;
};

}  // namespace

StageFunction stage_function(const Schedule &s, const std::vector<BuildArg> &args, const std::string &name) {
  StageFunction sf;
  sf.func = lower(s, args, name);
  sf.schedule = s;
  for (const BuildArg &a : args)
    sf.arg_tensors.push_back(a.is_tensor() ? Tensor(s.current(a.tensor().op()), a.tensor().value_index()) : Tensor());
  return sf;
}

FragmentPlan plan_fragment(const StageFunction &f, const FragmentOptions &options) {
  TIR_ASSERT(f.func.defined()) << "plan_fragment of an undefined function";
  return Planner(f, options).run();
}

FragmentPlan plan_fragment(const StageFunction &f, int max_texture_size, bool pack) {
  FragmentOptions o;
  o.max_texture_size = max_texture_size;
  o.pack = pack;
  return plan_fragment(f, o);
}

TextureLayout tensor_layout(const FragmentTensor &t, const std::vector<int64_t> &shape, int max_texture_size,
                            const std::string &what) {
  TextureLayout l = t.packed ? packed_texture_layout(shape, max_texture_size, what)
                             : texture_layout(shape, max_texture_size, what);
  return t.phases > 1 ? phase_texture_layout(t.phase_texels, max_texture_size, what) : l;
}

std::string plan_source(const FragmentPlan &plan) {
  std::string out;
  for (size_t p = 0; p < plan.passes.size(); ++p) {
    out += "// ---- " + plan.name + " pass " + std::to_string(p) + " of " + std::to_string(plan.passes.size()) +
           ": " + plan.tensors[plan.passes[p].output].name + "\n";
    out += plan.passes[p].source;
  }
  return out;
}

std::vector<int64_t> eval_shape(const std::vector<Expr> &shape, const VarValues &values, const std::string &what) {
  std::vector<int64_t> out;
  for (const Expr &d : shape) {
    std::vector<std::pair<Var, Expr>> map;
    for (const VarNode *v : vars_of(d)) {
      auto it = values.find(v);
      TIR_USER_CHECK(it != values.end()) << what << ": no value for the shape variable " << v->name;
      map.emplace_back(Var(v), IntImmNode::make(v->type, it->second));
    }
    Expr e = simplify(substitute(d, map));
    const int64_t *c = as_const_int(e);
    TIR_USER_CHECK(c) << what << ": the dimension " << to_string(d) << " does not evaluate to a constant";
    TIR_USER_CHECK(*c >= 0) << what << ": the dimension " << to_string(d) << " is negative (" << *c << ")";
    out.push_back(*c);
  }
  return out;
}

}  // namespace tensorir::glsl
