// tensorir rpc server: runs and times "llvm", "opengl" and "opencl" modules and saved models for RPC clients
// (docs/rpc.md), directly and, with --proxy, through a proxy under its key.
//
//   tensorir rpc server --port 9091
//   tensorir rpc server --key native --proxy 127.0.0.1:9190
//   tensorir rpc server --host 0.0.0.0 --token SECRET
#include <CLI/CLI.hpp>

#include <cstdio>
#include <memory>
#include <sstream>

#include "cli.h"
#include "cli_checks.h"
#include "rpc/connection.h"
#include "rpc/server/server.h"

namespace tensorir::cli {

namespace {

struct ServerArgs {
  rpc::server::ServerOptions options;
  int64_t max_frame_mb = 1024;
  bool quiet = false;
};

void run_server(ServerArgs args) {
  rpc::server::ServerOptions &options = args.options;
  options.max_frame_bytes = uint64_t(args.max_frame_mb) << 20;
  if (!options.proxy.empty()) {
    std::string host, port;
    rpc::split_address(options.proxy, host, port);  // an Error now: the server would retry a malformed address forever
  }
  if (!args.quiet) options.log = rpc_log_line;
  // Finding the devices starts threads (an OpenGL context's): they must not take the
  // signals that stop the server.
  block_stop_signals();
  rpc::server::Server server(options);
  std::printf("tensorir rpc server: listening on %s\n", rpc::join_address(options.host, server.port()).c_str());
  std::fflush(stdout);
  if (options.log) {
    std::string devices;
    for (const auto &d : server.info()["devices"])
      devices += (devices.empty() ? "" : ", ") + d["name"].get<std::string>();
    options.log("key '" + options.key + "', devices: " + devices);
    std::istringstream left_out(server.device_log());
    for (std::string line; std::getline(left_out, line);) options.log(line);
  }
  serve_until_signal([&] { server.serve(); },
                     [&] {
                       if (options.log) options.log("stopping");
                       server.stop();
                     });
}

void add_rpc_server(CLI::App &rpc) {
  auto args = std::make_shared<ServerArgs>();
  rpc::server::ServerOptions &o = args->options;
  CLI::App *cmd = rpc.add_subcommand(
      "server", "run and time \"llvm\", \"opengl\" and \"opencl\" modules and saved models for RPC clients, directly or through a proxy");
  cmd->add_option("--host", o.host, "address to listen on (another than 127.0.0.1 needs --token)")
      ->capture_default_str();
  cmd->add_option("--port", o.port, "port to listen on; 0: any free port")->check(port_number())->capture_default_str();
  cmd->add_option("--key", o.key, "the key clients connect with, and registered under at a proxy")
      ->capture_default_str();
  cmd->add_option("--proxy", o.proxy, "HOST:PORT of a `tensorir rpc proxy` to register with");
  cmd->add_option("--token", o.token, "a secret every client (and the proxy) must present");
  cmd->add_option("--max-frame-mb", args->max_frame_mb, "refuse frames larger than this many MiB")
      ->check(whole_number(1, 1 << 20))
      ->capture_default_str();
  cmd->add_flag("--quiet", args->quiet, "log nothing to stderr");
  cmd->callback([args] { run_server(*args); });
}

const bool registered = [] {
  rpc_commands().push_back(add_rpc_server);
  return true;
}();

}  // namespace

}  // namespace tensorir::cli
