// tensorir rpc server: runs and times "llvm" modules and saved models for RPC clients
// (docs/rpc.md), directly and, with --proxy, through a proxy under its key.
//
//   tensorir rpc server --port 9091
//   tensorir rpc server --key native --proxy 127.0.0.1:9190
//   tensorir rpc server --host 0.0.0.0 --token SECRET
#include <CLI/CLI.hpp>

#include <pthread.h>
#include <signal.h>

#include <cstdio>
#include <memory>
#include <thread>

#include "cli.h"
#include "rpc/server/server.h"

namespace tensorir::cli {

namespace {

void run_server(rpc::server::ServerOptions options, int64_t max_frame_mb) {
  if (max_frame_mb < 1 || max_frame_mb > (int64_t(1) << 20))
    throw UsageError{"--max-frame-mb must be from 1 to 1048576, not " + std::to_string(max_frame_mb)};
  options.max_frame_bytes = uint64_t(max_frame_mb) << 20;
  // SIGINT and SIGTERM are taken by one thread that stops the server; every other
  // thread inherits them blocked.
  sigset_t signals;
  sigemptyset(&signals);
  sigaddset(&signals, SIGINT);
  sigaddset(&signals, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &signals, nullptr);
  rpc::server::Server server(options);
  std::printf("tensorir rpc server: listening on %s:%d\n", options.host.c_str(), server.port());
  std::fflush(stdout);
  std::string devices;
  for (const auto &d : server.info()["devices"]) devices += (devices.empty() ? "" : ", ") + d["name"].get<std::string>();
  std::fprintf(stderr, "tensorir rpc server: key '%s', devices: %s\n%s", options.key.c_str(), devices.c_str(),
               server.device_log().c_str());
  std::thread waiter([&server, signals] {
    int sig = 0;
    sigwait(&signals, &sig);
    std::fprintf(stderr, "tensorir rpc server: stopping (%s)\n", sig == SIGINT ? "SIGINT" : "SIGTERM");
    server.stop();
  });
  server.serve();
  // serve() returns only after stop(), which only the waiter calls.
  waiter.join();
}

void add_rpc_server(CLI::App &rpc) {
  auto options = std::make_shared<rpc::server::ServerOptions>();
  auto max_frame_mb = std::make_shared<int64_t>(1024);
  CLI::App *cmd = rpc.add_subcommand(
      "server", "run and time \"llvm\" modules and saved models for RPC clients, directly or through a proxy");
  cmd->add_option("--host", options->host, "address to listen on (another than 127.0.0.1 needs --token)")
      ->capture_default_str();
  cmd->add_option("--port", options->port, "port to listen on; 0: any free port")->capture_default_str();
  cmd->add_option("--key", options->key, "the key clients connect with, and registered under at a proxy")
      ->capture_default_str();
  cmd->add_option("--proxy", options->proxy, "HOST:PORT of a `tensorir rpc proxy` to register with");
  cmd->add_option("--token", options->token, "a secret every client (and the proxy) must present");
  cmd->add_option("--max-frame-mb", *max_frame_mb, "refuse frames larger than this many MiB")->capture_default_str();
  cmd->callback([options, max_frame_mb] { run_server(*options, *max_frame_mb); });
}

const bool registered = [] {
  rpc_commands().push_back(add_rpc_server);
  return true;
}();

}  // namespace

}  // namespace tensorir::cli
