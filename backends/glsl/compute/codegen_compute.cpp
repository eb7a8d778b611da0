// The compute shader printer: statements of a device kernel as GLSL 4.30, with shared
// arrays at global scope and barriers around the statements that fill them.
#include "backends/glsl/compute/codegen_compute.h"

#include <algorithm>
#include <sstream>
#include <unordered_set>

#include "backends/glsl/compute/codegen_compute_loops.h"
#include "backends/glsl/compute/codegen_compute_scan.h"
#include "backends/glsl/compute/codegen_compute_vector.h"
#include "backends/glsl/common/glsl_common.h"
#include "tensorir/arith/simplify.h"
#include "tensorir/error.h"
#include "tensorir/ir/op.h"
#include "tensorir/ir/printer.h"
#include "tensorir/ir/structural.h"
#include "tensorir/ir/visitor.h"

namespace tensorir::glsl {

using namespace compute_detail;

namespace {

enum class Storage { SSBO, Shared, Local };

// Pushes `v` (if any) for the lifetime of the object.
struct ScopedPush {
  std::vector<const VarNode *> &stack;
  bool pushed;
  ScopedPush(std::vector<const VarNode *> &s, const VarNode *v) : stack(s), pushed(v != nullptr) {
    if (pushed) stack.push_back(v);
  }
  ~ScopedPush() {
    if (pushed) stack.pop_back();
  }
};

struct BufferInfo {
  Storage storage = Storage::SSBO;
  Type elem;            // element type of the data
  std::string name;     // SSBO instance or array name
  bool packed = false;  // SSBO of 8/16-bit elements, stored in uint words
  int lanes = 0;        // OpenCL: > 0 for a private array of vectors of this many elements
};

const char *kGroupId[3] = {"gl_WorkGroupID.x", "gl_WorkGroupID.y", "gl_WorkGroupID.z"};
const char *kLocalId[3] = {"gl_LocalInvocationID.x", "gl_LocalInvocationID.y", "gl_LocalInvocationID.z"};
const char *kAxis[3] = {"x", "y", "z"};

// Which shared buffers a statement reads and writes (memoised per node).
class SharedAccess : public IRVisitor {
 public:
  explicit SharedAccess(const std::unordered_set<const VarNode *> &shared) : shared_(shared) {}
  bool reads = false, writes = false;
  using IRVisitor::visit;

 protected:
  void visit(const LoadNode *op) override {
    if (shared_.count(op->buffer.get())) reads = true;
    IRVisitor::visit(op);
  }
  void visit(const StoreNode *op) override {
    if (shared_.count(op->buffer.get())) writes = true;
    IRVisitor::visit(op);
  }

 private:
  const std::unordered_set<const VarNode *> &shared_;
};

class SharedFinder : public IRVisitor {
 public:
  std::unordered_set<const VarNode *> shared;
  using IRVisitor::visit;

 protected:
  void visit(const AllocateNode *op) override {
    if (op->scope == "shared") shared.insert(op->buffer.get());
    IRVisitor::visit(op);
  }
};

class ComputeCodegen : public ExprPrinter {
 public:
  ComputeCodegen(const DeviceKernel &k, const std::unordered_map<const VarNode *, Type> &types,
                 const ComputeLimits &limits)
      : ExprPrinter(limits.dialect, names_storage_), k_(k), types_(types), limits_(limits),
        cl_(limits.dialect == Dialect::OpenCL) {}

  ComputeShader run() {
    ComputeShader out;
    out.name = k_.name;
    LaunchShape shape = launch_shape(k_, limits_);
    for (int d = 0; d < 3; ++d) {
      out.local_size[d] = shape.local[d];
      out.group_count[d] = shape.groups[d];
    }
    shape_ = shape;
    loops_ = plan_loops(k_, shape, limits_.loop_limit);
    if (const int64_t *n = loops_.passes.defined() ? as_const_int(loops_.passes) : nullptr) {
      TIR_USER_CHECK(within_loop_limit(*n, limits_.loop_limit))
          << loop_limit_message(k_.name, *n, limits_)
          << (loops_.copies.empty() ? "" : " (that count is with loop bodies printed up to " +
                                               std::to_string(kMaxLoopCopies) + " times per pass)");
    }
    out.loop_passes = loops_.passes;
    SharedFinder sf;
    sf.visit(k_.body);
    shared_ = sf.shared;

    KernelInputs in = kernel_inputs(k_);
    declare_buffers(in.buffers, out);
    declare_uniforms(in.scalars, out);

    // Leading thread indices: one variable each at the top of main().
    for (const ThreadExtent &t : k_.threads) {
      int slot = thread_slot(t.tag);
      std::string name = names_.get(t.var.get());
      nonneg_.insert(t.var.get());
      line(type(t.var.type(), "thread index " + t.tag) + " " + name + " = " + cast_index(t.var.type(), slot) + ";");
      if (slot >= 3) {
        varying_.insert(t.var.get());
        threads_in_scope_.push_back(t.var.get());
      }
    }
    seq({k_.body}, true);
    if (cl_) return opencl_kernel(shape, std::move(out));

    std::ostringstream src;
    src << "#version 430\n";
    if (uses_int64()) {
      TIR_USER_CHECK(limits_.int64) << "kernel '" << k_.name
                                    << "' uses 64-bit integers, which this OpenGL driver does not support "
                                       "(no GL_ARB_gpu_shader_int64); use int32";
      src << "#extension GL_ARB_gpu_shader_int64 : require\n";
    }
    src << "// kernel " << k_.name << "\n";
    src << "layout(local_size_x = " << shape.local[0] << ", local_size_y = " << shape.local[1]
        << ", local_size_z = " << shape.local[2] << ") in;\n";
    src << decls_.str();
    if (uses_group_offset_) {
      out.group_offset_uniform = "tir_group_offset";
      src << "uniform ivec3 tir_group_offset;\n";
    }
    for (const VarNode *node : shared_order_) src << shared_decls_[node] << "\n";
    src << helper_functions();
    src << "void main() {\n" << body_.str() << "}\n";
    out.source = src.str();
    return out;
  }

