// Shared helpers for the benchmarks: command-line options, interleaved timing (median of
// many runs after a warm-up), error measures, a plain-text table and --json lines, and
// what the OpenGL rows need (is there a context, waiting for the device).
#pragma once
#include <tensorir/tensorir.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <functional>
#include <string>
#include <thread>
#include <utility>
#include <vector>

namespace bench {

struct Options {
  bool json = false;   // one JSON object per line instead of the table
  bool quick = false;  // small sizes, few repetitions
  bool gpu = true;     // the OpenGL rows (--no-gpu skips them)
  std::string tuning_log;  // --tuning-log FILE: benches of models add a row built with it
  std::vector<int> sizes;  // --sizes 512,2048: benches of square sizes time only these (CPU rows)
};

inline Options parse_options(int argc, char **argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--json") o.json = true;
    else if (a == "--quick") o.quick = true;
    else if (a == "--no-gpu") o.gpu = false;
    else if (a == "--tuning-log" && i + 1 < argc) o.tuning_log = argv[++i];
    else if (a == "--sizes" && i + 1 < argc) {
      std::string list = argv[++i];
      for (size_t p = 0; p <= list.size();) {
        size_t c = std::min(list.find(',', p), list.size());
        const std::string item = list.substr(p, c - p);
        char *end = nullptr;
        const long n = std::strtol(item.c_str(), &end, 10);
        if (item.empty() || *end != '\0' || n <= 0 || n > 65536) {
          std::fprintf(stderr, "%s: --sizes wants positive sizes separated by commas, got '%s'\n", argv[0], list.c_str());
          std::exit(2);
        }
        o.sizes.push_back(static_cast<int>(n));
        p = c + 1;
      }
    }
    else if (a == "--help" || a == "-h") {
      std::printf("usage: %s [--quick] [--json] [--no-gpu] [--tuning-log FILE] [--sizes N,N]\n"
                  "  --quick   small sizes, few repetitions\n"
                  "  --json    one JSON object per result line instead of tables\n"
                  "  --no-gpu  skip the OpenGL rows\n"
                  "  --tuning-log FILE  models: a row built with this log (tensorir tune)\n"
                  "  --sizes N,N  square benches: only these sizes (bench_gemm: its CPU rows)\n",
                  argv[0]);
      std::exit(0);
    } else {
      std::fprintf(stderr, "%s: unknown option '%s' (try --help)\n", argv[0], a.c_str());
      std::exit(2);
    }
  }
  return o;
}

// Some libraries read their configuration from the environment when they are loaded,
// before main() runs. Sets `set` and clears `unset`, then restarts this program once so
// the libraries see the new environment. Returns only when nothing had to change.
inline void reexec_with_env(char **argv, const std::vector<std::pair<std::string, std::string>> &set,
                            const std::vector<std::string> &unset) {
  bool changed = false;
  for (const auto &[k, v] : set) {
    const char *cur = std::getenv(k.c_str());
    if (!cur || v != cur) {
      setenv(k.c_str(), v.c_str(), 1);
      changed = true;
    }
  }
  for (const auto &k : unset)
    if (std::getenv(k.c_str())) {
      unsetenv(k.c_str());
      changed = true;
    }
  if (!changed || std::getenv("TENSORIR_BENCH_REEXEC")) return;  // at most one restart
  setenv("TENSORIR_BENCH_REEXEC", "1", 1);
  std::fflush(nullptr);
  execv("/proc/self/exe", argv);
  std::perror("re-exec failed; continuing with the environment as it was");
}

// Whether `cmd` exits with status 0 (its output discarded): is a peer installed?
inline bool command_ok(const std::string &cmd) { return std::system((cmd + " >/dev/null 2>&1").c_str()) == 0; }

// Runs `cmd` and returns its last non-empty line of output (stdout and stderr): a peer's
// one-line JSON result.
inline std::string last_line(const std::string &cmd) {
  std::string out, line;
  FILE *p = popen((cmd + " 2>&1").c_str(), "r");
  if (!p) return "";
  std::array<char, 4096> buf{};
  while (std::fgets(buf.data(), buf.size(), p)) {
    line = buf.data();
    while (!line.empty() && (line.back() == '\n' || line.back() == '\r')) line.pop_back();
    if (!line.empty()) out = line;
  }
  pclose(p);
  return out;
}

// A file next to the benchmarks' sources (their scripts, bench/web), else the path from
// the repository root.
inline std::string bench_file(const std::string &name) {
  const std::string here = __FILE__;
  const auto slash = here.rfind('/');
  const std::string path = (slash == std::string::npos ? std::string(".") : here.substr(0, slash)) + "/" + name;
  if (access(path.c_str(), R_OK) == 0) return path;
  return "bench/" + name;
}

// The number after "key": in a one-line JSON object, or -1.
inline double json_field(const std::string &json, const std::string &key) {
  auto at = json.find("\"" + key + "\":");
  if (at == std::string::npos) return -1;
  return std::strtod(json.c_str() + at + key.size() + 3, nullptr);
}

