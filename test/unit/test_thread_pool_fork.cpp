// The runtime thread pool in a child of fork(): the child has none of the parent's worker
// threads, so it must build a pool of its own rather than wait for them (the tuner times
// kernels in such children).
#include <catch2/catch.hpp>

#include <poll.h>
#include <sys/wait.h>
#include <unistd.h>

#include <set>
#include <thread>
#include <vector>

#include "tensorir/runtime/parallel.h"

using namespace tensorir;

namespace {
int32_t record_thread(int64_t i, void *env) {
  (*static_cast<std::vector<std::thread::id> *>(env))[i] = std::this_thread::get_id();
  return 0;
}

// Runs a parallel loop of 3 chunks in the calling process: the number of threads it ran on.
int threads_used() {
  std::vector<std::thread::id> ids(3000);
  if (tensorir_parallel_for(0, 3000, record_thread, &ids) != 0) return -1;
  return static_cast<int>(std::set<std::thread::id>(ids.begin(), ids.end()).size());
}
}  // namespace

TEST_CASE("thread pool: a forked child runs parallel loops on a pool of its own", "[thread_pool]") {
  set_num_threads(3);
  REQUIRE(threads_used() == 3);  // the parent's pool exists, its workers parked
  int fds[2];
  REQUIRE(pipe(fds) == 0);
  const pid_t pid = fork();
  REQUIRE(pid >= 0);
  if (pid == 0) {
    const char n = static_cast<char>(threads_used());
    (void)!write(fds[1], &n, 1);
    _exit(0);
  }
  close(fds[1]);
  pollfd p{fds[0], POLLIN, 0};
  const bool answered = poll(&p, 1, 20000) == 1;  // a child waiting for lost workers never answers
  char n = 0;
  if (answered) REQUIRE(read(fds[0], &n, 1) == 1);
  else kill(pid, SIGKILL);
  close(fds[0]);
  int status = 0;
  waitpid(pid, &status, 0);
  REQUIRE(answered);
  REQUIRE(int(n) == 3);
  REQUIRE(threads_used() == 3);  // the parent's pool is untouched
}
