// Serving the embedded page and runtime (page_files.h).
#include "rpc/proxy/page_files.h"

#include "graph/web_assets.h"

namespace tensorir::rpc {

namespace {

std::string content_type(const std::string &path) {
  auto ends = [&](const char *ext) {
    const std::string e(ext);
    return path.size() >= e.size() && path.compare(path.size() - e.size(), e.size(), e) == 0;
  };
  if (ends(".html")) return "text/html; charset=utf-8";
  if (ends(".js")) return "text/javascript; charset=utf-8";
  if (ends(".json")) return "application/json";
  return "application/octet-stream";
}

}  // namespace

HttpResponse page_file(const std::string &target) {
  std::string path = target.substr(0, target.find_first_of("?#"));
  if (path == "/") path = "/rpc.html";
  HttpResponse r;
  r.headers = {{"Cross-Origin-Opener-Policy", "same-origin"}, {"Cross-Origin-Embedder-Policy", "require-corp"}};
  for (size_t i = 0; i < graph::web_assets::count(); ++i) {
    if (graph::web_assets::path(i) == nullptr || "/" + std::string(graph::web_assets::path(i)) != path) continue;
    r.content_type = content_type(path);
    r.body = std::string(graph::web_assets::data(i));
    return r;
  }
  r.status = 404;
  r.body = "not found: " + path + " (the proxy serves /rpc.html?key=KEY and the runtime under /tensorir/)\n";
  return r;
}

}  // namespace tensorir::rpc
