// One fragment pass as GLSL ES 3.00 text: the fragment's coordinate gives the output's
// texel, whose lanes' axis values are expressions over its indices; each lane's body is
// substituted and simplified (lib/arith), so reads at constant offsets from the output
// index, in unrolled reduction loops, address their texel and channel statically and
// share one texelFetch per texel; reductions run one loop nest for all lanes.
#include <cinttypes>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <functional>
#include <limits>
#include <optional>
#include <sstream>

#include "backends/glsl/fragment/codegen_fragment_emit.h"
#include "backends/glsl/fragment/texel_grid.h"
#include "tensorir/arith/simplify.h"
#include "tensorir/ir/op.h"
#include "tensorir/ir/printer.h"
#include "tensorir/ir/visitor.h"

namespace tensorir::glsl {

namespace {

bool is_const_true(const Expr &e) {
  const int64_t *v = as_const_int(e);
  return v && *v != 0;
}

std::string float_literal(double v) {
  float f = static_cast<float>(v);
  if (std::isnan(f)) return "uintBitsToFloat(0x7fc00000u)";
  if (std::isinf(f)) return f > 0 ? "uintBitsToFloat(0x7f800000u)" : "uintBitsToFloat(0xff800000u)";
  char buf[48];
  std::snprintf(buf, sizeof buf, "%.9g", static_cast<double>(f));
  std::string s = buf;
  if (s.find_first_of(".en") == std::string::npos) s += ".0";
  return f < 0 ? "(" + s + ")" : s;
}

// Reduction loops with constant extents are unrolled, innermost first, up to
// FragmentOptions::max_unrolled source evaluations (iterations times lanes) per pass
// through the loop body that remains: the addresses then have constant offsets and the
// fetches of neighbouring iterations and lanes coincide.

class ShaderEmitter {
 public:
  ShaderEmitter(const FragmentPlan &plan, const TensorIndex &tensors, const ComputeOpNode *op, int64_t max_unrolled)
      : plan_(plan), tensors_(tensors), where_(plan.name + ": stage " + op->name), max_unrolled_(max_unrolled) {
    for (const FragmentUniform &u : plan.uniforms)
      if (u.kind == FragmentUniform::Variable) uniform_vars_[u.var.get()] = &u;
  }

  FragmentPass run(const ComputeOpNode *op, int value_index, const Expr &body, int out,
                   const std::vector<int> &phases) {
    const FragmentTensor &ot = plan_.tensors[out];
    const int num_phases = phases.empty() ? 1 : static_cast<int>(phases.size());
    std::string out_type = texel_type(ot);
    indent_ = 1;
    fetch_scopes_.emplace_back();
    TIR_ASSERT(op->axis.size() == ot.shape.size()) << where_ << ": axis count";
    TIR_USER_CHECK(fragment_type(body.type(), where_) == scalar_type(ot))
        << where_ << ": the body has type " << body.type() << " but the tensor stores " << ot.dtype;
    if (!phases.empty()) phase_tensor_ = &plan_.tensors[static_cast<size_t>(phases[0])];
    std::vector<std::vector<Expr>> lane_axes = output_indices(ot, out, num_phases);
    prologue_at_ = body_.size();
    for (const auto &[v, name] : names_) outer_vars_.insert(v);
    for (const auto &[v, u] : uniform_vars_) outer_vars_.insert(v);
    std::vector<std::string> values = lane_values(op, body, lane_axes);
    std::vector<std::string> results;
    for (int k = 0; k < num_phases; ++k) results.push_back(num_phases == 1 ? "result" : "result" + std::to_string(k));
    if (ot.packed) {
      const size_t per = values.size() / static_cast<size_t>(num_phases);
      for (size_t k = 0; k < results.size(); ++k) {
        std::string v;
        for (size_t l = k * per; l < (k + 1) * per; ++l) v += (v.empty() ? "" : ", ") + values[l];
        line(results[k] + " = " + out_type + "(" + v + ");");
      }
    } else {
      line("result = " + values[0] + ";");
    }
    std::string main_body = std::move(body_);
    main_body.insert(prologue_at_, prologue_);

    std::ostringstream src;
    src << "#version 300 es\n"
        << "// " << plan_.name << ": computes " << ot.name;
    if (op->num_outputs() > 1) src << " (value " << value_index << " of " << op->name << ")";
    src << "\n"
        << "precision highp float;\nprecision highp int;\n"
        << "precision highp sampler2D;\nprecision highp isampler2D;\n";
    FragmentPass pass;
    pass.output = phases.empty() ? out : phases[0];
    pass.outputs = phases.empty() ? std::vector<int>{out} : phases;
    for (int t : inputs_) {
      const FragmentTensor &it = plan_.tensors[t];
      std::string sampler = "tex_" + it.ident;
      src << "uniform highp " << (it.dtype.is_float() ? "sampler2D " : "isampler2D ") << sampler << ";\n";
      pass.inputs.push_back(t);
      pass.sampler_names.push_back(sampler);
    }
    for (const auto &[name, type] : used_uniforms_) {
      src << "uniform " << type << " " << name << ";\n";
      pass.uniforms.push_back(name);
    }
    for (size_t k = 0; k < results.size(); ++k)
      src << "layout(location = " << k << ") out highp " << out_type << " " << results[k] << ";\n";
    src << fragment_helpers(helpers_);
    src << "void main() {\n" << main_body << "}\n";
    pass.source = src.str();
    return pass;
  }

