// The `tensorir` command line: one executable, a subcommand per task (compile, run,
// test, info), each in its own file. Arguments are parsed with CLI11.
#pragma once
#include <signal.h>

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "tensorir/frontend/onnx.h"
#include "tensorir/graph/graph.h"
#include "tensorir/runtime/ndarray.h"

namespace CLI {
class App;
}

namespace tensorir::cli {

// A mistake in the command line: printed with the subcommand's usage, exit status 2.
struct UsageError {
  std::string message;
};

// How MODEL becomes a graph: a built-in network by name, or an ONNX file.
struct ModelOptions {
  uint64_t seed = 0;                                         // built-in networks' weights
  bool seed_given = false;                                   // --seed was on the command line
  std::vector<std::string> input_shapes;                     // "name=1,3,224,224", ONNX only
  std::vector<std::string> input_values;                     // "name=FILE": fixed at import, ONNX only
};
graph::Graph load_graph(const std::string &model, const ModelOptions &options);
// Whether MODEL names an ONNX file (ends in .onnx, or exists: one that is not a regular
// file is then refused by name; a built-in network's name is the network even where a
// file of that name exists, "./resnet18" the file; run takes a directory of that name
// as the saved model it is), and the import options its
// --input-shape and --input-value give.
bool is_onnx_file(const std::string &model);
onnx::ImportOptions import_options(const ModelOptions &options);
// The usage error of an --input-shape or --input-value that names no input of `model`,
// from the importer's refusal.
UsageError unknown_input(const onnx::UnknownInputError &e, const std::string &model);
// The built-in networks, for messages: "resnet18, resnet50, mobilenet_v2".
std::string zoo_names();
// "name=d0,d1,..." as a name and a shape; a UsageError otherwise.
std::pair<std::string, std::vector<int64_t>> parse_shape_binding(const std::string &text);
// The --input-shape and --input-value options of a subcommand.
void add_model_options(CLI::App &cmd, ModelOptions &options);
// The --seed option of compile and run: a built-in network's weights.
void add_weight_seed_option(CLI::App &cmd, ModelOptions &options);
// A UsageError when --seed is given for a model with weights of its own (`what`: "an
// ONNX model", "a saved model").
void refuse_weight_seed(const std::string &model, const ModelOptions &options, const std::string &what);
// A UsageError when --input-shape or --input-value is given for a model whose input
// shapes are fixed already (`what`: "a built-in network", "a saved model").
void refuse_import_options(const std::string &model, const ModelOptions &options, const std::string &what);
// An array from a .npy or ONNX TensorProto (.pb) file (a .pb's float16 widened to
// float32, as onnx::read_tensor does); a UsageError naming a path that is not a regular
// file (a directory, a device, a pipe).
NDArray read_array(const std::string &path);
// A float16 array as float32 (other arrays as they are): what an ONNX model's float16
// input takes, since tensorir computes such tensors in float32.
NDArray widen_half(const NDArray &a);
// A float32 array as float16, rounding to nearest even (a float16 .pb that read_array widened).
NDArray narrow_to_half(const NDArray &a);

double median(std::vector<double> v);

void add_compile(CLI::App &app);
void add_run(CLI::App &app);
void add_test(CLI::App &app);
void add_info(CLI::App &app);
void add_tune(CLI::App &app);
// `tensorir rpc proxy|server`: each adds itself to rpc_commands() from its own file
// (cmd_rpc_proxy.cpp, cmd_rpc_server.cpp).
void add_rpc(CLI::App &app);
using AddCommand = void (*)(CLI::App &parent);
std::vector<AddCommand> &rpc_commands();
// Runs `serve` (blocking) until SIGINT or SIGTERM, which call `stop` so that it returns.
void serve_until_signal(const std::function<void()> &serve, const std::function<void()> &stop);
// Blocks SIGINT and SIGTERM in this thread and the threads it starts from now on (what
// serve_until_signal does first): call it before anything that may start threads.
sigset_t block_stop_signals();
// The log of the proxy and the server: "[HH:MM:SS] line" on stderr.
void rpc_log_line(const std::string &line);

}  // namespace tensorir::cli
