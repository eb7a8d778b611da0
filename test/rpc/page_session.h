// A proxy, the RPC page registered with it under "browser" in headless Chromium, and a
// session paired with the page: what the browser tests of RPC start from.
#pragma once
#include <tensorir/rpc.h>

#include "rpc/rpc_process.h"

namespace tensorir::rpc_test {

struct PageSession {
  test::RpcProcess proxy{{"proxy", "--port", "0", "--quiet"}};
  test::BrowserPage page{proxy.address(), "browser"};
  rpc::Session session = rpc::connect(proxy.address(), "browser", {.timeout_ms = 30000, .token = ""});
};

}  // namespace tensorir::rpc_test
