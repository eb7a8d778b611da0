#include "kernel_key.h"

#include <cstdio>
#include <map>
#include <variant>

namespace tensorir::graph {

namespace {

// Each part length-prefixed, so that no two descriptions concatenate alike.
void put(std::string &key, const std::string &part) { key += std::to_string(part.size()) + ":" + part; }

std::string attr_text(const AttrValue &v) {
  if (const auto *i = std::get_if<int64_t>(&v)) return "i" + std::to_string(*i);
  if (const auto *d = std::get_if<double>(&v)) {
    char buf[40];
    std::snprintf(buf, sizeof buf, "d%a", *d);  // exact: hexadecimal
    return buf;
  }
  if (const auto *s = std::get_if<std::string>(&v)) return "s" + *s;
  std::string out = "v";
  for (int64_t x : std::get<std::vector<int64_t>>(v)) out += std::to_string(x) + ",";
  return out;
}

std::string tensor_text(const Node &n) { return shape_str(n.shape) + n.dtype.str(); }

}  // namespace

std::string kernel_key(const Graph &g, const std::vector<int> &nodes, int lead, const Target &target, bool tuned) {
  std::string key;
  put(key, target.str());
  put(key, tuned ? "tuned" : "generic");
  std::map<int, std::string> source;  // node id -> "n<position in group>" or "a<argument>"
  int num_args = 0;
  for (size_t i = 0; i < nodes.size(); ++i) {
    const Node &n = g.node(nodes[i]);
    put(key, n.op + (n.id == lead ? "*" : ""));
    for (const auto &[name, value] : n.attrs) put(key, name + "=" + attr_text(value));
    for (int in : n.inputs) {
      auto it = source.find(in);
      if (it == source.end()) it = source.emplace(in, "a" + std::to_string(num_args++) + tensor_text(g.node(in))).first;
      put(key, it->second);
    }
    put(key, tensor_text(n));
    source[n.id] = "n" + std::to_string(i);
  }
  return key;
}

}  // namespace tensorir::graph