 private:
  // The kernel function in OpenCL C: buffers then scalars as arguments, the launch's
  // work-group size required, __local arrays at the top of the body.
  ComputeShader opencl_kernel(const LaunchShape &shape, ComputeShader out) {
    TIR_USER_CHECK(!uses_float64() || limits_.float64)
        << "kernel '" << k_.name << "' uses float64, which the OpenCL device '" << limits_.device_name
        << "' does not support (no cl_khr_fp64); cast to float32, or choose another device with -device=N";
    out.name = names_.fresh(k_.name);  // an identifier: the name the runtime looks the kernel up by
    std::ostringstream src;
    src << "// kernel " << k_.name << "\n";
    src << "__kernel __attribute__((reqd_work_group_size(" << shape.local[0] << ", " << shape.local[1] << ", "
        << shape.local[2] << ")))\nvoid " << out.name << "(";
    for (size_t i = 0; i < cl_params_.size(); ++i) src << (i ? ",\n    " : "") << cl_params_[i];
    src << ") {\n";
    for (const VarNode *node : shared_order_) src << "  " << shared_decls_[node] << "\n";
    src << body_.str() << "}\n";
    out.source = src.str();
    out.helpers = helpers_;
    out.float64 = uses_float64();
    return out;
  }

  // ------------------------------------------------------------ declarations
  void declare_buffers(const std::vector<Var> &handles, ComputeShader &out) {
    TIR_USER_CHECK(static_cast<int>(handles.size()) <= limits_.max_storage_buffers)
        << "kernel '" << k_.name << "' uses " << handles.size() << " buffers, more than the "
        << limits_.max_storage_buffers << " storage buffers this device allows in one shader; split the "
        << "computation into more stages (compute_root) or inline fewer tensors";
    for (const Var &h : handles) {
      auto it = types_.find(h.get());
      TIR_ASSERT(it != types_.end()) << "kernel '" << k_.name << "' uses buffer '" << h.name()
                                     << "', which is neither an argument nor a temporary";
      BufferInfo b;
      b.elem = it->second;
      b.name = names_.get(h.get());
      b.packed = !cl_ && (is_narrow_int(b.elem) || b.elem.is_bool());
      int binding = static_cast<int>(out.buffers.size());
      if (cl_) {
        type(b.elem, "buffer '" + h.name() + "'");  // checks the type, notes float64 and int64
        // restrict: arguments do not alias (as on the CPU).
        cl_params_.push_back("__global " + opencl_storage_type(b.elem, "buffer '" + h.name() + "'") +
                             " *restrict " + b.name);
        buffers_[h.get()] = b;
        out.buffers.push_back(h);
        continue;
      }
      std::string elem = b.packed ? "uint" : type(b.elem, "buffer '" + h.name() + "'");
      // restrict: arguments do not alias (as on the CPU), so values can stay in registers.
      decls_ << "layout(std430, binding = " << binding << ") restrict buffer tir_buffer_" << binding << " { " << elem
             << " data[]; } " << b.name << ";\n";
      buffers_[h.get()] = b;
      out.buffers.push_back(h);
    }
  }

  void declare_uniforms(const std::vector<Var> &scalars, ComputeShader &out) {
    for (const Var &v : scalars) {
      std::string name = names_.get(v.get());
      if (cl_)  // a kernel takes no bool: a byte, read as a truth value
        cl_params_.push_back((v.type().is_bool() ? "uchar" : type(v.type(), "scalar '" + v.name() + "'")) + " " + name);
      else
        decls_ << "uniform " << type(v.type(), "scalar '" + v.name() + "'") << " " << name << ";\n";
      out.uniforms.push_back(v);
      out.uniform_names.push_back(name);
    }
  }

