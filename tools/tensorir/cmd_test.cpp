// tensorir test MODEL --data-dir DIR: runs an ONNX backend test case (DIR/input_N.pb in
// the order of the model's inputs, DIR/output_N.pb in the order of its outputs) and says
// pass or fail with the worst element (output_compare.h).
#include <CLI/CLI.hpp>

#include <cstdio>
#include <filesystem>

#include "cli.h"
#include "cli_checks.h"
#include "output_compare.h"
#include "runnable.h"
#include "tensorir/frontend/onnx.h"

namespace tensorir::cli {

namespace {

struct TestArgs {
  std::string model, data_dir, target;
  ModelOptions model_options;
  double rtol = 1e-3, atol = 1e-7;
};

std::vector<std::string> numbered(const std::string &dir, const char *prefix) {
  std::vector<std::string> files;
  for (int i = 0;; ++i) {
    const auto p = std::filesystem::path(dir) / (std::string(prefix) + std::to_string(i) + ".pb");
    if (!std::filesystem::exists(p)) break;
    files.push_back(p.string());
  }
  return files;
}

// Whether `got` matches `want`; prints the comparison of output `name`. `got_type` and
// `want_type` are the element types the model declares and the file holds.
bool compare(const std::string &name, const NDArray &got, const NDArray &want, const std::string &got_type,
             const std::string &want_type, double rtol, double atol) {
  if (got_type != want_type) {
    std::printf("output '%s': FAIL: data type %s, expected %s\n", name.c_str(), got_type.c_str(), want_type.c_str());
    return false;
  }
  if (got.shape() != want.shape()) {
    std::printf("output '%s': FAIL: shape %s, expected %s\n", name.c_str(), shape_str(got.shape()).c_str(),
                shape_str(want.shape()).c_str());
    return false;
  }
  const ElementComparison r = compare_elements(got, want, rtol, atol);
  if (r.count == 0) {
    std::printf("output '%s': pass (empty %s)\n", name.c_str(), shape_str(got.shape()).c_str());
    return true;
  }
  std::printf("output '%s': %s: %zu of %zu elements %s; worst at %zu: got %s, expected %s\n", name.c_str(),
              r.bad ? "FAIL" : "pass", r.bad, r.count, r.criterion.c_str(), r.worst, r.got.c_str(), r.want.c_str());
  return r.bad == 0;
}

// The names input_0.pb, input_1.pb, ... stand for: an ONNX model's graph inputs in its
// order (also those fixed at import), else the runnable's inputs.
std::vector<std::string> input_names(const Runnable &r) {
  std::vector<std::string> names;
  if (r.onnx)
    for (const onnx::ValueInfo &in : r.onnx->inputs) names.push_back(in.name);
  else
    for (const RunnableInput &in : r.inputs) names.push_back(in.name);
  return names;
}

void test(const TestArgs &a) {
  const std::vector<std::string> in_files = numbered(a.data_dir, "input_"), out_files = numbered(a.data_dir, "output_");
  if (out_files.empty())
    throw UsageError{"'" + a.data_dir + "' holds no output_0.pb: expected an ONNX test data set (input_N.pb, output_N.pb)"};
  const Runnable r = make_runnable(a.model, a.target, a.model_options);
  const std::vector<std::string> names = input_names(r);
  if (in_files.size() != names.size())
    throw UsageError{a.data_dir + " has " + std::to_string(in_files.size()) + " input files but the model takes " +
                     std::to_string(names.size()) + " inputs"};
  if (out_files.size() != r.output_names.size())
    throw UsageError{a.data_dir + " has " + std::to_string(out_files.size()) + " output files but the model has " +
                     std::to_string(r.output_names.size()) + " outputs"};
  std::map<std::string, NDArray> inputs;
  // Files of inputs fixed at import (--input-value), or that no node reads, are not fed.
  for (size_t i = 0; i < in_files.size(); ++i)
    for (const RunnableInput &in : r.inputs)
      if (in.name == names[i]) inputs[in.name] = read_array(in_files[i]);
  const std::map<std::string, NDArray> outputs = r.run(inputs);
  bool ok = true;
  for (size_t i = 0; i < out_files.size(); ++i) {
    const std::string &name = r.output_names[i];
    const NDArray &got = outputs.at(name);
    const NDArray want = read_array(out_files[i]);
    ok = compare(name, got, want, r.onnx ? r.onnx->outputs.at(i).dtype : got.dtype().str(),
                 onnx::tensor_file_type(out_files[i]), a.rtol, a.atol) &&
         ok;
  }
  std::printf("%s: %s\n", a.model.c_str(), ok ? "PASS" : "FAIL");
  if (!ok) throw CLI::RuntimeError(1);
}

}  // namespace

void add_test(CLI::App &app) {
  auto a = std::make_shared<TestArgs>();
  CLI::App *cmd = app.add_subcommand("test", "run an ONNX backend test case and compare its outputs");
  cmd->add_option("MODEL", a->model, "the test case's model.onnx")->required();
  cmd->add_option("--data-dir,-d", a->data_dir, "a test_data_set_N directory (input_N.pb, output_N.pb)")->required();
  cmd->add_option("--target,-t", a->target, "where to run it (default llvm)");
  add_model_options(*cmd, a->model_options);
  cmd->add_option("--rtol", a->rtol, "relative tolerance")->check(non_negative_number())->default_val(1e-3);
  cmd->add_option("--atol", a->atol, "absolute tolerance")->check(non_negative_number())->default_val(1e-7);
  cmd->callback([a] { test(*a); });
}

}  // namespace tensorir::cli
