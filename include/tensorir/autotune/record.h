// Records of measured configurations: JSON lines, appended to a log; logs merge by
// concatenation.
#pragma once
#include <cstdint>
#include <functional>
#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "tensorir/target.h"

namespace tensorir::autotune {

// One measurement of one configuration.
struct Record {
  int version = 1;
  std::string workload;
  std::string target;       // Target::str()
  std::string cpu;          // the host's vector features where the target is a CPU kind (host_cpu_features())
  int64_t index = 0;
  std::string config_json;  // Task::config_json(index)
  std::vector<double> times_ms;  // empty when it failed
  std::string error;        // why it failed (build error, crash, timeout), else empty
  double timestamp = 0;     // seconds since the epoch
  bool is_default = false;  // the task's default configuration (Task::default_index); "default" in the log
  // Timed inside a whole model (check_in_model): times_ms are the kernel's times in the
  // model's runs, the kernels around it having left the caches as they do. "in_model" in
  // the log.
  bool in_model = false;
  // The CPU threads it was timed on ("threads" in the log); 0 where that is not known: a
  // remote's kernel timed alone, a GPU kernel, a log written before the count was kept.
  int threads = 0;
  // Where read_log found it ("FILE line N"), for messages; not written to a log.
  std::string origin;
};

// `r` as append_record writes it: a time that is not a positive finite duration makes it
// a failure whose error shows the times.
Record as_logged(Record r);
// Appends one JSON line, as_logged(r); a record read_log would reject (a string that is not
// UTF-8, a NaN timestamp, ...) throws an Error and nothing is written. An error message
// that is not UTF-8 is written with U+FFFD for its bad bytes.
void append_record(const std::string &path, const Record &r);
// Every record of a log; a malformed line throws an Error naming the file and line.
std::vector<Record> read_log(const std::string &path);

// The vector features of this host's CPU as records carry them ("+avx2,+fma,..."), or
// empty where this build cannot tell (not x86).
std::string host_cpu_features();

// The best configuration of each (workload, target) of some records: the lowest time
// among the configurations measured without error, a configuration's time being the
// median of its records' median times (a log may time one several times: tune()'s
// confirmation, merged logs). Where the log has times of the default configuration
// (Record::is_default), another replaces it only when at least kDefaultMargin faster:
// closer than that, the two are within the timer's spread from run to run, and inside a
// model the kernels around a kernel change its time more.
//
// A workload with records timed in the model (Record::in_model) is ranked by those alone,
// as a kernel timed alone and cold can rank otherwise than inside its model: another
// configuration replaces the default only when it ran at least kDefaultMargin faster there
// at each thread count the default was timed at, and of several such the lowest sum over
// the thread counts wins. Records timed alone are ranked among those of one thread count
// (Record::threads), as a kernel that wins on one thread can lose on two: the count this
// process runs its kernels at when the records are read (num_threads()), else the nearest
// the log has (the larger of two as near); records of an unknown count join whichever.
// The other counts' records follow, nearest first, for when none of that count fits its
// template (without()).
//
// Records whose CPU features are not this host's are left out with a warning
// (tensorir/warning.h): kernels tuned for other vector units are no guide here.
// graph::BuildOptions::tuning_log reads a log into one; pass one as BuildOptions::tuning
// to build several models from a log read once.
class ApplyHistoryBest {
 public:
  static constexpr double kDefaultMargin = 0.03;
  ApplyHistoryBest() = default;
  explicit ApplyHistoryBest(const std::vector<Record> &records);
  // read_log(path), then as above; the warning names the file.
  static ApplyHistoryBest load(const std::string &path);

  // The best record of `workload` on `target`, or nullptr.
  const Record *best(const std::string &workload, const Target &target) const;
  // The workloads it has a best record of.
  size_t size() const { return ranked_.size(); }
  // Records left out for their CPU.
  size_t foreign() const { return foreign_; }
  // The targets (Target::str()) of its workloads.
  std::set<std::string> targets() const;
  // A copy without the records `misfit` names a reason for (a configuration that does not
  // fit its template, from a log of another version of the templates; the reason reads
  // "the template of node 'x' (...): knob 'k' = 3 is not one of its choices"): where one was
  // a workload's best, the next best that fits takes its place, and a warning says which
  // record was passed over and why.
  ApplyHistoryBest without(const std::function<std::string(const Record &)> &misfit) const;

 private:
  ApplyHistoryBest(const std::vector<Record> &records, const std::string &source);
  // (workload, target) -> the configurations that may be applied, best first: those that
  // beat the default as the class comment says, fastest first, then the default.
  std::map<std::pair<std::string, std::string>, std::vector<Record>> ranked_;
  size_t foreign_ = 0;
};

}  // namespace tensorir::autotune