// How much of the last 10 s runnable threads waited for a CPU (Linux PSI "some avg10", in
// percent), or -1 where the kernel does not report it. On a shared machine each login
// session gets an equal CPU share (autogroups): while others are busy a process gets no
// more CPU with 2 threads than with 1, and multi-thread timings mean little.
inline double cpu_pressure() {
  FILE *f = std::fopen("/proc/pressure/cpu", "r");
  if (!f) return -1;
  double v = -1;
  if (std::fscanf(f, "some avg10=%lf", &v) != 1) v = -1;
  std::fclose(f);
  return v;
}

// A line for the table output that says how busy the machine was.
inline void print_machine_load(const char *when) {
  double p = cpu_pressure();
  if (p < 0) return;
  std::printf("CPU pressure %s: %.0f%% of the last 10 s some thread waited for a CPU%s\n", when, p,
              p > 20 ? " (busy machine: 2-thread figures are unreliable; 1-thread 'GF/s cpu' still holds)" : "");
}

using Clock = std::chrono::steady_clock;

inline double ms_since(Clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
}

inline double median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

// Median wall time of `reps` runs of f after `warmup` untimed runs.
inline double median_ms(const std::function<void()> &f, int reps, int warmup = 1) {
  for (int i = 0; i < warmup; ++i) f();
  std::vector<double> t;
  for (int i = 0; i < reps; ++i) {
    auto t0 = Clock::now();
    f();
    t.push_back(ms_since(t0));
  }
  return median(t);
}

// CPU time of the calling thread: unlike wall time it does not count the time the thread
// waited while other processes had the core, so on a busy machine it shows what a
// single-threaded kernel does when it runs.
inline double thread_cpu_ms() {
  timespec t{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return t.tv_sec * 1e3 + t.tv_nsec * 1e-6;
}

struct Timing {
  double wall_ms = 0;  // median wall time
  double cpu_ms = 0;   // median CPU time of the calling thread (meaningful on 1 thread)
};

// Times several engines on one case fairly on a noisy machine: `rounds` times, each
// engine in turn runs `warmup` untimed runs and `reps` timed runs. Returns each engine's medians over
// all its timed runs. `settle_ms` of idle time between engines lets another library's
// spinning worker threads go to sleep before the next engine starts.
inline std::vector<Timing> interleaved_medians(const std::vector<std::function<void()>> &engines, int rounds,
                                               int reps, double settle_ms = 0, int warmup = 1) {
  std::vector<std::vector<double>> wall(engines.size()), cpu(engines.size());
  for (int r = 0; r < rounds; ++r)
    for (size_t e = 0; e < engines.size(); ++e) {
      // Rotate the starting engine so no one always follows the same neighbour.
      size_t idx = (e + r) % engines.size();
      if (settle_ms > 0) std::this_thread::sleep_for(std::chrono::duration<double, std::milli>(settle_ms));
      for (int i = 0; i < warmup; ++i) engines[idx]();
      for (int i = 0; i < reps; ++i) {
        double c0 = thread_cpu_ms();
        auto t0 = Clock::now();
        engines[idx]();
        wall[idx].push_back(ms_since(t0));
        cpu[idx].push_back(thread_cpu_ms() - c0);
      }
    }
  std::vector<Timing> out;
  for (size_t e = 0; e < engines.size(); ++e) out.push_back({median(wall[e]), median(cpu[e])});
  return out;
}

// max |x - ref| / max |ref|: a relative error that stays meaningful where ref is near 0.
inline double max_rel_error(const float *x, const float *ref, size_t n) {
  double diff = 0, scale = 0;
  for (size_t i = 0; i < n; ++i) {
    const double d = std::fabs((double)x[i] - (double)ref[i]);
    if (std::isnan(d)) return INFINITY;  // a NaN on either side (or infinities): never a match
    diff = std::max(diff, d);
    scale = std::max(scale, (double)std::fabs((double)ref[i]));
  }
  return scale > 0 ? diff / scale : diff;
}

inline double gflops(double flops, double ms) { return ms > 0 ? flops / (ms * 1e6) : 0; }

// Fixed-precision number formatting for table cells.
inline std::string fmt(double v, int prec = 1) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", prec, v);
  return buf;
}
// A ratio with two decimals, or two significant digits below 0.1 (0.0027, not 0.00).
inline std::string fmt_ratio(double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, v >= 0.1 || v <= 0 ? "%.2f" : "%.2g", v);
  return buf;
}
inline std::string fmt_sci(double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.1e", v);
  return buf;
}

// A table for people: columns sized to their widest cell, numbers right-aligned.
class Table {
 public:
  explicit Table(std::vector<std::string> header) : rows_{std::move(header)} {}
  void add(std::vector<std::string> row) { rows_.push_back(std::move(row)); }
  void print(FILE *out = stdout) const {
    std::vector<size_t> w;
    for (const auto &r : rows_)
      for (size_t c = 0; c < r.size(); ++c) {
        if (w.size() <= c) w.push_back(0);
        w[c] = std::max(w[c], r[c].size());
      }
    for (size_t i = 0; i < rows_.size(); ++i) {
      const auto &r = rows_[i];
      for (size_t c = 0; c < r.size(); ++c)
        std::fprintf(out, c == 0 ? "%-*s" : "  %*s", (int)w[c], r[c].c_str());
      std::fprintf(out, "\n");
      if (i == 0) {
        size_t total = 0;
        for (size_t c = 0; c < w.size(); ++c) total += w[c] + (c ? 2 : 0);
        std::fprintf(out, "%s\n", std::string(total, '-').c_str());
      }
    }
    std::fflush(out);
  }

