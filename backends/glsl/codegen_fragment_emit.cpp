// One fragment pass as GLSL ES 3.00 text: the fragment's coordinate gives the output's
// flat index, which decomposes into the stage's axis values; the body is then written
// as expressions, with loops for reductions and texelFetch for tensor reads.
#include <cinttypes>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <functional>
#include <limits>
#include <sstream>

#include "glsl/codegen_fragment_emit.h"
#include "tensorir/ir/printer.h"
#include "tensorir/ir/visitor.h"

namespace tensorir::glsl {

std::string glsl_stem(const std::string &name) {
  std::string s;
  for (char c : name) {
    bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
    char out = ok ? c : '_';
    if (out == '_' && (s.empty() || s.back() == '_')) continue;  // "__" is reserved in GLSL
    s += out;
  }
  while (!s.empty() && s.back() == '_') s.pop_back();
  if (s.size() > 24) s.resize(24);
  while (!s.empty() && s.back() == '_') s.pop_back();
  // Reserved prefixes (gl_, webgl_) and names that start with a digit get a letter first.
  if (s.empty() || (s[0] >= '0' && s[0] <= '9') || s.rfind("gl", 0) == 0 || s.rfind("webgl", 0) == 0)
    s = "v" + s;
  return s;
}

std::string fragment_type(Type t, const std::string &where) {
  TIR_ASSERT(t.lanes() == 1) << where << ": vector type " << t << " in a tensor expression";
  if (t.is_bool()) return "bool";
  if (t.code() == Type::Float && t.bits() == 32) return "float";
  if (t.code() == Type::Int && (t.bits() == 32 || t.bits() == 64)) return "int";
  if (t.code() == Type::Float && t.bits() == 64)
    TIR_THROW() << where << ": float64 is not supported by WebGL/fragment targets; use float32";
  TIR_THROW() << where << ": type " << t
              << " is not supported by WebGL/fragment targets, which compute in float32, int32 and bool; "
                 "cast to one of those";
}

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

class ShaderEmitter {
 public:
  ShaderEmitter(const FragmentPlan &plan, const TensorIndex &tensors, const ComputeOpNode *op)
      : plan_(plan), tensors_(tensors), where_(plan.name + ": stage " + op->name) {
    for (const FragmentUniform &u : plan.uniforms)
      if (u.kind == FragmentUniform::Variable) uniform_vars_[u.var.get()] = &u;
  }

  FragmentPass run(const ComputeOpNode *op, int value_index, const Expr &body, int out) {
    const FragmentTensor &ot = plan_.tensors[out];
    std::string out_type = texel_type(ot);
    indent_ = 1;
    TIR_ASSERT(op->axis.size() == ot.shape.size()) << where_ << ": axis count";
    TIR_USER_CHECK(fragment_type(body.type(), where_) == scalar_type(ot))
        << where_ << ": the body has type " << body.type() << " but the tensor stores " << ot.dtype;
    std::vector<std::vector<std::string>> lane_axes = output_indices(ot, out);
    std::vector<std::string> values = lane_values(op, body, lane_axes);
    if (ot.packed) {
      std::string v;
      for (const std::string &x : values) v += (v.empty() ? "" : ", ") + x;
      line("result = " + out_type + "(" + v + ");");
    } else {
      line("result = " + values[0] + ";");
    }
    std::string main_body = std::move(body_);
    std::string loads = load_functions();  // marks the uniforms and helpers it uses

    std::ostringstream src;
    src << "#version 300 es\n"
        << "// " << plan_.name << ": computes " << ot.name;
    if (op->num_outputs() > 1) src << " (value " << value_index << " of " << op->name << ")";
    src << "\n"
        << "precision highp float;\nprecision highp int;\n"
        << "precision highp sampler2D;\nprecision highp isampler2D;\n";
    FragmentPass pass;
    pass.output = out;
    for (int t : inputs_) {
      const FragmentTensor &it = plan_.tensors[t];
      std::string sampler = "tex_" + it.ident;
      src << "uniform highp " << (it.dtype.is_float() ? "sampler2D " : "isampler2D ") << sampler << ";\n";
      pass.inputs.push_back(t);
      pass.sampler_names.push_back(sampler);
    }
    for (const auto &[name, type] : used_uniforms_) src << "uniform " << type << " " << name << ";\n";
    src << "layout(location = 0) out highp " << out_type << " result;\n";
    src << fragment_helpers(helpers_) << loads;
    src << "void main() {\n" << main_body << "}\n";
    pass.source = src.str();
    return pass;
  }

