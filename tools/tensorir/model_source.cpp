// MODEL arguments: a built-in network by name or an ONNX file; array files: .npy or .pb.
#include <algorithm>
#include <filesystem>

#include <CLI/CLI.hpp>

#include "cli.h"
#include "cli_checks.h"
#include "runtime/half.h"
#include "tensorir/frontend/onnx.h"
#include "tensorir/graph/models.h"

namespace tensorir::cli {

namespace {

bool ends_with(const std::string &s, const std::string &suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

// The built-in networks by name: what load_graph builds and zoo_names lists.
struct Builtin {
  const char *name;
  graph::Graph (*make)(uint64_t seed);
};
constexpr Builtin kBuiltins[] = {
    {"resnet18", graph::resnet18}, {"resnet50", graph::resnet50}, {"mobilenet_v2", graph::mobilenet_v2}};

}  // namespace

std::string zoo_names() {
  std::string names;
  for (const Builtin &b : kBuiltins) names += (names.empty() ? "" : ", ") + std::string(b.name);
  return names;
}

std::pair<std::string, std::vector<int64_t>> parse_shape_binding(const std::string &text) {
  const size_t eq = text.find('=');
  if (eq == std::string::npos || eq == 0)
    throw UsageError{"--input-shape '" + text + "': expected NAME=D0,D1,... (e.g. input=1,3,224,224)"};
  std::vector<int64_t> shape;
  std::string rest = text.substr(eq + 1) + ",";
  size_t start = 0;
  for (size_t comma; (comma = rest.find(',', start)) != std::string::npos; start = comma + 1) {
    const std::string d = rest.substr(start, comma - start);
    size_t used = 0;
    int64_t v = -1;
    try {
      v = std::stoll(d, &used);
    } catch (...) {
      used = 0;
    }
    if (d.empty() || used != d.size() || v < 1)
      throw UsageError{"--input-shape '" + text + "': '" + d + "' is not a positive dimension"};
    shape.push_back(v);
  }
  return {text.substr(0, eq), shape};
}

bool is_onnx_file(const std::string &model) {
  for (const Builtin &b : kBuiltins)
    if (model == b.name) return false;
  // Whatever exists is taken for one: a directory or a device is then refused by name.
  std::error_code ec;
  return ends_with(model, ".onnx") || std::filesystem::exists(model, ec);
}

UsageError unknown_input(const onnx::UnknownInputError &e, const std::string &model) {
  return UsageError{std::string(e.option() == "input_shapes" ? "--input-shape" : "--input-value") + " names '" +
                    e.name() + "', which is not an input of '" + model + "' (" +
                    onnx::UnknownInputError::inputs_text(e.inputs()) + ")"};
}

onnx::ImportOptions import_options(const ModelOptions &options) {
  onnx::ImportOptions o;
  for (const std::string &b : options.input_shapes) {
    auto [name, shape] = parse_shape_binding(b);
    if (!o.input_shapes.emplace(name, shape).second) throw UsageError{"--input-shape gives input '" + name + "' twice"};
  }
  for (const std::string &v : options.input_values) {
    const size_t eq = v.find('=');
    if (eq == std::string::npos || eq == 0 || eq + 1 == v.size())
      throw UsageError{"--input-value '" + v + "': expected NAME=FILE (a .npy or .pb file)"};
    // An ONNX model's float16 tensors are computed in float32.
    if (!o.input_values.emplace(v.substr(0, eq), widen_half(read_array(v.substr(eq + 1)))).second)
      throw UsageError{"--input-value gives input '" + v.substr(0, eq) + "' twice"};
  }
  return o;
}

void refuse_import_options(const std::string &model, const ModelOptions &options, const std::string &what) {
  const char *given = !options.input_shapes.empty() ? "--input-shape" : !options.input_values.empty() ? "--input-value" : nullptr;
  if (given)
    throw UsageError{std::string(given) + " binds an ONNX file's inputs when it is imported, but '" + model + "' is " +
                     what + ", whose input shapes are fixed; leave the option out"};
}

void add_weight_seed_option(CLI::App &cmd, ModelOptions &options) {
  cmd.add_option_function<uint64_t>(
         "--seed",
         [&options](const uint64_t &seed) {
           options.seed = seed;
           options.seed_given = true;
         },
         "weight seed of a built-in network (default 0)")
      ->check(seed_number());
}

void refuse_weight_seed(const std::string &model, const ModelOptions &options, const std::string &what) {
  if (options.seed_given)
    throw UsageError{"--seed seeds a built-in network's weights, but '" + model + "' is " + what +
                     " with weights of its own; leave the option out"};
}

graph::Graph load_graph(const std::string &model, const ModelOptions &options) {
  for (const Builtin &b : kBuiltins)
    if (model == b.name) {
      refuse_import_options(model, options, "a built-in network");
      return b.make(options.seed);
    }
  if (is_onnx_file(model)) {
    require_regular_file(model, "ONNX model");
    refuse_weight_seed(model, options, "an ONNX model");
    const onnx::ImportOptions o = import_options(options);
    try {
      return onnx::import(model, o);
    } catch (const onnx::UnknownInputError &e) {
      throw unknown_input(e, model);
    }
  }
  throw UsageError{"'" + model + "' is neither an ONNX file nor a built-in network (" + zoo_names() + ")"};
}

void add_model_options(CLI::App &cmd, ModelOptions &options) {
  cmd.add_option("--input-shape", options.input_shapes,
                 "NAME=D0,D1,...: binds an ONNX input's symbolic dimensions (repeatable)");
  cmd.add_option("--input-value", options.input_values,
                 "NAME=FILE: fixes an ONNX input to the array in FILE (.npy or .pb) at import, for inputs that "
                 "give shapes, axes or bounds; the compiled model no longer takes it (repeatable; run and test "
                 "also take such inputs at run time)");
}

NDArray read_array(const std::string &path) {
  const bool npy = ends_with(path, ".npy");
  if (!npy && !ends_with(path, ".pb")) {
    std::error_code ec;
    if (std::filesystem::is_directory(path, ec)) require_regular_file(path, "array file");  // says so
    throw UsageError{"'" + path + "': arrays are read from .npy files or ONNX TensorProto .pb files"};
  }
  require_regular_file(path, "array file");
  return npy ? NDArray::load_npy(path) : onnx::read_tensor(path);
}

NDArray narrow_to_half(const NDArray &a) {
  NDArray half = NDArray::empty(a.shape(), Float(16));
  const float *src = a.data_as<float>();
  uint16_t *dst = static_cast<uint16_t *>(half.data());
  for (int64_t i = 0; i < a.numel(); ++i) dst[i] = float_to_half(src[i]);
  return half;
}

NDArray widen_half(const NDArray &a) {
  if (a.dtype() != Float(16)) return a;
  NDArray wide = NDArray::empty(a.shape(), Float(32));
  const uint16_t *src = static_cast<const uint16_t *>(a.data());
  float *dst = wide.data_as<float>();
  for (int64_t i = 0; i < a.numel(); ++i) dst[i] = half_to_float(src[i]);
  return wide;
}

double median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

}  // namespace tensorir::cli
