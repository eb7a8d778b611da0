// ONNX's backend test cases (Debian libonnx-testdata): every case of node/, simple/,
// pytorch-converted/ and pytorch-operator/ is imported, built for "llvm" and run on its
// test data sets. A case is "unsupported" when the importer says so (UnsupportedError,
// with the reason), "passed" when every output matches within rtol 1e-3 and atol 1e-7,
// else "failed". A case refused because a shape, axes or bound comes from a graph input
// is run again with that input fixed at import, as `tensorir --input-value` does, and
// counted as passed "with inputs fixed". A table by category and by operator is printed, and a JSON summary is
// written into the build tree (onnx_backend_cases.json). The test fails if any case the
// importer accepted fails: what it accepts it must get right.
#include <tensorir/frontend/onnx.h>
#include <tensorir/graph/executor.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <set>
#include <sstream>

#include "onnx/onnx_test_util.h"

using namespace tensorir;
namespace fs = std::filesystem;
namespace tonnx = tensorir::onnx;  // ::onnx is ONNX's protobuf namespace

namespace {

constexpr double kRtol = 1e-3, kAtol = 1e-7;

struct CaseResult {
  std::string category, name, status, reason;  // status: passed, failed, unsupported
  std::vector<std::string> ops;
  std::vector<std::string> fixed;  // inputs fixed at import (ImportOptions::input_values)
  double seconds = 0;
};

std::vector<double> as_doubles(const NDArray &a) {
  const Type t = a.dtype();
  const int64_t n = a.numel();
  std::vector<double> out(static_cast<size_t>(n));
  auto copy = [&](auto *p) {
    for (int64_t i = 0; i < n; ++i) out[size_t(i)] = double(p[i]);
  };
  if (t == Float(32))
    copy(static_cast<const float *>(a.data()));
  else if (t == Float(64))
    copy(static_cast<const double *>(a.data()));
  else if (t == Int(8))
    copy(static_cast<const int8_t *>(a.data()));
  else if (t == Int(16))
    copy(static_cast<const int16_t *>(a.data()));
  else if (t == Int(32))
    copy(static_cast<const int32_t *>(a.data()));
  else if (t == Int(64))
    copy(static_cast<const int64_t *>(a.data()));
  else if (t == UInt(8) || t.is_bool())
    copy(static_cast<const uint8_t *>(a.data()));
  else if (t == UInt(16))
    copy(static_cast<const uint16_t *>(a.data()));
  else if (t == UInt(32))
    copy(static_cast<const uint32_t *>(a.data()));
  else if (t == UInt(64))
    copy(static_cast<const uint64_t *>(a.data()));
  else
    FAIL("no comparison for " << t);
  return out;
}

std::vector<fs::path> sorted_dirs(const fs::path &dir, const std::string &prefix) {
  std::vector<fs::path> out;
  if (!fs::is_directory(dir)) return out;
  for (const auto &e : fs::directory_iterator(dir))
    if (e.is_directory() && e.path().filename().string().rfind(prefix, 0) == 0) out.push_back(e.path());
  std::sort(out.begin(), out.end());
  return out;
}

// "input_3.pb" files of a data set, in their numeric order.
std::vector<fs::path> numbered(const fs::path &dir, const std::string &prefix) {
  std::vector<fs::path> out;
  for (int i = 0; fs::exists(dir / (prefix + std::to_string(i) + ".pb")); ++i)
    out.push_back(dir / (prefix + std::to_string(i) + ".pb"));
  return out;
}

// Whether `got` matches `want`; `why` says how it does not.
bool matches(const NDArray &got, const NDArray &want, std::string *why) {
  if (got.shape() != want.shape()) {
    *why = "shape " + shape_str(got.shape()) + ", want " + shape_str(want.shape());
    return false;
  }
  if (got.dtype() != want.dtype()) {
    *why = "dtype " + got.dtype().str() + ", want " + want.dtype().str();
    return false;
  }
  const bool exact = !want.dtype().is_float();
  return onnx_test::allclose(as_doubles(got), as_doubles(want), exact ? 0 : kRtol, exact ? 0 : kAtol, why);
}

// The positions of the model's graph inputs (those without an initializer) that are
// integers or scalars: shapes, axes, bounds, exponents.
std::vector<size_t> foldable_inputs(const tonnx::ModelInfo &info) {
  std::vector<size_t> out;
  for (size_t i = 0; i < info.inputs.size(); ++i) {
    const tonnx::ValueInfo &in = info.inputs[i];
    const bool tensor = in.dtype != "sequence" && in.dtype != "map" && in.dtype != "other";
    if (tensor && (in.dtype == "int64" || in.dtype == "int32" || in.shape.empty())) out.push_back(i);
  }
  return out;
}

// The values of data set `set` for the graph inputs at `positions`, as
// ImportOptions::input_values.
std::map<std::string, NDArray> fixed_values(const tonnx::ModelInfo &info, const std::vector<size_t> &positions,
                                            const fs::path &set) {
  std::map<std::string, NDArray> out;
  for (size_t i : positions)
    out[info.inputs[i].name] = tonnx::read_tensor((set / ("input_" + std::to_string(i) + ".pb")).string());
  return out;
}

// Runs model `m` on data set `set`, feeding the graph inputs of `info` except those at
// `skip`; "" when every output matches, else why not.
std::string run_data_set(const graph::CompiledModel &m, const tonnx::ModelInfo &info, const fs::path &set,
                         const std::vector<size_t> &skip = {}) {
  const std::vector<fs::path> inputs = numbered(set, "input_"), outputs = numbered(set, "output_");
  if (inputs.size() != info.inputs.size())
    throw Error(set.filename().string() + " has " + std::to_string(inputs.size()) + " inputs for " +
                std::to_string(info.inputs.size()) + " graph inputs");
  std::set<std::string> graph_inputs;  // dead inputs may be gone
  for (int id : m.graph().input_ids()) graph_inputs.insert(m.graph().node(id).name);
  std::map<std::string, NDArray> feed;
  for (size_t i = 0; i < inputs.size(); ++i)
    if (graph_inputs.count(info.inputs[i].name) && std::find(skip.begin(), skip.end(), i) == skip.end())
      feed[info.inputs[i].name] = tonnx::read_tensor(inputs[i].string());
  const graph::Outputs out = m.run(feed);
  if (out.size() != outputs.size())
    return std::to_string(out.size()) + " outputs, want " + std::to_string(outputs.size());
  for (size_t i = 0; i < outputs.size(); ++i) {
    std::string why;
    if (!matches(out.at(i), tonnx::read_tensor(outputs[i].string()), &why))
      return set.filename().string() + " output " + out.names()[i] + ": " + why;
  }
  return "";
}

// Imports the case with the inputs at `fixed` fixed to each data set's values (one model
// per data set) and runs it; "" when every output matches, else why not.
std::string run_fixed(const fs::path &dir, const tonnx::ModelInfo &info, const std::vector<fs::path> &sets,
                      const std::vector<size_t> &fixed) {
  for (const fs::path &set : sets) {
    tonnx::ImportOptions opt;
    opt.input_values = fixed_values(info, fixed, set);
    const graph::Graph g = tonnx::import((dir / "model.onnx").string(), opt);
    if (std::string why = run_data_set(graph::build(g, "llvm"), info, set, fixed); !why.empty()) return why;
  }
  return "";
}

// Imports the case as it is and runs every data set; "" when every output matches.
std::string run_sets(const fs::path &dir, const tonnx::ModelInfo &info, const std::vector<fs::path> &sets) {
  const graph::CompiledModel m = graph::build(tonnx::import((dir / "model.onnx").string()), "llvm");
  for (const fs::path &set : sets)
    if (std::string why = run_data_set(m, info, set); !why.empty()) return why;
  return "";
}

std::string unsupported_reason(const tonnx::UnsupportedError &e) {
  const auto &nodes = e.nodes();
  std::string r = nodes.empty() ? e.what() : (nodes[0].op.empty() ? "" : nodes[0].op + ": ") + nodes[0].reason;
  if (nodes.size() > 1) r += " (+" + std::to_string(nodes.size() - 1) + " more)";
  return r;
}

// The graph inputs the refused nodes need known at import, by their position in `info`.
std::vector<size_t> needed_inputs(const tonnx::UnsupportedError &e, const tonnx::ModelInfo &info) {
  std::vector<size_t> out;
  for (const tonnx::UnsupportedNode &u : e.nodes())
    for (size_t i = 0; i < info.inputs.size(); ++i)
      if (!u.input.empty() && info.inputs[i].name == u.input && std::find(out.begin(), out.end(), i) == out.end())
        out.push_back(i);
  return out;
}

// Runs one case: import, build, then every test data set. A case the importer refuses
// because nodes need a graph input's value at import (a shape, axes, a bound) is tried
// again with those inputs fixed to each data set's values (ImportOptions::input_values),
// as a user would compile it; `fixed` lists them. With `fix_all`, every integer or scalar
// input is fixed, so that the converters' paths for known values are checked against
// ONNX's outputs too; a case without such inputs gives nothing.
std::optional<CaseResult> run_case(const std::string &category, const fs::path &dir, bool fix_all) {
  CaseResult r{category, dir.filename().string(), "passed", "", {}, {}, 0};
  const auto t0 = std::chrono::steady_clock::now();
  const std::string model = (dir / "model.onnx").string();
  try {
    const tonnx::ModelInfo info = tonnx::inspect(model);
    for (const auto &[op, count] : info.operators) r.ops.push_back(op);
    const std::vector<fs::path> sets = sorted_dirs(dir, "test_data_set_");
    if (sets.empty()) throw Error("no test data sets");
    std::vector<size_t> fixed;
    if (fix_all) {
      fixed = foldable_inputs(info);
      if (fixed.empty()) return std::nullopt;
    }
    // Each round fixes what the last one was refused for (fixing one input can let the
    // importer reach nodes that need another).
    for (int round = 0;; ++round) {
      try {
        r.reason = fixed.empty() ? run_sets(dir, info, sets) : run_fixed(dir, info, sets, fixed);
        break;
      } catch (const tonnx::UnsupportedError &e) {
        const size_t before = fixed.size();
        for (size_t i : needed_inputs(e, info))
          if (std::find(fixed.begin(), fixed.end(), i) == fixed.end()) fixed.push_back(i);
        if (fixed.size() == before || round == 8) throw;
      }
    }
    for (size_t i : fixed) r.fixed.push_back(info.inputs[i].name);
    if (!r.reason.empty()) r.status = "failed";
  } catch (const tonnx::UnsupportedError &e) {
    r.status = "unsupported";
    r.reason = unsupported_reason(e);
  } catch (const std::exception &e) {
    r.status = "failed";
    r.reason = e.what();
  }
  r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return r;
}

std::string json_escape(const std::string &s) {
  std::string out;
  for (char ch : s) {
    if (ch == '"' || ch == '\\') out += '\\';
    if (static_cast<unsigned char>(ch) < 0x20) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\u%04x", ch);
      out += buf;
      continue;
    }
    out += ch;
  }
  return out;
}