 private:
  // ------------------------------------------------------------ text and names
  void line(const std::string &s) { body_ += std::string(2 * indent_, ' ') + s + "\n"; }
  // Shader-local names end in "_l<k>"; plan identifiers end in "_<k>", so they never meet.
  std::string fresh(const std::string &stem) { return glsl_stem(stem) + "_l" + std::to_string(counter_++); }

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

  std::string numel_of(const std::vector<Expr> &shape) {
    int64_t n = 1;
    bool constant = true;
    for (const Expr &d : shape) {
      const int64_t *v = as_const_int(d);
      if (v) n *= *v;
      else constant = false;
    }
    if (constant) return std::to_string(n);
    std::string s;
    for (const Expr &d : shape) s += (s.empty() ? "" : " * ") + expr(d);
    return "(" + s + ")";
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

  // The shape of a tensor's texel grid: its shape, or for a packed tensor the shape with
  // a quarter of the last dimension. False when packed texels are simply flat.
  bool texel_shape(const FragmentTensor &t, std::vector<Expr> &out) {
    out = t.shape;
    if (!t.packed) return true;
    const int64_t *last = out.empty() ? nullptr : as_const_int(out.back());
    if (!last || *last % 4 != 0) return false;
    out.back() = IntImmNode::make(out.back().type(), *last / 4);
    return true;
  }

  // The first dimension of the trailing dimensions of the texel grid whose size is the
  // layout width (so a texel row is one trailing sub-tensor), or -1 when there is none.
  int row_split(const FragmentTensor &t) {
    std::vector<Expr> shape;
    if (t.const_width <= 0 || !texel_shape(t, shape)) return -1;
    int64_t p = 1;
    for (size_t d = shape.size(); d-- > 0;) {
      const int64_t *v = as_const_int(shape[d]);
      if (!v) return -1;
      p *= *v;
      if (p == t.const_width) return static_cast<int>(d);
      if (p > t.const_width) return -1;
    }
    return shape.empty() && t.const_width == 1 ? 0 : -1;
  }

  // Declares the output's axis indices for each lane (one lane, or four when packed)
  // from the fragment's coordinate; returns their names, per lane and axis.
  std::vector<std::vector<std::string>> output_indices(const FragmentTensor &ot, int out) {
    size_t n = ot.shape.size();
    std::vector<std::string> names;
    for (size_t d = 0; d < n; ++d) names.push_back(fresh("ax" + std::to_string(d)));
    int split = row_split(ot);
    if (split >= 0) {
      // Rows are whole trailing sub-tensors: x gives the inner axes, y the outer ones,
      // and every texel of the viewport holds elements only.
      std::vector<Expr> shape;
      texel_shape(ot, shape);
      std::vector<std::string> grid = names;
      if (ot.packed) grid.back() = fresh("quad");
      decompose("int(gl_FragCoord.x)", fresh("out_x"), grid, shape, split, n);
      decompose("int(gl_FragCoord.y)", fresh("out_y"), grid, shape, 0, split);
      if (!ot.packed) return {names};
      std::vector<std::vector<std::string>> lanes;
      for (int l = 0; l < 4; ++l) {
        std::vector<std::string> ln = names;
        ln.back() = fresh("ax" + std::to_string(n - 1));
        line("int " + ln.back() + " = " + grid.back() + " * 4 + " + std::to_string(l) + ";");
        lanes.push_back(ln);
      }
      return lanes;
    }
    // Texel (x, y) is number y * width + x; the last row may be partial.
    std::string texel = fresh("out_texel");
    line("int " + texel + " = int(gl_FragCoord.y) * " + width_of(out) + " + int(gl_FragCoord.x);");
    std::string numel = numel_of(ot.shape);
    if (!ot.packed) {
      line("if (" + texel + " >= " + numel + ") {");
      line(std::string("  result = ") + (scalar_type(ot) == "float" ? "0.0" : "0") + ";");
      line("  return;");
      line("}");
      decompose(texel, fresh("out_rest"), names, ot.shape, 0, n);
      return {names};
    }
    // Lanes past the end repeat the last element (and are never read back).
    std::vector<std::vector<std::string>> lanes;
    for (int l = 0; l < 4; ++l) {
      std::vector<std::string> ln;
      for (size_t d = 0; d < n; ++d) ln.push_back(fresh("ax" + std::to_string(d)));
      std::string e = fresh("out_elem");
      line("int " + e + " = min(" + texel + " * 4 + " + std::to_string(l) + ", " + numel + " - 1);");
      decompose(e, fresh("out_rest"), ln, ot.shape, 0, n);
      lanes.push_back(ln);
    }
    return lanes;
  }

  // The body's value for each lane. A reduction whose ranges do not depend on the
  // output's axes runs one loop nest for all lanes.
  std::vector<std::string> lane_values(const ComputeOpNode *op, const Expr &body,
                                       const std::vector<std::vector<std::string>> &lane_axes) {
    auto bind = [&](size_t l) {
      for (size_t d = 0; d < op->axis.size(); ++d) names_[op->axis[d].var().get()] = lane_axes[l][d];
    };
    std::vector<Var> axis_vars;
    for (const IterVar &ax : op->axis) axis_vars.push_back(ax.var());
    const ReduceNode *r = body.as<ReduceNode>();
    bool shared = r != nullptr && lane_axes.size() > 1;
    if (r)
      for (const IterVar &ax : r->axis)
        shared = shared && !uses_var(ax.dom().min, axis_vars) && !uses_var(ax.dom().extent, axis_vars);
    if (shared) return reduce_lanes(r, lane_axes.size(), bind);
    std::vector<std::string> values;
    for (size_t l = 0; l < lane_axes.size(); ++l) {
      bind(l);
      values.push_back(expr(body));
    }
    return values;
  }

  // Declares names[begin, end) as the row-major decomposition of `value` over those
  // dimensions, innermost first.
  void decompose(const std::string &value, const std::string &rest, const std::vector<std::string> &names,
                 const std::vector<Expr> &shape, size_t begin, size_t end) {
    if (begin == end) return;
    if (end - begin == 1) {
      line("int " + names[begin] + " = " + value + ";");
      return;
    }
    line("int " + rest + " = " + value + ";");
    for (size_t d = end; d-- > begin;) {
      if (d == begin) {
        line("int " + names[d] + " = " + rest + ";");
      } else {
        std::string dim = expr(shape[d]);
        line("int " + names[d] + " = " + rest + " % " + dim + ";");
        line(rest + " = " + rest + " / " + dim + ";");
      }
    }
  }

  // The row-major flat index of params[begin, end) over those dimensions.
  std::string flat_index(const std::vector<std::string> &params, const std::vector<Expr> &shape, size_t begin,
                         size_t end) {
    std::string flat;
    for (size_t d = begin; d < end; ++d)
      flat = d == begin ? params[d] : "(" + flat + ") * " + shape_dim(shape[d]) + " + " + params[d];
    return flat.empty() ? "0" : flat;
  }

  // One load function per input: the element's texel, straight from the indices when
  // rows are trailing sub-tensors, else through the flat index; a packed tensor's
  // element is then one channel of the texel.
  std::string load_functions() {
    std::string out;
    for (int t : inputs_) {
      const FragmentTensor &ft = plan_.tensors[t];
      std::vector<std::string> params;
      std::string decl;
      for (size_t d = 0; d < ft.shape.size(); ++d) {
        params.push_back(std::string("i").append(std::to_string(d)));
        decl.append(d ? ", int " : "int ").append(params.back());
      }
      out += scalar_type(ft) + " load_" + ft.ident + "(" + decl + ") {\n";
      std::string fetch = "  return texelFetch(tex_" + ft.ident + ", ";
      int split = row_split(ft);
      if (split >= 0) {
        std::vector<Expr> shape;
        texel_shape(ft, shape);
        std::vector<std::string> grid = params;
        std::string channel = ft.packed ? "[" + params.back() + " & 3]" : ".r";
        if (ft.packed) grid.back() = "(" + params.back() + " >> 2)";
        out += fetch + "ivec2(" + flat_index(grid, shape, split, grid.size()) + ", " +
               flat_index(grid, shape, 0, split) + "), 0)" + channel + ";\n";
      } else {
        std::string w = width_of(t);
        out += "  int f = " + flat_index(params, ft.shape, 0, params.size()) + ";\n";
        if (ft.packed) {
          out += "  int t = f >> 2;\n";
          out += fetch + "ivec2(t % " + w + ", t / " + w + "), 0)[f & 3];\n";
        } else {
          out += fetch + "ivec2(f % " + w + ", f / " + w + "), 0).r;\n";
        }
      }
      out += "}\n";
    }
    return out;
  }

  // A shape dimension as one expression (shapes never need statements).
  std::string shape_dim(const Expr &d) {
    std::string saved = std::move(body_);
    body_.clear();
    std::string s = expr(d);
    TIR_ASSERT(body_.empty()) << where_ << ": shape dimension " << to_string(d) << " needs statements";
    body_ = std::move(saved);
    return s;
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
    std::string v = expr(e);
    --indent_;
    std::string stmts = std::move(body_);
    body_ = std::move(saved);
    return {stmts, v};
  }

  std::string expr(const Expr &e) {
    TIR_ASSERT(e.defined()) << where_ << ": undefined expression";
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
        return helper("tir_floordiv", n->a, n->b);
      }
      case IRKind::Mod: {
        const auto *n = e.as<ModNode>();
        if (type_of(e) == "float") return helper("tir_fmod", n->a, n->b);
        return helper("tir_floormod", n->a, n->b);
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
      case IRKind::TensorLoad: {
        const auto *n = e.as<TensorLoadNode>();
        int t = tensor_of(n);
        const FragmentTensor &ft = plan_.tensors[t];
        TIR_ASSERT(n->args.size() == ft.shape.size()) << where_ << ": " << n->name << " read with "
                                                      << n->args.size() << " indices";
        std::string s = "load_" + ft.ident + "(";
        for (size_t i = 0; i < n->args.size(); ++i) s += (i ? ", " : "") + expr(n->args[i]);
        return s + ")";
      }
      case IRKind::Reduce: return reduce(e.as<ReduceNode>());
      default:
        TIR_THROW() << where_ << ": the expression `" << to_string(e)
                    << "` cannot be computed by a fragment shader (only tensor expressions can)";
    }
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
    arity(1);
    const Expr &x = n->args[0];
    if (f == "exp" || f == "log" || f == "sqrt" || f == "floor" || f == "ceil") return call(f.c_str(), x);
    if (f == "fabs") return call("abs", x);
    if (f == "rsqrt") return "(1.0 / " + call("sqrt", x) + ")";  // more accurate than inversesqrt
    if (f == "tanh") return helper("tir_tanh", x);
    if (f == "sigmoid") return helper("tir_sigmoid", x);
    if (f == "erf") return helper("tir_erf", x);
    TIR_THROW() << where_ << ": the intrinsic " << f << " is not supported by WebGL/fragment targets";
  }

