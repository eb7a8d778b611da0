// Compute modules to and from one JSON file (compute_json.h).
#include "backends/glsl/compute/compute_json.h"

#include <fstream>

#include "backends/glsl/compute/codegen_compute_loops.h"
#include "runtime/json.h"
#include "runtime/model_files.h"
#include "runtime/signature_json.h"
#include "tensorir/arith/simplify.h"
#include "tensorir/error.h"
#include "tensorir/ir/op.h"
#include "tensorir/ir/printer.h"
#include "tensorir/ir/visitor.h"

namespace tensorir::glsl {

namespace {

// The names of `f`'s shape symbols (or, with `symbols` false, scalar arguments) that `e` uses.
std::string vars_used(const Expr &e, const FuncSignature &sig, const ComputeFunction &f, bool symbols) {
  std::string names;
  for (size_t i = 0; i < f.values.size(); ++i) {
    const bool is_symbol = i >= sig.args.size();
    if (is_symbol != symbols || f.values[i].type().is_handle() || !uses_var(e, {f.values[i]})) continue;
    names += (names.empty() ? "'" : ", '") + f.values[i].name() + "'";
  }
  return names;
}

// `e` as a constant, or an Error saying what it depends on.
int64_t constant(const Expr &e, const FuncSignature &sig, const ComputeFunction &f, const std::string &what) {
  const Expr v = simplify(e);
  if (const int64_t *c = as_const_int(v)) return *c;
  const std::string symbols = vars_used(v, sig, f, true), scalars = vars_used(v, sig, f, false);
  TIR_THROW() << "Module::save(path, \"gpu-json\"): function '" << sig.name << "': " << what << " is " << v
              << ", which depends on "
              << (!symbols.empty() ? "the shape symbols " + symbols : std::string())
              << (!symbols.empty() && !scalars.empty() ? " and " : "")
              << (!scalars.empty() ? "the scalar arguments " + scalars : std::string())
              << (symbols.empty() && scalars.empty() ? std::string("values known only at a call") : std::string())
              << "; a gpu-json module has every launch size fixed by its argument shapes: build it with "
              << "constant shapes, and sizes that no scalar argument changes";
}

json::Value int_list(const int64_t (&v)[3]) {
  json::Value a = json::Value::array();
  for (int64_t x : v) a.push(x);
  return a;
}

json::Value kernel_json(const ComputeKernel &k, const FuncSignature &sig, const ComputeFunction &f) {
  const ComputeShader &s = k.shader;
  int64_t local[3], grid[3];
  for (int d = 0; d < 3; ++d) {
    local[d] = s.local_size[d];
    grid[d] = constant(s.group_count[d], sig, f, "the work-group count of kernel '" + s.name + "'");
  }
  json::Value uniforms = json::Value::array();
  for (size_t u = 0; u < s.uniforms.size(); ++u) {
    json::Value j = json::Value::object();
    j.set("name", s.uniform_names[u]);
    j.set("dtype", s.uniforms[u].type().str());
    j.set("source", int64_t(k.uniform_sources[u]));
    uniforms.push(std::move(j));
  }
  json::Value j = json::Value::object();
  j.set("name", s.name);
  j.set("source", s.source);
  j.set("local_size", int_list(local));
  j.set("grid", int_list(grid));
  j.set("buffers", json::Value::array_of(k.buffer_sources));
  j.set("uniforms", std::move(uniforms));
  j.set("group_offset_uniform", s.group_offset_uniform);
  j.set("helpers", json::Value::array_of(std::vector<std::string>(s.helpers.begin(), s.helpers.end())));
  j.set("float64", s.float64);
  j.set("loop_passes", s.loop_passes.defined()
                           ? json::Value(constant(s.loop_passes, sig, f, "the loop passes of kernel '" + s.name + "'"))
                           : json::Value());
  return j;
}

json::Value function_json(const FuncSignature &sig, const ComputeFunction &f) {
  json::Value temps = json::Value::array(), kernels = json::Value::array();
  for (const TempBuffer &t : f.temps) {
    json::Value j = json::Value::object();
    j.set("name", t.handle.name());
    j.set("dtype", t.dtype.str());
    j.set("elements", constant(t.elements, sig, f, "the size of buffer '" + t.handle.name() + "'"));
    temps.push(std::move(j));
  }
  for (const ComputeKernel &k : f.kernels) kernels.push(kernel_json(k, sig, f));
  json::Value j = json::Value::object();
  j.set("signature", runtime::signature_json(sig));
  j.set("temps", std::move(temps));
  j.set("kernels", std::move(kernels));
  return j;
}

Expr size_const(int64_t v) { return make_const(Int(64), double(v)); }

ComputeKernel kernel_from_json(const json::Value &j, const FuncSignature &sig, size_t ntemps) {
  ComputeKernel k;
  ComputeShader &s = k.shader;
  s.name = j.at("name").as_string();
  s.source = j.at("source").as_string();
  const std::vector<json::Value> &local = j.at("local_size").items(), &grid = j.at("grid").items();
  TIR_USER_CHECK(local.size() == 3 && grid.size() == 3) << "kernel '" << s.name << "' needs 3 local sizes and 3 grid sizes";
  for (int d = 0; d < 3; ++d) {
    s.local_size[d] = int(local[size_t(d)].as_int());
    s.group_count[d] = size_const(grid[size_t(d)].as_int());
    TIR_USER_CHECK(s.local_size[d] > 0) << "kernel '" << s.name << "' has a work-group size below 1";
  }
  for (const json::Value &b : j.at("buffers").items()) {
    const int64_t src = b.as_int();
    TIR_USER_CHECK(src >= -int64_t(ntemps) && src < int64_t(sig.args.size()) && (src < 0 || sig.args[size_t(src)].is_buffer()))
        << "kernel '" << s.name << "' binds buffer " << src << ", which is neither a buffer argument nor a temporary";
    k.buffer_sources.push_back(int(src));
  }
  for (const json::Value &u : j.at("uniforms").items()) {
    const int64_t src = u.at("source").as_int();
    TIR_USER_CHECK(src >= 0 && src < int64_t(sig.args.size()) && !sig.args[size_t(src)].is_buffer())
        << "kernel '" << s.name << "' sets a uniform from argument " << src << ", which is not a scalar argument";
    s.uniform_names.push_back(u.at("name").as_string());
    s.uniforms.emplace_back(s.uniform_names.back(), Type::parse(u.at("dtype").as_string()));
    k.uniform_sources.push_back(size_t(src));
  }
  s.group_offset_uniform = j.at("group_offset_uniform").as_string();
  for (const json::Value &h : j.at("helpers").items()) s.helpers.insert(h.as_string());
  s.float64 = j.at("float64").as_bool();
  if (!j.at("loop_passes").is_null()) s.loop_passes = size_const(j.at("loop_passes").as_int());
  return k;
}

ComputeFunction function_from_json(const json::Value &j, FuncSignature &sig, Device::Kind device) {
  sig = runtime::signature_from_json(j.at("signature"));
  sig.device = device;
  TIR_USER_CHECK(sig.symbols.empty()) << "function '" << sig.name << "' has shape symbols; a gpu-json module has none";
  ComputeFunction f;
  for (const ArgSpec &a : sig.args) f.values.emplace_back(a.name, a.is_buffer() ? Handle() : a.dtype);
  for (const json::Value &t : j.at("temps").items()) {
    const std::string name = t.at("name").as_string();
    f.temps.push_back({Var(name, Handle()), Type::parse(t.at("dtype").as_string()), size_const(t.at("elements").as_int())});
  }
  for (const json::Value &k : j.at("kernels").items()) f.kernels.push_back(kernel_from_json(k, sig, f.temps.size()));
  return f;
}

}  // namespace

void save_gpu_json(const std::string &path, const std::string &format, const std::string &backend,
                   const std::vector<FuncSignature> &sigs, const std::vector<ComputeFunction> &funcs) {
  TIR_USER_CHECK(format == kGpuJsonFormat) << "the " << backend << " backend saves its modules as \"" << kGpuJsonFormat
                                           << "\", not \"" << format << "\" (asked for " << path << ")";
  json::Value list = json::Value::array();
  for (size_t i = 0; i < sigs.size(); ++i) list.push(function_json(sigs[i], funcs[i]));
  json::Value doc = json::Value::object();
  doc.set("format", kGpuJsonFormat);
  doc.set("version", kGpuJsonVersion);
  doc.set("backend", backend);
  doc.set("functions", std::move(list));
  std::ofstream out(path, std::ios::binary);
  out << doc.dump(1);
  out.close();
  TIR_USER_CHECK(out.good()) << "Module::save: cannot write " << path;
}

GpuJsonModule read_gpu_json(const std::string &path, const std::string &backend, Device::Kind device) {
  const std::vector<unsigned char> bytes = runtime::read_file_bytes(path, "the gpu-json module");
  GpuJsonModule m;
  try {
    const json::Value doc = json::parse(std::string(bytes.begin(), bytes.end()));
    TIR_USER_CHECK(doc.kind() == json::Value::Object && doc.find("format") && doc.at("format").kind() == json::Value::String &&
                   doc.at("format").as_string() == kGpuJsonFormat)
        << "it is not a gpu-json module (no \"format\":\"gpu-json\"); write one with Module::save(path, \"gpu-json\")";
    const int64_t version = doc.at("version").as_int();
    TIR_USER_CHECK(version == kGpuJsonVersion) << "it is version " << version << " of the format; this tensorir reads version "
                                               << kGpuJsonVersion << ": save the module again with this version";
    const std::string saved_for = doc.at("backend").as_string();
    TIR_USER_CHECK(saved_for == backend) << "it holds an \"" << saved_for << "\" module, which the " << backend
                                         << " backend does not run; load it on the device of \"" << saved_for << "\"";
    for (const json::Value &f : doc.at("functions").items()) {
      m.sigs.emplace_back();
      m.funcs.push_back(function_from_json(f, m.sigs.back(), device));
    }
    TIR_USER_CHECK(!m.sigs.empty()) << "it has no functions";
  } catch (const Error &e) {
    TIR_THROW() << "Module::load(\"" << path << "\", \"gpu-json\"): " << e.what();
  }
  return m;
}

void check_gpu_json_limits(const std::string &path, const GpuJsonModule &m, const ComputeLimits &limits) {
  for (const ComputeFunction &f : m.funcs)
    for (const ComputeKernel &k : f.kernels) {
      const ComputeShader &s = k.shader;
      const int64_t n = int64_t(s.local_size[0]) * s.local_size[1] * s.local_size[2];
      bool fits = limits.max_invocations <= 0 || n <= limits.max_invocations;
      for (int d = 0; d < 3; ++d) fits = fits && (limits.max_group_size[d] <= 0 || s.local_size[d] <= limits.max_group_size[d]);
      TIR_USER_CHECK(fits) << "Module::load(\"" << path << "\"): kernel '" << s.name << "' runs work-groups of "
                           << s.local_size[0] << " x " << s.local_size[1] << " x " << s.local_size[2]
                           << ", more than this device allows (" << limits.max_invocations
                           << " in all); build the module for this device";
      const int64_t *passes = s.loop_passes.defined() ? as_const_int(s.loop_passes) : nullptr;
      TIR_USER_CHECK(!passes || compute_detail::within_loop_limit(*passes, limits.loop_limit))
          << "Module::load(\"" << path << "\"): " << loop_limit_message(s.name, *passes, limits);
    }
}

}  // namespace tensorir::glsl
