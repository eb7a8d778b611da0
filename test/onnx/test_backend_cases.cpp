// ONNX's backend test cases (Debian libonnx-testdata): every case of node/, simple/,
// pytorch-converted/ and pytorch-operator/ is imported, built for "llvm" and run on its
// test data sets. A case is "unsupported" when the importer says so (UnsupportedError,
// with the reason), "passed" when every output matches within rtol 1e-3 and atol 1e-7,
// else "failed". Each case runs through onnx::Session, as a user runs a model: graph
// inputs that give a shape, axes or a bound are given with each data set, and the
// session compiles the model for their values; such cases count as passed and
// "specialized". A table by category and by operator is printed, and a JSON summary is
// written into the build tree (onnx_backend_cases.json). The test fails if any case the
// importer accepted fails: what it accepts it must get right.
#include <tensorir/frontend/onnx.h>
#include <tensorir/graph/executor.h>

#include <algorithm>
#include <chrono>
#include <map>
#include <optional>

#include "onnx/backend_cases.h"
#include "onnx/onnx_test_util.h"

using namespace tensorir;
using namespace tensorir::onnx_cases;
namespace tonnx = tensorir::onnx;  // ::onnx is ONNX's protobuf namespace

namespace {

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

// The graph inputs the refused nodes need known at import, by their position in `info`.
std::vector<size_t> needed_inputs(const tonnx::UnsupportedError &e, const tonnx::ModelInfo &info) {
  std::vector<size_t> out;
  for (const tonnx::UnsupportedNode &u : e.nodes())
    for (size_t i = 0; i < info.inputs.size(); ++i)
      if (!u.input.empty() && info.inputs[i].name == u.input && std::find(out.begin(), out.end(), i) == out.end())
        out.push_back(i);
  return out;
}

// Runs every data set through one onnx::Session; "" when every output matches, else why
// not. `r` gets the shape inputs the session fixed at import and whether it ran in stages.
std::string run_session(const fs::path &dir, const tonnx::ModelInfo &info, const std::vector<fs::path> &sets,
                        CaseResult *r) {
  tonnx::Session s = tonnx::Session::open((dir / "model.onnx").string(), "llvm");
  std::string why;
  for (size_t i = 0; i < sets.size() && why.empty(); ++i) why = compare_outputs(s.run(read_inputs(info, sets[i])), sets[i]);
  r->specialized = s.shape_inputs();
  r->staged = s.staged();
  return why;
}

// Every integer or scalar input fixed up front, to each data set's values: rounds fix
// what the last was refused for too (fixing one input can let the importer reach nodes
// that need another).
std::string run_all_fixed(const fs::path &dir, const tonnx::ModelInfo &info, const std::vector<fs::path> &sets,
                          std::vector<size_t> fixed, std::vector<std::string> *specialized) {
  for (int round = 0;; ++round) {
    try {
      const std::string why = run_fixed(dir, info, sets, fixed);
      for (size_t i : fixed) specialized->push_back(info.inputs[i].name);
      return why;
    } catch (const tonnx::UnsupportedError &e) {
      const size_t before = fixed.size();
      for (size_t i : needed_inputs(e, info))
        if (std::find(fixed.begin(), fixed.end(), i) == fixed.end()) fixed.push_back(i);
      if (fixed.size() == before || round == 8) throw;
    }
  }
}

// Runs one case on its test data sets, through a session; with `fix_all`, every integer
// or scalar input is fixed at import instead, so that the converters' paths for known
// values are checked against ONNX's outputs too (a case without such inputs gives
// nothing).
std::optional<CaseResult> run_case(const std::string &category, const fs::path &dir, bool fix_all) {
  CaseResult r{category, dir.filename().string(), "passed", "", {}, {}, 0};
  const auto t0 = std::chrono::steady_clock::now();
  const std::string model = (dir / "model.onnx").string();
  try {
    const tonnx::ModelInfo info = tonnx::inspect(model);
    for (const auto &[op, count] : info.operators) r.ops.push_back(op);
    const std::vector<fs::path> sets = sorted_dirs(dir, "test_data_set_");
    if (sets.empty()) throw Error("no test data sets");
    if (fix_all) {
      const std::vector<size_t> fixed = foldable_inputs(info);
      if (fixed.empty()) return std::nullopt;
      r.reason = run_all_fixed(dir, info, sets, fixed, &r.specialized);
    } else {
      r.reason = run_session(dir, info, sets, &r);
    }
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

// Runs every case of the four folders and prints the tables; `summary` names the JSON
// file written into the build tree. Returns the failures, one line each.
std::string run_all(bool fix_all, const std::string &title, const std::string &summary) {
  std::vector<CaseResult> results;
  for (const Case &c : list_cases())
    if (std::optional<CaseResult> r = run_case(c.category, c.dir, fix_all)) results.push_back(std::move(*r));
  return report(results, title, summary, !fix_all);
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