 private:
  // ------------------------------------------------------------ text and names
  // A statement. At the top level (not inside a branch being built) the texel fetches
  // its expressions asked for are declared first.
  void line(const std::string &s) {
    if (branch_depth_ == 0) flush_fetches();
    body_ += std::string(2 * indent_, ' ') + s + "\n";
  }
  void flush_fetches() {
    for (const std::string &f : pending_) body_ += std::string(2 * indent_, ' ') + f + "\n";
    pending_.clear();
  }
  // Shader-local names end in "_l<k>"; plan identifiers end in "_<k>", so they never meet.
  std::string fresh(const std::string &stem) { return glsl_stem(stem) + "_l" + std::to_string(counter_++); }
  // A shader-local int as a variable of the IR, so index expressions over it simplify;
  // [lo, hi) is its range when hi > lo.
  Var local(const std::string &name, int64_t lo = 0, int64_t hi = 0) {
    Var v(name, Int(32));
    locals_.push_back(v);  // alive as long as the maps keyed by its node
    names_[v.get()] = name;
    if (hi > lo) ranges_[v.get()] = {IntImmNode::make(Int(32), lo), IntImmNode::make(Int(32), hi - 1)};
    return v;
  }
  Var local_in(const std::string &name, const Expr &extent) {
    const int64_t *e = as_const_int(extent);
    return local(name, 0, e ? *e : 0);
  }
  Expr simp(const Expr &e) {
    Expr once = simplify(remove_guarded_clamps(e), ranges_);
    return simplify(remove_guarded_clamps(once), ranges_);
  }
  void open_block(const std::string &head) {
    line(head);
    ++indent_;
    fetch_scopes_.emplace_back();
  }
  void close_block() {
    --indent_;
    line("}");
    fetch_scopes_.pop_back();
  }

  std::string type_of(const Expr &e) { return fragment_type(e.type(), where_); }
  std::string scalar_type(const FragmentTensor &t) { return t.dtype.is_float() ? "float" : "int"; }
  std::string texel_type(const FragmentTensor &t) {
    if (!t.packed) return scalar_type(t);
    return t.dtype.is_float() ? "vec4" : "ivec4";
  }

  std::string width_of(int t) {
    const FragmentTensor &ft = plan_.tensors[t];
    if (ft.const_width > 0) return std::to_string(ft.const_width);
    used_uniforms_[ft.width_uniform] = "int";
    return ft.width_uniform;
  }

  // ------------------------------------------------------------ tensor reads
  int tensor_of(const TensorLoadNode *op) {
    auto it = tensors_.find({op->producer.get(), op->value_index});
    TIR_USER_CHECK(it != tensors_.end())
        << where_ << " reads tensor " << op->name
        << ", which is neither an argument of the function nor computed by one of its stages";
    for (int t : inputs_)
      if (t == it->second) return t;
    inputs_.push_back(it->second);
    return it->second;
  }

