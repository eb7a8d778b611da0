// Tuning logs: records as JSON lines, and the best record of each workload.
#include "tensorir/autotune/record.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <limits>
#include <map>
#include <mutex>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <tuple>
#include <type_traits>

#include "runtime/cpu_features.h"
#include "support/json_parse.h"
#include "tensorir/error.h"
#include "tensorir/runtime/parallel.h"
#include "tensorir/warning.h"

namespace tensorir::autotune {

namespace {

// Ordered: a record keeps its configuration's knobs in the template's order.
using json = nlohmann::ordered_json;

// Appends from several threads (a tuner's workers) keep whole lines.
std::mutex &append_mutex() {
  static std::mutex m;
  return m;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

// The field `key` of `j` as a T; a missing or mistyped field throws what is wrong. An
// integer field takes only a JSON integer that fits T: the library would truncate 1.5 to 1
// and wrap 1e23.
template <typename T>
T field(const json &j, const char *key, const char *kind) {
  auto it = j.find(key);
  TIR_USER_CHECK(it != j.end()) << "the field '" << key << "' is missing";
  if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool>) {
    TIR_USER_CHECK(!it->is_number_float()) << "the field '" << key << "' is " << support::quote_json(*it)
                                           << ", not an integer (written without a point or an exponent) that fits in "
                                           << 8 * sizeof(T) << " bits";
    TIR_USER_CHECK(it->is_number_integer()) << "the field '" << key << "' is not " << kind << " (it is "
                                            << support::quote_json(*it) << ")";
    const bool fits = it->is_number_unsigned()
                          ? it->template get<uint64_t>() <= uint64_t(std::numeric_limits<T>::max())
                          : it->template get<int64_t>() >= int64_t(std::numeric_limits<T>::min()) &&
                                it->template get<int64_t>() <= int64_t(std::numeric_limits<T>::max());
    TIR_USER_CHECK(fits) << "the field '" << key << "' is " << support::quote_json(*it)
                         << ", not a whole number that fits in " << 8 * sizeof(T) << " bits";
  }
  try {
    return it->template get<T>();
  } catch (const json::exception &) {
    TIR_THROW() << "the field '" << key << "' is not " << kind << " (it is " << support::quote_json(*it) << ")";
  }
  return T{};
}

Record parse_record(const std::string &line) {
  json j;
  try {
    j = support::parse_json<json>(line);
  } catch (const json::out_of_range &e) {  // a number like 1e999
    TIR_THROW() << "a number is out of range (" << support::cut_text(e.what()) << ")";
  } catch (const json::exception &e) {
    TIR_THROW() << "not JSON (" << support::cut_text(e.what()) << ")";
  }
  TIR_USER_CHECK(j.is_object()) << "not a JSON object";
  Record r;
  r.version = field<int>(j, "version", "an integer");
  TIR_USER_CHECK(r.version == 1) << "version " << r.version << " is not 1, the one this build reads";
  r.workload = field<std::string>(j, "workload", "a string");
  r.target = field<std::string>(j, "target", "a string");
  r.cpu = field<std::string>(j, "cpu", "a string");
  r.index = field<int64_t>(j, "index", "an integer");
  TIR_USER_CHECK(r.index >= 0) << "the field 'index' is " << r.index
                               << ", not a configuration index (they count from 0)";
  const json config = field<json>(j, "config", "an object");
  TIR_USER_CHECK(config.is_object())
      << "the field 'config' is not an object (it is " << support::quote_json(config) << ")";
  for (const auto &[name, value] : config.items())
    TIR_USER_CHECK(value.is_number_integer() &&
                   !(value.is_number_unsigned() && value.get<uint64_t>() > uint64_t(INT64_MAX)))
        << "the knob '" << name << "' of 'config' is not an integer that fits in 64 bits (it is "
        << support::quote_json(value) << ")";
  r.config_json = config.dump();
  r.times_ms = field<std::vector<double>>(j, "times_ms", "a list of numbers");
  for (double t : r.times_ms)
    TIR_USER_CHECK(t > 0) << "the field 'times_ms' has " << t << ", not a duration (times are positive)";
  r.error = field<std::string>(j, "error", "a string");
  r.timestamp = field<double>(j, "timestamp", "a number");
  if (j.contains("default")) r.is_default = field<bool>(j, "default", "true or false");
  if (j.contains("in_model")) r.in_model = field<bool>(j, "in_model", "true or false");
  if (j.contains("threads")) r.threads = field<int>(j, "threads", "an integer");
  TIR_USER_CHECK(r.threads >= 0) << "the field 'threads' is " << r.threads << ", not a count of threads";
  TIR_USER_CHECK(!r.times_ms.empty() || !r.error.empty()) << "the record has neither times nor an error";
  return r;
}

}  // namespace

Record as_logged(Record r) {
  // A time that is not a positive finite duration (a timer's fault: NaN, infinity, a
  // negative or zero difference) cannot be written as JSON nor ranked. The measurement
  // still happened and failed, so it is logged as a failure that shows the times: the log
  // stays readable and no configuration is ranked by a time that is not one.
  if (std::any_of(r.times_ms.begin(), r.times_ms.end(), [](double t) { return !(std::isfinite(t) && t > 0); })) {
    std::ostringstream os;
    os << (r.error.empty() ? "" : r.error + "; ") << "the measurement gave times that are not durations (ms):";
    for (double t : r.times_ms) os << ' ' << t;
    r.error = os.str();
    r.times_ms.clear();
  }
  return r;
}

void append_record(const std::string &path, const Record &r) {
  json config;
  try {
    config = support::parse_json<json>(r.config_json.empty() ? "{}" : r.config_json);
  } catch (const json::exception &e) {
    TIR_THROW() << "append_record: config_json is not JSON (" << e.what() << "): " << r.config_json;
  }
  const Record logged = as_logged(r);
  const std::vector<double> &times = logged.times_ms;
  const std::string &error = logged.error;
  // The identities of a record must read back as they are: a string that is not UTF-8
  // cannot be written as JSON, and replacing its bytes would make another workload.
  for (const auto &[key, value] : {std::pair<const char *, const std::string &>{"workload", r.workload},
                                   {"target", r.target},
                                   {"cpu", r.cpu}}) {
    try {
      (void)json(value).dump();
    } catch (const json::exception &e) {
      TIR_THROW() << "append_record: the field '" << key << "' is not valid UTF-8 (" << e.what()
                  << "); a tuning log's strings are UTF-8";
    }
  }
  json j = {{"version", r.version}, {"workload", r.workload}, {"target", r.target},
            {"cpu", r.cpu},         {"index", r.index},       {"config", config},
            {"times_ms", times},    {"error", error},         {"timestamp", r.timestamp}};
  if (r.is_default) j["default"] = true;
  if (r.in_model) j["in_model"] = true;
  if (r.threads) j["threads"] = r.threads;
  // An error message (a compiler's or a crashed process's output) may hold bytes that are
  // not UTF-8: they become U+FFFD, the message still says what failed.
  const std::string line = j.dump(-1, ' ', false, json::error_handler_t::replace);
  // What read_log would reject is not written: one bad line makes the whole log unreadable.
  try {
    parse_record(line);
  } catch (const Error &e) {
    TIR_THROW() << "append_record: the record of configuration " << r.index << " would not read back: "
                << e.what();
  }
  std::lock_guard<std::mutex> lock(append_mutex());
  std::ofstream out(path, std::ios::app);
  TIR_USER_CHECK(out) << "append_record: cannot open the tuning log '" << path << "' for appending";
  out << line << "\n";
  out.flush();
  TIR_USER_CHECK(out) << "append_record: writing the tuning log '" << path << "' failed";
}

std::vector<Record> read_log(const std::string &path) {
  std::error_code ec;
  TIR_USER_CHECK(!std::filesystem::is_directory(path, ec))
      << "tuning log '" << path << "' is a directory; give the log file (JSON lines) that tensorir tune wrote";
  std::ifstream in(path);
  TIR_USER_CHECK(in) << "tuning log '" << path << "' cannot be opened";
  std::vector<Record> records;
  std::string line;
  for (int number = 1; std::getline(in, line); ++number) {
    if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
    try {
      records.push_back(parse_record(line));
      records.back().origin = "'" + path + "' line " + std::to_string(number);
    } catch (const Error &e) {
      // A last line without its newline is one a tune was writing when it stopped.
      if (in.eof() && std::string(e.what()).find("not JSON") != std::string::npos)
        TIR_THROW() << "tuning log '" << path << "' line " << number
                    << " is cut off (the file ends inside it, as when a tune stops while writing): delete that "
                       "line (" << e.what() << ")";
      TIR_THROW() << "tuning log '" << path << "' line " << number << ": " << e.what();
    } catch (const json::exception &e) {  // parse_record turns the library's own into Errors; this is a backstop
      TIR_THROW() << "tuning log '" << path << "' line " << number << ": " << e.what();
    }
  }
  TIR_USER_CHECK(!in.bad()) << "tuning log '" << path << "': reading it failed after " << records.size() << " records";
  return records;
}

std::string host_cpu_features() {
  std::string s;
  for (const char *f : {"sse4.2", "avx", "avx2", "fma", "avx512f", "avx512bw", "avx512dq", "avx512vl", "avx512vnni"})
    if (runtime::host_has_cpu_feature(f) == 1) s += (s.empty() ? "+" : ",+") + std::string(f);
  return s;
}

ApplyHistoryBest::ApplyHistoryBest(const std::vector<Record> &records) : ApplyHistoryBest(records, "tuning records") {}

ApplyHistoryBest ApplyHistoryBest::load(const std::string &path) {
  return ApplyHistoryBest(read_log(path), "tuning log '" + path + "'");
}

ApplyHistoryBest::ApplyHistoryBest(const std::vector<Record> &records, const std::string &source) {
  const std::string host = host_cpu_features();
  std::string other;
  // Each configuration's records, in the log's order: (workload, target, config) -> times
  // per thread count (0 for a kernel timed alone).
  struct Timed {
    const Record *first = nullptr;
    std::map<int, std::vector<double>> ms;
    bool is_default = false;  // some record of it says it is the task's default
    double at(int threads) const { return median(ms.at(threads)); }
    double sum() const {
      double total = 0;
      for (const auto &[threads, times] : ms) total += median(times);
      return total;
    }
    // At least `margin` faster than `other` at each of its thread counts.
    bool beats(const Timed &other, double margin) const {
      for (const auto &[threads, times] : other.ms)
        if (!ms.count(threads) || at(threads) >= other.at(threads) * (1 - margin)) return false;
      return true;
    }
  };
  using Workload = std::pair<std::string, std::string>;  // (workload, target)
  // A workload's records timed alone are grouped by thread count, nearest to the count the
  // kernels run at first (the larger of two as near): keyed (distance, -count).
  const int now = num_threads();
  using Group = std::pair<int, int>;
  const auto group_of = [now](int threads) { return Group{std::abs(threads - now), -threads}; };
  // (workload, group) -> its configurations in the log's order.
  std::map<std::pair<Workload, Group>, std::vector<std::pair<std::string, Timed>>> configs;
  const auto foreign = [&](const Record &r) { return !r.cpu.empty() && !host.empty() && r.cpu != host; };
  const auto timed = [](const Record &r) { return r.error.empty() && !r.times_ms.empty(); };
  std::set<Workload> in_model;  // workloads timed in a model: ranked by those records alone
  std::map<Workload, int> nearest;  // the known thread count of its records timed alone nearest to `now`
  for (const Record &r : records) {
    if (foreign(r) || !timed(r)) continue;
    if (r.in_model) {
      in_model.emplace(r.workload, r.target);
    } else if (r.threads > 0) {
      const auto [it, first] = nearest.emplace(Workload{r.workload, r.target}, r.threads);
      if (!first && group_of(r.threads) < group_of(it->second)) it->second = r.threads;
    }
  }
  for (const Record &r : records) {
    if (foreign(r)) {
      ++foreign_;
      other = r.cpu;
      continue;
    }
    const Workload w{r.workload, r.target};
    if (!timed(r) || r.in_model != bool(in_model.count(w))) continue;
    // Records of an unknown count (0) rank with the nearest count's; in-model ones are alone.
    const auto known = nearest.find(w);
    const int threads = r.in_model || r.threads > 0 || known == nearest.end() ? r.threads : known->second;
    auto &list = configs[{w, r.in_model ? Group{} : group_of(threads)}];
    auto it = std::find_if(list.begin(), list.end(), [&](const auto &c) { return c.first == r.config_json; });
    if (it == list.end()) it = list.insert(list.end(), {r.config_json, Timed{&r, {}, false}});
    it->second.ms[r.in_model ? r.threads : 0].push_back(median(r.times_ms));
    it->second.is_default = it->second.is_default || r.is_default;
  }
  // Groups in order: a workload's later groups follow its first as fallbacks, for when the
  // records of the first do not fit (ApplyHistoryBest::without).
  for (const auto &[key, list] : configs) {
    const Workload &workload = key.first;
    const Timed *def = nullptr;
    for (const auto &c : list)
      if (c.second.is_default && !def) def = &c.second;
    // Those that beat the default (all, without one) by their sums, lowest first; a tie
    // keeps the log's order. The default last.
    std::vector<const Timed *> order;
    for (const auto &c : list)
      if (&c.second != def && (!def || c.second.beats(*def, kDefaultMargin))) order.push_back(&c.second);
    std::stable_sort(order.begin(), order.end(), [](const Timed *a, const Timed *b) { return a->sum() < b->sum(); });
    if (def) order.push_back(def);
    for (const Timed *t : order) ranked_[workload].push_back(*t->first);
  }
  if (foreign_)
    warn(source + ": " + std::to_string(foreign_) + " of its " + std::to_string(records.size()) +
         " records were measured on a CPU with the vector features " + other + ", not this one's (" + host +
         "); they are ignored");
}

const Record *ApplyHistoryBest::best(const std::string &workload, const Target &target) const {
  auto it = ranked_.find({workload, target.str()});
  return it == ranked_.end() ? nullptr : &it->second.front();
}

std::set<std::string> ApplyHistoryBest::targets() const {
  std::set<std::string> out;
  for (const auto &entry : ranked_) out.insert(entry.first.second);
  return out;
}

ApplyHistoryBest ApplyHistoryBest::without(const std::function<std::string(const Record &)> &misfit) const {
  ApplyHistoryBest out;
  out.foreign_ = foreign_;
  for (const auto &[workload, list] : ranked_) {
    std::vector<Record> kept;
    std::vector<std::pair<const Record *, std::string>> passed_over;  // ranked above the first kept
    for (const Record &r : list) {
      std::string why = misfit(r);
      if (why.empty()) kept.push_back(r);
      else if (kept.empty()) passed_over.emplace_back(&r, std::move(why));
    }
    for (const auto &[r, why] : passed_over)
      warn("tuning log" + (r->origin.empty() ? "" : " " + r->origin) + ": the configuration " + r->config_json +
            " does not fit " + why + ", as in a log of another version of tensorir's templates; " +
           (kept.empty() ? std::string("this workload is built untuned")
                          : "the best record that fits is applied instead" +
                                (kept[0].origin.empty() ? "" : " (" + kept[0].origin + ")")) +
           "; tune again into a new log to replace it");
    if (!kept.empty()) out.ranked_.emplace(workload, std::move(kept));
  }
  return out;
}

}  // namespace tensorir::autotune
