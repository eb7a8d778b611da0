// tensorir rpc proxy: serves the RPC page and pairs clients with pages and servers by key.
//
//   tensorir rpc proxy                       # 127.0.0.1:9190; open /rpc.html?key=browser
//   tensorir rpc proxy --host 0.0.0.0 --token SECRET --port 9190
#include <CLI/CLI.hpp>

#include <cstdio>

#include "cli.h"
#include "cli_checks.h"
#include "rpc/connection.h"
#include "rpc/proxy/proxy.h"

namespace tensorir::cli {

namespace {

struct ProxyArgs {
  std::string host = "127.0.0.1";
  int port = 9190;
  std::string token;
  int64_t max_frame_mb = 1024;
  bool quiet = false;
};

void run_proxy(const ProxyArgs &args) {
  rpc::ProxyOptions options;
  options.host = args.host;
  options.port = args.port;
  options.token = args.token;
  options.max_frame_bytes = uint64_t(args.max_frame_mb) << 20;
  if (!args.quiet) options.log = rpc_log_line;
  rpc::Proxy proxy(options);
  const std::string address = rpc::join_address(args.host, proxy.port());
  std::printf("tensorir rpc proxy: listening on %s; open http://%s/rpc.html?key=browser\n", address.c_str(),
              address.c_str());
  std::fflush(stdout);
  serve_until_signal([&] { proxy.serve(); }, [&] { proxy.stop(); });
}

void add_rpc_proxy(CLI::App &rpc) {
  auto args = std::make_shared<ProxyArgs>();
  CLI::App *cmd = rpc.add_subcommand(
      "proxy", "serve the RPC page (/rpc.html?key=KEY) and pair clients with pages and servers by key");
  cmd->add_option("--host", args->host, "address to bind; another than 127.0.0.1 needs --token")
      ->capture_default_str();
  cmd->add_option("--port", args->port, "port for HTTP and WebSocket (0: any free port)")
      ->check(port_number())
      ->capture_default_str();
  cmd->add_option("--token", args->token, "a secret that clients and pages must present");
  cmd->add_option("--max-frame-mb", args->max_frame_mb, "refuse frames larger than this many MiB")
      ->check(whole_number(1, 1 << 20))
      ->capture_default_str();
  cmd->add_flag("--quiet", args->quiet, "log nothing to stderr");
  cmd->callback([args] { run_proxy(*args); });
}

const bool registered = (rpc_commands().push_back(&add_rpc_proxy), true);

}  // namespace

}  // namespace tensorir::cli
