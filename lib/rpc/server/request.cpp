// Reading a request's fields (request.h).
#include "rpc/server/request.h"

#include <cstdint>

#include "runtime/time_calls.h"
#include "tensorir/error.h"

namespace tensorir::rpc::server {

Request::Request(const nlohmann::json &header, const std::string &payload) : header_(header), payload_(payload) {
  const auto id = header.find("id");
  id_ = id == header.end() ? nlohmann::json() : *id;
  const auto op = header.find("op");
  TIR_USER_CHECK(op != header.end() && op->is_string())
      << "a request without an \"op\" string; every request names its op (docs/rpc.md)";
  op_ = op->get<std::string>();
}

const nlohmann::json &Request::field(const char *name, bool ok(const nlohmann::json &), const char *what) const {
  const auto f = header_.find(name);
  TIR_USER_CHECK(f != header_.end() && ok(*f))
      << "request '" << op_ << "': the field \"" << name << "\" is " << (f == header_.end() ? "missing" : "malformed")
      << "; it must be " << what << " (docs/rpc.md)";
  return *f;
}

int64_t Request::integer(const char *name) const {
  return field(name, [](const nlohmann::json &j) { return j.is_number_integer(); }, "an integer").get<int64_t>();
}

uint64_t Request::count(const char *name) const {
  return field(name, [](const nlohmann::json &j) { return j.is_number_integer() && j.get<int64_t>() >= 0; },
               "a whole number, 0 or more")
      .get<uint64_t>();
}

int Request::positive(const char *name) const {
  return int(field(name, [](const nlohmann::json &j) {
               return j.is_number_integer() && j.get<int64_t>() >= 1 && j.get<int64_t>() <= INT32_MAX;
             }, "a whole number from 1 to 2147483647")
                 .get<int64_t>());
}

double Request::number(const char *name) const {
  return field(name, [](const nlohmann::json &j) { return j.is_number(); }, "a number").get<double>();
}

std::string Request::string(const char *name) const {
  return field(name, [](const nlohmann::json &j) { return j.is_string(); }, "a string").get<std::string>();
}

const nlohmann::json &Request::array(const char *name) const {
  return field(name, [](const nlohmann::json &j) { return j.is_array(); }, "an array");
}

double Request::number_or(const char *name, double fallback) const {
  return header_.contains(name) ? number(name) : fallback;
}

int64_t Request::count_or(const char *name, int64_t fallback, int64_t max) const {
  if (!header_.contains(name)) return fallback;
  const std::string what = "a whole number from 0 to " + std::to_string(max);
  const auto in_range = [&](const nlohmann::json &j) {
    return j.is_number_integer() && j.get<int64_t>() >= 0 && j.get<int64_t>() <= max;
  };
  const auto f = header_.find(name);
  TIR_USER_CHECK(in_range(*f)) << "request '" << op_ << "': the field \"" << name << "\" is malformed; it must be "
                               << what << " (docs/rpc.md)";
  return f->get<int64_t>();
}

TimeOptions time_options(const Request &r) {
  TimeOptions options;
  options.number = r.positive("number");
  options.repeat = r.positive("repeat");
  options.min_repeat_ms = r.number_or("min_repeat_ms", 0);
  options.evict_bytes = r.count_or("evict_bytes", 0, runtime::kMaxEvictBytes);
  return options;
}

}  // namespace tensorir::rpc::server
