// load_module, free_module, call and time: "llvm" modules sent as the shared library
// Module::save(path, "so") writes, loaded by the runtime from its kernel table (no JIT).
#include <algorithm>

#include "rpc/server/executor.h"
#include "rpc/server/request.h"
#include "rpc/signature_json.h"
#include "rpc/temp_dir.h"
#include "runtime/library_module.h"
#include "tensorir/error.h"
#include "tensorir/target.h"

namespace tensorir::rpc::server {

namespace {

// The bytes an array of `shape` and `dtype` takes, or an Error naming the argument when
// `shape` is not a list of extents or needs more than `limit` bytes.
uint64_t bytes_needed(const std::vector<int64_t> &shape, Type dtype, uint64_t limit, const std::string &what) {
  uint64_t need = uint64_t((dtype.bits() + 7) / 8) * uint64_t(dtype.lanes());
  for (int64_t d : shape) {
    TIR_USER_CHECK(d >= 0) << what << " has the negative extent " << d;
    if (d && need > limit / uint64_t(d)) return limit + 1;
    need *= uint64_t(d);
  }
  return need;
}

}  // namespace

Executor::Reply Executor::load_module(const Request &r) {
  const int64_t handle = r.integer("module");
  const std::string format = r.string("format"), target = r.string("target");
  check_new_handle(modules_, handle, "module");
  TIR_USER_CHECK(format == "so") << "load_module of " << handle_str("module", handle) << ": the format '" << format
                                 << "' is not loaded by a server; it loads 'so', an \"llvm\" module saved with "
                                 << "Module::save(path, \"so\") (\"wasm\" and \"webgl-json\" go to a page)";
  const TargetCaps caps = Target(target).caps();
  TIR_USER_CHECK(caps.runs_in_process && caps.device == Device::CPU)
      << "load_module of " << handle_str("module", handle) << ": a module built for '" << target
      << "' does not run on this server's CPU; build it for \"llvm\"";
  std::vector<FuncSignature> sigs;
  for (const nlohmann::json &s : r.array("functions")) sigs.push_back(signature_from_json(s));
  const TempDir dir;
  const std::string path = dir.write("module.so", r.payload().data(), r.payload().size());
  Module m;
  try {
    m = Module(Ref<const ModuleNode>(new runtime::LibraryModuleNode(path, sigs)));
  } catch (const Error &e) {
    TIR_THROW() << "load_module of " << handle_str("module", handle) << ": " << e.what();
  }
  modules_.emplace(handle, m);
  return {{{"functions", m.function_names()}}, {}};
}

Executor::Reply Executor::free_module(const Request &r) {
  const int64_t handle = r.integer("module");
  TIR_USER_CHECK(modules_.erase(handle)) << "free_module: there is no " << handle_str("module", handle)
                                         << " in this session";
  return {};
}

Function Executor::function(const Request &r, std::vector<Arg> &args) {
  const int64_t handle = r.integer("module");
  const std::string name = r.string("function");
  const Module &m = find_handle(modules_, handle, "module", "load_module");
  const std::vector<std::string> all = m.function_names();
  std::string names;
  for (const std::string &n : all) names += (names.empty() ? "" : ", ") + n;
  TIR_USER_CHECK(std::find(all.begin(), all.end(), name) != all.end())
      << r.op() << ": " << handle_str("module", handle) << " has no function '" << name << "'; it has: " << names;
  const Function f = m(name);
  const FuncSignature &sig = f.signature();
  size_t i = 0;
  for (const nlohmann::json &a : r.array("args")) {
    const std::string what = "argument " + (i < sig.args.size() ? "'" + sig.args[i].name + "'" : std::to_string(i)) +
                             " of '" + name + "'";
    ++i;
    TIR_USER_CHECK(a.is_object()) << what << " is not an object; an arg is {\"handle\",\"shape\",\"dtype\"}, "
                                  << "{\"int\":N} or {\"float\":X}";
    if (a.contains("int") && a["int"].is_number_integer()) {
      args.emplace_back(a["int"].get<int64_t>());
      continue;
    }
    if (a.contains("float") && a["float"].is_number()) {
      args.emplace_back(a["float"].get<double>());
      continue;
    }
    TIR_USER_CHECK(a.contains("handle") && a["handle"].is_number_integer() && a.contains("shape") &&
                   a["shape"].is_array() && a.contains("dtype") && a["dtype"].is_string())
        << what << " is neither a buffer {\"handle\",\"shape\",\"dtype\"} nor a scalar {\"int\":N} or {\"float\":X}";
    const int64_t h = a["handle"].get<int64_t>();
    const Array &arr = find_handle(arrays_, h, "array", "alloc");
    TIR_USER_CHECK(arr.storage.device() == Device::cpu())
        << what << ": " << handle_str("array", h) << " lives on '" << arr.device->name << "', but "
        << handle_str("module", handle) << " runs on 'llvm'; alloc the array on 'llvm'";
    std::vector<int64_t> shape;
    for (const nlohmann::json &d : a["shape"]) {
      TIR_USER_CHECK(d.is_number_integer()) << what << " has an extent that is not an integer";
      shape.push_back(d.get<int64_t>());
    }
    Type dtype;
    try {
      dtype = Type::parse(a["dtype"].get<std::string>());
    } catch (const Error &e) {
      TIR_THROW() << what << ": " << e.what();
    }
    const uint64_t have = arr.storage.nbytes();
    const uint64_t need = bytes_needed(shape, dtype, have, what);
    TIR_USER_CHECK(need <= have) << what << ": " << handle_str("array", h) << " holds " << have
                                 << " bytes, too few for " << dtype << " " << shape_str(shape) << "; alloc a larger one";
    args.emplace_back(arr.storage.view(shape, dtype));
  }
  return f;
}

Executor::Reply Executor::call(const Request &r) {
  std::vector<Arg> args;
  function(r, args).call(args);
  return {};
}

Executor::Reply Executor::time(const Request &r) {
  TimeOptions options;
  options.number = r.positive("number");
  options.repeat = r.positive("repeat");
  options.min_repeat_ms = r.number_or("min_repeat_ms", 0);
  std::vector<Arg> args;
  const Function f = function(r, args);
  const TimeResult t = TimeEvaluator(f, options).call(args);
  return {{{"times_ms", t.times_ms}}, {}};
}

}  // namespace tensorir::rpc::server
