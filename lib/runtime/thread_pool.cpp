// The persistent thread pool behind tensorir_parallel_for. The calling thread runs the first
// chunk itself; workers spin briefly for the next loop and then sleep on a condition variable.
// A worker that finds itself on the CPU of a thread it works beside moves to a free one.
#include <pthread.h>
#include <sched.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <memory>
#include <mutex>
#include <new>
#include <string>
#include <thread>
#include <vector>

#include "runtime/export.h"
#include "runtime/thread_pool.h"
#include "tensorir/error.h"
#include "tensorir/runtime/parallel.h"

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#define TENSORIR_CPU_PAUSE() _mm_pause()
#else
#define TENSORIR_CPU_PAUSE() ((void)0)
#endif

namespace tensorir {

namespace {

// How long a thread spins before it blocks. Waking a blocked thread costs tens of
// microseconds (about 60 in a virtual machine), more than many kernels take: a model's
// parallel loops, separated by serial kernels of up to a millisecond, must find the
// workers awake.
constexpr std::chrono::microseconds kSpinTime{2000};
// For its first kQuietSpin a spin only pauses; after that it yields every few steps, so
// that on an oversubscribed machine the thread being waited for can get the core. A
// yield is a system call (over a microsecond in a virtual machine) and a thread inside
// one sees the next loop that much later: yielding from the start made an empty parallel
// loop on two cores cost 1.9 us instead of 0.7, and MobileNetV2 (55 kernels) 1-2% slower.
constexpr std::chrono::microseconds kQuietSpin{20};

// Spins until `done()` or kSpinTime has passed; returns done().
template <typename Done>
bool spin_until(Done done) {
  const auto start = std::chrono::steady_clock::now();
  bool yielding = false;
  for (int step = 0;; ++step) {
    if (done()) return true;
    if ((step & 63) == 63) {
      const auto spun = std::chrono::steady_clock::now() - start;
      if (spun >= kSpinTime) return done();
      yielding = spun >= kQuietSpin;
    }
    if (yielding && (step & 15) == 15) std::this_thread::yield();
    else TENSORIR_CPU_PAUSE();
  }
}

thread_local bool t_in_parallel = false;  // set on pool workers and inside a caller's chunk
thread_local std::string t_last_error;
thread_local std::string t_taken_error;

struct InParallelScope {
  bool saved = t_in_parallel;
  InParallelScope() { t_in_parallel = true; }
  ~InParallelScope() { t_in_parallel = saved; }
};

using Body = int32_t (*)(int64_t, void *);

// One parallel loop: [begin, begin + count) in `chunks` contiguous pieces.
struct Task {
  int64_t begin = 0, count = 0;
  int chunks = 0;
  Body body = nullptr;
  void *env = nullptr;
  std::vector<int32_t> status;         // per chunk: the first failure, or 0
  std::vector<std::string> messages;   // per chunk: the message its failure set
};

void run_chunk(Task &t, int c) {
  int64_t base = t.count / t.chunks, extra = t.count % t.chunks;
  int64_t lo = t.begin + c * base + std::min<int64_t>(c, extra);
  int64_t hi = lo + base + (c < extra ? 1 : 0);
  int32_t st = 0;
  t_last_error.clear();  // a failure reports only what its own body recorded
  for (int64_t i = lo; i < hi && st == 0; ++i) {
    try {
      st = t.body(i, t.env);
    } catch (const std::exception &e) {
      st = -1;
      t_last_error = std::string("exception in a parallel loop body: ") + e.what();
    } catch (...) {
      st = -1;
      t_last_error = "unknown exception in a parallel loop body";
    }
  }
  if (st != 0) {
    t.status[c] = st;
    t.messages[c] = std::move(t_last_error);
    t_last_error.clear();
  }
}

// TENSORIR_BIND_THREADS=1 pins thread i of the pool (the caller being thread 0) to the
// i-th CPU the process may use, so that two busy threads never share one core. Off by
// default: it changes the calling thread's affinity.
std::vector<int> pinned_cpus() {
  const char *env = std::getenv("TENSORIR_BIND_THREADS");
  if (!env || std::string(env) != "1") return {};
  cpu_set_t set;
  CPU_ZERO(&set);
  std::vector<int> cpus;
  if (sched_getaffinity(0, sizeof(set), &set) == 0)
    for (int c = 0; c < CPU_SETSIZE; ++c)
      if (CPU_ISSET(c, &set)) cpus.push_back(c);
  return cpus;
}

// Whether the calling thread now runs on `cpu` alone (a pin is best effort).
bool pin_current_thread(int cpu) {
  cpu_set_t set;
  CPU_ZERO(&set);
  CPU_SET(cpu, &set);
  return pthread_setaffinity_np(pthread_self(), sizeof(set), &set) == 0;
}

std::atomic<int64_t> g_shared_cpu{0}, g_moved_off{0};  // runtime::pool_placement_counts

// Where the threads of a pool last took work (index 0: the caller; -1: not yet), so that
// a worker can tell when it shares a CPU with one it works beside. That happens after the
// pool has slept: in a virtual machine a halted vCPU does not count as idle, so the kernel
// wakes a blocked worker on the busy CPU of the caller that woke it and, both threads
// being cache-hot, leaves them there for many milliseconds. The loop then runs at the
// speed of one thread (a 512 x 512 GEMM on two vCPUs: 1.2 ms instead of 0.6 per call, for
// tens of milliseconds after every pause of 50 ms or more).
class CpuSpread {
 public:
  explicit CpuSpread(int threads) : cpu_(new std::atomic<int>[threads]), threads_(threads) {
    for (int i = 0; i < threads; ++i) cpu_[i].store(-1, std::memory_order_relaxed);
  }
  void note_caller() { record(0, sched_getcpu()); }

