// tensorir: compile, run, test and inspect models from the command line.
//
//   tensorir compile resnet18.onnx --target llvm -o out/resnet18
//   tensorir compile resnet18 --target webgl --target wasm -o out/web
//   tensorir run out/resnet18 --input data=image.npy --output-dir out --repeat 20
//   tensorir test model.onnx --data-dir test_data_set_0
//   tensorir info model.onnx
//   tensorir tune resnet18 --target llvm --trials 200 -o resnet18.log
#include <CLI/CLI.hpp>

#include <cstdio>
#include <exception>

#include "cli.h"
#include "tensorir/error.h"

int main(int argc, char **argv) {
  CLI::App app{"tensorir: compile deep-learning models for CPUs, GPUs and browsers, and run them"};
  app.require_subcommand(1);
  tensorir::cli::add_compile(app);
  tensorir::cli::add_run(app);
  tensorir::cli::add_test(app);
  tensorir::cli::add_info(app);
  tensorir::cli::add_tune(app);
  tensorir::cli::add_rpc(app);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError &e) {
    // A failed test or model (RuntimeError) keeps its status; a usage mistake is 2.
    const int code = app.exit(e);
    return e.get_name() == "RuntimeError" || code == 0 ? code : 2;
  } catch (const tensorir::cli::UsageError &e) {
    std::fprintf(stderr, "tensorir: %s (see tensorir --help)\n", e.message.c_str());
    return 2;
  } catch (const tensorir::Error &e) {
    std::fprintf(stderr, "tensorir: %s\n", e.what());
    return 1;
  } catch (const std::exception &e) {
    std::fprintf(stderr, "tensorir: %s\n", e.what());
    return 1;
  }
  return 0;
}
