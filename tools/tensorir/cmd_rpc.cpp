// tensorir rpc: the RPC proxy and server (docs/rpc.md), each a subcommand of its own file.
#include <CLI/CLI.hpp>

#include "cli.h"

namespace tensorir::cli {

std::vector<AddCommand> &rpc_commands() {
  static std::vector<AddCommand> commands;
  return commands;
}

void add_rpc(CLI::App &app) {
  CLI::App *rpc = app.add_subcommand(
      "rpc", "run and time compiled code on a browser page or another machine: the proxy and the server");
  rpc->require_subcommand(1);
  for (AddCommand add : rpc_commands()) add(*rpc);
}

}  // namespace tensorir::cli
