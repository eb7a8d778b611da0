// tensorir rpc: the RPC proxy and server (docs/rpc.md), each a subcommand of its own file.
#include <CLI/CLI.hpp>

#include <pthread.h>
#include <signal.h>

#include <cstdio>
#include <ctime>
#include <thread>

#include "cli.h"

namespace tensorir::cli {

std::vector<AddCommand> &rpc_commands() {
  static std::vector<AddCommand> commands;
  return commands;
}

void rpc_log_line(const std::string &line) {
  char stamp[32];
  const std::time_t now = std::time(nullptr);
  std::strftime(stamp, sizeof stamp, "%H:%M:%S", std::localtime(&now));
  std::fprintf(stderr, "[%s] %s\n", stamp, line.c_str());
}

sigset_t block_stop_signals() {
  sigset_t signals;
  sigemptyset(&signals);
  sigaddset(&signals, SIGINT);
  sigaddset(&signals, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &signals, nullptr);
  return signals;
}

void serve_until_signal(const std::function<void()> &serve, const std::function<void()> &stop) {
  // Blocked here, before any serving thread starts, so only the waiter below takes them.
  const sigset_t signals = block_stop_signals();
  std::thread waiter([&] {
    int sig = 0;
    sigwait(&signals, &sig);
    stop();
  });
  serve();
  // serve() may also have returned by itself: wake the waiter so it can be joined.
  pthread_kill(waiter.native_handle(), SIGTERM);
  waiter.join();
}

void add_rpc(CLI::App &app) {
  CLI::App *rpc = app.add_subcommand(
      "rpc", "run and time compiled code on a browser page or another machine: the proxy and the server");
  rpc->require_subcommand(1);
  for (AddCommand add : rpc_commands()) add(*rpc);
}

}  // namespace tensorir::cli