  // gl_WorkGroupID (plus the launch's offset) or gl_LocalInvocationID as `t`.
  std::string cast_index(Type t, int slot) {
    std::string v;
    if (cl_) {  // NDRanges take any number of groups: no offset
      v = std::string("(int)") + (slot < 3 ? "get_group_id(" : "get_local_id(") + std::to_string(slot % 3) + ")";
    } else if (slot < 3) {
      uses_group_offset_ = true;
      v = "(int(" + std::string(kGroupId[slot]) + ") + tir_group_offset." + kAxis[slot] + ")";
    } else {
      v = "int(" + std::string(kLocalId[slot - 3]) + ")";
    }
    return t == Int(32) ? v : convert(t, v);
  }

  // ------------------------------------------------------------ output
  void line(const std::string &s) { body_ << std::string(static_cast<size_t>(2 * depth_), ' ') << s << "\n"; }
  void open(const std::string &s) {
    line(s.empty() ? "{" : s + " {");
    ++depth_;
  }
  void close() {
    --depth_;
    line("}");
  }
  void barrier() {
    if (last_barrier_) return;
    if (cl_) {
      line("barrier(CLK_LOCAL_MEM_FENCE);");
    } else {
      line("memoryBarrierShared();");
      line("barrier();");
    }
    last_barrier_ = true;
  }

  // Prints the expressions of one statement; Let bindings they contain go to `pre`, which
  // the caller emits first inside a block of its own.
  struct Pre {
    std::vector<std::string> lines;
  };
  std::string expr(const Expr &e, Pre &pre) {
    set_prelude(&pre.lines);
    std::string s = print(e);
    set_prelude(nullptr);
    return s;
  }
  bool open_pre(const Pre &pre) {
    if (pre.lines.empty()) return false;
    open("");
    for (const std::string &l : pre.lines) line(l);
    return true;
  }

  // ------------------------------------------------------------ uniformity
  bool varying(const Expr &e) {
    struct Finder : IRVisitor {
      std::unordered_set<const VarNode *> &vary;
      bool found = false;
      explicit Finder(std::unordered_set<const VarNode *> &v) : vary(v) {}
      using IRVisitor::visit;
      void visit(const VarNode *op) override { found = found || vary.count(op); }
      void visit(const LetNode *op) override {
        Finder f(vary);
        f.visit(op->value);
        if (f.found) vary.insert(op->var.get());
        IRVisitor::visit(op);
      }
    } f(varying_);
    f.visit(e);
    return f.found;
  }

  SharedAccess access(const Stmt &s) {
    auto it = access_.find(s.get());
    if (it != access_.end()) return it->second;
    SharedAccess a(shared_);
    a.visit(s);
    access_.emplace(s.get(), a);
    return a;
  }

  // Statements that every invocation of a group runs alike when their parent does, and
  // that can hold barriers inside.
  bool uniform_container(const Stmt &s) {
    switch (s->kind) {
      case IRKind::Block:
      case IRKind::LetStmt:
      case IRKind::Allocate:
      case IRKind::AssertStmt: return true;
      case IRKind::For: {
        const auto *f = s.as<ForNode>();
        return !varying(f->min) && !varying(f->extent);
      }
      case IRKind::IfThenElse: return !varying(s.as<IfThenElseNode>()->condition);
      case IRKind::AttrStmt: {
        const auto *a = s.as<AttrStmtNode>();
        return a->key != "thread_extent" || thread_attr_is_alias(a);
      }
      default: return false;
    }
  }

  // A list of statements. At a uniform level, a statement that writes a shared array is
  // fenced by barriers: before it (earlier reads are done) and after it (its writes are
  // seen). One that also reads shared arrays is entered instead, when it can hold
  // barriers, so that the fences fall between its own parts.
  void seq(const std::vector<Stmt> &list, bool uniform) {
    std::vector<Stmt> flat;
    for (const Stmt &s : list) {
      if (!s.defined()) continue;
      if (const auto *b = s.as<BlockNode>())
        flat.insert(flat.end(), b->stmts.begin(), b->stmts.end());
      else
        flat.push_back(s);
    }
    for (const Stmt &s : flat) {
      if (!uniform || shared_.empty()) {
        stmt(s, uniform);
        continue;
      }
      SharedAccess a = access(s);
      if (!a.writes) {
        stmt(s, uniform);
      } else if (a.reads && uniform_container(s)) {
        stmt(s, true);
      } else {  // fenced as a whole: no barriers inside
        barrier();
        stmt(s, false);
        barrier();
      }
    }
  }

