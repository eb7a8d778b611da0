// ONNX's backend test cases (Debian libonnx-testdata): every case of node/, simple/,
// pytorch-converted/ and pytorch-operator/ is imported, built for "llvm" and run on its
// test data sets. A case is "unsupported" when the importer says so (UnsupportedError,
// with the reason), "passed" when every output matches within rtol 1e-3 and atol 1e-7,
// else "failed". A table by category and by operator is printed, and a JSON summary is
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
std::vector<size_t> foldable_inputs(const ::onnx::GraphProto &g) {
  std::set<std::string> initializers;
  for (const auto &t : g.initializer()) initializers.insert(t.name());
  std::vector<size_t> out;
  size_t i = 0;
  for (const auto &in : g.input()) {
    if (initializers.count(in.name())) continue;
    const auto &tt = in.type().tensor_type();
    const bool integer = tt.elem_type() == ::onnx::TensorProto::INT64 || tt.elem_type() == ::onnx::TensorProto::INT32;
    if (in.type().has_tensor_type() && (integer || (tt.has_shape() && tt.shape().dim_size() == 0))) out.push_back(i);
    ++i;
  }
  return out;
}

// `m` with the graph inputs at `positions` made initializers holding data set `set`'s values.
std::string with_inputs_known(::onnx::ModelProto m, const std::vector<size_t> &positions, const fs::path &set) {
  std::set<std::string> initializers;
  for (const auto &t : m.graph().initializer()) initializers.insert(t.name());
  google::protobuf::RepeatedPtrField<::onnx::ValueInfoProto> kept;
  size_t i = 0;
  for (const auto &in : m.graph().input()) {
    if (initializers.count(in.name())) {
      *kept.Add() = in;
      continue;
    }
    if (std::find(positions.begin(), positions.end(), i) != positions.end()) {
      ::onnx::TensorProto t;
      std::ifstream f(set / ("input_" + std::to_string(i) + ".pb"), std::ios::binary);
      std::ostringstream bytes;
      bytes << f.rdbuf();
      if (!t.ParseFromString(bytes.str()))
        throw Error("cannot read input " + std::to_string(i) + " of " + set.string());
      t.set_name(in.name());
      *m.mutable_graph()->add_initializer() = t;
    } else {
      *kept.Add() = in;
    }
    ++i;
  }
  *m.mutable_graph()->mutable_input() = kept;
  return m.SerializeAsString();
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

// Runs one case: import, build, then every test data set. With `known_inputs`, the
// integer and scalar graph inputs are made initializers first (one model per data set),
// so that converters needing known shapes, axes or bounds are checked against ONNX's
// outputs too; a case without such inputs gives nothing.
std::optional<CaseResult> run_case(const std::string &category, const fs::path &dir, bool known_inputs) {
  CaseResult r{category, dir.filename().string(), "passed", "", {}, 0};
  const auto t0 = std::chrono::steady_clock::now();
  const std::string model = (dir / "model.onnx").string();
  try {
    const tonnx::ModelInfo info = tonnx::inspect(model);
    for (const auto &[op, count] : info.operators) r.ops.push_back(op);
    const std::vector<fs::path> sets = sorted_dirs(dir, "test_data_set_");
    if (sets.empty()) throw Error("no test data sets");
    if (!known_inputs) {
      const graph::CompiledModel m = graph::build(tonnx::import(model), "llvm");
      for (const fs::path &set : sets)
        if (r.reason.empty()) r.reason = run_data_set(m, info, set);
    } else {
      ::onnx::ModelProto proto;
      std::ifstream f(model, std::ios::binary);
      if (!proto.ParseFromIstream(&f)) throw Error("cannot parse " + model);
      const std::vector<size_t> fold = foldable_inputs(proto.graph());
      if (fold.empty()) return std::nullopt;
      tonnx::ImportOptions opt;
      opt.external_data_dir = dir.string();
      for (const fs::path &set : sets) {
        if (!r.reason.empty()) break;
        const graph::Graph g = tonnx::import_bytes(with_inputs_known(proto, fold, set), opt);
        r.reason = run_data_set(graph::build(g, "llvm"), info, set, fold);
      }
    }
    if (!r.reason.empty()) r.status = "failed";
  } catch (const tonnx::UnsupportedError &e) {
    r.status = "unsupported";
    const auto &nodes = e.nodes();
    r.reason = nodes.empty() ? e.what() : (nodes[0].op.empty() ? "" : nodes[0].op + ": ") + nodes[0].reason;
    if (nodes.size() > 1) r.reason += " (+" + std::to_string(nodes.size() - 1) + " more)";
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
  int passed = 0, failed = 0, unsupported = 0;
  void add(const std::string &status) { (status == "passed" ? passed : status == "failed" ? failed : unsupported)++; }
  int total() const { return passed + failed + unsupported; }
};

void write_summary(const std::vector<CaseResult> &results, const std::map<std::string, Counts> &by_category,
                   const std::string &path) {
  std::ofstream os(path);
  os << "{\n  \"rtol\": " << kRtol << ", \"atol\": " << kAtol << ",\n  \"categories\": {";
  bool first = true;
  for (const auto &[cat, c] : by_category) {
    os << (first ? "\n" : ",\n") << "    \"" << cat << "\": {\"passed\": " << c.passed << ", \"failed\": " << c.failed
       << ", \"unsupported\": " << c.unsupported << "}";
    first = false;
  }
  os << "\n  },\n  \"cases\": [";
  for (size_t i = 0; i < results.size(); ++i) {
    const CaseResult &r = results[i];
    os << (i ? ",\n" : "\n") << "    {\"category\": \"" << r.category << "\", \"name\": \"" << r.name
       << "\", \"status\": \"" << r.status << "\", \"reason\": \"" << json_escape(r.reason) << "\", \"ops\": [";
    for (size_t j = 0; j < r.ops.size(); ++j) os << (j ? ", " : "") << "\"" << r.ops[j] << "\"";
    os << "]}";
  }
  os << "\n  ]\n}\n";
}

// Runs every case of the four folders and prints the tables; `summary` names the JSON
// file written into the build tree. Returns the failures, one line each.
std::string run_all(bool known_inputs, const std::string &title, const std::string &summary) {
  const fs::path root = TENSORIR_ONNX_TESTDATA;
  if (!fs::is_directory(root / "node")) FAIL("no ONNX backend test data at " << root << ": install libonnx-testdata");
  // TENSORIR_ONNX_CASES=substring runs only the cases whose name contains it.
  const char *only = std::getenv("TENSORIR_ONNX_CASES");
  std::vector<CaseResult> results;
  std::map<std::string, Counts> by_category, by_op;
  for (const std::string category : {"node", "simple", "pytorch-converted", "pytorch-operator"}) {
    for (const fs::path &dir : sorted_dirs(root / category, "test_")) {
      if (only && dir.filename().string().find(only) == std::string::npos) continue;
      std::optional<CaseResult> r = run_case(category, dir, known_inputs);
      if (!r) continue;
      by_category[category].add(r->status);
      for (const std::string &op : r->ops) by_op[op].add(r->status);
      results.push_back(std::move(*r));
    }
  }
  Counts all;
  for (const CaseResult &r : results) all.add(r.status);

  std::printf("\n%s (rtol %g, atol %g)\n%-20s %7s %7s %12s %6s\n", title.c_str(), kRtol, kAtol, "category", "passed",
              "failed", "unsupported", "total");
  for (const auto &[cat, c] : by_category)
    std::printf("%-20s %7d %7d %12d %6d\n", cat.c_str(), c.passed, c.failed, c.unsupported, c.total());
  std::printf("%-20s %7d %7d %12d %6d\n", "all", all.passed, all.failed, all.unsupported, all.total());
  std::printf("\nby operator (a case counts under every operator it holds)\n%-28s %7s %7s %12s\n", "operator", "passed",
              "failed", "unsupported");
  for (const auto &[op, c] : by_op) std::printf("%-28s %7d %7d %12d\n", op.c_str(), c.passed, c.failed, c.unsupported);
  if (std::getenv("TENSORIR_ONNX_REASONS")) {
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

TEST_CASE("ONNX backend test cases with their integer and scalar inputs known", "[onnx][backend]") {
  // Many cases pass shapes, axes or bounds as graph inputs, which the importer needs
  // known; as initializers they check those converters against ONNX's outputs as well.
  const std::string failed = run_all(true, "ONNX backend test cases, integer and scalar inputs as initializers",
                                     "onnx_backend_cases_known_inputs.json");
  INFO("cases the importer accepts but that fail:" << failed);
  CHECK(failed.empty());
}
