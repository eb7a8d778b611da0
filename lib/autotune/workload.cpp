// Workload keys, the channel blocks, the layout knob and the configuration of a node (workload.h).
#include "autotune/workload.h"

#include <algorithm>
#include <nlohmann/json.hpp>
#include <variant>

#include "support/json_parse.h"
#include "tensorir/error.h"
#include "tensorir/graph/passes.h"
#include "tensorir/ops/nn.h"
#include "tensorir/target_kind.h"
#include "tensorir/warning.h"

namespace tensorir::autotune {

namespace {

using nlohmann::json;

json attr_json(const graph::AttrValue &v) {
  return std::visit([](const auto &x) { return json(x); }, v);
}

// The shape of input `i` of `n` as the user wrote it: a packed conv2d's blocked data
// [N][C/ci][H][W][ci] as [N, C, H, W] and its weight [K/co][C/ci][R][S][ci][co] as
// [K, C, R, S]; a conv2d_winograd's transformed weight [alpha][alpha][K/b][C][b] as
// [K, C, 3, 3]; a dense_packed weight [M/b][K][b] as [M, K].
std::vector<int64_t> user_shape(const graph::Node &n, size_t i, const std::vector<int64_t> &s) {
  const bool conv = n.op == "conv2d" || n.op == "conv2d_winograd";
  if (conv && i == 0 && s.size() == 5) return {s[0], s[1] * s[4], s[2], s[3]};
  if (n.op == "conv2d_winograd" && i == 1 && s.size() == 5) return {s[2] * s[4], s[3], 3, 3};
  if (n.op == "conv2d" && i == 1 && s.size() == 6) {
    const int64_t k = n.attr_int("out_channels");  // without the padding of whole vectors
    return {k ? k : s[0] * s[5], s[1] * s[4], s[2], s[3]};
  }
  if (n.op == "dense_packed" && i == 1 && s.size() == 3) return {s[0] * s[2], s[1]};
  return s;
}

bool layout_attr(const std::string &name) {
  return name == "data_layout" || name == "kernel_layout" || name == "out_layout" || name == "out_channels";
}

// `choices` that divide n, and the fallback.
std::vector<int64_t> dividing(int64_t n, std::initializer_list<int64_t> choices) {
  std::vector<int64_t> out;
  for (int64_t c : choices)
    if (n % c == 0) out.push_back(c);
  return out;
}

}  // namespace

std::string workload_key(const graph::Graph &g, const graph::Node &n) {
  json inputs = json::array();
  for (size_t i = 0; i < n.inputs.size(); ++i) {
    const graph::Node &in = g.node(n.inputs[i]);
    inputs.push_back({{"shape", user_shape(n, i, in.shape)}, {"dtype", in.dtype.str()}});
  }
  json attrs = json::object();
  if (n.op == "conv2d_winograd") {  // the attributes of the conv2d winograd_conv2d replaced
    const std::vector<int64_t> ones{1, 1};
    attrs = {{"strides", ones}, {"dilation", ones}, {"groups", 1}, {"padding", n.attr_ints("padding")}};
  } else {
    for (const auto &[name, value] : n.attrs)
      if (!(n.op == "conv2d" && layout_attr(name))) attrs[name] = attr_json(value);
  }
  const std::string op = n.op == "dense_packed" ? "dense" : n.op == "conv2d_winograd" ? "conv2d" : n.op;
  return json{{"op", op}, {"inputs", inputs}, {"attrs", attrs}}.dump();
}

std::pair<int, int> conv2d_blocks(int64_t in_channels, int64_t out_channels, int vector_lanes) {
  return {ops::conv2d_channel_block(in_channels), ops::conv2d_compute_block(out_channels, vector_lanes)};
}

int dense_panel(Config &cfg, int64_t columns) {
  const int widest = graph::dense_panel_width(columns);
  return widest ? static_cast<int>(cfg.define_knob("panel", dividing(columns, {8, 16, 32, 64}), widest)) : 0;
}

int winograd_weight_panel(const Target &target) {
  const TargetCaps caps = target.caps();
  return caps.cpu_schedules ? 0 : caps.texture_channel_block;
}

bool has_winograd(const Target &target) {
  const TargetCaps caps = target.caps();
  return caps.cpu_schedules || caps.gpu_schedules || winograd_weight_panel(target) > 0;
}

int winograd_default(const graph::Graph &g, const graph::Node &conv, const Target &target) {
  const TargetCaps caps = target.caps();
  const int panel = winograd_weight_panel(target);
  if (!has_winograd(target) || !graph::winograd_eligible(g, conv, panel)) return -1;
  // Small vector registers spill the transforms' tiles (graph::BuildOptions::winograd);
  // on the GPU targets the direct convolution stays the default until a tuning log says
  // otherwise.
  return caps.small_vector_registers || !caps.cpu_schedules ? 0 : graph::default_winograd_tile(g, conv);
}

int winograd_tile(Config &cfg, int fallback) {
  // Optional: a record without it is of the direct template from before the algorithm
  // was a knob (webgl logs), whose knobs still fit the direct kernel, the default there;
  // it gets the algorithm graph::build gives the workload by default.
  return static_cast<int>(cfg.define_optional_knob("winograd", {0, 2, 4, 6}, fallback, fallback));
}

std::map<std::string, int64_t> config_values(const std::string &config_json) {
  json j;
  try {
    j = support::parse_json<json>(config_json);
  } catch (const json::parse_error &e) {
    TIR_THROW() << "autotune: the configuration is not JSON (" << e.what() << "): " << config_json;
  }
  TIR_USER_CHECK(j.is_object()) << "autotune: the configuration " << config_json << " is not a JSON object";
  std::map<std::string, int64_t> values;
  for (const auto &[name, value] : j.items()) {
    TIR_USER_CHECK(value.is_number_integer())
        << "autotune: knob '" << name << "' of the configuration " << config_json << " is not an integer";
    values[name] = value.get<int64_t>();
  }
  return values;
}

std::string misfit(const Config &defined, const std::map<std::string, int64_t> &values) {
  for (size_t k = 0; k < defined.names().size(); ++k) {
    const auto it = values.find(defined.names()[k]);
    // Every record holds all of its template's knobs but the optional ones: one without is
    // of an older template, whose measurements say nothing of this one's fallback for it.
    if (it == values.end()) {
      if (defined.optional(k)) continue;  // newer than the record: its fallback
      return "it has no knob '" + defined.names()[k] + "'";
    }
    const std::vector<int64_t> &c = defined.choices()[k];
    if (std::find(c.begin(), c.end(), it->second) == c.end())
      return "knob '" + it->first + "' = " + std::to_string(it->second) + " is not one of its choices";
  }
  return "";
}

Config config_for(const ApplyHistoryBest *tuning, const graph::Graph &g, const graph::Node &n, const Target &target,
                  const std::function<void(Config &)> &define_template) {
  if (!tuning) return Config();
  const Record *r = tuning->best(workload_key(g, n), target);
  if (!r) return Config();
  std::map<std::string, int64_t> values = config_values(r->config_json);
  Config defined = Config::define();
  define_template(defined);
  const std::string why = misfit(defined, values);
  if (why.empty()) return Config::from_values(std::move(values));
  // A log of another version of the templates: this workload keeps its untuned schedule
  // rather than failing the whole build.
  warn("tuning log" + (r->origin.empty() ? "" : " " + r->origin) + ": the configuration " + r->config_json + " of " +
       n.op + " '" + n.name +
       "' does not fit its template (" + why + "); the untuned schedule is used");
  return Config();
}

Target kernel_target(const Target &target, const Config &cfg) {
  if (cfg.mode() == Config::Mode::kFallback) return target;
  Target t = target;
  const TargetKindInfo &kind = target.kind_info();
  for (size_t i = 0; i < cfg.names().size(); ++i)
    if (kind.find_option(cfg.names()[i])) t.options[cfg.names()[i]] = std::to_string(cfg.values()[i]);
  t.check();
  return t;
}

}  // namespace tensorir::autotune
