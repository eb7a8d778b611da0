#include "onnx/backend_cases.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <set>

#include "onnx/onnx_test_util.h"

namespace tensorir::onnx_cases {

namespace tonnx = tensorir::onnx;

namespace {

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

void write_summary(const std::vector<CaseResult> &results, const std::map<std::string, Counts> &by_category,
                   const std::string &path, const std::string &target) {
  std::ofstream os(path);
  os << "{\n  ";
  if (!target.empty()) os << "\"target\": \"" << json_escape(target) << "\", ";
  os << "\"rtol\": " << kRtol << ", \"atol\": " << kAtol << ",\n  \"categories\": {";
  bool first = true;
  for (const auto &[cat, c] : by_category) {
    os << (first ? "\n" : ",\n") << "    \"" << cat << "\": {\"passed\": " << c.passed << ", \"passed_specialized\": " << c.specialized
       << ", \"passed_in_stages\": " << c.staged << ", \"failed\": " << c.failed
       << ", \"unsupported\": " << c.unsupported << "}";
    first = false;
  }
  os << "\n  },\n  \"cases\": [";
  for (size_t i = 0; i < results.size(); ++i) {
    const CaseResult &r = results[i];
    os << (i ? ",\n" : "\n") << "    {\"category\": \"" << r.category << "\", \"name\": \"" << r.name
       << "\", \"status\": \"" << r.status << "\", \"reason\": \"" << json_escape(r.reason) << "\", \"ops\": [";
    for (size_t j = 0; j < r.ops.size(); ++j) os << (j ? ", " : "") << "\"" << r.ops[j] << "\"";
    os << "], \"specialized_inputs\": [";
    for (size_t j = 0; j < r.specialized.size(); ++j)
      os << (j ? ", " : "") << "\"" << json_escape(r.specialized[j]) << "\"";
    os << "], \"in_stages\": " << (r.staged ? "true" : "false") << "}";
  }
  os << "\n  ]\n}\n";
}

}  // namespace

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

std::vector<fs::path> sorted_dirs(const fs::path &dir, const std::string &prefix) {
  std::vector<fs::path> out;
  if (!fs::is_directory(dir)) return out;
  for (const auto &e : fs::directory_iterator(dir))
    if (e.is_directory() && e.path().filename().string().rfind(prefix, 0) == 0) out.push_back(e.path());
  std::sort(out.begin(), out.end());
  return out;
}

std::vector<fs::path> numbered(const fs::path &dir, const std::string &prefix) {
  std::vector<fs::path> out;
  for (int i = 0; fs::exists(dir / (prefix + std::to_string(i) + ".pb")); ++i)
    out.push_back(dir / (prefix + std::to_string(i) + ".pb"));
  return out;
}

std::vector<Case> list_cases() {
  const fs::path root = TENSORIR_ONNX_TESTDATA;
  if (!fs::is_directory(root / "node")) FAIL("no ONNX backend test data at " << root << ": install libonnx-testdata");
  const char *only = std::getenv("TENSORIR_ONNX_CASES");
  std::vector<Case> out;
  for (const std::string category : {"node", "simple", "pytorch-converted", "pytorch-operator"})
    for (const fs::path &dir : sorted_dirs(root / category, "test_"))
      if (!only || dir.filename().string().find(only) != std::string::npos) out.push_back({category, dir});
  return out;
}

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

bool all_float32(const tonnx::ModelInfo &info, bool int64_and_bool) {
  auto f32 = [&](const tonnx::ValueInfo &v) {
    return v.dtype == "float32" || (int64_and_bool && (v.dtype == "int64" || v.dtype == "bool"));
  };
  return std::all_of(info.inputs.begin(), info.inputs.end(), f32) &&
         std::all_of(info.outputs.begin(), info.outputs.end(), f32);
}

bool in_float32_subset(const Case &c, tonnx::ModelInfo *info, std::vector<fs::path> *sets, bool int64_and_bool) {
  if (c.category != "node") return false;
  try {
    *info = tonnx::inspect((c.dir / "model.onnx").string());
    *sets = sorted_dirs(c.dir, "test_data_set_");
    return all_float32(*info, int64_and_bool) && !sets->empty() && run_sets(c.dir, *info, *sets).empty();
  } catch (const std::exception &) {
    return false;  // refused by the importer, or failing on "llvm" (which its own runner reports)
  }
}

std::map<std::string, NDArray> read_inputs(const tonnx::ModelInfo &info, const fs::path &set,
                                           const std::vector<size_t> &skip) {
  const std::vector<fs::path> inputs = numbered(set, "input_");
  if (inputs.size() != info.inputs.size())
    throw Error(set.filename().string() + " has " + std::to_string(inputs.size()) + " inputs for " +
                std::to_string(info.inputs.size()) + " graph inputs");
  std::map<std::string, NDArray> feed;
  for (size_t i = 0; i < inputs.size(); ++i)
    if (std::find(skip.begin(), skip.end(), i) == skip.end())
      feed[info.inputs[i].name] = tonnx::read_tensor(inputs[i].string());
  return feed;
}

std::string compare_outputs(const graph::Outputs &out, const fs::path &set) {
  const std::vector<fs::path> outputs = numbered(set, "output_");
  if (out.size() != outputs.size())
    return std::to_string(out.size()) + " outputs, want " + std::to_string(outputs.size());
  for (size_t i = 0; i < outputs.size(); ++i) {
    std::string why;
    if (!matches(out.at(i), tonnx::read_tensor(outputs[i].string()), &why))
      return set.filename().string() + " output " + out.names()[i] + ": " + why;
  }
  return "";
}

std::string run_data_set(const graph::CompiledModel &m, const tonnx::ModelInfo &info, const fs::path &set,
                         const std::vector<size_t> &skip) {
  std::set<std::string> graph_inputs;  // dead inputs may be gone
  for (int id : m.graph().input_ids()) graph_inputs.insert(m.graph().node(id).name);
  std::map<std::string, NDArray> feed = read_inputs(info, set, skip);
  for (auto it = feed.begin(); it != feed.end();) it = graph_inputs.count(it->first) ? std::next(it) : feed.erase(it);
  return compare_outputs(m.run(feed), set);
}

std::string run_sets(const fs::path &dir, const tonnx::ModelInfo &info, const std::vector<fs::path> &sets,
                     const std::string &target) {
  const graph::CompiledModel m = graph::build(tonnx::import((dir / "model.onnx").string()), target);
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

void Counts::add(const CaseResult &r) {
  (r.status == "passed" ? passed : r.status == "failed" ? failed : unsupported)++;
  if (r.status == "passed" && !r.specialized.empty()) ++specialized;
  if (r.status == "passed" && r.staged) ++staged;
}

std::string report(const std::vector<CaseResult> &results, const std::string &title, const std::string &summary,
                   bool reasons, const std::string &target) {
  std::map<std::string, Counts> by_category, by_op;
  Counts all;
  for (const CaseResult &r : results) {
    by_category[r.category].add(r);
    for (const std::string &op : r.ops) by_op[op].add(r);
    all.add(r);
  }
  // "specialized": of the passed, those compiled with inputs fixed at import (the
  // session's shape inputs, given with each data set); "in stages": those run in stages
  // around nodes that need values the model computes.
  std::printf("\n%s (rtol %g, atol %g)\n%-20s %7s %12s %10s %7s %12s %6s %7s\n", title.c_str(), kRtol, kAtol,
              "category", "passed", "specialized", "in stages", "failed", "unsupported", "total", "passed");
  auto row = [](const std::string &name, const Counts &c) {
    std::printf("%-20s %7d %12d %10d %7d %12d %6d %6.1f%%\n", name.c_str(), c.passed, c.specialized, c.staged, c.failed,
                c.unsupported, c.total(), c.percent());
  };
  for (const auto &[cat, c] : by_category) row(cat, c);
  row("all", all);
  std::printf("\nby operator (a case counts under every operator it holds)\n%-28s %7s %7s %12s\n", "operator", "passed",
              "failed", "unsupported");
  for (const auto &[op, c] : by_op) std::printf("%-28s %7d %7d %12d\n", op.c_str(), c.passed, c.failed, c.unsupported);
  if (reasons) {
    std::map<std::string, int> by_reason;
    for (const CaseResult &r : results)
      if (r.status == "unsupported") ++by_reason[r.reason];
    std::printf("\nunsupported, by reason:\n");
    for (const auto &[reason, n] : by_reason) std::printf("  %4d  %s\n", n, reason.c_str());
  }
  std::string failed;
  for (const CaseResult &r : results)
    if (r.status == "failed") failed += "\n  " + r.category + "/" + r.name + ": " + r.reason;
  std::printf("\nfailed cases:%s\n", failed.empty() ? " none" : failed.c_str());
  const std::string path = std::string(TENSORIR_ONNX_SUMMARY_DIR) + "/" + summary;
  write_summary(results, by_category, path, target);
  std::printf("summary: %s\n", path.c_str());
  std::fflush(stdout);
  CHECK(all.passed > 0);
  return failed;
}

}  // namespace tensorir::onnx_cases
