// The local runner: each candidate timed in a child process of its own, so that a kernel
// that crashes or hangs costs one trial. fork() copies only the calling thread: the child
// uses no thread of the parent (the runtime's pool is rebuilt there, see
// lib/runtime/thread_pool.cpp), only memory the parent had when it forked (the built
// module, the arguments, the expected arrays), and leaves with _exit.
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstring>
#include <sstream>

#include "autotune/measure.h"
#include "tensorir/autotune/tuner.h"
#include "tensorir/runtime/parallel.h"

namespace tensorir::autotune {

namespace {

// Times the candidate in this process (cold, as MeasureOptions::flush_cache says), and
// checks its arrays after one call.
MeasureResult measure_here(const Module &module, const std::string &function, const std::vector<NDArray> &args,
                           const std::vector<NDArray> *expected, const MeasureOptions &options) {
  MeasureResult r;
  try {
    if (expected) {
      r.error = check_outputs(reference_outputs(module, function, args), *expected);
      if (!r.error.empty()) return r;
    }
    const Device dev{signature_of(module, function).device, 0};
    std::vector<NDArray> on_device;
    for (const NDArray &a : args) on_device.push_back(a.to(dev));
    r.times_ms = time_kernel(module, function, on_device, options);
  } catch (const std::exception &e) {
    r.error = std::string("run error: ") + e.what();
  }
  return r;
}

void write_all(int fd, const std::string &s) {
  size_t done = 0;
  while (done < s.size()) {
    ssize_t n = ::write(fd, s.data() + done, s.size() - done);
    if (n <= 0) return;
    done += static_cast<size_t>(n);
  }
}

// The child's answer: "T t1 t2 ..." or "E message".
std::string encode(const MeasureResult &r) {
  std::ostringstream os;
  os.precision(17);
  if (!r.error.empty()) return "E" + r.error;
  os << 'T';
  for (double t : r.times_ms) os << ' ' << t;
  return os.str();
}

MeasureResult decode(const std::string &s) {
  MeasureResult r;
  if (s.empty()) {
    r.error = "run error: the measuring process ended without an answer";
  } else if (s[0] == 'E') {
    r.error = s.substr(1);
  } else {
    std::istringstream is(s.substr(1));
    for (double t; is >> t;) r.times_ms.push_back(t);
  }
  return r;
}

std::string describe_status(int status) {
  std::ostringstream os;
  if (WIFSIGNALED(status)) {
    const int sig = WTERMSIG(status);
    const char *name = sigabbrev_np(sig);
    os << "crash: signal " << sig << " (SIG" << (name ? name : "?") << ", " << strsignal(sig) << ")";
  } else {
    os << "crash: the measuring process exited with status " << WEXITSTATUS(status);
  }
  return os.str();
}

class LocalRunner : public Runner {
 public:
  MeasureResult run(const Module &module, const std::string &function, const std::vector<NDArray> &args,
                    const std::vector<NDArray> *expected, const MeasureOptions &options) override {
    if (signature_of(module, function).device != Device::CPU) {
      const int saved = num_threads();
      if (options.threads > 0) set_num_threads(options.threads);
      MeasureResult r = measure_here(module, function, args, expected, options);
      set_num_threads(saved);
      return r;
    }
    MeasureResult r = measure_in_child(module, function, args, expected, options);
    r.threads = options.threads > 0 ? options.threads : num_threads();  // the child inherited the count
    return r;
  }

 private:
  static MeasureResult measure_in_child(const Module &module, const std::string &function,
                                        const std::vector<NDArray> &args, const std::vector<NDArray> *expected,
                                        const MeasureOptions &options) {
    int fds[2];
    if (::pipe(fds) != 0) return {{}, std::string("run error: pipe: ") + std::strerror(errno)};
    std::fflush(nullptr);  // nothing buffered here is written twice
    const pid_t pid = ::fork();
    if (pid < 0) {
      ::close(fds[0]);
      ::close(fds[1]);
      return {{}, std::string("run error: fork: ") + std::strerror(errno)};
    }
    if (pid == 0) {
      ::close(fds[0]);
      // A crash ends the child with its signal, whatever handlers the parent installed
      // (a test framework's, a crash reporter's).
      for (int sig : {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT, SIGTRAP}) ::signal(sig, SIG_DFL);
      // Whatever happens, the child ends here: an exception escaping would return it into
      // the caller's tuning loop, which would go on tuning and forking beside the parent.
      MeasureResult r;
      try {
        if (options.threads > 0) set_num_threads(options.threads);
        r = measure_here(module, function, args, expected, options);
      } catch (const std::exception &e) {
        r = {{}, std::string("run error: ") + e.what()};
      } catch (...) {
        r = {{}, "run error: an exception that is not a std::exception"};
      }
      write_all(fds[1], encode(r));
      ::close(fds[1]);
      ::_exit(0);
    }
    ::close(fds[1]);
    std::string answer;
    const bool in_time = read_until(fds[0], answer, options.timeout_s);
    ::close(fds[0]);
    if (!in_time) ::kill(pid, SIGKILL);
    int status = 0;
    while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    if (!in_time) {
      std::ostringstream os;
      os << "timeout: no result within " << options.timeout_s << " s";
      return {{}, os.str()};
    }
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) return {{}, describe_status(status)};
    return decode(answer);
  }

  // Reads `fd` to its end; false when `timeout_s` passed first.
  static bool read_until(int fd, std::string &out, double timeout_s) {
    using clock = std::chrono::steady_clock;
    const auto deadline = clock::now() + clock_seconds(timeout_s > 0 ? timeout_s : 1e9);
    char buf[4096];
    while (true) {
      const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - clock::now()).count();
      if (left <= 0) return false;
      pollfd p{fd, POLLIN, 0};
      const int ready = ::poll(&p, 1, static_cast<int>(std::min<long long>(left, 1000)));
      if (ready < 0 && errno != EINTR) return true;
      if (ready <= 0) continue;
      const ssize_t n = ::read(fd, buf, sizeof buf);
      if (n <= 0) return true;
      out.append(buf, static_cast<size_t>(n));
    }
  }
};

}  // namespace

std::shared_ptr<Runner> local_runner() { return std::make_shared<LocalRunner>(); }

}  // namespace tensorir::autotune