  // ------------------------------------------------------------ statements
  void stmt(const Stmt &s, bool uniform) {
    switch (s->kind) {
      case IRKind::Block: seq({s}, uniform); return;
      case IRKind::LetStmt: return let_stmt(s.as<LetStmtNode>(), uniform);
      case IRKind::AttrStmt: return attr(s.as<AttrStmtNode>(), uniform);
      case IRKind::AssertStmt: return seq({s.as<AssertStmtNode>()->body}, uniform);  // no way to fail on the device
      case IRKind::For: return for_loop(s.as<ForNode>(), uniform);
      case IRKind::Store: return store(s.as<StoreNode>());
      case IRKind::Allocate: return allocate(s.as<AllocateNode>(), uniform);
      case IRKind::IfThenElse: return if_then_else(s.as<IfThenElseNode>(), uniform);
      case IRKind::Evaluate: return evaluate(s.as<EvaluateNode>());
      default: TIR_ASSERT(false) << "statement reached GLSL code generation: " << s;
    }
  }

  void let_stmt(const LetStmtNode *op, bool uniform) {
    TIR_USER_CHECK(op->value.type().is_scalar())
        << "vectorize is not supported by the opengl target for this loop (vector variable '" << op->var.name()
        << "'); remove s[T].vectorize(...) when building for opengl";
    Pre pre;
    std::string value = expr(op->value, pre);
    if (varying(op->value)) varying_.insert(op->var.get());
    if (known_nonneg(op->value)) nonneg_.insert(op->var.get());
    open("");
    for (const std::string &l : pre.lines) line(l);
    std::string name = names_.get(op->var.get());
    line(type(op->var.type(), "variable '" + op->var.name() + "'") + " " + name + " = " + value + ";");
    last_barrier_ = false;
    seq({op->body}, uniform);
    close();
  }

  // Inner thread_extent: the loop runs across the invocations (or groups) of its index.
  bool thread_attr_is_alias(const AttrStmtNode *a) const { return thread_loop_kind(a, shape_) == ThreadLoop::Alias; }

  void attr(const AttrStmtNode *op, bool uniform) {
    if (op->key != "thread_extent") return seq({op->body}, uniform);
    const auto *iv = static_cast<const IterVarNode *>(op->node.get());
    int slot = thread_slot(iv->thread_tag);
    Type t = iv->var.type();
    std::string tname = type(t, "thread index " + iv->thread_tag);
    std::string name = names_.get(iv->var.get());
    std::string index = cast_index(t, slot);
    nonneg_.insert(iv->var.get());
    if (slot >= 3) varying_.insert(iv->var.get());
    last_barrier_ = false;
    ScopedPush in_scope(threads_in_scope_, slot >= 3 ? iv->var.get() : nullptr);
    if (thread_attr_is_alias(op)) {
      open("");
      line(tname + " " + name + " = " + index + ";");
      seq({op->body}, uniform);
      close();
      return;
    }
    Pre pre;
    std::string extent = expr(op->value, pre);
    bool scoped = open_pre(pre);
    if (thread_loop_kind(op, shape_) == ThreadLoop::Guard) {  // fewer iterations than invocations: the rest skip it
      open("if (" + index + " < " + extent + ")");
      line(tname + " " + name + " = " + index + ";");
    } else {  // more: each invocation takes every n-th
      Pre step_pre;
      std::string step = slot >= 3 ? std::to_string(shape_.local[slot - 3]) : expr(shape_.groups[slot], step_pre);
      TIR_ASSERT(step_pre.lines.empty()) << "let in a launch extent";
      if (t != Int(32)) step = tname + "(" + step + ")";
      open("for (" + tname + " " + name + " = " + index + "; " + name + " < " + extent + "; " + name + " += " + step +
           ")");
    }
    seq({op->body}, false);
    close();
    if (scoped) close();
  }

  void for_loop(const ForNode *op, bool uniform) {
    Pre pre;
    std::string min = expr(op->min, pre);
    std::string ext = expr(op->extent, pre);
    bool vary = varying(op->min) || varying(op->extent);
    if (vary) varying_.insert(op->loop_var.get());
    bool scoped = open_pre(pre);
    Type t = op->loop_var.type();
    std::string tname = type(t, "loop variable '" + op->loop_var.name() + "'");
    std::string v = names_.get(op->loop_var.get());
    std::string end;
    const int64_t *cmin = as_const_int(op->min), *cext = as_const_int(op->extent);
    if (known_nonneg(op->min)) nonneg_.insert(op->loop_var.get());
    if (auto copies = loops_.copies.find(op); copies != loops_.copies.end() && cext) {
      unrolled_loop(op, min, *cext, copies->second, uniform && !vary);
      if (scoped) close();
      return;
    }
    if (cmin && cext) {
      end = int_literal(t, *cmin + *cext);
      open("for (" + tname + " " + v + " = " + min + "; " + v + " < " + end + "; ++" + v + ")");
    } else {
      // The bound is computed once, as the IR's loop does.
      std::string end_name = names_.fresh(op->loop_var.name() + "_end");
      std::string bound = is_const_int(op->min, 0) ? ext : "(" + min + " + " + ext + ")";
      open("for (" + tname + " " + v + " = " + min + ", " + end_name + " = " + bound + "; " + v + " < " + end_name +
           "; ++" + v + ")");
    }
    last_barrier_ = false;
    seq({op->body}, uniform && !vary);
    close();
    if (scoped) close();
  }

