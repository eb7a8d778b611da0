// Module lookup and the checked call boundary: every argument is compared with the
// function's signature before any compiled code runs.
#include "tensorir/runtime/module.h"

#include <algorithm>
#include <sstream>

#include "runtime/device_api.h"
#include "runtime/time_calls.h"

namespace tensorir {

namespace {

std::string join_names(const std::vector<std::string> &names) {
  std::string s;
  for (size_t i = 0; i < names.size(); ++i) s += (i ? ", " : "") + names[i];
  return s;
}

// "32", "K", "2*K + 1", "K - 1".
std::string dim_str(const DimSpec &d, const FuncSignature &sig) {
  if (d.symbol < 0 || d.coeff == 0) return std::to_string(d.offset);
  std::ostringstream os;
  if (d.coeff == -1) os << "-";
  else if (d.coeff != 1) os << d.coeff << "*";
  os << sig.symbols[d.symbol];
  if (d.offset > 0) os << " + " << d.offset;
  if (d.offset < 0) os << " - " << -d.offset;
  return os.str();
}

const char *arg_kind_str(const Arg &a) {
  if (std::holds_alternative<NDArray>(a)) return "an NDArray";
  if (std::holds_alternative<int64_t>(a)) return "an integer";
  return "a floating-point number";
}

// What the call has learned about each shape variable so far.
struct SymbolBinding {
  bool bound = false;
  int64_t value = 0;
  size_t arg = 0;  // the argument that bound it
};

// Whether two arrays' storage overlaps: byte ranges on the CPU; elsewhere as the device
// says (a view shares its array's buffer). Arrays on two devices never do.
bool overlap(const NDArray &a, const NDArray &b) {
  if (a.nbytes() == 0 || b.nbytes() == 0 || a.device() != b.device()) return false;
  if (!a.device().is_cpu())
    return device_api(a.device()).overlap(a.device(), a.data(), a.nbytes(), b.data(), b.nbytes());
  const auto *pa = static_cast<const char *>(a.data()), *pb = static_cast<const char *>(b.data());
  return pa < pb + b.nbytes() && pb < pa + a.nbytes();
}

class CallChecker {
 public:
  explicit CallChecker(const FuncSignature &sig) : sig_(sig), symbols_(sig.symbols.size()) {}

  void check_count(size_t got) const {
    std::vector<std::string> names;
    for (const ArgSpec &a : sig_.args) names.push_back(a.name);
    TIR_USER_CHECK(got == sig_.args.size())
        << sig_.name << " expects " << sig_.args.size() << " argument"
        << (sig_.args.size() == 1 ? "" : "s") << " (" << join_names(names) << "), got " << got;
  }

  // Checks a buffer argument and binds the shape variables it mentions.
  void check_buffer(size_t index, const Arg &arg) {
    const ArgSpec &spec = sig_.args[index];
    const NDArray *a = std::get_if<NDArray>(&arg);
    TIR_USER_CHECK(a != nullptr) << sig_.name << ": argument " << spec.name
                                 << " must be an NDArray of " << spec.dtype << ", but "
                                 << arg_kind_str(arg) << " was passed";
    TIR_USER_CHECK(a->defined()) << sig_.name << ": argument " << spec.name
                                 << " is an undefined NDArray";
    TIR_USER_CHECK(a->dtype() == spec.dtype)
        << sig_.name << ": argument " << spec.name << " has dtype " << a->dtype()
        << " but the function expects " << spec.dtype;
    TIR_USER_CHECK(a->device().is(sig_.device))
        << sig_.name << ": argument " << spec.name << " is on " << a->device()
        << " but the function runs on " << Device{sig_.device, 0}
        << "; copy it there with .to(device)";
    TIR_USER_CHECK(a->ndim() == static_cast<int>(spec.shape.size()))
        << sig_.name << ": argument " << spec.name << " has " << a->ndim() << " dimension"
        << (a->ndim() == 1 ? "" : "s") << " (shape " << shape_str(a->shape())
        << ") but the function expects " << spec.shape.size();
    for (size_t k = 0; k < spec.shape.size(); ++k) check_dim(index, k, a->shape()[k]);
    // Compiled code indexes with 32-bit integers: a larger array would be indexed wrapped.
    TIR_USER_CHECK(a->numel() <= INT32_MAX)
        << sig_.name << ": argument " << spec.name << " has " << a->numel() << " elements (shape "
        << shape_str(a->shape()) << "); compiled code indexes arrays with 32-bit integers, so an "
        << "argument holds at most 2147483647 elements: split the work into smaller arrays";
  }

