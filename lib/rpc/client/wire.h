// The JSON of docs/rpc.md for tensorir's own types that the client sends and reads: call
// arguments, the inputs and outputs of a model, times (signatures: rpc/signature_json.h).
#pragma once
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "tensorir/rpc.h"

namespace tensorir::rpc {

// {"handle","shape","dtype"} for a buffer on the remote, {"int"} or {"float"} for a scalar.
nlohmann::json buffer_arg_json(int64_t handle, const NDArray &a);
nlohmann::json scalar_arg_json(const ArgSpec &spec, ArgValue v);

// [{"name","shape","dtype"}] of a `load_model` or `run_model` reply; `who` names the remote.
std::vector<ModelIO> parse_model_ios(const nlohmann::json &j, const std::string &field, const std::string &who);
// A `time` or `time_model` request's timing fields, added to `fields`: "number", "repeat",
// "min_repeat_ms", and "evict_bytes" unless 0.
void add_time_fields(nlohmann::json &fields, const TimeOptions &options);
// The reply's "times_ms", checked: a time of at least 0 per repeat.
std::vector<double> parse_times(const nlohmann::json &reply, size_t repeats, const std::string &who);

}  // namespace tensorir::rpc