  // Declares the output's texel indices from the fragment's coordinate and returns each
  // lane's (one lane, or four when packed) axis values as expressions over them. With
  // several phases the fragment's texels are neighbours along the row's innermost axis
  // (PhaseGrid), their lanes one after the other.
  std::vector<std::vector<Expr>> output_indices(const FragmentTensor &ot, int out, int phases) {
    size_t n = ot.shape.size();
    int split = row_split(ot);
    int merged = merged_dim(ot);
    TIR_ASSERT(phases == 1 || (rows_are_subtensors(ot) && ot.packed)) << where_ << ": phases of a flat layout";
    if (rows_are_subtensors(ot)) {
      // Rows are whole trailing sub-tensors: x gives the inner axes, y the outer ones,
      // and every texel of the viewport holds elements only.
      std::vector<Expr> shape = grid_shape(ot);
      std::vector<Var> grid;
      for (size_t d = 0; d < n; ++d)
        grid.push_back(local_in(fresh(ot.packed && d + 1 == n ? "quad" : "ax" + std::to_string(d)), shape[d]));
      PhaseGrid pg;
      if (phases == 1) {
        decompose("int(gl_FragCoord.x)", fresh("out_x"), grid, shape, split, n);
        decompose("int(gl_FragCoord.y)", fresh("out_y"), grid, shape, 0, split);
      } else {
        // Phase texel t (phase_texture_layout) over the grid with the row's innermost axis
        // in steps of `phases`; the fragment's first texel is at the step's start.
        pg = phase_grid(ot, phases);
        TIR_ASSERT(phase_tensor_ && pg.texels == phase_tensor_->phase_texels) << where_ << ": phase layout";
        std::vector<Expr> steps = shape;
        steps[pg.along] = IntImmNode::make(Int(32), pg.steps);
        grid[pg.along] = local(fresh("step"), 0, pg.steps);
        std::string t = fresh("phase_texel");
        line("int " + t + " = min(int(gl_FragCoord.y) * " + std::to_string(phase_tensor_->const_width) +
             " + int(gl_FragCoord.x), " + std::to_string(pg.texels - 1) + ");");
        decompose(t, fresh("out_rest"), grid, steps, 0, n);
      }
      std::vector<std::vector<Expr>> lanes;
      for (int k = 0; k < phases; ++k) {
        std::vector<Expr> axes(grid.begin(), grid.end());
        // Past the axis's end (when the phases do not divide it) a texel is computed from
        // reads past the end, and never read.
        if (phases > 1) axes[pg.along] = simplify(axes[pg.along] * phases + k);
        // An axis of extent 1 is 0.
        for (size_t d = 0; d < n; ++d)
          if (is_const_int(shape[d], 1)) axes[d] = IntImmNode::make(Int(32), 0);
        if (!ot.packed) return {axes};
        if (axes.empty()) {  // a 0-d result (Det of one matrix): lane 0 holds it, the rest are never read
          lanes.assign(4, axes);
          continue;
        }
        for (int l = 0; l < 4; ++l) {
          std::vector<Expr> ln = axes;
          ln.back() = simplify(axes.back() * 4 + l);
          lanes.push_back(ln);
        }
      }
      return lanes;
    }
    // Texel (x, y) is number y * width + x; the last row may be partial.
    std::string texel = fresh("out_texel");
    line("int " + texel + " = int(gl_FragCoord.y) * " + width_of(out) + " + int(gl_FragCoord.x);");
    if (!ot.packed) {
      std::string numel = expr(numel_expr(ot.shape));
      line("if (" + texel + " >= " + numel + ") {");
      line(std::string("  result = ") + (scalar_type(ot) == "float" ? "0.0" : "0") + ";");
      line("  return;");
      line("}");
      std::vector<Var> names;
      for (size_t d = 0; d < n; ++d) names.push_back(local_in(fresh("ax" + std::to_string(d)), ot.shape[d]));
      decompose(texel, fresh("out_rest"), names, ot.shape, 0, n);
      return {std::vector<Expr>(names.begin(), names.end())};
    }
    if (merged >= 0) {
      // Texels past the end repeat the last one. The merged trailing dimensions of each
      // lane are expressions of the texel's place among them, so that reads at offsets
      // from the output's indices stay affine in it.
      std::vector<Expr> shape = grid_shape(ot);
      line(texel + " = min(" + texel + ", " + expr(numel_expr(shape)) + " - 1);");
      std::vector<Var> grid;
      for (int d = 0; d <= merged; ++d)
        grid.push_back(local_in(fresh(d == merged ? "quad" : "ax" + std::to_string(d)), shape[d]));
      decompose(texel, fresh("out_rest"), grid, shape, 0, merged + 1);
      std::vector<std::vector<Expr>> lanes;
      for (int l = 0; l < 4; ++l) {
        std::vector<Expr> ln(grid.begin(), grid.begin() + merged);
        Expr e = grid.back() * 4 + l;
        Expr stride = IntImmNode::make(Int(32), 1);
        std::vector<Expr> inner;
        for (size_t d = n; d-- > static_cast<size_t>(merged);) {
          Expr q = floordiv(e, stride);
          inner.push_back(simplify(d == static_cast<size_t>(merged) ? q : floormod(q, ot.shape[d]), ranges_));
          stride = simplify(stride * ot.shape[d]);
        }
        ln.insert(ln.end(), inner.rbegin(), inner.rend());
        lanes.push_back(ln);
      }
      return lanes;
    }
    // Flat texels: lanes past the end repeat the last element (and are never read back).
    std::string numel = expr(numel_expr(ot.shape));
    std::vector<std::vector<Expr>> lanes;
    for (int l = 0; l < 4; ++l) {
      std::vector<Var> ln;
      for (size_t d = 0; d < n; ++d) ln.push_back(local_in(fresh("ax" + std::to_string(d)), ot.shape[d]));
      std::string e = fresh("out_elem");
      line("int " + e + " = min(" + texel + " * 4 + " + std::to_string(l) + ", " + numel + " - 1);");
      decompose(e, fresh("out_rest"), ln, ot.shape, 0, n);
      lanes.push_back(std::vector<Expr>(ln.begin(), ln.end()));
    }
    return lanes;
  }

  // The body's value for each lane. A reduction (at the top or under an element-wise
  // epilogue) whose ranges do not depend on the output's axes runs one loop nest for all
  // lanes; the epilogue then applies per lane to its result.
  std::vector<std::string> lane_values(const ComputeOpNode *op, const Expr &body,
                                       const std::vector<std::vector<Expr>> &lane_axes) {
    std::vector<Var> axis_vars;
    for (const IterVar &ax : op->axis) axis_vars.push_back(ax.var());
    auto lane_body = [&](size_t l) {
      std::vector<std::pair<Var, Expr>> map;
      for (size_t d = 0; d < axis_vars.size(); ++d) map.emplace_back(axis_vars[d], lane_axes[l][d]);
      return substitute(body, map);
    };
    const ReduceNode *r = single_reduction(body);
    bool shared = r != nullptr;
    if (r)
      for (const IterVar &ax : r->axis)
        shared = shared && !uses_var(ax.dom().min, axis_vars) && !uses_var(ax.dom().extent, axis_vars);
    std::vector<std::string> values;
    if (!shared) {
      for (size_t l = 0; l < lane_axes.size(); ++l) values.push_back(expr(simp(lane_body(l))));
      return values;
    }
    std::vector<Expr> bodies;
    std::vector<const ReduceNode *> reduces;
    for (size_t l = 0; l < lane_axes.size(); ++l) {
      bodies.push_back(lane_body(l));
      reduces.push_back(single_reduction(bodies.back()));
      TIR_ASSERT(reduces.back()) << where_ << ": reduction lost in substitution";
    }
    std::vector<std::string> acc = reduce_lanes(reduces);
    for (size_t l = 0; l < lane_axes.size(); ++l) {
      Var v(acc[l], reduces[l]->type);
      locals_.push_back(v);
      names_[v.get()] = acc[l];
      values.push_back(expr(simp(replace_node(bodies[l], reduces[l], v))));
    }
    return values;
  }