struct Counts {
  int passed = 0, fixed = 0, failed = 0, unsupported = 0;  // fixed: passed with inputs fixed at import
  void add(const CaseResult &r) {
    (r.status == "passed" ? passed : r.status == "failed" ? failed : unsupported)++;
    if (r.status == "passed" && !r.fixed.empty()) ++fixed;
  }
  int total() const { return passed + failed + unsupported; }
  double percent() const { return total() ? 100.0 * passed / total() : 0; }
};

void write_summary(const std::vector<CaseResult> &results, const std::map<std::string, Counts> &by_category,
                   const std::string &path) {
  std::ofstream os(path);
  os << "{\n  \"rtol\": " << kRtol << ", \"atol\": " << kAtol << ",\n  \"categories\": {";
  bool first = true;
  for (const auto &[cat, c] : by_category) {
    os << (first ? "\n" : ",\n") << "    \"" << cat << "\": {\"passed\": " << c.passed << ", \"passed_with_inputs_fixed\": " << c.fixed
       << ", \"failed\": " << c.failed
       << ", \"unsupported\": " << c.unsupported << "}";
    first = false;
  }
  os << "\n  },\n  \"cases\": [";
  for (size_t i = 0; i < results.size(); ++i) {
    const CaseResult &r = results[i];
    os << (i ? ",\n" : "\n") << "    {\"category\": \"" << r.category << "\", \"name\": \"" << r.name
       << "\", \"status\": \"" << r.status << "\", \"reason\": \"" << json_escape(r.reason) << "\", \"ops\": [";
    for (size_t j = 0; j < r.ops.size(); ++j) os << (j ? ", " : "") << "\"" << r.ops[j] << "\"";
    os << "], \"fixed_inputs\": [";
    for (size_t j = 0; j < r.fixed.size(); ++j) os << (j ? ", " : "") << "\"" << json_escape(r.fixed[j]) << "\"";
    os << "]}";
  }
  os << "\n  ]\n}\n";
}