  // Called by worker `index` before it runs its chunk. If its CPU is the caller's or a
  // lower-numbered worker's, it moves to a CPU of its affinity mask that no other thread
  // of the pool was last seen on: a mask of that one CPU migrates it at once, and its own
  // mask, set back right after, leaves it there. On a machine with more busy threads
  // than CPUs every CPU is shared, so a worker moves at most once per kMoveInterval.
  void settle_worker(int index) {
    static constexpr std::chrono::milliseconds kMoveInterval{10};
    thread_local std::chrono::steady_clock::time_point last_move{};
    int here = sched_getcpu();
    const bool shared = here >= 0 && taken_by_other(here, index, index);
    if (shared) g_shared_cpu.fetch_add(1, std::memory_order_relaxed);
    cpu_set_t mask;
    if (shared && std::chrono::steady_clock::now() - last_move >= kMoveInterval &&
        sched_getaffinity(0, sizeof(mask), &mask) == 0) {
      for (int c = 0; c < CPU_SETSIZE; ++c) {
        if (!CPU_ISSET(c, &mask) || taken_by_other(c, index, threads_)) continue;
        if (pin_current_thread(c)) {
          g_moved_off.fetch_add(1, std::memory_order_relaxed);
          sched_setaffinity(0, sizeof(mask), &mask);
          here = sched_getcpu();
        }
        last_move = std::chrono::steady_clock::now();
        break;
      }
    }
    record(index, here);
  }

 private:
  // Stores only a change: every loop reads these, and a line written by each thread on
  // every loop would travel between their caches.
  void record(int index, int cpu) {
    if (cpu_[index].load(std::memory_order_relaxed) != cpu) cpu_[index].store(cpu, std::memory_order_relaxed);
  }

  // Whether a thread of the pool numbered below `below`, other than `self`, was last on `cpu`.
  bool taken_by_other(int cpu, int self, int below) const {
    for (int j = 0; j < below; ++j)
      if (j != self && cpu_[j].load(std::memory_order_relaxed) == cpu) return true;
    return false;
  }