  ArgValue scalar_value(size_t index, const Arg &arg) const {
    const ArgSpec &spec = sig_.args[index];
    TIR_USER_CHECK(!std::holds_alternative<NDArray>(arg))
        << sig_.name << ": argument " << spec.name << " is a scalar of type " << spec.dtype
        << ", but an NDArray was passed";
    ArgValue v;
    if (spec.dtype.is_float()) {
      const int64_t *i = std::get_if<int64_t>(&arg);
      v.f64 = i ? static_cast<double>(*i) : std::get<double>(arg);
      return v;
    }
    const int64_t *i = std::get_if<int64_t>(&arg);
    TIR_USER_CHECK(i != nullptr) << sig_.name << ": argument " << spec.name << " is a scalar of type "
                                 << spec.dtype << ", but the floating-point value "
                                 << std::get<double>(arg) << " was passed";
    check_int_range(spec, *i);
    v.i64 = *i;
    return v;
  }

  void check_all_bound() const {
    for (size_t s = 0; s < symbols_.size(); ++s)
      TIR_USER_CHECK(symbols_[s].bound)
          << sig_.name << ": the shape variable " << sig_.symbols[s]
          << " is not the size of any argument's dimension, so a call cannot determine it";
  }

  int64_t symbol_value(size_t s) const { return symbols_[s].value; }

  // Compiled code assumes its buffers do not overlap (LLVM's noalias; a GPU kernel's
  // reads race its writes), so a buffer the function writes must not share storage with
  // another argument, unless both were built as ones that may alias (an in-place result).
  void check_overlap(const std::vector<NDArray> &buffers) const {
    for (size_t w = 0; w < buffers.size(); ++w) {
      if (!sig_.args[w].is_buffer() || !sig_.args[w].written) continue;
      for (size_t o = 0; o < buffers.size(); ++o) {
        if (o == w || !sig_.args[o].is_buffer() || (sig_.args[w].may_alias && sig_.args[o].may_alias)) continue;
        if (overlap(buffers[w], buffers[o]))
          TIR_THROW() << sig_.name << ": argument " << sig_.args[w].name
                      << ", which the function writes, shares storage with argument " << sig_.args[o].name
                      << "; pass a separate array (a result computed in place of an input needs both "
                         "built as BuildArg(tensor, true))";
      }
    }
  }

 private:
  void check_dim(size_t index, size_t k, int64_t actual) {
    const ArgSpec &spec = sig_.args[index];
    const DimSpec &d = spec.shape[k];
    if (d.symbol < 0 || d.coeff == 0) {
      TIR_USER_CHECK(actual == d.offset) << sig_.name << ": argument " << spec.name
                                         << ": dimension " << k << " is " << actual
                                         << " but the shape requires " << d.offset;
      return;
    }
    TIR_ASSERT(d.symbol < static_cast<int>(symbols_.size()))
        << "signature of " << sig_.name << " names symbol " << d.symbol;
    SymbolBinding &b = symbols_[d.symbol];
    const std::string &sym = sig_.symbols[d.symbol];
    if (b.bound) {
      int64_t expected = d.coeff * b.value + d.offset;
      TIR_USER_CHECK(actual == expected)
          << sig_.name << ": argument " << spec.name << ": dimension " << k << " is " << actual
          << " but the shape requires " << expected << " (" << sym << " = " << b.value
          << " from argument " << sig_.args[b.arg].name << ")";
      return;
    }
    // Solve actual = coeff * sym + offset for a whole, non-negative sym.
    int64_t num = actual - d.offset;
    TIR_USER_CHECK(num % d.coeff == 0 && num / d.coeff >= 0)
        << sig_.name << ": argument " << spec.name << ": dimension " << k << " is " << actual
        << ", which no " << sym << " >= 0 makes equal to its shape " << dim_str(d, sig_);
    TIR_USER_CHECK(num / d.coeff <= INT32_MAX)
        << sig_.name << ": argument " << spec.name << ": dimension " << k << " is " << actual
        << ", which makes the shape variable " << sym << " = " << num / d.coeff
        << ", above the largest extent compiled code indexes (2147483647)";
    b.bound = true;
    b.value = num / d.coeff;
    b.arg = index;
  }

  void check_int_range(const ArgSpec &spec, int64_t v) const {
    Type t = spec.dtype;
    if (t.bits() >= 64 || !t.is_int_or_uint()) return;
    TIR_USER_CHECK(t.holds_int(v)) << sig_.name << ": argument " << spec.name << " = " << v
                                   << " does not fit its type " << t;
  }