  // A loop of `extent` iterations from `min` as rounds of `copies` bodies, then the rest
  // of the bodies one after the other (all of them when there is a single round): fewer
  // loop passes for llvmpipe's limit (ComputeLimits::loop_limit).
  void unrolled_loop(const ForNode *op, const std::string &min, int64_t extent, int64_t copies, bool uniform) {
    Type t = op->loop_var.type();
    std::string tname = type(t, "loop variable '" + op->loop_var.name() + "'");
    std::string v = names_.get(op->loop_var.get());
    std::string base = names_.fresh(op->loop_var.name() + "_base");
    int64_t rounds = extent / copies;
    if (rounds <= 1) rounds = 0, copies = 0;  // unrolled whole
    open("");
    // A shader invocation may run only so many loop passes.
    line("// loop " + op->loop_var.name() +
         (copies > 0 ? ": " + std::to_string(copies) + " bodies per pass" : ": unrolled whole"));
    line(tname + " " + base + " = " + min + ";");
    auto body = [&](const std::string &value) {
      open("");
      line(tname + " " + v + " = " + value + ";");
      last_barrier_ = false;
      seq({op->body}, uniform);
      close();
    };
    if (rounds > 0) {
      std::string outer = names_.fresh(op->loop_var.name() + "_round");
      open("for (" + tname + " " + outer + " = " + base + "; " + outer + " < " + base + " + " +
           int_literal(t, rounds * copies) + "; " + outer + " += " + int_literal(t, copies) + ")");
      for (int64_t c = 0; c < copies; ++c) body(c == 0 ? outer : outer + " + " + int_literal(t, c));
      close();
    }
    for (int64_t c = rounds * copies; c < extent; ++c) body(c == 0 ? base : base + " + " + int_literal(t, c));
    last_barrier_ = false;
    close();
  }

  void if_then_else(const IfThenElseNode *op, bool uniform) {
    Pre pre;
    std::string cond = expr(op->condition, pre);
    bool scoped = open_pre(pre);
    bool inner_uniform = uniform && !varying(op->condition);
    last_barrier_ = false;
    std::vector<const VarNode *> cond_vars = vars_of(op->condition);
    size_t guards = guard_vars_.size();
    guard_vars_.insert(guard_vars_.end(), cond_vars.begin(), cond_vars.end());
    open("if (" + cond + ")");
    seq({op->then_case}, inner_uniform);
    if (op->else_case.defined()) {
      --depth_;
      line("} else {");
      ++depth_;
      last_barrier_ = false;
      seq({op->else_case}, inner_uniform);
    }
    close();
    if (scoped) close();
    guard_vars_.resize(guards);
    last_barrier_ = false;
  }

  void evaluate(const EvaluateNode *op) {
    if (!op->value.as<CallNode>()) return;  // a constant: nothing to do
    Pre pre;
    std::string v = expr(op->value, pre);
    bool scoped = open_pre(pre);
    line(v + ";");
    if (scoped) close();
    last_barrier_ = false;
  }

  void allocate(const AllocateNode *op, bool uniform) {
    int64_t n = 1;
    for (const Expr &e : op->extents) {
      const int64_t *c = as_const_int(e);
      TIR_USER_CHECK(c != nullptr) << "kernel '" << k_.name << "': buffer '" << op->buffer.name() << "' (scope "
                                   << op->scope << ") has the non-constant size " << e
                                   << "; arrays in a shader need constant sizes: split the loops it is "
                                      "computed in by constant factors";
      n *= *c;
    }
    n = std::max<int64_t>(n, 1);
    BufferInfo b;
    b.storage = op->scope == "shared" ? Storage::Shared : Storage::Local;
    b.elem = op->type;
    std::string elem = type(op->type, "buffer '" + op->buffer.name() + "'");
    if (b.storage == Storage::Shared) {
      auto it = buffers_.find(op->buffer.get());
      if (it == buffers_.end()) {
        b.name = names_.get(op->buffer.get());
        buffers_[op->buffer.get()] = b;
        shared_order_.push_back(op->buffer.get());
      }
      outer_threads_[op->buffer.get()] = threads_in_scope_;
      int64_t &size = shared_size_[op->buffer.get()];
      size = std::max(size, n);
      shared_decls_[op->buffer.get()] = (cl_ ? "__local " : "shared ") + elem + " " + buffers_[op->buffer.get()].name + "[" +
                                        std::to_string(size) + "];";
      int64_t total = 0;
      for (const auto &[node, count] : shared_size_) total += count * std::max(4, buffers_[node].elem.bytes());
      TIR_USER_CHECK(total <= limits_.max_shared_bytes)
          << "kernel '" << k_.name << "' needs " << total << " bytes of shared memory (buffer '" << op->buffer.name()
          << "' has " << n << " elements); this device allows " << limits_.max_shared_bytes
          << ": use smaller tiles";
      seq({op->body}, uniform);
      return;
    }
    // One array per invocation, in the scope of its body.
    b.name = names_.fresh(op->buffer.name());
    const int lanes = cl_ ? whole_vector_lanes(op->body, op->buffer.get()) : 0;
    if (lanes > 0 && n % lanes == 0 && opencl_vector_type(op->type.with_lanes(lanes))) {
      b.lanes = lanes;
      elem = type(op->type.with_lanes(lanes), "buffer '" + op->buffer.name() + "'");
      n /= lanes;
    }
    auto saved = buffers_.find(op->buffer.get());
    bool had = saved != buffers_.end();
    BufferInfo old = had ? saved->second : BufferInfo{};
    buffers_[op->buffer.get()] = b;
    open("");
    line(elem + " " + b.name + "[" + std::to_string(n) + "];");
    seq({op->body}, uniform);
    close();
    if (had)
      buffers_[op->buffer.get()] = old;
    else
      buffers_.erase(op->buffer.get());
  }

