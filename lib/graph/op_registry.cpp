// The operator registry, the attribute schema check, and the two things every graph
// layer asks of an operator: its inferred shape and its tensor expression.
#include "tensorir/graph/op_registry.h"

#include <algorithm>
#include <cstdint>
#include <cmath>
#include <mutex>

#include "op_table.h"
#include "tensorir/graph/passes.h"
#include "tensorir/ir/printer.h"
#include "tensorir/ops/schedule.h"

namespace tensorir::graph {

namespace {

struct Registry {
  std::mutex mu;
  std::map<std::string, OpDef> ops;
};

// Function-local: operators register from static initializers in other files.
Registry &registry() {
  static Registry *r = new Registry;
  return *r;
}

const char *attr_type_name(AttrType k) {
  switch (k) {
    case AttrType::Int: return "an integer";
    case AttrType::Real: return "a number";
    case AttrType::String: return "a string";
    case AttrType::Ints: return "a list of integers";
  }
  return "?";
}

bool fits(AttrType k, const AttrValue &v) {
  switch (k) {
    case AttrType::Int: return std::holds_alternative<int64_t>(v);
    case AttrType::Real: return std::holds_alternative<double>(v) || std::holds_alternative<int64_t>(v);
    case AttrType::String: return std::holds_alternative<std::string>(v);
    case AttrType::Ints: return std::holds_alternative<std::vector<int64_t>>(v);
  }
  return false;
}

// Runs `fn`; an error of any kind comes out as a tensorir::Error starting with the
// node's prefix (once).
template <typename F>
auto naming_node(const Node &n, F fn) -> decltype(fn()) {
  const std::string prefix = detail::node_prefix(n);
  try {
    return fn();
  } catch (const Error &e) {
    if (std::string(e.what()).rfind(prefix, 0) == 0) throw;
    throw Error(prefix + e.what());
  } catch (const std::exception &e) {
    throw Error(prefix + e.what());
  }
}

std::string known_ops() {
  std::string known;
  for (const std::string &o : registered_ops()) known += " " + o;
  return known;
}

std::string known_attrs(const OpDef &def) {
  std::string s;
  for (const AttrSpec &a : def.attrs) s += (s.empty() ? "" : ", ") + a.name;
  return s.empty() ? "none" : s;
}

}  // namespace

const char *op_pattern_name(OpPattern p) {
  switch (p) {
    case OpPattern::kElementWise: return "element-wise";
    case OpPattern::kBroadcast: return "broadcast";
    case OpPattern::kInjective: return "injective";
    case OpPattern::kReduction: return "reduction";
    case OpPattern::kOutFusable: return "out-fusable";
    case OpPattern::kOpaque: return "opaque";
  }
  return "?";
}

OpStrategy OpDef::strategy(const Target &target) const {
  OpStrategy s;
  auto it = strategies.find(target.kind);
  const TargetCaps caps = target.caps();
  if (it == strategies.end()) {
    if (caps.cpu_schedules) it = strategies.find("cpu");
    else if (caps.gpu_schedules) it = strategies.find("gpu");
  }
  if (it != strategies.end()) s = it->second;
  if (!s.compute) s.compute = compute;
  // Without a schedule of its own, an injective result runs on the CPU's thread pool.
  if (!s.schedule && caps.cpu_schedules)
    s.schedule = [](const ScheduleContext &ctx) { return ops::schedule_injective_cpu(ctx.out, ctx.target); };
  if (!s.schedule) s.schedule = [](const ScheduleContext &ctx) { return ops::schedule_generic({ctx.out}); };
  if (!s.takes_tail) s.takes_tail = [](const Node &) { return true; };
  return s;
}

void register_op(OpDef def) {
  TIR_USER_CHECK(!def.name.empty()) << "register_op: the operator has no name";
  TIR_USER_CHECK(def.name != "input" && def.name != "constant")
      << "register_op: '" << def.name << "' is reserved for the graph's leaves; pick another name";
  TIR_USER_CHECK(def.compute != nullptr) << "register_op('" << def.name << "'): no compute function";
  TIR_USER_CHECK(!def.variadic || !def.inputs.empty())
      << "register_op('" << def.name << "'): a variadic operator needs a role for its inputs";
  for (size_t i = 0; i < def.attrs.size(); ++i) {
    const AttrSpec &a = def.attrs[i];
    TIR_USER_CHECK(!a.name.empty()) << "register_op('" << def.name << "'): attribute " << i << " has no name";
    for (size_t j = 0; j < i; ++j)
      TIR_USER_CHECK(def.attrs[j].name != a.name)
          << "register_op('" << def.name << "'): attribute '" << a.name << "' is declared twice";
    TIR_USER_CHECK(!a.default_value || fits(a.type, *a.default_value))
        << "register_op('" << def.name << "'): the default of attribute '" << a.name << "' is not "
        << attr_type_name(a.type);
    const auto *ints = a.default_value ? std::get_if<std::vector<int64_t>>(&*a.default_value) : nullptr;
    TIR_USER_CHECK(!ints || a.ints_size < 0 || ints->size() == size_t(a.ints_size))
        << "register_op('" << def.name << "'): the default of attribute '" << a.name << "' holds "
        << (ints ? ints->size() : 0) << " values but the attribute takes " << a.ints_size;
  }
  Registry &r = registry();
  std::lock_guard<std::mutex> lock(r.mu);
  TIR_USER_CHECK(!r.ops.count(def.name))
      << "register_op: an operator '" << def.name << "' is already registered; operator names are unique";
  std::string name = def.name;
  r.ops.emplace(std::move(name), std::move(def));
}

const OpDef *find_op(const std::string &name) {
  Registry &r = registry();
  std::lock_guard<std::mutex> lock(r.mu);
  auto it = r.ops.find(name);
  // Entries are never removed, and std::map nodes do not move: the pointer stays valid.
  return it == r.ops.end() ? nullptr : &it->second;
}

std::vector<std::string> registered_ops() {
  Registry &r = registry();
  std::lock_guard<std::mutex> lock(r.mu);
  std::vector<std::string> names;
  for (const auto &entry : r.ops) names.push_back(entry.first);
  return names;
}

const OpDef &op_def(const std::string &name) {
  if (const OpDef *def = find_op(name)) return *def;
  TIR_THROW() << "unknown operator '" << name << "'; registered operators:" << known_ops()
              << " (graph::register_op adds one)";
}

OpPattern op_pattern(const std::string &op) {
  const OpDef *def = find_op(op);
  return def ? def->pattern : OpPattern::kOpaque;
}

namespace detail {

std::string node_prefix(const Node &n) { return "node '" + n.name + "' (" + n.op + "): "; }

const OpDef &node_op(const Node &n) {
  if (const OpDef *def = find_op(n.op)) return *def;
  TIR_THROW() << node_prefix(n) << "unknown operator '" << n.op << "'; known operators: input constant"
              << known_ops();
}

void add_default_attrs(Node &n) {
  const OpDef *def = find_op(n.op);
  if (!def) return;
  for (const AttrSpec &a : def->attrs)
    if (a.default_value && !n.attrs.count(a.name)) n.attrs[a.name] = *a.default_value;
}

bool takes_inputs(const OpDef &def, size_t count) {
  return def.variadic ? count >= def.inputs.size() : count == def.inputs.size();
}

void check_attrs(Node &n) {
  const OpDef &def = node_op(n);
  for (const auto &[key, value] : n.attrs) {
    // Any node may carry the dtype the graph declared for a value stored as float32.
    if (key == kDeclaredDtype) {
      const std::string *d = std::get_if<std::string>(&value);
      TIR_USER_CHECK(d && (*d == "bool" || *d == "int64"))
          << node_prefix(n) << "attribute '" << key << "' must be \"bool\" or \"int64\" (store_as_float sets it)";
      continue;
    }
    auto spec = std::find_if(def.attrs.begin(), def.attrs.end(), [&](const AttrSpec &a) { return a.name == key; });
    TIR_USER_CHECK(spec != def.attrs.end())
        << node_prefix(n) << "unknown attribute '" << key << "'; " << n.op << " takes: " << known_attrs(def);
    TIR_USER_CHECK(fits(spec->type, value)) << node_prefix(n) << "attribute '" << key << "' must be "
                                            << attr_type_name(spec->type);
    if (spec->type == AttrType::Ints && spec->ints_size >= 0) {
      const size_t size = std::get<std::vector<int64_t>>(value).size();
      TIR_USER_CHECK(size == size_t(spec->ints_size)) << node_prefix(n) << "attribute '" << key << "' must hold "
                                                      << spec->ints_size << " values, got " << size;
    }
    // Operators read integer attributes as int: a larger value would be cut silently.
    auto in_int_range = [](int64_t v) { return v >= INT32_MIN && v <= INT32_MAX; };
    if (const int64_t *i = std::get_if<int64_t>(&value)) {
      TIR_USER_CHECK(in_int_range(*i)) << node_prefix(n) << "attribute '" << key << "' is " << *i
                                       << "; it must lie in [-2147483648, 2147483647]";
    }
    if (const auto *ints = std::get_if<std::vector<int64_t>>(&value)) {
      for (int64_t i : *ints) {
        TIR_USER_CHECK(in_int_range(i)) << node_prefix(n) << "attribute '" << key << "' holds " << i
                                        << "; each value must lie in [-2147483648, 2147483647]";
      }
    }
    const double *real = std::get_if<double>(&value);
    TIR_USER_CHECK(!real || std::isfinite(*real))
        << node_prefix(n) << "attribute '" << key << "' is " << *real << "; it must be a finite number";
  }
  for (const AttrSpec &a : def.attrs) {
    if (n.attrs.count(a.name)) continue;
    TIR_USER_CHECK(a.default_value.has_value())
        << node_prefix(n) << "missing attribute '" << a.name << "' (" << attr_type_name(a.type) << ")";
    n.attrs[a.name] = *a.default_value;
  }
}

Tensor make_tensor(const Node &n, const std::vector<Tensor> &inputs, const std::string &out_name,
                   const ComputeFn &compute) {
  TIR_ASSERT(takes_inputs(node_op(n), inputs.size())) << node_prefix(n);
  return naming_node(n, [&] {
    const Tensor t = compute ? compute(n, inputs, out_name) : node_op(n).compute(n, inputs, out_name);
    TIR_USER_CHECK(t.defined()) << "the compute function returned an undefined tensor";
    return t;
  });
}

void infer_shape(Node &n, const std::vector<const Node *> &inputs) {
  const OpDef &def = node_op(n);
  TIR_USER_CHECK(takes_inputs(def, inputs.size()))
      << node_prefix(n) << "takes " << def.inputs.size() << (def.variadic ? " or more" : "") << " inputs but was given "
      << inputs.size();
  check_attrs(n);
  if (def.check) naming_node(n, [&] { def.check(n, inputs); });
  std::vector<Tensor> ph;
  for (const Node *in : inputs) {
    std::vector<Expr> shape(in->shape.begin(), in->shape.end());
    ph.push_back(placeholder(shape, in->dtype, in->name));
  }
  const Tensor out = make_tensor(n, ph, n.name);
  n.shape.clear();
  for (const Expr &e : out.shape()) {
    const int64_t *v = as_const_int(e);
    TIR_USER_CHECK(v) << node_prefix(n) << "the compute gives a symbolic dimension " << to_string(e)
                      << "; graph operators need constant shapes";
    n.shape.push_back(*v);
  }
  n.dtype = out.dtype();
}

}  // namespace detail

}  // namespace tensorir::graph