// Runs every case of the four folders and prints the tables; `summary` names the JSON
// file written into the build tree. Returns the failures, one line each.
std::string run_all(bool fix_all, const std::string &title, const std::string &summary) {
  const fs::path root = TENSORIR_ONNX_TESTDATA;
  if (!fs::is_directory(root / "node")) FAIL("no ONNX backend test data at " << root << ": install libonnx-testdata");
  // TENSORIR_ONNX_CASES=substring runs only the cases whose name contains it.
  const char *only = std::getenv("TENSORIR_ONNX_CASES");
  std::vector<CaseResult> results;
  std::map<std::string, Counts> by_category, by_op;
  for (const std::string category : {"node", "simple", "pytorch-converted", "pytorch-operator"}) {
    for (const fs::path &dir : sorted_dirs(root / category, "test_")) {
      if (only && dir.filename().string().find(only) == std::string::npos) continue;
      std::optional<CaseResult> r = run_case(category, dir, fix_all);
      if (!r) continue;
      by_category[category].add(*r);
      for (const std::string &op : r->ops) by_op[op].add(*r);
      results.push_back(std::move(*r));
    }
  }
  Counts all;
  for (const CaseResult &r : results) all.add(r);

  // "inputs fixed": passed once their integer or scalar inputs were fixed at import.
  std::printf("\n%s (rtol %g, atol %g)\n%-20s %7s %14s %7s %12s %6s %7s\n", title.c_str(), kRtol, kAtol, "category",
              "passed", "inputs fixed", "failed", "unsupported", "total", "passed");
  auto row = [](const std::string &name, const Counts &c) {
    std::printf("%-20s %7d %14d %7d %12d %6d %6.1f%%\n", name.c_str(), c.passed, c.fixed, c.failed, c.unsupported,
                c.total(), c.percent());
  };
  for (const auto &[cat, c] : by_category) row(cat, c);
  row("all", all);
  std::printf("\nby operator (a case counts under every operator it holds)\n%-28s %7s %7s %12s\n", "operator", "passed",
              "failed", "unsupported");
  for (const auto &[op, c] : by_op) std::printf("%-28s %7d %7d %12d\n", op.c_str(), c.passed, c.failed, c.unsupported);
  if (!fix_all) {
    std::map<std::string, int> reasons;
    for (const CaseResult &r : results)
      if (r.status == "unsupported") ++reasons[r.reason];
    std::printf("\nunsupported, by reason:\n");
    for (const auto &[reason, n] : reasons) std::printf("  %4d  %s\n", n, reason.c_str());
  }
  std::string failed;
  for (const CaseResult &r : results)
    if (r.status == "failed") failed += "\n  " + r.category + "/" + r.name + ": " + r.reason;
  std::printf("\nfailed cases:%s\n", failed.empty() ? " none" : failed.c_str());
  const std::string path = std::string(TENSORIR_ONNX_SUMMARY_DIR) + "/" + summary;
  write_summary(results, by_category, path);
  std::printf("summary: %s\n", path.c_str());
  std::fflush(stdout);
  CHECK(all.passed > 0);
  return failed;
}

}  // namespace

TEST_CASE("ONNX backend test cases: what the importer accepts runs right", "[onnx][backend]") {
  const std::string failed = run_all(false, "ONNX backend test cases", "onnx_backend_cases.json");
  INFO("cases the importer accepts but that fail:" << failed);
  CHECK(failed.empty());
}

TEST_CASE("ONNX backend test cases with their integer and scalar inputs fixed", "[onnx][backend]") {
  // Fixed at import, shapes, axes and bounds take the converters' paths for known values,
  // which are then checked against ONNX's outputs too.
  const std::string failed = run_all(true, "ONNX backend test cases, integer and scalar inputs fixed at import",
                                     "onnx_backend_cases_inputs_fixed.json");
  INFO("cases the importer accepts but that fail:" << failed);
  CHECK(failed.empty());
}
