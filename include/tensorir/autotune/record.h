// Records of measured configurations: JSON lines, appended to a log; logs merge by
// concatenation.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace tensorir::autotune {

// One measurement of one configuration.
struct Record {
  int version = 1;
  std::string workload;
  std::string target;       // Target::str()
  std::string cpu;          // the host's vector features where the target is a CPU kind
  int64_t index = 0;
  std::string config_json;  // Task::config_json(index)
  std::vector<double> times_ms;  // empty when it failed
  std::string error;        // why it failed (build error, crash, timeout), else empty
  double timestamp = 0;     // seconds since the epoch
};

// Appends one JSON line.
void append_record(const std::string &path, const Record &r);
// Every record of a log; a malformed line throws an Error naming the file and line.
std::vector<Record> read_log(const std::string &path);

}  // namespace tensorir::autotune