  // Declares names[begin, end) as the row-major decomposition of `value` over those
  // dimensions, innermost first.
  void decompose(const std::string &value, const std::string &rest, const std::vector<Var> &names,
                 const std::vector<Expr> &shape, size_t begin, size_t end) {
    if (begin == end) return;
    if (end - begin == 1) {
      line("int " + names[begin].name() + " = " + value + ";");
      return;
    }
    line("int " + rest + " = " + value + ";");
    for (size_t d = end; d-- > begin;) {
      if (d == begin) {
        line("int " + names[d].name() + " = " + rest + ";");
      } else {
        std::string dim = expr(shape[d]);
        line("int " + names[d].name() + " = " + rest + " % " + dim + ";");
        line(rest + " = " + rest + " / " + dim + ";");
      }
    }
  }

  // The row-major flat index of idx[begin, end) over those dimensions.
  Expr flat_index(const std::vector<Expr> &idx, const std::vector<Expr> &shape, size_t begin, size_t end) {
    Expr flat = IntImmNode::make(Int(32), 0);
    for (size_t d = begin; d < end; ++d) flat = flat * tensorir::cast(Int(32), shape[d]) + tensorir::cast(Int(32), idx[d]);
    return simp(flat);
  }

  // A read of an element: its texel fetched once per scope (declared before the
  // statement that needs it, so reads under a guard share it too), and for a packed
  // tensor the channel, a constant swizzle where the index arithmetic proves it.
  std::string load(const TensorLoadNode *n) {
    auto [value, lane] = load_parts(n);
    return with_lane(value, lane);
  }
  // texel + lane selector as GLSL: a swizzle, or tir_lane for a lane known at run time.
  std::string with_lane(const std::string &texel, const std::string &lane) {
    if (lane.empty() || lane[0] != '[') return texel + lane;
    helpers_.insert("tir_lane");
    return "tir_lane(" + texel + ", " + lane.substr(1, lane.size() - 2) + ")";
  }
  // A read as (texel, lane selector): the texel a named variable when its address needs
  // no statements, else the fetch itself.
  std::pair<std::string, std::string> load_parts(const TensorLoadNode *n) {
    int t = tensor_of(n);
    const FragmentTensor &ft = plan_.tensors[t];
    TIR_ASSERT(n->args.size() == ft.shape.size()) << where_ << ": " << n->name << " read with " << n->args.size()
                                                  << " indices";
    std::vector<Expr> args;
    for (const Expr &a : n->args) args.push_back(simp(tensorir::cast(Int(32), a)));
    std::vector<Expr> grid = args, shape = grid_shape(ft);
    Expr channel;
    if (ft.packed) {
      int m = merged_dim(ft);
      size_t first = m < 0 ? 0 : static_cast<size_t>(m);
      Expr inner = flat_index(args, ft.shape, first, args.size());
      grid.resize(first);
      grid.push_back(simp(floordiv(inner, 4)));
      channel = simp(floormod(inner, 4));
    }
    size_t before = body_.size();
    std::string x, y;
    int split = row_split(ft);
    if (split >= 0) {
      x = expr(flat_index(grid, shape, split, grid.size()));
      y = expr(flat_index(grid, shape, 0, split));
    } else {
      std::string w = width_of(t);
      std::string texel = expr(flat_index(grid, shape, 0, grid.size()));
      x = "(" + texel + ") % " + w;
      y = "(" + texel + ") / " + w;
    }
    std::string fetch = "texelFetch(tex_" + ft.ident + ", ivec2(" + x + ", " + y + "), 0)";
    std::string value = fetch;
    if (body_.size() == before) value = fetched(fetch, ft.dtype.is_float() ? "vec4" : "ivec4");
    if (!ft.packed) return {value, ".r"};
    if (const int64_t *c = as_const_int(channel)) return {value, std::string(".") + "xyzw"[*c & 3]};
    return {value, "[" + expr(channel) + "]"};
  }

  std::string fetched(const std::string &fetch, const char *type) {
    for (auto it = fetch_scopes_.rbegin(); it != fetch_scopes_.rend(); ++it) {
      auto f = it->find(fetch);
      if (f != it->end()) return f->second;
    }
    std::string name = fresh("tx");
    pending_.push_back(std::string(type) + " " + name + " = " + fetch + ";");
    fetch_scopes_.back()[fetch] = name;
    return name;
  }

  // ------------------------------------------------------------ expressions
  std::string bin(const Expr &a, const char *op, const Expr &b) { return "(" + expr(a) + " " + op + " " + expr(b) + ")"; }
  std::string call(const char *f, const Expr &a) { return std::string(f) + "(" + expr(a) + ")"; }
  std::string call(const char *f, const Expr &a, const Expr &b) {
    return std::string(f) + "(" + expr(a) + ", " + expr(b) + ")";
  }
  std::string helper(const char *f, const Expr &a) {
    helpers_.insert(f);
    return call(f, a);
  }
  std::string helper(const char *f, const Expr &a, const Expr &b) {
    helpers_.insert(f);
    return call(f, a, b);
  }

  // Emits `e` into a separate buffer: returns (statements, value).
  std::pair<std::string, std::string> branch(const Expr &e) {
    std::string saved = std::move(body_);
    body_.clear();
    ++indent_;
    ++branch_depth_;
    std::string v = expr(e);
    --branch_depth_;
    --indent_;
    std::string stmts = std::move(body_);
    body_ = std::move(saved);
    return {stmts, v};
  }

