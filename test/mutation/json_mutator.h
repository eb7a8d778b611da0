// Mutants of a JSON document (a saved model's model.json): one node of the tree changed
// (a number moved by one, doubled, zeroed, made huge or negative; a string emptied or
// swapped for another of the document; an item or member dropped, doubled or swapped; a
// node replaced by null or another kind), or the text itself cut, spliced or flipped.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "mutation_util.h"
#include "runtime/json.h"

namespace tensorir::mutation {

class JsonMutator {
 public:
  JsonMutator(const std::string &text, Rng &rng) : text_(text), doc_(json::parse(text)), rng_(rng) {
    collect(doc_);
  }

  // A mutant's text; `what` says what was changed.
  std::string mutate(std::string &what) {
    if (rng_.chance(0.12)) return mutate_text(what);
    target_ = rng_.below(count_);
    seen_ = 0;
    const json::Value v = rebuild(doc_, "", what);
    return v.dump(rng_.chance(0.5) ? 1 : -1);
  }

 private:
  void collect(const json::Value &v) {
    ++count_;
    if (v.kind() == json::Value::String) strings_.push_back(v.as_string());
    if (v.kind() == json::Value::Array)
      for (const json::Value &i : v.items()) collect(i);
    if (v.kind() == json::Value::Object)
      for (const auto &m : v.members()) collect(m.second);
  }

  std::string mutate_text(std::string &what) {
    std::string t = text_;
    const size_t at = rng_.below(t.size());
    switch (rng_.below(4)) {
      case 0: what = "text cut at " + std::to_string(at); t.resize(at); break;
      case 1: what = "text byte " + std::to_string(at) + " flipped"; t[at] = char(t[at] ^ (1 << rng_.below(8))); break;
      case 2: what = "text byte " + std::to_string(at) + " deleted"; t.erase(at, 1); break;
      default: {
        static const std::vector<std::string> bits = {"9", "-", "0", "]", "}", ",", "\"", "e9", "null", "\\u0000"};
        const std::string &b = rng_.pick(bits);
        what = "'" + b + "' inserted at " + std::to_string(at);
        t.insert(at, b);
      }
    }
    return t;
  }

  json::Value changed(const json::Value &v, const std::string &path, std::string &what) {
    using json::Value;
    if (rng_.chance(0.15)) {
      static const std::vector<std::string> kinds = {"null", "true", "[]", "{}", "\"\""};
      const std::string &k = rng_.pick(kinds);
      what = path + " replaced by " + k;
      return json::parse(k);
    }
    switch (v.kind()) {
      case Value::Int:
      case Value::Real: {
        const int64_t x = v.kind() == Value::Int ? v.as_int() : int64_t(v.as_double());
        static const std::vector<int64_t> specials = {0, -1, 1, 63, 64, 65, int64_t(1) << 31, (int64_t(1) << 32) + 1,
                                                      INT64_MAX, INT64_MIN, int64_t(1) << 53};
        Value out;
        switch (rng_.below(7)) {
          // Wrapping arithmetic: the mutants include INT64_MIN and INT64_MAX.
          case 0: out = Value(int64_t(uint64_t(x) + 1)); break;
          case 1: out = Value(int64_t(uint64_t(x) - 1)); break;
          case 2: out = Value(int64_t(uint64_t(x) * 2)); break;
          case 3: out = Value(int64_t(0 - uint64_t(x))); break;
          case 4: out = Value(double(x) + 0.5); break;
          case 5: out = Value(std::to_string(x)); break;
          default: out = Value(rng_.pick(specials)); break;
        }
        what = path + " " + v.dump() + " -> " + out.dump();
        return out;
      }
      case Value::String: {
        static const std::vector<std::string> specials = {"", "abort", "free", "tensorir_model_kernels", "x",
                                                          "float64", "int8", std::string(3000, 'a')};
        const std::string s = rng_.chance(0.5) ? rng_.pick(strings_) : rng_.pick(specials);
        what = path + " \"" + v.as_string().substr(0, 40) + "\" -> \"" + s.substr(0, 40) + "\"";
        return Value(s);
      }
      case Value::Array: {
        std::vector<Value> items = v.items();
        const size_t n = items.size();
        switch (n ? rng_.below(5) : 4) {
          case 0: what = path + " item dropped"; items.erase(items.begin() + long(rng_.below(n))); break;
          case 1: what = path + " item doubled"; items.insert(items.begin() + long(rng_.below(n)), items[rng_.below(n)]); break;
          case 2: what = path + " items swapped"; std::swap(items[rng_.below(n)], items[rng_.below(n)]); break;
          case 3: what = path + " emptied"; items.clear(); break;
          default: what = path + " null appended"; items.push_back(Value()); break;
        }
        Value out = Value::array();
        for (Value &i : items) out.push(std::move(i));
        return out;
      }
      case Value::Object: {
        const auto &members = v.members();
        Value out = Value::object();
        const size_t drop = members.empty() ? 0 : rng_.below(members.size());
        const bool add = members.empty() || rng_.chance(0.3);
        for (size_t i = 0; i < members.size(); ++i)
          if (add || i != drop) out.set(members[i].first, members[i].second);
        if (add) out.set("zz", Value(1));
        what = path + (add ? " member zz added" : " member " + (members.empty() ? "" : members[drop].first) + " dropped");
        return out;
      }
      default:
        what = path + " " + v.dump() + " -> 0";
        return Value(0);
    }
  }

  // `v` copied, with node number target_ (pre-order) changed.
  json::Value rebuild(const json::Value &v, const std::string &path, std::string &what) {
    if (seen_++ == target_) return changed(v, path.empty() ? "/" : path, what);
    if (v.kind() == json::Value::Array) {
      json::Value out = json::Value::array();
      for (size_t i = 0; i < v.items().size(); ++i) out.push(rebuild(v.items()[i], path + "/" + std::to_string(i), what));
      return out;
    }
    if (v.kind() == json::Value::Object) {
      json::Value out = json::Value::object();
      for (const auto &[key, item] : v.members()) out.set(key, rebuild(item, path + "/" + key, what));
      return out;
    }
    return v;
  }

  std::string text_;
  json::Value doc_;
  Rng &rng_;
  std::vector<std::string> strings_;
  size_t count_ = 0, target_ = 0, seen_ = 0;
};

}  // namespace tensorir::mutation