  std::string reduce(const ReduceNode *n) { return reduce_lanes(n, 1, nullptr)[0]; }

  // Opens the loop over a reduction axis (closed by the caller).
  void open_loop(const IterVar &ax) {
    std::string name = fresh(ax.var().name());
    std::string lo = expr(ax.dom().min), ext = expr(ax.dom().extent);
    names_[ax.var().get()] = name;
    std::string hi = is_const_int(ax.dom().min, 0) ? ext : "(" + lo + " + " + ext + ")";
    line("for (int " + name + " = " + lo + "; " + name + " < " + hi + "; ++" + name + ") {");
    ++indent_;
  }

  // A reduction: accumulators at the identity, one loop per axis in order, the
  // condition as an `if`, and the combiner applied to (accumulators, sources). With
  // several lanes the loops are shared and `bind(l)` selects lane l's output indices.
  std::vector<std::string> reduce_lanes(const ReduceNode *n, size_t lanes, const std::function<void(size_t)> &bind) {
    const CommReducer &c = n->combiner;
    size_t values = n->source.size();
    std::vector<std::string> types;
    for (size_t v = 0; v < values; ++v) types.push_back(type_of(n->source[v]));
    std::vector<std::vector<std::string>> acc(lanes);
    for (size_t l = 0; l < lanes; ++l)
      for (size_t v = 0; v < values; ++v) {
        acc[l].push_back(fresh("acc"));
        line(types[v] + " " + acc[l][v] + " = " + expr(c->identity[v]) + ";");
      }
    for (const IterVar &ax : n->axis) open_loop(ax);
    bool conditional = n->condition.defined() && !is_const_true(n->condition);
    for (size_t l = 0; l < lanes; ++l) {
      if (bind) bind(l);
      if (conditional) {
        line("if (" + expr(n->condition) + ") {");
        ++indent_;
      }
      std::vector<std::string> src, next;
      for (size_t v = 0; v < values; ++v) {
        src.push_back(fresh("src"));
        line(types[v] + " " + src[v] + " = " + expr(n->source[v]) + ";");
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
      if (conditional) {
        --indent_;
        line("}");
      }
    }
    for (size_t a = 0; a < n->axis.size(); ++a) {
      --indent_;
      line("}");
    }
    std::vector<std::string> out;
    for (size_t l = 0; l < lanes; ++l) out.push_back(acc[l][n->value_index]);
    return out;
  }

  const FragmentPlan &plan_;
  const TensorIndex &tensors_;
  std::string where_;
  std::unordered_map<const VarNode *, const FragmentUniform *> uniform_vars_;
  std::unordered_map<const VarNode *, std::string> names_;
  std::map<std::string, std::string> used_uniforms_;  // name -> GLSL type
  std::set<std::string> helpers_;
  std::vector<int> inputs_;
  std::string body_;
  int indent_ = 1;
  int counter_ = 0;
};

}  // namespace

FragmentPass emit_fragment_pass(const FragmentPlan &plan, const TensorIndex &tensors,
                                const ComputeOpNode *op, int value_index, const Expr &body, int out) {
  return ShaderEmitter(plan, tensors, op).run(op, value_index, body, out);
}

}  // namespace tensorir::glsl