  const FuncSignature &sig_;
  std::vector<SymbolBinding> symbols_;
};

}  // namespace

const FuncSignature &Function::signature() const {
  TIR_USER_CHECK(m_.defined()) << "call of a Function that belongs to no Module";
  const auto &sigs = m_->signatures();
  TIR_ASSERT(index_ < sigs.size()) << "function index " << index_;
  return sigs[index_];
}

void Function::pack(const std::vector<Arg> &args, std::vector<ArgValue> &values,
                    std::vector<NDArray> &buffers) const {
  const FuncSignature &sig = signature();
  CallChecker check(sig);
  check.check_count(args.size());

  values.assign(args.size() + sig.symbols.size(), ArgValue{});
  buffers.assign(args.size(), NDArray());
  for (size_t i = 0; i < args.size(); ++i) {
    if (sig.args[i].is_buffer()) {
      check.check_buffer(i, args[i]);
      buffers[i] = std::get<NDArray>(args[i]);
      values[i].ptr = buffers[i].data();
    } else {
      values[i] = check.scalar_value(i, args[i]);
    }
  }
  check.check_all_bound();
  check.check_overlap(buffers);
  for (size_t s = 0; s < sig.symbols.size(); ++s)
    values[args.size() + s].i64 = check.symbol_value(s);
}

void Function::call(const std::vector<Arg> &args) const {
  std::vector<ArgValue> values;
  std::vector<NDArray> buffers;
  pack(args, values, buffers);
  m_->invoke(index_, values, buffers);
}

BoundCall Function::bind(const std::vector<Arg> &args) const {
  BoundCall b;
  pack(args, b.values_, b.buffers_);
  b.m_ = m_;
  b.index_ = index_;
  return b;
}

void BoundCall::operator()() const {
  TIR_USER_CHECK(m_.defined()) << "call of an empty BoundCall; make one with Function::bind";
  m_->invoke(index_, values_, buffers_);
}

TimeResult TimeResult::of(std::vector<double> times_ms) {
  TimeResult r;
  r.times_ms = std::move(times_ms);
  if (r.times_ms.empty()) return r;
  std::vector<double> sorted = r.times_ms;
  std::sort(sorted.begin(), sorted.end());
  const size_t n = sorted.size();
  r.median_ms = n % 2 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
  r.min_ms = sorted.front();
  double sum = 0;
  for (double t : sorted) sum += t;
  r.mean_ms = sum / double(n);
  return r;
}

TimeResult TimeEvaluator::call(const std::vector<Arg> &args) const {
  runtime::check_time_options(options_, "time_evaluator('" + f_.signature().name + "')");
  std::vector<ArgValue> values;
  std::vector<NDArray> buffers;
  f_.pack(args, values, buffers);
  return TimeResult::of(f_.m_->time(f_.index_, values, buffers, options_));
}

std::vector<double> ModuleNode::time(size_t index, const std::vector<ArgValue> &args,
                                     const std::vector<NDArray> &buffers, const TimeOptions &options) const {
  return runtime::time_calls([&] { invoke(index, args, buffers); }, options);
}

void ModuleNode::save(const std::string &path, const std::string &format) const {
  TIR_THROW() << "the " << backend() << " backend cannot save its compiled code (asked for '" << format
              << "' at " << path << "); llvm, wasm, \"opengl\" compute and opencl modules can be saved";
}

Function Module::operator()(const std::string &name) const {
  TIR_USER_CHECK(n_.defined()) << "cannot look up '" << name
                               << "' in an empty Module; create modules with build()";
  const auto &sigs = n_->signatures();
  for (size_t i = 0; i < sigs.size(); ++i)
    if (sigs[i].name == name) return Function(n_, i);
  TIR_THROW() << "the " << n_->backend() << " module has no function named '" << name
              << "'; it has: " << join_names(function_names());
}

std::string Module::source(const std::string &format) const {
  TIR_USER_CHECK(n_.defined()) << "cannot get the source of an empty Module";
  return n_->source(format);
}

void Module::save(const std::string &path, const std::string &format) const {
  TIR_USER_CHECK(n_.defined()) << "cannot save an empty Module";
  n_->save(path, format);
}

std::vector<std::string> Module::function_names() const {
  TIR_USER_CHECK(n_.defined()) << "an empty Module has no functions";
  std::vector<std::string> names;
  for (const FuncSignature &s : n_->signatures()) names.push_back(s.name);
  return names;
}

}  // namespace tensorir
