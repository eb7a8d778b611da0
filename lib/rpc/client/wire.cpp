// JSON of signatures, arguments and model inputs and outputs (wire.h).
#include "rpc/client/wire.h"

#include "tensorir/error.h"

namespace tensorir::rpc {

using nlohmann::json;

json buffer_arg_json(int64_t handle, const NDArray &a) {
  return {{"handle", handle}, {"shape", a.shape()}, {"dtype", a.dtype().str()}};
}

json scalar_arg_json(const ArgSpec &spec, ArgValue v) {
  if (spec.dtype.is_float()) return {{"float", v.f64}};
  return {{"int", v.i64}};
}

std::vector<ModelIO> parse_model_ios(const json &j, const std::string &field, const std::string &who) {
  const auto bad = [&](const std::string &what) {
    TIR_THROW() << who << " answered with a malformed \"" << field << "\" (" << what << ")";
  };
  if (!j.contains(field) || !j[field].is_array()) bad("not an array");
  std::vector<ModelIO> out;
  for (const json &e : j[field]) {
    if (!e.is_object() || !e.contains("name") || !e["name"].is_string()) bad("an entry without a name");
    if (!e.contains("shape") || !e["shape"].is_array()) bad("no shape for '" + e["name"].get<std::string>() + "'");
    if (!e.contains("dtype") || !e["dtype"].is_string()) bad("no dtype for '" + e["name"].get<std::string>() + "'");
    ModelIO io;
    io.name = e["name"].get<std::string>();
    for (const json &d : e["shape"]) {
      if (!d.is_number_integer() || d.get<int64_t>() < 0) bad("the shape of '" + io.name + "' is " + e["shape"].dump());
      io.shape.push_back(d.get<int64_t>());
    }
    io.dtype = Type::parse(e["dtype"].get<std::string>());
    out.push_back(std::move(io));
  }
  return out;
}

void add_time_fields(json &fields, const TimeOptions &options) {
  fields["number"] = options.number;
  fields["repeat"] = options.repeat;
  fields["min_repeat_ms"] = options.min_repeat_ms;
  if (options.evict_bytes) fields["evict_bytes"] = options.evict_bytes;
}

std::vector<double> parse_times(const json &reply, size_t repeats, const std::string &who) {
  const json &t = reply.contains("times_ms") ? reply["times_ms"] : json();
  TIR_USER_CHECK(t.is_array() && t.size() == repeats)
      << who << " answered with " << (t.is_array() ? std::to_string(t.size()) : std::string("no")) << " \"times_ms\" for "
      << repeats << " repeats";
  std::vector<double> times;
  for (const json &v : t) {
    // Below 10^9 ms (11 days): no measurement lasts longer, and larger numbers would
    // pass for times in the log and in what a tune prints.
    TIR_USER_CHECK(v.is_number() && v.get<double>() >= 0 && v.get<double>() < 1e9)
        << who << " answered with a time of " << v.dump() << " ms";
    times.push_back(v.get<double>());
  }
  return times;
}

}  // namespace tensorir::rpc
