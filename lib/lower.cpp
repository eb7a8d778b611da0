// The lowering pipeline, top to bottom: from a schedule to the loop nest codegen reads.
#include "tensorir/lower.h"

#include <cstdlib>
#include <functional>
#include <unordered_set>
#include <utility>

#include "schedule/schedule_internal.h"
#include "tensorir/arith/simplify.h"
#include "tensorir/ir/printer.h"
#include "tensorir/ir/visitor.h"
#include "transforms/ir_dump.h"
#include "transforms/passes.h"
#include "transforms/storage_flatten.h"

namespace tensorir {

namespace {
// Shape variables of the buffer arguments that are not scalar arguments themselves.
std::vector<Var> collect_symbols(const std::vector<LoweredArg> &args) {
  std::unordered_set<const VarNode *> scalars, seen;
  for (const LoweredArg &a : args)
    if (!a.is_buffer) scalars.insert(a.var.get());
  std::vector<Var> symbols;
  struct Finder : IRVisitor {
    std::vector<Var> vars;
    using IRVisitor::visit;
    void visit(const VarNode *op) override { vars.emplace_back(op); }
  };
  for (const LoweredArg &a : args)
    for (const Expr &dim : a.shape) {
      Finder f;
      f.visit(dim);
      for (const Var &v : f.vars)
        if (!scalars.count(v.get()) && seen.insert(v.get()).second) {
          // A call binds it from an argument's size: a narrower type would wrap that size.
          TIR_USER_CHECK(v.type().is_scalar() && (v.type().is_int() || v.type().is_uint()) && v.type().bits() >= 32)
              << "the shape of argument '" << a.name << "' uses the variable '" << v.name() << "' of type " << v.type()
              << "; a shape variable must be int32 or int64 (e.g. Var(\"" << v.name() << "\") or Var(\"" << v.name()
              << "\", Int(64)))";
          symbols.push_back(v);
        }
    }
  return symbols;
}

std::vector<LoweredArg> make_args(const std::vector<BuildArg> &args, const std::string &name,
                                  std::vector<BufferBinding> &bindings) {
  std::vector<LoweredArg> out;
  std::unordered_set<std::string> names;
  for (size_t i = 0; i < args.size(); ++i) {
    LoweredArg a;
    if (args[i].is_tensor()) {
      const Tensor &t = args[i].tensor();
      for (const BufferBinding &b : bindings)
        TIR_USER_CHECK(b.tensor != t) << "function '" << name << "': tensor '" << t.name()
                                      << "' appears twice in the argument list";
      a.name = t.op()->num_outputs() == 1 ? t.name() : t.name() + ".v" + std::to_string(t.value_index());
      a.var = Var(a.name, Handle());
      a.dtype = t.dtype();
      a.shape = t.shape();
      a.may_alias = args[i].may_alias();
      a.written = t.op().as<PlaceholderOpNode>() == nullptr;
      bindings.push_back({t, a.var});
    } else {
      TIR_USER_CHECK(args[i].var().defined()) << "function '" << name << "': argument " << i << " is undefined";
      a.name = args[i].var().name();
      a.var = args[i].var();
      a.is_buffer = false;
      a.dtype = a.var.type();
    }
    TIR_USER_CHECK(names.insert(a.name).second)
        << "function '" << name << "': two arguments are named '" << a.name << "'; give tensors distinct names";
    out.push_back(a);
  }
  return out;
}

std::string env_dump_dir() {
  const char *dir = std::getenv("TENSORIR_DUMP_IR");
  return dir ? dir : "";
}
}  // namespace

LoweredFunc lower(const Schedule &s, const std::vector<BuildArg> &args, const std::string &name,
                  const LowerOptions &options) {
  TIR_USER_CHECK(s.get()) << "lower('" << name << "'): the schedule is undefined";
  TIR_USER_CHECK(!name.empty()) << "lower(): give the function a name";
  auto *f = new LoweredFuncNode();
  LoweredFunc func(f);
  f->name = name;
  std::vector<BufferBinding> bindings;
  f->args = make_args(args, name, bindings);
  f->symbols = collect_symbols(f->args);
  for (BufferBinding &b : bindings) {
    b.tensor = Tensor(s.current(b.tensor.op()), b.tensor.value_index());
    const auto stage = s.get()->stage_map.find(b.tensor.op().get());
    TIR_USER_CHECK(stage == s.get()->stage_map.end() || stage->second->attach_type != AttachType::Inline)
        << "lower('" << name << "'): tensor '" << b.tensor.name() << "' is an argument, but compute_inline() "
        << "computes it where it is read and writes no buffer of it; leave it out of the arguments or do not inline it";
  }

  // The passes in order; with a dump directory, the IR after each one goes to a file.
  IRDump dump(options.dump_dir.empty() ? env_dump_dir() : options.dump_dir, name);
  EffectiveBodies bodies = inline_stages(s);
  ScheduleBounds bounds = infer_bounds(s, bodies);
  Stmt stmt = schedule_ops(s, bodies, bounds);
  dump("schedule_ops", stmt);
  const auto simplify_stmt = [](const Stmt &x) { return simplify(x); };
  // `unrolling`: the pass unrolls loops or tidies their unrolled copies; skipped when
  // options.unroll is false.
  struct Pass {
    const char *name;
    std::function<Stmt(const Stmt &)> run;
    bool unrolling = false;
  };
  const Pass passes[] = {
      {"storage_flatten", [&](const Stmt &x) { return storage_flatten(x, bindings, name); }},
      {"simplify", simplify_stmt},
      {"inject_prefetch", inject_prefetch},
      {"loop_partition", loop_partition},
      {"simplify", simplify_stmt},
      {"vectorize_loops", vectorize_loops},
      {"unroll_loops", unroll_loops, true},
      {"simplify", simplify_stmt, true},
  };
  for (const Pass &pass : passes) {
    if (!options.unroll && pass.unrolling) continue;
    dump(pass.name, stmt = pass.run(stmt));
  }
  f->body = stmt;
  return func;
}

LoweredFunc lower(const Schedule &s, const std::vector<BuildArg> &args, const std::string &name) {
  return lower(s, args, name, LowerOptions{});
}

std::ostream &operator<<(std::ostream &os, const LoweredFunc &f) {
  os << "func " << f->name << "(";
  for (size_t i = 0; i < f->args.size(); ++i) {
    const LoweredArg &a = f->args[i];
    os << (i ? ", " : "") << a.name << ": " << a.dtype;
    if (a.is_buffer) {
      os << "[";
      for (size_t d = 0; d < a.shape.size(); ++d) os << (d ? ", " : "") << a.shape[d];
      os << "]";
    }
  }
  os << ") {\n";
  std::string body = to_string(f->body);
  size_t start = 0;
  while (start < body.size()) {  // indent the body by one level
    size_t end = body.find('\n', start);
    if (end == std::string::npos) end = body.size();
    if (end > start) os << "  " << body.substr(start, end - start);
    os << "\n";
    start = end + 1;
  }
  return os << "}";
}

}  // namespace tensorir