 private:
  std::vector<std::vector<std::string>> rows_;
};

// One result as a JSON object on its own line; `extra` holds additional "key": value
// pairs already formatted as JSON values.
inline void print_json(const std::string &bench, const std::string &case_name, const std::string &impl,
                       int threads, double median_ms, double gflops_v,
                       const std::vector<std::pair<std::string, std::string>> &extra = {}) {
  std::printf("{\"bench\":\"%s\",\"case\":\"%s\",\"impl\":\"%s\",\"threads\":%d,\"median_ms\":%.4f,\"gflops\":%.2f",
              bench.c_str(), case_name.c_str(), impl.c_str(), threads, median_ms, gflops_v);
  for (const auto &[k, v] : extra) std::printf(",\"%s\":%s", k.c_str(), v.c_str());
  std::printf("}\n");
  std::fflush(stdout);
}

inline std::string json_num(double v) {
  if (!std::isfinite(v)) return "null";  // JSON has no inf or nan
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.6g", v);
  return buf;
}
// A JSON string: quotes, backslashes and control characters (error messages have
// newlines) escaped.
inline std::string json_str(const std::string &s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (c == '\n') {
      out += "\\n";
    } else if (static_cast<unsigned char>(c) < 0x20) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\u%04x", static_cast<unsigned>(static_cast<unsigned char>(c)));
      out += buf;
    } else {
      out += c;
    }
  }
  return out + "\"";
}

// ---------------------------------------------------------------------------- OpenGL

// Whether the OpenGL rows can run: the backend is built in and a context can be made (the
// first allocation on Device::opengl() makes it). Otherwise `why` says what failed; a
// benchmark then prints a note and goes on without those rows.
inline bool opengl_available(std::string &why) {
  if (!tensorir::has_backend("opengl")) {
    why = "this build has no OpenGL backend (configured with TENSORIR_WITH_OPENGL=OFF)";
    return false;
  }
  try {
    tensorir::NDArray probe = tensorir::NDArray::empty({1}, tensorir::Float(32), tensorir::Device::opengl());
    (void)probe;
    return true;
  } catch (const std::exception &e) {
    why = e.what();
    return false;
  }
}

// The note a benchmark prints, in place of its OpenGL rows, when there is no context.
inline void print_opengl_skipped(const Options &o, const std::string &bench, const std::string &why) {
  if (o.json)
    std::printf("{\"bench\":%s,\"case\":\"opengl\",\"skipped\":true,\"reason\":%s}\n", json_str(bench).c_str(),
                json_str(why).c_str());
  else
    std::printf("\nNote: OpenGL rows skipped, no OpenGL context could be created (--no-gpu skips them\n"
                "without trying):\n%s\n",
                why.c_str());
  std::fflush(stdout);
}

// The threads that run shaders when the "GPU" is Mesa's llvmpipe: LP_NUM_THREADS (0, the
// calling thread alone, counts as 1), else one per online CPU, at most 16. The threads
// column of the OpenGL rows shows it.
inline int llvmpipe_threads() {
  if (const char *v = std::getenv("LP_NUM_THREADS")) return std::clamp(std::atoi(v), 1, 16);
  long n = sysconf(_SC_NPROCESSORS_ONLN);
  return static_cast<int>(std::clamp<long>(n, 1, 16));
}

// A module call on Device::opengl() returns once its work is queued, not done. Waiting
// for it: a one-element kernel reads element 0 of the output and that element is copied
// back, which the driver can only do after everything that writes the output has run.
// Costs one tiny launch and a 4-byte read, far less than reading the whole output back.
// (On Mesa's llvmpipe a call already returns with its work done; on a GPU it need not.)
class DeviceSync {
 public:
  explicit DeviceSync(const std::vector<int64_t> &shape) {
    std::vector<tensorir::Expr> dims(shape.begin(), shape.end());
    tensorir::Tensor X = tensorir::placeholder(dims, tensorir::Float(32), "X");
    tensorir::Tensor P = tensorir::compute(
        {1}, [&](tensorir::Var i) { return X(std::vector<tensorir::Expr>(shape.size(), i)); }, "P");
    module_ = tensorir::build(tensorir::create_schedule({P}), {X, P}, "opengl", "sync");
    p_ = tensorir::NDArray::empty({1}, tensorir::Float(32), tensorir::Device::opengl());
  }
  // Returns once every queued write to `out` has finished.
  void operator()(const tensorir::NDArray &out) const {
    module_("sync")(out, p_);
    float v = 0;
    p_.copy_to_bytes(&v, sizeof v);
  }

 private:
  tensorir::Module module_;
  tensorir::NDArray p_;
};

}  // namespace bench