  std::string expr(const Expr &e) {
    TIR_ASSERT(e.defined()) << where_ << ": undefined expression";
    if (loop_depth_ > 0 && !hoisting_ && prologue_at_ != std::string::npos) {
      if (std::optional<std::string> h = hoisted(e)) return *h;
    }
    switch (e->kind) {
      case IRKind::IntImm: {
        int64_t v = e.as<IntImmNode>()->value;
        if (e.type().is_bool()) return v ? "true" : "false";
        fragment_type(e.type(), where_);
        TIR_USER_CHECK(v >= std::numeric_limits<int32_t>::min() && v <= std::numeric_limits<int32_t>::max())
            << where_ << ": the constant " << v << " does not fit the 32-bit ints of WebGL/fragment targets";
        if (v == std::numeric_limits<int32_t>::min()) return "(-2147483647 - 1)";
        return v < 0 ? "(" + std::to_string(v) + ")" : std::to_string(v);
      }
      case IRKind::FloatImm:
        fragment_type(e.type(), where_);
        return float_literal(e.as<FloatImmNode>()->value);
      case IRKind::Variable: return variable(e.as<VarNode>());
      case IRKind::Cast: return cast(e.as<CastNode>());
      case IRKind::Add: return bin(e.as<AddNode>()->a, "+", e.as<AddNode>()->b);
      case IRKind::Sub: return bin(e.as<SubNode>()->a, "-", e.as<SubNode>()->b);
      case IRKind::Mul: return bin(e.as<MulNode>()->a, "*", e.as<MulNode>()->b);
      case IRKind::Div: {
        const auto *n = e.as<DivNode>();
        if (type_of(e) == "float") return bin(n->a, "/", n->b);
        return int_divmod(e, n->a, n->b, true);
      }
      case IRKind::Mod: {
        const auto *n = e.as<ModNode>();
        if (type_of(e) == "float") return helper("tir_fmod", n->a, n->b);
        return int_divmod(e, n->a, n->b, false);
      }
      case IRKind::Min: return call("min", e.as<MinNode>()->a, e.as<MinNode>()->b);
      case IRKind::Max: return call("max", e.as<MaxNode>()->a, e.as<MaxNode>()->b);
      case IRKind::EQ: return bin(e.as<EQNode>()->a, "==", e.as<EQNode>()->b);
      case IRKind::NE: return bin(e.as<NENode>()->a, "!=", e.as<NENode>()->b);
      case IRKind::LT: return bin(e.as<LTNode>()->a, "<", e.as<LTNode>()->b);
      case IRKind::LE: return bin(e.as<LENode>()->a, "<=", e.as<LENode>()->b);
      case IRKind::GT: return bin(e.as<GTNode>()->a, ">", e.as<GTNode>()->b);
      case IRKind::GE: return bin(e.as<GENode>()->a, ">=", e.as<GENode>()->b);
      case IRKind::And: return logic(e.as<AndNode>()->a, e.as<AndNode>()->b, true);
      case IRKind::Or: return logic(e.as<OrNode>()->a, e.as<OrNode>()->b, false);
      case IRKind::Not: return "(!" + expr(e.as<NotNode>()->a) + ")";
      case IRKind::Select: {
        const auto *n = e.as<SelectNode>();
        return select(n->condition, n->true_value, n->false_value, type_of(e));
      }
      case IRKind::Let: {
        const auto *n = e.as<LetNode>();
        std::string name = fresh(n->var.name());
        line(type_of(n->var) + " " + name + " = " + expr(n->value) + ";");
        names_[n->var.get()] = name;
        return expr(n->body);
      }
      case IRKind::Call: return intrinsic(e.as<CallNode>());
      case IRKind::TensorLoad: return load(e.as<TensorLoadNode>());
      case IRKind::Reduce: return reduce(e.as<ReduceNode>());
      default:
        TIR_THROW() << where_ << ": the expression `" << to_string(e)
                    << "` cannot be computed by a fragment shader (only tensor expressions can)";
    }
  }