  std::unique_ptr<std::atomic<int>[]> cpu_;
  int threads_;
};

class ThreadPool {
 public:
  explicit ThreadPool(int nthreads) : spread_(nthreads) {
    const std::vector<int> cpus = pinned_cpus();
    spreading_ = cpus.empty();
    for (int i = 1; i < nthreads; ++i)
      workers_.emplace_back([this, i, cpus] {
        if (!cpus.empty()) pin_current_thread(cpus[static_cast<size_t>(i) % cpus.size()]);
        worker_loop(i);
      });
    if (!cpus.empty()) pin_current_thread(cpus[0]);
  }
  ~ThreadPool() {
    {
      std::lock_guard<std::mutex> lock(mu_);
      stop_.store(true, std::memory_order_relaxed);
      generation_.fetch_add(1, std::memory_order_release);
    }
    wake_.notify_all();
    for (std::thread &t : workers_) t.join();
  }

  int size() const { return static_cast<int>(workers_.size()) + 1; }

  int32_t run(int64_t begin, int64_t end, Body body, void *env) {
    Task task;
    task.begin = begin;
    task.count = end - begin;
    task.chunks = static_cast<int>(std::min<int64_t>(task.count, size()));
    task.body = body;
    task.env = env;
    task.status.assign(task.chunks, 0);
    task.messages.resize(task.chunks);

    remaining_.store(static_cast<int>(workers_.size()), std::memory_order_relaxed);
    if (spreading_) spread_.note_caller();
    {
      std::lock_guard<std::mutex> lock(mu_);
      task_ = &task;
      generation_.fetch_add(1, std::memory_order_release);
    }
    wake_.notify_all();
    {
      InParallelScope scope;
      run_chunk(task, 0);
    }
    wait_for_workers();

    for (int c = 0; c < task.chunks; ++c) {
      if (task.status[c] != 0) {
        t_last_error = std::move(task.messages[c]);
        return task.status[c];
      }
    }
    return 0;
  }

 private:
  void worker_loop(int index) {
    t_in_parallel = true;  // a body's own parallel loops run serially on this thread
    uint64_t seen = 0;
    while (true) {
      uint64_t g = seen;
      spin_until([&] { return (g = generation_.load(std::memory_order_acquire)) != seen; });
      if (g == seen) {
        std::unique_lock<std::mutex> lock(mu_);
        wake_.wait(lock, [&] { return generation_.load(std::memory_order_acquire) != seen; });
        g = generation_.load(std::memory_order_acquire);
      }
      seen = g;
      if (stop_.load(std::memory_order_relaxed)) return;
      Task &task = *task_;
      if (index < task.chunks) {
        if (spreading_) spread_.settle_worker(index);
        run_chunk(task, index);
      }
      if (remaining_.fetch_sub(1, std::memory_order_acq_rel) == 1) {
        std::lock_guard<std::mutex> lock(done_mu_);
        done_.notify_one();
      }
    }
  }

  void wait_for_workers() {
    if (spin_until([&] { return remaining_.load(std::memory_order_acquire) == 0; })) return;
    std::unique_lock<std::mutex> lock(done_mu_);
    done_.wait(lock, [&] { return remaining_.load(std::memory_order_acquire) == 0; });
  }

  CpuSpread spread_;
  bool spreading_ = true;  // off when TENSORIR_BIND_THREADS pins every thread
  std::vector<std::thread> workers_;
  std::mutex mu_;
  std::condition_variable wake_;
  std::atomic<uint64_t> generation_{0};
  std::atomic<bool> stop_{false};
  Task *task_ = nullptr;  // published under mu_ with each generation
  std::atomic<int> remaining_{0};
  std::mutex done_mu_;
  std::condition_variable done_;
};

int default_num_threads() {
  if (const char *env = std::getenv("TENSORIR_NUM_THREADS")) {
    char *end = nullptr;
    long v = std::strtol(env, &end, 10);
    if (end != env && *end == '\0' && v >= 1 && v <= kMaxThreads) return static_cast<int>(v);
    std::fprintf(stderr,
                 "tensorir: ignoring TENSORIR_NUM_THREADS='%s' (expected an integer from 1 to "
                 "%d); using the available cores\n",
                 env, kMaxThreads);
  }
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof(set), &set) == 0) {
    int n = CPU_COUNT(&set);
    if (n >= 1) return std::min(n, kMaxThreads);
  }
  return std::clamp(static_cast<int>(std::thread::hardware_concurrency()), 1, kMaxThreads);
}