  static std::vector<const VarNode *> vars_of(const Expr &e) {
    struct Finder : IRVisitor {
      std::vector<const VarNode *> vars;
      using IRVisitor::visit;
      void visit(const VarNode *op) override { vars.push_back(op); }
    } f;
    f.visit(e);
    return f.vars;
  }

  // Every invocation of a group shares one copy of a shared array. A store whose value
  // depends on a thread index that encloses the array's allocation, but whose address
  // does not, has the invocations write different values to the same element: the stage
  // was computed inside thread-bound loops, and its region is one invocation's, not the
  // group's.
  void check_shared_store(const StoreNode *op) {
    auto outer = outer_threads_.find(op->buffer.get());
    if (outer == outer_threads_.end()) return;
    std::vector<const VarNode *> in_index = vars_of(op->index);
    for (const VarNode *v : vars_of(op->value)) {
      bool enclosing = std::find(outer->second.begin(), outer->second.end(), v) != outer->second.end();
      bool addressed = std::find(in_index.begin(), in_index.end(), v) != in_index.end();
      bool guarded = std::find(guard_vars_.begin(), guard_vars_.end(), v) != guard_vars_.end();
      TIR_USER_CHECK(!enclosing || addressed || guarded)
          << "kernel '" << k_.name << "': shared buffer '" << op->buffer.name() << "' is filled inside the loop "
          << "bound to " << v->name << ", so every invocation of a work group would write its own values "
          << "into the one shared copy; compute the stage at a loop outside the threadIdx-bound loops "
          << "(e.g. reorder the reduction's outer loop before them)";
    }
  }

  const BufferInfo &buffer(const Var &v) const {
    auto it = buffers_.find(v.get());
    TIR_ASSERT(it != buffers_.end()) << "kernel '" << k_.name << "': buffer '" << v.name() << "' is not declared";
    return it->second;
  }

  // Array indices are int in GLSL.
  std::string index_of(const Expr &index, Pre &pre) {
    std::string s = expr(index, pre);
    if (index.type().bits() == 64 && !cl_) return "int(" + s + ")";
    return s;
  }

  // Element `idx` of a buffer, as an lvalue.
  std::string element(const BufferInfo &b, const std::string &idx) {
    if (b.lanes > 0) return "((" + type(b.elem, "an element") + " *)" + b.name + ")[" + idx + "]";
    return b.storage == Storage::SSBO && !cl_ ? b.name + ".data[" + idx + "]" : b.name + "[" + idx + "]";
  }

  // N consecutive elements of `b` from `base` (a vector type's worth), as an rvalue or,
  // with `value`, a statement storing it. Let bindings go to the current prelude.
  std::string vector_access(const BufferInfo &b, const Expr &base, int lanes, const std::string &value = "") {
    if (b.lanes > 0) {  // an array of vectors: base is a multiple of the lanes
      std::string at = b.name + "[" + print(simplify(floordiv(base, make_const(base.type(), lanes)))) + "]";
      return value.empty() ? at : at + " = " + value + ";";
    }
    std::string ptr = b.name + " + " + print(base), n = std::to_string(lanes);
    return value.empty() ? "vload" + n + "(0, " + ptr + ")" : "vstore" + n + "(" + value + ", 0, " + ptr + ");";
  }