  // Inside a reduction loop, integer and boolean arithmetic of the output's indices alone
  // (window bases, padding conditions) is computed once before the loops, and a sum of
  // such terms and loop-dependent ones adds the loop-dependent part to a hoisted base.
  std::optional<std::string> hoisted(const Expr &e) {
    if (!e.type().is_int() && !e.type().is_bool()) return std::nullopt;
    if (e->kind == IRKind::Variable || e->kind == IRKind::IntImm) return std::nullopt;
    bool sum = e.type().is_int() && (e->kind == IRKind::Add || e->kind == IRKind::Sub);
    if (!sum) return only_outer(e) ? hoist(e) : std::nullopt;
    // Constant offsets stay in the loop (the many window offsets share one base and
    // keep few values live across the loop); so does a base that is a variable already.
    std::vector<Expr> outer, inner, consts;
    split_sum(e, false, outer, inner, consts);
    if (outer.empty() || (outer.size() == 1 && outer[0]->kind == IRKind::Variable)) return std::nullopt;
    if (inner.empty() && consts.empty()) return hoist(e);
    auto total = [](const std::vector<Expr> &terms) {
      Expr r = terms[0];
      for (size_t i = 1; i < terms.size(); ++i) r = r + terms[i];
      return r;
    };
    std::optional<std::string> base = hoist(total(outer));
    if (!base) return std::nullopt;
    std::string v = *base;
    if (!inner.empty()) v = "(" + expr(total(inner)) + " + " + v + ")";
    int64_t k = 0;
    for (const Expr &c : consts) k += *as_const_int(c);
    if (k != 0) v = "(" + v + " + " + expr(IntImmNode::make(e.type(), k)) + ")";
    return v;
  }
  // The terms of a sum of ints, negated where subtracted, split by whether they use only
  // the output's indices and uniforms.
  void split_sum(const Expr &e, bool negate, std::vector<Expr> &outer, std::vector<Expr> &inner,
                 std::vector<Expr> &consts) {
    if (const auto *n = e.as<AddNode>()) {
      split_sum(n->a, negate, outer, inner, consts);
      split_sum(n->b, negate, outer, inner, consts);
      return;
    }
    if (const auto *n = e.as<SubNode>()) {
      split_sum(n->a, negate, outer, inner, consts);
      split_sum(n->b, !negate, outer, inner, consts);
      return;
    }
    Expr t = negate ? simplify(IntImmNode::make(e.type(), 0) - e) : e;
    (as_const_int(t) ? consts : only_outer(e) ? outer : inner).push_back(t);
  }
  // `e` (of the output's indices alone) as a variable declared before the loops, one per
  // distinct text; nullopt when its text needs statements.
  std::optional<std::string> hoist(const Expr &e) {
    std::string saved = std::move(body_);
    body_.clear();
    hoisting_ = true;
    std::string text = expr(e);
    hoisting_ = false;
    bool plain = body_.empty();
    body_ = std::move(saved);
    if (!plain) return std::nullopt;
    auto it = prologue_names_.find(text);
    if (it != prologue_names_.end()) return it->second;
    std::string name = fresh(e.type().is_bool() ? "pred" : "base");
    prologue_ += std::string("  ") + (e.type().is_bool() ? "bool " : "int ") + name + " = " + text + ";\n";
    prologue_names_[text] = name;
    return name;
  }

  // Floor division or modulo of ints: a shift or mask for powers of two (exact for
  // negative values too); one of the output's indices alone is computed once, after them.
  std::string int_divmod(const Expr &e, const Expr &a, const Expr &b, bool div) {
    bool outer = prologue_at_ != std::string::npos && only_outer(e);
    std::string key;
    if (outer) {
      std::string saved = std::move(body_);
      body_.clear();
      key = divmod_text(a, b, div);
      bool plain = body_.empty();
      body_ = std::move(saved);
      if (!plain) return divmod_text(a, b, div);
      auto it = prologue_names_.find(key);
      if (it != prologue_names_.end()) return it->second;
      std::string name = fresh(div ? "quo" : "rem");
      prologue_ += "  int " + name + " = " + key + ";\n";
      prologue_names_[key] = name;
      return name;
    }
    return divmod_text(a, b, div);
  }
  std::string divmod_text(const Expr &a, const Expr &b, bool div) {
    const int64_t *c = as_const_int(b);
    if (c && *c > 0 && (*c & (*c - 1)) == 0) {
      int k = 0;
      while ((int64_t(1) << k) < *c) ++k;
      if (div) return "(" + expr(a) + " >> " + std::to_string(k) + ")";
      return "(" + expr(a) + " & " + std::to_string(*c - 1) + ")";
    }
    return helper(div ? "tir_floordiv" : "tir_floormod", a, b);
  }
  // True when `e` uses only the output's indices and uniforms (declared before the
  // prologue), no loop variables or accumulators.
  bool only_outer(const Expr &e) {
    struct Finder : IRVisitor {
      const std::set<const VarNode *> *outer;
      bool ok = true;
      using IRVisitor::visit;
      void visit(const VarNode *op) override { ok = ok && outer->count(op); }
      void visit(const TensorLoadNode *) override { ok = false; }
      void visit(const ReduceNode *) override { ok = false; }
    };
    Finder f;
    f.outer = &outer_vars_;
    f.visit(e);
    return f.ok;
  }

  std::string variable(const VarNode *v) {
    auto it = names_.find(v);
    if (it != names_.end()) return it->second;
    auto u = uniform_vars_.find(v);
    TIR_USER_CHECK(u != uniform_vars_.end())
        << where_ << " uses the variable " << v->name
        << ", which is neither one of its axes nor a shape variable or scalar argument of the function";
    used_uniforms_[u->second->name] = fragment_type(v->type, where_);
    return u->second->name;
  }

  std::string cast(const CastNode *n) {
    std::string to = fragment_type(n->type, where_), from = type_of(n->value);
    std::string v = expr(n->value);
    if (to == from) return v;
    if (to == "bool") return "(" + v + (from == "float" ? " != 0.0)" : " != 0)");
    return to + "(" + v + ")";
  }

  // && and || keep their short circuit when the right side needs statements.
  std::string logic(const Expr &a, const Expr &b, bool is_and) {
    std::string av = expr(a);
    auto [stmts, bv] = branch(b);
    if (stmts.empty()) return "(" + av + (is_and ? " && " : " || ") + bv + ")";
    std::string r = fresh(is_and ? "and" : "or");
    line("bool " + r + " = " + av + ";");
    line(std::string("if (") + (is_and ? "" : "!") + r + ") {");
    body_ += stmts;
    line("  " + r + " = " + bv + ";");
    line("}");
    return r;
  }

