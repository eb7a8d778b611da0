// tensorir info MODEL: an ONNX model's inputs, outputs, opsets, operators and parameter
// count, and every node the importer cannot convert, with the reason, all at once.
#include <CLI/CLI.hpp>

#include <cstdio>

#include "cli.h"
#include "cli_checks.h"
#include "tensorir/frontend/onnx.h"

namespace tensorir::cli {

namespace {

void print_values(const char *title, const std::vector<onnx::ValueInfo> &values) {
  std::printf("%s:\n", title);
  for (const onnx::ValueInfo &v : values) {
    std::string shape;
    for (const std::string &d : v.shape) shape += (shape.empty() ? "" : ", ") + d;
    std::printf("  %-32s %-8s [%s]\n", v.name.c_str(), v.dtype.c_str(), shape.c_str());
  }
}

void print_unsupported(const std::vector<onnx::UnsupportedNode> &nodes) {
  std::printf("%zu nodes cannot be imported:\n", nodes.size());
  for (const onnx::UnsupportedNode &u : nodes) {
    if (u.node.empty() && u.op.empty())
      std::printf("  the model: %s\n", u.reason.c_str());
    else
      std::printf("  %s (%s): %s\n", u.node.empty() ? "<unnamed node>" : u.node.c_str(), u.op.c_str(),
                  u.reason.c_str());
  }
  throw CLI::RuntimeError(1);
}

void print_summary(const std::string &model, const onnx::ModelInfo &m) {
  std::printf("%s: produced by %s, IR version %lld, opsets:", model.c_str(),
              m.producer.empty() ? "(unknown)" : m.producer.c_str(), static_cast<long long>(m.ir_version));
  for (const auto &[domain, version] : m.opsets)
    std::printf(" %s %lld", domain.empty() ? "ai.onnx" : domain.c_str(), static_cast<long long>(version));
  std::printf("\n");
  print_values("inputs", m.inputs);
  print_values("outputs", m.outputs);
  int nodes = 0;
  for (const auto &[op, n] : m.operators) nodes += n;
  std::printf("operators: %zu kinds, %d nodes\n", m.operators.size(), nodes);
  for (const auto &[op, n] : m.operators) std::printf("  %-28s %d\n", op.c_str(), n);
  std::printf("parameters: %lld\n", static_cast<long long>(m.parameters));
}

// What importing finds: the inputs whose values decide shapes (given at run time, or
// fixed with --input-value to compile), or the nodes that cannot convert. A model that
// imports is read once, by the session; one that does not is read again to describe it.
void info(const std::string &model) {
  std::vector<std::string> shape;
  std::string boundary;
  try {
    const onnx::Session s = onnx::Session::open(model, "llvm");
    print_summary(model, s.info());
    shape = s.shape_inputs();
    boundary = s.stage_boundary();
  } catch (const Error &e) {
    // What the operators alone rule out, else what converting refused; another error
    // with nothing to list is the model's own.
    const onnx::ModelInfo m = onnx::inspect(model);
    const auto *refused = dynamic_cast<const onnx::UnsupportedError *>(&e);
    if (m.unsupported.empty() && !refused) throw;
    print_summary(model, m);
    print_unsupported(m.unsupported.empty() ? refused->nodes() : m.unsupported);
  }
  if (boundary.empty())
    std::printf("every node can be imported\n");
  else
    std::printf("every node can be run: in stages around %s, which need values the model computes; run and "
                "test compute them between the stages, and compile cannot save the model\n", boundary.c_str());
  if (shape.empty()) return;
  std::string names;
  for (const std::string &n : shape) names += (names.empty() ? "" : ", ") + n;
  std::printf("shape inputs (the model is compiled for their values: given at run time by run and test, or "
              "fixed with --input-value to compile): %s\n", names.c_str());
}

}  // namespace

void add_info(CLI::App &app) {
  auto model = std::make_shared<std::string>();
  CLI::App *cmd = app.add_subcommand("info", "describe an ONNX model and list what cannot be imported");
  cmd->add_option("MODEL", *model, "an .onnx file")->required()->check(regular_file());
  cmd->callback([model] { info(*model); });
}

}  // namespace tensorir::cli