  void store(const StoreNode *op) {
    if (cl_ && opencl_vector_type(op->value.type()) && unit_ramp_base(op->index).defined()) {
      const BufferInfo &b = buffer(op->buffer);
      if (!b.packed && b.elem == op->value.type().element_of()) return vector_store(op, b);
    }
    if (op->value.type().is_vector() || op->index.type().is_vector()) {
      int lanes = std::max(op->value.type().lanes(), op->index.type().lanes());
      for (int l = 0; l < lanes; ++l) {
        Stmt s = StoreNode::make(op->buffer, lane_of(op->value, l), lane_of(op->index, l));
        store(s.as<StoreNode>());
      }
      return;
    }
    const BufferInfo &b = buffer(op->buffer);
    if (b.storage == Storage::Shared) check_shared_store(op);
    Pre pre;
    std::string idx = index_of(op->index, pre);
    std::string value = expr(op->value, pre);
    last_barrier_ = false;
    if (b.packed) {  // 8/16-bit elements: rewrite the element's bits of its word atomically
      int bits = b.elem.is_bool() ? 8 : b.elem.bits();
      int per_word = 32 / bits;
      std::string i = names_.fresh("i"), sh = names_.fresh("shift"), v = names_.fresh("v");
      open("");
      for (const std::string &l : pre.lines) line(l);
      line("int " + i + " = " + idx + ";");
      // The value first: it may read the element the next line clears (an accumulator).
      line("uint " + v + " = uint(" + value + ");");
      line("uint " + sh + " = uint((" + i + " & " + std::to_string(per_word - 1) + ") * " + std::to_string(bits) + ");");
      std::string mask = bits == 8 ? "0xffu" : "0xffffu";
      std::string word = b.name + ".data[" + i + " >> " + std::to_string(bits == 8 ? 2 : 1) + "]";
      line("atomicAnd(" + word + ", ~(" + mask + " << " + sh + "));");
      line("atomicOr(" + word + ", (" + v + " & " + mask + ") << " + sh + ");");
      close();
      return;
    }
    bool scoped = open_pre(pre);
    std::string target = element(b, idx);
    std::string elem = type(b.elem, "buffer '" + op->buffer.name() + "'");
    if (op->value.type() != b.elem) value = convert_text(dialect_, elem, value);
    if (cl_ && b.storage == Storage::SSBO && (b.elem.is_bool() || is_narrow_int(b.elem)))
      value = convert_text(dialect_, opencl_storage_type(b.elem, "a store"), value);
    line(target + " = " + value + ";");
    if (scoped) close();
  }

  // OpenCL C: consecutive elements stored at once (vstoreN, or one element of an array of
  // vectors).
  void vector_store(const StoreNode *op, const BufferInfo &b) {
    if (b.storage == Storage::Shared) check_shared_store(op);
    Pre pre;
    set_prelude(&pre.lines);
    std::string value = print(op->value);
    std::string s = vector_access(b, unit_ramp_base(op->index), op->value.type().lanes(), value);
    set_prelude(nullptr);
    last_barrier_ = false;
    bool scoped = open_pre(pre);
    line(s);
    if (scoped) close();
  }

 protected:
  // OpenCL C: vector arithmetic, vloadN for consecutive elements, conversions and the
  // built-ins as such; any other vector expression is built lane by lane.
  std::string vector(const Expr &e) override {
    const Type t = e.type();
    if (!opencl_vector_type(t)) return ExprPrinter::vector(e);
    const std::string vt = type(t, "a vector");
    auto bin = [&](const char *op, const Expr &a, const Expr &b) { return "(" + print(a) + op + print(b) + ")"; };
    switch (e->kind) {
      case IRKind::Broadcast: return "((" + vt + ")(" + print(e.as<BroadcastNode>()->value) + "))";
      case IRKind::Add: return bin(" + ", e.as<AddNode>()->a, e.as<AddNode>()->b);
      case IRKind::Sub: return bin(" - ", e.as<SubNode>()->a, e.as<SubNode>()->b);
      case IRKind::Mul: return bin(" * ", e.as<MulNode>()->a, e.as<MulNode>()->b);
      case IRKind::Div:
        if (t.is_float()) return bin(" / ", e.as<DivNode>()->a, e.as<DivNode>()->b);
        break;  // floor division: lane by lane
      case IRKind::Min: return "min(" + print(e.as<MinNode>()->a) + ", " + print(e.as<MinNode>()->b) + ")";
      case IRKind::Max: return "max(" + print(e.as<MaxNode>()->a) + ", " + print(e.as<MaxNode>()->b) + ")";
      case IRKind::Cast:
        if (opencl_vector_type(e.as<CastNode>()->value.type()))
          return "convert_" + vt + "(" + print(e.as<CastNode>()->value) + ")";
        break;
      case IRKind::Select: {
        // One condition for every lane (a padded read's bounds): a scalar ?: of whole
        // vectors, instead of a vector built lane by lane, which the driver's compiler
        // takes minutes over in an unrolled transform.
        const auto *sel = e.as<SelectNode>();
        const auto *cond = sel->condition.as<BroadcastNode>();
        if (cond || sel->condition.type().is_scalar())
          return "(" + print(cond ? cond->value : sel->condition) + " ? " + print(sel->true_value) + " : " +
                 print(sel->false_value) + ")";
        break;
      }
      case IRKind::Load: {
        const auto *l = e.as<LoadNode>();
        const BufferInfo &b = buffer(l->buffer);
        const Expr base = unit_ramp_base(l->index);
        if (base.defined() && !b.packed && b.elem == t.element_of()) return vector_access(b, base, t.lanes());
        break;
      }
      case IRKind::Call: {
        const auto *c = e.as<CallNode>();
        static const std::set<std::string> overloaded = {"fma", "exp", "log", "sqrt", "fabs", "floor", "ceil", "tanh"};
        if (t.is_float() && c->call_type != CallNode::Extern && overloaded.count(c->name)) {
          std::vector<std::string> args;
          for (const Expr &a : c->args) args.push_back(print(a));
          return call_opencl(c, args);
        }
        break;
      }
      default: break;
    }
    std::string lanes;
    for (int l = 0; l < t.lanes(); ++l) lanes += (l ? ", " : "") + print(lane_of(e, l));
    return "((" + vt + ")(" + lanes + "))";
  }

