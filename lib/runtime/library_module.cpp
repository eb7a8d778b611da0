// LibraryModuleNode: dlopen, the kernel table, and calls with the packed convention.
#include "runtime/library_module.h"

#include <dlfcn.h>
#include <stdlib.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <set>

#include "runtime/cpu_features.h"
#include "runtime/kernel_table.h"
#include "runtime/model_files.h"
#include "tensorir/error.h"
#include "tensorir/runtime/parallel.h"

namespace tensorir::runtime {

namespace {

// The library's code calls tensorir_parallel_for, tensorir_set_last_error and the
// workspace functions, left undefined when it was linked. They resolve from the global
// scope, which holds this runtime when the program links it, but not when the runtime
// itself was dlopen'ed privately: promote it (RTLD_NOLOAD only finds the copy already loaded).
void make_runtime_global() {
  static const bool done = [] {
    Dl_info info{};
    if (dladdr(reinterpret_cast<void *>(&tensorir_parallel_for), &info) && info.dli_fname)
      dlopen(info.dli_fname, RTLD_NOW | RTLD_NOLOAD | RTLD_GLOBAL);  // stays open: the runtime is in use
    return true;
  }();
  (void)done;
}

std::string dl_error() {
  const char *e = dlerror();
  return e ? e : "unknown error";
}

// Writes `bytes` to a new file made from `templ` (mkstemp's XXXXXX); false if it cannot.
bool write_unique(std::string &templ, const std::vector<unsigned char> &bytes) {
  const int fd = mkstemp(templ.data());
  if (fd < 0) return false;
  size_t done = 0;
  while (done < bytes.size()) {
    const ssize_t n = write(fd, bytes.data() + done, bytes.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    done += size_t(n);
  }
  const bool ok = close(fd) == 0 && done == bytes.size();
  if (!ok) unlink(templ.c_str());
  return ok;
}

// dlopen of a copy of the library under a name of its own, removed once open: every
// load gets the bytes the file holds now, and nothing is left behind. The copy goes
// next to the library (a folder whose files may run), else to the temporary folder.
void *open_private_copy(const std::string &path, const std::vector<unsigned char> &bytes, std::string &copy) {
  namespace fs = std::filesystem;
  const fs::path p(path);
  // A name with a folder in it: dlopen searches the library path for a bare name.
  const fs::path dir = p.has_parent_path() ? p.parent_path() : fs::path(".");
  copy = (dir / ("." + p.filename().string() + ".XXXXXX")).string();
  if (!write_unique(copy, bytes)) {
    std::error_code ec;
    copy = (fs::temp_directory_path(ec) / "tensorir-model-XXXXXX").string();
    TIR_USER_CHECK(write_unique(copy, bytes))
        << "cannot load the kernel library " << path << ": cannot write a private copy of it next to it or at "
        << copy << ": " << std::strerror(errno);
  }
  void *handle = dlopen(copy.c_str(), RTLD_NOW | RTLD_LOCAL);
  const std::string error = handle ? std::string() : dl_error();
  unlink(copy.c_str());
  TIR_USER_CHECK(handle != nullptr) << "cannot load the kernel library " << path << ": " << error;
  return handle;
}

// One kernel of a table as the table describes it: a symbolic extent is -1.
struct TableArg {
  bool scalar = false;
  Type dtype;
  std::vector<int64_t> extents;
};
struct TableEntry {
  std::string name;
  RawFunction fn = nullptr;
  int32_t num_symbols = 0;
  std::vector<TableArg> args;
};

// The table's kernels; throws an Error naming `path` for a damaged table. `open`: scalar
// arguments, symbolic extents and shape symbols are allowed (a module's table).
std::vector<TableEntry> read_table(const TirKernelTable &t, const std::string &path, bool open) {
  const char *again = open ? "save the module again" : "save the model again";
  const auto damaged = [&](const std::string &what) {
    TIR_THROW() << "the kernel table of " << path << " is damaged: " << what << "; " << again;
  };
  if (t.magic != kKernelTableMagic) damaged("it does not start with the table's magic");
  TIR_USER_CHECK(t.version == kKernelTableVersion)
      << "the kernel table of " << path << " is of version " << t.version << "; this runtime reads version "
      << kKernelTableVersion << ": " << again << " with a matching tensorir";
  if (t.count > (1u << 20) || (t.count && !t.kernels)) damaged(std::to_string(t.count) + " kernels");
  std::vector<TableEntry> entries;
  for (uint32_t k = 0; k < t.count; ++k) {
    const TirKernel &e = t.kernels[k];
    const std::string at = "kernel " + std::to_string(k);
    if (!e.name || strnlen(e.name, 4096) == 4096 || !e.fn) damaged(at + " has no name or no function");
    if (e.num_args < (open ? 0 : 1) || e.num_args > (1 << 20) || (e.num_args && !e.args))
      damaged(at + " ('" + e.name + "') has no arguments");
    if (e.num_symbols < 0 || e.num_symbols > (open ? 64 : 0))
      damaged(at + " ('" + e.name + "') has " + std::to_string(e.num_symbols) + " shape symbols");
    TableEntry entry{e.name, e.fn, e.num_symbols, {}};
    for (int32_t a = 0; a < e.num_args; ++a) {
      const TirKernelArg &x = e.args[a];
      const std::string arg = "argument " + std::to_string(a) + " of '" + entry.name + "'";
      const bool ok = x.code >= Type::Int && x.code <= Type::Handle && x.bits >= 1 && x.bits <= 255 && x.lanes >= 1 &&
                      x.lanes <= 65535 && x.ndim >= (open ? -1 : 0) && x.ndim <= 64 && (x.ndim <= 0 || x.shape);
      if (!ok) damaged(arg + " has no valid dtype or shape");
      TableArg spec{x.ndim < 0, Type(Type::Code(x.code), x.bits, x.lanes), {}};
      for (int32_t d = 0; d < x.ndim; ++d) {
        if (x.shape[d] < (open ? -1 : 0)) damaged(arg + " has a negative extent");
        spec.extents.push_back(x.shape[d]);
      }
      entry.args.push_back(std::move(spec));
    }
    entries.push_back(std::move(entry));
  }
  return entries;
}

// A saved model's kernels: constant shapes, buffers only (read_table checked).
FuncSignature constant_signature(const TableEntry &e) {
  FuncSignature sig;
  sig.name = e.name;
  for (size_t a = 0; a < e.args.size(); ++a) {
    ArgSpec spec;
    spec.name = "arg" + std::to_string(a);
    spec.dtype = e.args[a].dtype;
    for (int64_t x : e.args[a].extents) spec.shape.push_back(DimSpec{0, -1, x});
    sig.args.push_back(std::move(spec));
  }
  return sig;
}

// How a table records an argument of a signature.
TableArg table_arg(const ArgSpec &a) {
  TableArg t{!a.is_buffer(), a.dtype, {}};
  for (const DimSpec &d : a.shape) t.extents.push_back(d.symbol >= 0 && d.coeff != 0 ? -1 : d.offset);
  return t;
}
// "float32 [?, 4]", "scalar int32".
std::string table_str(const TableArg &a) {
  std::string s = a.scalar ? "scalar " + a.dtype.str() : a.dtype.str() + " [";
  for (size_t d = 0; !a.scalar && d < a.extents.size(); ++d)
    s += (d ? ", " : "") + (a.extents[d] < 0 ? std::string("?") : std::to_string(a.extents[d]));
  return a.scalar ? s : s + "]";
}

// The table's entry for each declared signature, in their order; throws an Error naming
// the first function or argument on which the two differ.
std::vector<RawFunction> match_declared(const std::vector<TableEntry> &entries,
                                        const std::vector<FuncSignature> &declared, const std::string &path) {
  const auto mismatch = [&](const std::string &what) {
    TIR_THROW() << "the kernel library " << path << " does not match the signatures it came with: " << what
                << "; send the library Module::save wrote with that module's own signatures";
  };
  if (entries.size() != declared.size())
    mismatch("its table has " + std::to_string(entries.size()) + " functions, the signatures " +
             std::to_string(declared.size()));
  std::vector<RawFunction> functions;
  std::set<std::string> seen;
  for (const FuncSignature &sig : declared) {
    if (!seen.insert(sig.name).second) mismatch("the signatures name '" + sig.name + "' twice");
    const TableEntry *e = nullptr;
    for (const TableEntry &x : entries)
      if (x.name == sig.name) e = &x;
    if (!e) mismatch("it has no function '" + sig.name + "'");
    if (e->args.size() != sig.args.size() || size_t(e->num_symbols) != sig.symbols.size())
      mismatch("'" + sig.name + "' takes " + std::to_string(e->args.size()) + " arguments and " +
               std::to_string(e->num_symbols) + " shape symbols in the library, " + std::to_string(sig.args.size()) +
               " and " + std::to_string(sig.symbols.size()) + " in its signature");
    for (size_t a = 0; a < sig.args.size(); ++a)
      if (table_str(table_arg(sig.args[a])) != table_str(e->args[a]))
        mismatch("argument " + std::to_string(a) + " ('" + sig.args[a].name + "') of '" + sig.name + "' is " +
                 table_str(e->args[a]) + " in the library, " + table_str(table_arg(sig.args[a])) +
                 " in its signature");
    functions.push_back(e->fn);
  }
  return functions;
}

// `machine` is "CPU +feature,-feature,...": refuses code that may use features this CPU
// lacks, before it runs (and dies of an illegal instruction).
void check_machine(const std::string &machine, const std::string &path) {
  const size_t space = machine.find(' ');
  std::vector<std::string> features;
  for (size_t at = space == std::string::npos ? machine.size() : space + 1; at < machine.size();) {
    const size_t comma = std::min(machine.find(',', at), machine.size());
    features.push_back(machine.substr(at, comma - at));
    at = comma + 1;
  }
  const std::vector<std::string> missing = missing_cpu_features(features);
  std::string list;
  for (const std::string &f : missing) list += (list.empty() ? "" : ", ") + f;
  TIR_USER_CHECK(missing.empty()) << "the kernel library " << path << " was compiled for the CPU '"
                                  << machine.substr(0, space) << "' and may use " << list
                                  << ", which this CPU lacks; build the module for this machine's CPU, or for an "
                                  << "older one (\"llvm -mcpu=x86-64-v2\")";
}

}  // namespace

const void *LibraryModuleNode::own_symbol(const char *name) const {
  // dlsym also searches the libraries the library depends on.
  const void *sym = dlsym(handle_, name);
  Dl_info info{};
  return sym && dladdr(sym, &info) && info.dli_fname && copy_ == info.dli_fname ? sym : nullptr;
}

const TirKernelTable &LibraryModuleNode::open(const std::string &path, const Verify &verify, const char *symbol,
                                              const char *missing) {
  make_runtime_global();
  std::error_code ec;
  TIR_USER_CHECK(std::filesystem::is_regular_file(path, ec))
      << "cannot load the kernel library " << path << ": "
      << (std::filesystem::exists(path, ec) ? "it is not a regular file" : "there is no such file");
  const std::vector<unsigned char> bytes = read_file_bytes(path, "kernel library");
  if (verify) verify(bytes);
  handle_ = open_private_copy(path, bytes, copy_);
  const void *sym = own_symbol(symbol);
  if (!sym) {
    dlclose(handle_);
    handle_ = nullptr;
    TIR_THROW() << "the kernel library " << path << " has no kernel table (" << symbol << "): " << missing;
  }
  return *static_cast<const TirKernelTable *>(sym);
}

LibraryModuleNode::LibraryModuleNode(const std::string &path, const Verify &verify) : path_(path) {
  const TirKernelTable &table =
      open(path, verify, kKernelTableSymbol,
           "it was saved by an older tensorir, or is not a saved model's library; save the model again");
  try {
    for (const TableEntry &e : read_table(table, path, /*open=*/false)) {
      sigs_.push_back(constant_signature(e));
      functions_.push_back(e.fn);
    }
    plan_fingerprint_ = table.plan_fnv1a32;
  } catch (...) {
    dlclose(handle_);
    handle_ = nullptr;
    throw;
  }
}

LibraryModuleNode::LibraryModuleNode(const std::string &path, std::vector<FuncSignature> declared) : path_(path) {
  const TirKernelTable &table =
      open(path, {}, kModuleTableSymbol,
           "it was saved by an older tensorir, or is not a library Module::save(path, \"so\") wrote; save the "
           "module again");
  try {
    functions_ = match_declared(read_table(table, path, /*open=*/true), declared, path);
    const char *machine = static_cast<const char *>(own_symbol(kModuleMachineSymbol));
    TIR_USER_CHECK(machine && strnlen(machine, 1 << 16) < (1 << 16))
        << "the kernel library " << path << " does not say which CPU it was compiled for (" << kModuleMachineSymbol
        << "); save the module again";
    check_machine(machine, path);
    sigs_ = std::move(declared);
    for (FuncSignature &s : sigs_) s.device = Device::CPU;
  } catch (...) {
    dlclose(handle_);
    handle_ = nullptr;
    throw;
  }
}

LibraryModuleNode::~LibraryModuleNode() {
  if (handle_) dlclose(handle_);
}

void LibraryModuleNode::call_packed(size_t index, const ArgValue *args) const {
  TIR_ASSERT(index < functions_.size()) << "function index " << index << " out of range";
  const int32_t rc = functions_[index](args);
  if (rc != 0) {
    const char *msg = take_last_error();
    TIR_THROW() << sigs_[index].name << ": "
                << (msg && *msg ? msg : "the kernel failed with status " + std::to_string(rc));
  }
}

void LibraryModuleNode::invoke(size_t index, const std::vector<ArgValue> &args,
                               const std::vector<NDArray> &) const {
  TIR_ASSERT(index < sigs_.size()) << "function index " << index << " out of range";
  const FuncSignature &sig = sigs_[index];
  TIR_ASSERT(args.size() == sig.args.size() + sig.symbols.size())
      << sig.name << " expects " << sig.args.size() + sig.symbols.size() << " packed values, got " << args.size();
  call_packed(index, args.data());
}

std::string LibraryModuleNode::source(const std::string &format) const {
  TIR_THROW() << "the module loaded from " << path_ << " has machine code only, no '" << format
              << "' source; get the source from the compiled model before saving it";
}

void LibraryModuleNode::save(const std::string &path, const std::string &format) const {
  TIR_THROW() << "the module loaded from " << path_ << " cannot be saved again (asked for '" << format << "' at "
              << path << "); copy the saved model's directory instead";
}

}  // namespace tensorir::runtime
