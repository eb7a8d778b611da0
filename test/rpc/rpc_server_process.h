// `tensorir rpc server OPTIONS...` as a child process of a test (test::RpcProcess).
#pragma once
#include <string>
#include <vector>

#include "rpc/rpc_process.h"

namespace tensorir::rpc_test {

class ServerProcess : public test::RpcProcess {
 public:
  explicit ServerProcess(const std::vector<std::string> &options) : RpcProcess(server_args(options)) {}

 private:
  static std::vector<std::string> server_args(const std::vector<std::string> &options) {
    std::vector<std::string> args = {"server"};
    args.insert(args.end(), options.begin(), options.end());
    return args;
  }
};

}  // namespace tensorir::rpc_test