  std::string load(const LoadNode *op) override {
    TIR_USER_CHECK(op->index.type().is_scalar())
        << "vectorize is not supported by the opengl target here (vector load of '" << op->buffer.name()
        << "'); remove s[T].vectorize(...) when building for opengl";
    const BufferInfo &b = buffer(op->buffer);
    std::string idx = print(op->index);
    if (op->index.type().bits() == 64 && !cl_) idx = "int(" + idx + ")";
    std::string value;
    if (b.packed) {
      int bits = b.elem.is_bool() ? 8 : b.elem.bits();
      int per_word = 32 / bits;
      std::string i = idx;
      if (prelude_ && !op->index.as<VarNode>() && !op->index.as<IntImmNode>()) {
        i = names_.fresh("i");
        prelude_->push_back("int " + i + " = " + idx + ";");
      }
      std::string word = b.name + ".data[" + i + " >> " + std::to_string(bits == 8 ? 2 : 1) + "]";
      std::string offset = "((" + i + " & " + std::to_string(per_word - 1) + ") * " + std::to_string(bits) + ")";
      if (b.elem.is_int())
        value = "bitfieldExtract(int(" + word + "), " + offset + ", " + std::to_string(bits) + ")";
      else
        value = "bitfieldExtract(" + word + ", " + offset + ", " + std::to_string(bits) + ")";
      if (b.elem.is_bool()) value = "(" + value + " != 0u)";
    } else {
      value = element(b, idx);
      if (cl_ && b.elem.is_bool() && b.storage == Storage::SSBO) value = "(" + value + " != 0)";
    }
    if (op->type != b.elem) value = cast_text(op->type, b.elem, value);
    return value;
  }

 private:
  std::string cast_text(Type to, Type from, const std::string &v) {
    if (to.is_bool())
      return "(" + v + " != " + (from.is_float() ? float_literal(from, 0, dialect_) : int_literal(from, 0)) + ")";
    return convert_text(dialect_, type(to, "a load"), v);
  }

  NameTable names_storage_;
  const DeviceKernel &k_;
  const std::unordered_map<const VarNode *, Type> &types_;
  ComputeLimits limits_;
  const bool cl_;                       // printing OpenCL C
  std::vector<std::string> cl_params_;  // OpenCL: the kernel's parameters
  LaunchShape shape_;
  LoopPlan loops_;
  std::unordered_set<const VarNode *> shared_, varying_;
  std::unordered_map<const StmtNode *, SharedAccess> access_;
  std::unordered_map<const VarNode *, BufferInfo> buffers_;
  std::vector<const VarNode *> shared_order_;  // declaration order
  std::vector<const VarNode *> threads_in_scope_, guard_vars_;
  std::unordered_map<const VarNode *, std::vector<const VarNode *>> outer_threads_;
  std::unordered_map<const VarNode *, std::string> shared_decls_;
  std::unordered_map<const VarNode *, int64_t> shared_size_;
  std::ostringstream decls_, body_;
  int depth_ = 1;
  bool last_barrier_ = false;
  bool uses_group_offset_ = false;
};

}  // namespace

std::string loop_limit_message(const std::string &kernel, int64_t passes, const ComputeLimits &limits) {
  std::ostringstream os;
  os << "kernel '" << kernel << "' runs up to " << passes << " loop passes per invocation, but "
     << limits.loop_limit_why << ", and past that the results would be wrong; shorten the loops each invocation runs: split a long "
        "reduction with s[T].rfactor(...) so that partial sums run in parallel, or split the long loop and "
        "bind its outer part to more threads (blockIdx/threadIdx)";
  return os.str();
}

ComputeShader codegen_compute(const DeviceKernel &kernel, const std::unordered_map<const VarNode *, Type> &buffer_types,
                              const ComputeLimits &limits) {
  return ComputeCodegen(kernel, buffer_types, limits).run();
}

}  // namespace tensorir::glsl
