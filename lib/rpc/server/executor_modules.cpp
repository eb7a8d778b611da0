// load_module, free_module, call and time: "llvm" modules sent as the shared library
// Module::save(path, "so") writes, loaded by the runtime from its kernel table (no JIT),
// and "opengl"/"opencl" modules sent as the gpu-json file Module::save writes, loaded by
// their backend (Module::load) to run on the server's device of that name.
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

// The functions of a module read from its own file must be those the request declares:
// the client checks every call against the declared ones.
void check_signatures(const Module &m, const std::vector<FuncSignature> &declared) {
  const std::vector<FuncSignature> &have = m.node()->signatures();
  TIR_USER_CHECK(have.size() == declared.size())
      << "the module has " << have.size() << " functions, the request's signatures " << declared.size();
  for (size_t i = 0; i < have.size(); ++i) {
    const FuncSignature &a = have[i], &b = declared[i];
    bool same = a.name == b.name && a.args.size() == b.args.size() && a.symbols.size() == b.symbols.size();
    for (size_t j = 0; same && j < a.args.size(); ++j) {
      const ArgSpec &x = a.args[j], &y = b.args[j];
      same = x.name == y.name && x.is_buffer() == y.is_buffer() && x.dtype == y.dtype && x.shape.size() == y.shape.size();
      for (size_t d = 0; same && d < x.shape.size(); ++d)
        same = x.shape[d].coeff == y.shape[d].coeff && x.shape[d].symbol == y.shape[d].symbol &&
               x.shape[d].offset == y.shape[d].offset;
    }
    TIR_USER_CHECK(same) << "function " << i << " is '" << a.name << "' in the module, with other arguments than the "
                         << "request's signature of '" << b.name << "'; send the signatures of the module sent";
  }
}

}  // namespace

const ServerDevice &Executor::device_named(const std::string &name, const std::string &what) const {
  std::string names;
  for (const ServerDevice &d : devices_) {
    if (d.name == name) return d;
    names += (names.empty() ? "" : ", ") + d.name;
  }
  TIR_THROW() << what << ": this server has no device '" << name << "' (it has " << names
              << "); start it on a machine with one";
}

Executor::Reply Executor::load_module(const Request &r) {
  const int64_t handle = r.integer("module");
  const std::string format = r.string("format"), target = r.string("target");
  const std::string what = "load_module of " + handle_str("module", handle);
  check_new_handle(modules_, handle, "module");
  TIR_USER_CHECK(format == "so" || format == "gpu-json")
      << what << ": the format '" << format << "' is not loaded by a server; it loads 'so', an \"llvm\" module saved "
      << "with Module::save(path, \"so\"), and 'gpu-json', an \"opengl\" or \"opencl\" module saved with "
      << "Module::save(path, \"gpu-json\") (\"wasm\" and \"webgl-json\" go to a page)";
  std::vector<FuncSignature> sigs;
  for (const nlohmann::json &s : r.array("functions")) sigs.push_back(signature_from_json(s));
  const TempDir dir;
  const std::string path = dir.write("module." + format, r.payload().data(), r.payload().size());
  Module m;
  const ServerDevice *device = &devices_.front();
  try {
    if (format == "so") {
      const TargetCaps caps = Target(target).caps();
      TIR_USER_CHECK(caps.runs_in_process && caps.device == Device::CPU)
          << "a module built for '" << target << "' does not run on this server's CPU; build it for \"llvm\"";
      m = Module(Ref<const ModuleNode>(new runtime::LibraryModuleNode(path, sigs)));
    } else {
      // The module runs on the device named after its backend ("opengl", "opencl").
      device = &device_named(target, "a gpu-json module for '" + target + "'");
      m = Module::load(path, format, device->device);
      check_signatures(m, sigs);
    }
  } catch (const Error &e) {
    TIR_THROW() << what << ": " << e.what();
  }
  modules_.emplace(handle, LoadedModule{m, device});
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
  const LoadedModule &loaded = find_handle(modules_, handle, "module", "load_module");
  const Module &m = loaded.module;
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
    TIR_USER_CHECK(arr.device == loaded.device)
        << what << ": " << handle_str("array", h) << " lives on '" << arr.device->name << "', but "
        << handle_str("module", handle) << " runs on '" << loaded.device->name << "'; alloc the array on '"
        << loaded.device->name << "'";
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
  const TimeOptions options = time_options(r);
  std::vector<Arg> args;
  const Function f = function(r, args);
  const TimeResult t = TimeEvaluator(f, options).call(args);
  return {{{"times_ms", t.times_ms}}, {}};
}

}  // namespace tensorir::rpc::server
