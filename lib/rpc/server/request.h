// One request of a session (docs/rpc.md, "Requests"): its header's fields, read with
// checks whose errors name the op and the field, and its payload.
#pragma once
#include <cstdint>
#include <string>

#include <nlohmann/json.hpp>

#include "tensorir/runtime/module.h"

namespace tensorir::rpc::server {

class Request {
 public:
  Request(const nlohmann::json &header, const std::string &payload);

  const std::string &op() const { return op_; }
  // The request's id as sent (null when it has none), for its answer.
  const nlohmann::json &id() const { return id_; }
  const std::string &payload() const { return payload_; }

  // A field that must be there; an Error names the op, the field and what it must be.
  int64_t integer(const char *field) const;
  // A whole number >= 0.
  uint64_t count(const char *field) const;
  // A whole number from 1 to 2^31 - 1 (counts of calls and repeats).
  int positive(const char *field) const;
  double number(const char *field) const;
  std::string string(const char *field) const;
  const nlohmann::json &array(const char *field) const;
  // An optional field, `fallback` when absent.
  double number_or(const char *field, double fallback) const;
  // An optional whole number from 0 to `max`, `fallback` when absent.
  int64_t count_or(const char *field, int64_t fallback, int64_t max) const;

 private:
  const nlohmann::json &field(const char *name, bool ok(const nlohmann::json &), const char *what) const;
  const nlohmann::json &header_;
  const std::string &payload_;
  std::string op_;
  nlohmann::json id_;
};

// The timing options of a `time` or `time_model` request: "number", "repeat",
// "min_repeat_ms" (default 0) and "evict_bytes" (default 0, at most
// runtime::kMaxEvictBytes).
TimeOptions time_options(const Request &r);

}  // namespace tensorir::rpc::server
