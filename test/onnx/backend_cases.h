// What the runners of ONNX's backend test cases (Debian libonnx-testdata) share: finding
// the cases, reading their data sets, running them on a target and comparing with ONNX's
// tolerances, the tables and the JSON summary written into the build tree.
#pragma once
#include <tensorir/frontend/onnx.h>
#include <tensorir/graph/executor.h>

#include <filesystem>
#include <map>
#include <string>
#include <vector>

namespace tensorir::onnx_cases {

namespace fs = std::filesystem;

constexpr double kRtol = 1e-3, kAtol = 1e-7;

struct Case {
  std::string category;  // node, simple, pytorch-converted, pytorch-operator
  fs::path dir;          // holds model.onnx and test_data_set_N/
};

struct CaseResult {
  std::string category, name, status, reason;  // status: passed, failed, unsupported
  std::vector<std::string> ops;
  // Inputs fixed at import: the shape inputs the session specialized each run for, or
  // those a runner fixed up front (ImportOptions::input_values).
  std::vector<std::string> specialized;
  double seconds = 0;
  // Run in stages around nodes that need values the model computes (Session::staged).
  bool staged = false;
};

// Every case of the four folders, in order; TENSORIR_ONNX_CASES=substring keeps only the
// cases whose name contains it. Fails the test when the data is not installed.
std::vector<Case> list_cases();

std::vector<fs::path> sorted_dirs(const fs::path &dir, const std::string &prefix);
// "input_3.pb" files of a data set, in their numeric order.
std::vector<fs::path> numbered(const fs::path &dir, const std::string &prefix);

// Whether `got` matches `want` (exactly for integers, else within kRtol and kAtol);
// `why` says how it does not.
bool matches(const NDArray &got, const NDArray &want, std::string *why);

// Whether every graph input and output of the case is a float32 tensor (or, with
// `int64_and_bool`, a float32, int64 or bool tensor).
bool all_float32(const onnx::ModelInfo &info, bool int64_and_bool = false);

// Whether the case is in the float32 subset that the runners of the other targets run:
// a node case whose graph inputs and outputs are all float32 tensors (with
// `int64_and_bool`, also int64 or bool ones, which the texture targets store as float32)
// and that passes on "llvm" as imported. Fills `info` and `sets` (its data sets) when it is.
bool in_float32_subset(const Case &c, onnx::ModelInfo *info, std::vector<fs::path> *sets,
                       bool int64_and_bool = false);

// The arrays of data set `set`, by the names of the graph inputs of `info`, except those
// at `skip`.
std::map<std::string, NDArray> read_inputs(const onnx::ModelInfo &info, const fs::path &set,
                                           const std::vector<size_t> &skip = {});
// "" when `out` matches the outputs of data set `set`, else why not.
std::string compare_outputs(const graph::Outputs &out, const fs::path &set);

// Runs model `m` on data set `set`, feeding the graph inputs of `info` except those at
// `skip`; "" when every output matches, else why not.
std::string run_data_set(const graph::CompiledModel &m, const onnx::ModelInfo &info, const fs::path &set,
                         const std::vector<size_t> &skip = {});
// Imports the case as it is, builds it for `target` and runs every data set; "" when
// every output matches.
std::string run_sets(const fs::path &dir, const onnx::ModelInfo &info, const std::vector<fs::path> &sets,
                     const std::string &target = "llvm");

// `s` with quotes, backslashes and control characters escaped for a JSON string.
std::string json_escape(const std::string &s);

// The first refused node and its reason, and how many more there are.
std::string unsupported_reason(const onnx::UnsupportedError &e);

struct Counts {
  // specialized: passed with inputs fixed at import; staged: passed in stages
  int passed = 0, specialized = 0, staged = 0, failed = 0, unsupported = 0;
  void add(const CaseResult &r);
  int total() const { return passed + failed + unsupported; }
  double percent() const { return total() ? 100.0 * passed / total() : 0; }
};

// Prints the tables (by category, by operator, the unsupported cases by reason when
// `reasons`, the failed cases) and writes the JSON summary `summary` into the build tree
// (with "target" when `target` is given). Returns the failures, one line each.
std::string report(const std::vector<CaseResult> &results, const std::string &title, const std::string &summary,
                   bool reasons, const std::string &target = "");

}  // namespace tensorir::onnx_cases