  // Only the chosen side runs, even when a side needs statements (a guarded read).
  std::string select(const Expr &c, const Expr &t, const Expr &f, const std::string &type) {
    std::string cv = expr(c);
    if (std::optional<std::string> m = masked_load(cv, t, f)) return *m;
    auto [ts, tv] = branch(t);
    auto [fs, fv] = branch(f);
    if (ts.empty() && fs.empty()) return "(" + cv + " ? " + tv + " : " + fv + ")";
    std::string r = fresh("sel");
    line(type + " " + r + ";");
    line("if (" + cv + ") {");
    body_ += ts;
    line("  " + r + " = " + tv + ";");
    line("} else {");
    body_ += fs;
    line("  " + r + " = " + fv + ";");
    line("}");
    return r;
  }

  // select(c, x[...], 0.0) of a packed float read: the texel masked once (a padded
  // convolution's window reads it for four or more products), then its lane.
  std::optional<std::string> masked_load(const std::string &cv, const Expr &t, const Expr &f) {
    const auto *ld = t.as<TensorLoadNode>();
    const auto *zero = f.as<FloatImmNode>();
    if (!ld || !zero || zero->value != 0.0 || std::signbit(zero->value) || !t.type().is_float()) return std::nullopt;
    if (!plan_.tensors[tensor_of(ld)].packed) return std::nullopt;
    std::string saved = std::move(body_);
    body_.clear();
    ++branch_depth_;
    auto [texel, lane] = load_parts(ld);
    --branch_depth_;
    bool plain = body_.empty();
    body_ = std::move(saved);
    // A read whose address needs statements keeps the select (they run only where c holds).
    if (!plain || texel.rfind("texelFetch", 0) == 0) return std::nullopt;
    return with_lane(fetched("(" + cv + " ? " + texel + " : vec4(0.0))", "vec4"), lane);
  }

  std::string intrinsic(const CallNode *n) {
    TIR_USER_CHECK(n->call_type == CallNode::PureIntrinsic)
        << where_ << " calls the external function " << n->name
        << ", which a fragment shader cannot call; WebGL/fragment targets support only the built-in "
           "intrinsics (exp, log, sqrt, tanh, sigmoid, erf, ...)";
    const std::string &f = n->name;
    auto arity = [&](size_t k) {
      TIR_ASSERT(n->args.size() == k) << where_ << ": " << f << " takes " << k << " arguments";
    };
    if (f == "abs") {
      arity(1);
      return call("abs", n->args[0]);
    }
    fragment_type(n->type, where_);
    TIR_USER_CHECK(n->type.is_float()) << where_ << ": intrinsic " << f << " on " << n->type;
    if (f == "pow") {
      arity(2);
      return helper("tir_pow", n->args[0], n->args[1]);
    }
    if (f == "fmod") {
      arity(2);
      return helper("tir_truncmod", n->args[0], n->args[1]);
    }
    arity(1);
    const Expr &x = n->args[0];
    if (f == "exp" || f == "log" || f == "sqrt" || f == "floor" || f == "ceil" || f == "sin" || f == "cos" ||
        f == "tan")
      return call(f.c_str(), x);
    if (f == "fabs") return call("abs", x);
    if (f == "rsqrt") return "(1.0 / " + call("sqrt", x) + ")";  // more accurate than inversesqrt
    if (f == "tanh") return helper("tir_tanh", x);
    if (f == "sigmoid") return helper("tir_sigmoid", x);
    if (f == "erf") return helper("tir_erf", x);
    for (const char *h : {"asin", "acos", "atan", "sinh", "cosh", "asinh", "acosh", "atanh"})
      if (f == h) return helper(("tir_" + f).c_str(), x);
    TIR_THROW() << where_ << ": the intrinsic " << f << " is not supported by WebGL/fragment targets";
  }

  std::string reduce(const ReduceNode *n) { return reduce_lanes({n})[0]; }

  // How a reduction axis runs: a loop, unrolled whole, or a loop over blocks of
  // `factor` consecutive values whose inside is unrolled.
  struct AxisPlan {
    int64_t factor = 0;  // 0: a loop; == extent: unrolled; else blocks of factor
  };

  std::vector<AxisPlan> plan_unroll(const ReduceNode *n, size_t lanes) {
    std::vector<AxisPlan> plan(n->axis.size());
    int64_t unrolled = static_cast<int64_t>(lanes);
    // Several phases per fragment share every fetch that does not move along the row:
    // their budget grows with them.
    const int64_t budget = max_unrolled_ * std::max<int64_t>(1, static_cast<int64_t>(lanes) / 4);
    for (size_t a = n->axis.size(); a-- > 0;) {
      const int64_t *ext = as_const_int(n->axis[a]->dom.extent);
      if (!ext || *ext <= 0) break;
      if (unrolled * *ext <= budget) {
        plan[a].factor = *ext;
        unrolled *= *ext;
        continue;
      }
      // Blocks of a multiple of 4 keep channel-aligned reads aligned.
      int64_t f = 0;
      for (int64_t k = 4; k < *ext && unrolled * k <= budget; k *= 2)
        if (*ext % k == 0) f = k;
      if (f > 0) plan[a].factor = f;
      break;
    }
    return plan;
  }