struct PoolState {
  std::mutex submit;  // held while a loop runs on the pool or the pool is resized
  std::unique_ptr<ThreadPool> pool;
  std::atomic<int> nthreads{0};  // 0 until decided
};

PoolState *g_pool_state = nullptr;

// A child of fork() has only the thread that forked: the pool's workers are gone and
// another thread may have held `submit`. The child drops the pool without joining
// (its memory is leaked) and builds a new one at its next parallel loop, so that code
// timed in a child process (the tuner's measurements) may run multi-threaded.
void reset_pool_in_child() {
  PoolState &s = *g_pool_state;
  (void)s.pool.release();
  new (&s.submit) std::mutex();
}

// Never destroyed: worker threads may still be parked when the process exits.
PoolState &pool_state() {
  static PoolState *s = [] {
    g_pool_state = new PoolState;
    pthread_atfork(nullptr, nullptr, reset_pool_in_child);
    return g_pool_state;
  }();
  return *s;
}

int32_t run_serial(int64_t begin, int64_t end, Body body, void *env) {
  Task task;
  task.begin = begin;
  task.count = end - begin;
  task.chunks = 1;
  task.body = body;
  task.env = env;
  task.status.assign(1, 0);
  task.messages.resize(1);
  run_chunk(task, 0);
  if (task.status[0] != 0) t_last_error = std::move(task.messages[0]);
  return task.status[0];
}

}  // namespace

namespace runtime {
PoolPlacementCounts pool_placement_counts() {
  return {g_shared_cpu.load(std::memory_order_relaxed), g_moved_off.load(std::memory_order_relaxed)};
}
}  // namespace runtime

int num_threads() {
  PoolState &st = pool_state();
  int n = st.nthreads.load(std::memory_order_acquire);
  if (n == 0) {
    static const int default_n = default_num_threads();
    int expected = 0;
    st.nthreads.compare_exchange_strong(expected, default_n);
    n = st.nthreads.load(std::memory_order_acquire);
  }
  return n;
}

void set_num_threads(int n) {
  TIR_USER_CHECK(n >= 1 && n <= kMaxThreads)
      << "set_num_threads(" << n << "): the thread count must be between 1 and " << kMaxThreads;
  TIR_USER_CHECK(!t_in_parallel) << "set_num_threads cannot be called inside a parallel loop";
  PoolState &st = pool_state();
  std::lock_guard<std::mutex> lock(st.submit);
  st.nthreads.store(n, std::memory_order_release);
  if (st.pool && st.pool->size() != n) st.pool.reset();  // rebuilt at the next loop
}

const char *take_last_error() {
  t_taken_error = std::move(t_last_error);
  t_last_error.clear();
  return t_taken_error.c_str();
}

}  // namespace tensorir

extern "C" {

TENSORIR_EXPORT int32_t tensorir_parallel_for(int64_t begin, int64_t end,
                                              int32_t (*body)(int64_t i, void *env), void *env) {
  using namespace tensorir;
  if (end <= begin) return 0;
  int threads = num_threads();
  if (t_in_parallel || threads <= 1 || end - begin == 1) return run_serial(begin, end, body, env);
  PoolState &st = pool_state();
  // Another thread already runs a loop on the pool: this one runs on its own thread.
  std::unique_lock<std::mutex> lock(st.submit, std::try_to_lock);
  if (!lock.owns_lock()) return run_serial(begin, end, body, env);
  if (!st.pool || st.pool->size() != threads) {
    st.pool.reset();
    st.pool = std::make_unique<ThreadPool>(threads);
  }
  return st.pool->run(begin, end, body, env);
}

TENSORIR_EXPORT void tensorir_set_last_error(const char *msg) {
  tensorir::t_last_error = msg ? msg : "";
}

}  // extern "C"
