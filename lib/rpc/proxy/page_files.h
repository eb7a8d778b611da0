// What the proxy serves over HTTP: the RPC page and the web runtime it imports, from the
// files embedded in the library (graph/web_assets.h), never from the disk.
#pragma once
#include <string>

#include "rpc/connection.h"

namespace tensorir::rpc {

// "/" and "/rpc.html" give the page; "/tensorir/NAME.js" a runtime module; anything else
// a 404. The query string is ignored. Responses carry the headers that make the page
// cross-origin isolated, so that WebAssembly threads work in it.
HttpResponse page_file(const std::string &target);

}  // namespace tensorir::rpc