  // A reduction: accumulators at the identity, loops over the axes not unrolled, and in
  // the innermost loop, for each unrolled combination of the other axes in order (the
  // order of the sequential loops, so sums round alike), each lane's condition, sources
  // and combiner. All lanes share the loops; their reductions differ only in the
  // output indices substituted into them.
  std::vector<std::string> reduce_lanes(const std::vector<const ReduceNode *> &lanes) {
    const ReduceNode *n = lanes[0];
    const CommReducer &c = n->combiner;
    size_t values = n->source.size();
    std::vector<std::string> types;
    for (size_t v = 0; v < values; ++v) types.push_back(type_of(n->source[v]));
    std::vector<std::vector<std::string>> acc(lanes.size());
    bool conditional = n->condition.defined() && !is_const_true(n->condition);
    for (size_t l = 0; l < lanes.size(); ++l)
      for (size_t v = 0; v < values; ++v) {
        acc[l].push_back(fresh("acc"));
        line(types[v] + " " + acc[l][v] + " = " + expr(c->identity[v]) + ";");
      }
    std::vector<AxisPlan> plan = plan_unroll(n, lanes.size());
    // Each axis's value: its loop variable, or block base + offset of an unrolled combination.
    std::vector<Expr> base(n->axis.size());
    int opened = 0;
    for (size_t a = 0; a < n->axis.size(); ++a) {
      const IterVar &ax = n->axis[a];
      Expr lo = simp(ax->dom.min);
      const int64_t *ext = as_const_int(ax->dom.extent);
      if (plan[a].factor > 0 && ext && plan[a].factor == *ext) {
        base[a] = lo;
        continue;
      }
      int64_t f = plan[a].factor > 0 ? plan[a].factor : 1;
      std::string name = fresh(ax->var.name());
      std::string hi = f > 1 ? std::to_string(*ext / f) : expr(simp(ax->dom.extent));
      Var v = local(name, 0, f > 1 ? *ext / f : (ext ? *ext : 0));
      open_block("for (int " + name + " = 0; " + name + " < " + hi + "; ++" + name + ") {");
      ++opened;
      ++loop_depth_;
      base[a] = simplify(lo + v * static_cast<int>(f));
    }
    // Unrolled combinations, outer axes first.
    std::vector<std::vector<int64_t>> combos = {{}};
    for (size_t a = 0; a < n->axis.size(); ++a) {
      int64_t f = plan[a].factor > 0 ? plan[a].factor : 1;
      std::vector<std::vector<int64_t>> next;
      for (const auto &cmb : combos)
        for (int64_t k = 0; k < f; ++k) {
          next.push_back(cmb);
          next.back().push_back(k);
        }
      combos = std::move(next);
    }
    for (const auto &cmb : combos) {
      std::vector<std::pair<Var, Expr>> map;
      for (size_t a = 0; a < n->axis.size(); ++a) map.emplace_back(n->axis[a]->var, simplify(base[a] + static_cast<int>(cmb[a])));
      for (size_t l = 0; l < lanes.size(); ++l) {
        const ReduceNode *r = lanes[l];
        if (conditional) open_block("if (" + expr(simp(substitute(r->condition, map))) + ") {");
        std::vector<std::string> src, next;
        for (size_t v = 0; v < values; ++v) {
          src.push_back(fresh("src"));
          line(types[v] + " " + src[v] + " = " + expr(simp(substitute(r->source[v], map))) + ";");
        }
        for (size_t v = 0; v < values; ++v) {
          names_[c->lhs[v].get()] = acc[l][v];
          names_[c->rhs[v].get()] = src[v];
        }
        for (size_t v = 0; v < values; ++v) {
          next.push_back(fresh("next"));
          line(types[v] + " " + next[v] + " = " + expr(c->result[v]) + ";");
        }
        for (size_t v = 0; v < values; ++v) line(acc[l][v] + " = " + next[v] + ";");
        if (conditional) close_block();
      }
    }
    for (int a = 0; a < opened; ++a) close_block();
    loop_depth_ -= opened;
    std::vector<std::string> out;
    for (size_t l = 0; l < lanes.size(); ++l) out.push_back(acc[l][n->value_index]);
    return out;
  }

  const FragmentPlan &plan_;
  const TensorIndex &tensors_;
  std::string where_;
  int64_t max_unrolled_;
  std::unordered_map<const VarNode *, const FragmentUniform *> uniform_vars_;
  std::vector<Var> locals_;
  std::unordered_map<const VarNode *, std::string> names_;
  std::map<std::string, std::string> used_uniforms_;  // name -> GLSL type
  std::set<std::string> helpers_;
  std::vector<int> inputs_;
  VarRanges ranges_;  // of the shader's locals, where known
  // Texel fetches by their text, per open block (innermost last), and those asked for
  // since the last statement.
  std::vector<std::map<std::string, std::string>> fetch_scopes_;
  std::vector<std::string> pending_;
  int branch_depth_ = 0;
  int loop_depth_ = 0;     // reduction loops open around what is being emitted
  bool hoisting_ = false;  // emitting the text of a hoisted expression
  // Integer divisions of the output's indices alone, computed once after them.
  std::string prologue_;
  size_t prologue_at_ = std::string::npos;
  std::map<std::string, std::string> prologue_names_;
  std::set<const VarNode *> outer_vars_;
  const FragmentTensor *phase_tensor_ = nullptr;  // the first phase tensor, when there are some
  std::string body_;
  int indent_ = 1;
  int counter_ = 0;
};

}  // namespace

FragmentPass emit_fragment_pass(const FragmentPlan &plan, const TensorIndex &tensors,
                                const ComputeOpNode *op, int value_index, const Expr &body, int out,
                                const std::vector<int> &phases, int64_t max_unrolled) {
  return ShaderEmitter(plan, tensors, op, max_unrolled).run(op, value_index, body, out, phases);
}

}  // namespace tensorir::glsl
