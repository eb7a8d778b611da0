// check_plan: the plan's kernel calls against model.so's kernel table, and its order of
// writes and reads against its storage.
#include "runtime/plan_check.h"

#include <map>
#include <set>
#include <sstream>

#include "tensorir/error.h"

namespace tensorir::runtime {

namespace {

std::string describe(Type dtype, const std::vector<int64_t> &shape) {
  std::ostringstream os;
  os << dtype << " " << shape_str(shape);
  return os.str();
}

size_t bytes_of(const SavedValue &v) {
  size_t n = size_t(v.dtype.bytes());
  for (int64_t d : v.shape) n *= size_t(d);  // read_model_plan has bounded the product
  return n;
}

// Whether buffer values `a` and `b` are the same bytes.
bool same_storage(const SavedValue &a, const SavedValue &b) {
  return a.is_buffer() && b.is_buffer() && a.buffer == b.buffer && a.offset == b.offset && bytes_of(a) == bytes_of(b);
}

// Whether buffer values `a` and `b` share a byte.
bool overlap(const SavedValue &a, const SavedValue &b) {
  if (!a.is_buffer() || !b.is_buffer() || a.buffer != b.buffer) return false;
  const size_t na = bytes_of(a), nb = bytes_of(b);
  return na && nb && a.offset < b.offset + nb && b.offset < a.offset + na;
}

}  // namespace

std::vector<size_t> check_plan(const SavedModel &plan, const std::vector<FuncSignature> &table,
                               const std::string &plan_path, const std::string &library_path) {
  const auto &values = plan.values;
  std::map<std::string, size_t> index;
  for (size_t i = 0; i < table.size(); ++i) index.emplace(table[i].name, i);
  std::set<std::string> inputs;
  for (const SavedValue &v : values)
    TIR_USER_CHECK(!v.is_input() || inputs.insert(v.name).second)
        << plan_path << ": the input '" << v.name << "' is listed twice; save the model again";

  std::vector<size_t> found;
  for (size_t i = 0; i < plan.kernels.size(); ++i) {
    const SavedKernel &k = plan.kernels[i];
    const std::string where = plan_path + ": kernels[" + std::to_string(i) + "] ('" + k.fname + "')";
    const auto it = index.find(k.fname);
    if (it == index.end()) {
      std::string names;
      for (size_t t = 0; t < table.size() && t < 8; ++t) names += (t ? ", " : "") + table[t].name;
      TIR_THROW() << where << ": the kernel library " << library_path << " has no function '" << k.fname
                  << "' in its kernel table (it has " << table.size() << ": " << names
                  << (table.size() > 8 ? ", ..." : "") << "); was it saved together with this model.json?";
    }
    const FuncSignature &sig = table[it->second];
    TIR_USER_CHECK(k.args.size() == sig.args.size())
        << where << " is given " << k.args.size() << " arguments, but the kernel in " << library_path << " takes "
        << sig.args.size() << "; save the model again";
    for (size_t a = 0; a < k.args.size(); ++a) {
      const SavedValue &v = values[size_t(k.args[a])];
      std::vector<int64_t> shape;
      for (const DimSpec &d : sig.args[a].shape) shape.push_back(d.offset);
      TIR_USER_CHECK(v.dtype == sig.args[a].dtype && v.shape == shape)
          << where << ": argument " << a << " is '" << v.name << "' (value " << k.args[a] << ", "
          << describe(v.dtype, v.shape) << "), but the kernel was compiled for " << describe(sig.args[a].dtype, shape)
          << "; save the model again";
    }
    found.push_back(it->second);
  }

  // Replay the kernels: which kernel computed each value, and which overwrote it since.
  std::vector<int> computed(values.size(), -1), overwritten(values.size(), -1);
  const auto check_read = [&](int v, const std::string &who) {
    if (!values[size_t(v)].is_buffer()) return;
    const std::string name = "'" + values[size_t(v)].name + "' (value " + std::to_string(v) + ")";
    TIR_USER_CHECK(computed[size_t(v)] >= 0)
        << plan_path << ": " << who << " reads " << name << " before any kernel computes it; save the model again";
    const int by = overwritten[size_t(v)];
    TIR_USER_CHECK(by < 0) << plan_path << ": " << who << " reads " << name << ", but kernels[" << by << "] ('"
                           << plan.kernels[size_t(by)].fname << "') has since written '"
                           << values[size_t(plan.kernels[size_t(by)].args.back())].name
                           << "' over its storage; save the model again";
  };
  for (size_t i = 0; i < plan.kernels.size(); ++i) {
    const SavedKernel &k = plan.kernels[i];
    const std::string who = "kernels[" + std::to_string(i) + "] ('" + k.fname + "')";
    const int out = k.args.back();
    for (size_t a = 0; a + 1 < k.args.size(); ++a) {
      check_read(k.args[a], who);
      const SavedValue &in = values[size_t(k.args[a])], &result = values[size_t(out)];
      // The one argument a kernel computes its result in place of lies exactly under it.
      if (int(a) == k.in_place) {
        TIR_USER_CHECK(same_storage(in, result))
            << plan_path << ": " << who << " computes '" << result.name << "' in place of '" << in.name
            << "', but their storage differs; save the model again";
        continue;
      }
      TIR_USER_CHECK(!overlap(in, result)) << plan_path << ": " << who << " writes '" << result.name << "' over '"
                                           << in.name << "', which it reads; save the model again";
    }
    TIR_USER_CHECK(computed[size_t(out)] < 0)
        << plan_path << ": " << who << " writes '" << values[size_t(out)].name << "', which kernels["
        << computed[size_t(out)] << "] already computed; save the model again";
    computed[size_t(out)] = int(i);
    for (size_t v = 0; v < values.size(); ++v)
      if (computed[v] >= 0 && int(v) != out && overlap(values[v], values[size_t(out)])) overwritten[v] = int(i);
  }
  for (size_t o = 0; o < plan.outputs.size(); ++o)
    check_read(plan.outputs[o], "output '" + values[size_t(plan.outputs[o])].name + "'");
  // Every value in a buffer is some kernel's result, so its shape is one model.so's kernels
  // were compiled for, and storage is bounded by them.
  for (size_t v = 0; v < values.size(); ++v)
    TIR_USER_CHECK(!values[v].is_buffer() || computed[v] >= 0)
        << plan_path << ": '" << values[v].name << "' (value " << v << ") has storage in buffer "
        << values[v].buffer << " but no kernel computes it; save the model again";
  return found;
}

}  // namespace tensorir::runtime
