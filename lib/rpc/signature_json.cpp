// FuncSignature to and from JSON (signature_json.h).
#include "rpc/signature_json.h"

#include "tensorir/error.h"

namespace tensorir::rpc {

nlohmann::json signature_to_json(const FuncSignature &sig) {
  nlohmann::json args = nlohmann::json::array();
  for (const ArgSpec &a : sig.args) {
    nlohmann::json shape = nlohmann::json::array();
    for (const DimSpec &d : a.shape) shape.push_back({{"coeff", d.coeff}, {"symbol", d.symbol}, {"offset", d.offset}});
    args.push_back({{"name", a.name},
                    {"kind", a.is_buffer() ? "buffer" : "scalar"},
                    {"dtype", a.dtype.str()},
                    {"shape", shape}});
  }
  return {{"name", sig.name}, {"args", args}, {"symbols", sig.symbols}};
}

namespace {

template <typename T>
T get(const nlohmann::json &j, const char *key, const std::string &where) {
  const auto f = j.is_object() ? j.find(key) : j.end();
  bool ok = f != j.end();
  if constexpr (std::is_same_v<T, std::string>) ok = ok && f->is_string();
  else ok = ok && f->is_number_integer();
  TIR_USER_CHECK(ok) << "the signature " << where << " has no valid \"" << key << "\"";
  return f->get<T>();
}

const nlohmann::json &list(const nlohmann::json &j, const char *key, const std::string &where) {
  const auto f = j.is_object() ? j.find(key) : j.end();
  TIR_USER_CHECK(f != j.end() && f->is_array()) << "the signature " << where << " has no array \"" << key << "\"";
  return *f;
}

}  // namespace

FuncSignature signature_from_json(const nlohmann::json &j) {
  FuncSignature sig;
  sig.name = get<std::string>(j, "name", "of a function");
  const std::string where = "of '" + sig.name + "'";
  for (const nlohmann::json &s : list(j, "symbols", where)) {
    TIR_USER_CHECK(s.is_string()) << "the signature " << where << " has a symbol that is not a string";
    sig.symbols.push_back(s.get<std::string>());
  }
  for (const nlohmann::json &a : list(j, "args", where)) {
    ArgSpec spec;
    spec.name = get<std::string>(a, "name", where);
    const std::string at = where + " (argument '" + spec.name + "')";
    const std::string kind = get<std::string>(a, "kind", at);
    TIR_USER_CHECK(kind == "buffer" || kind == "scalar")
        << "the signature " << at << " has the kind '" << kind << "'; kinds are buffer and scalar";
    spec.kind = kind == "buffer" ? ArgSpec::Buffer : ArgSpec::Scalar;
    try {
      spec.dtype = Type::parse(get<std::string>(a, "dtype", at));
    } catch (const Error &e) {
      TIR_THROW() << "the signature " << at << ": " << e.what();
    }
    if (spec.is_buffer()) {
      for (const nlohmann::json &d : list(a, "shape", at)) {
        DimSpec dim{get<int64_t>(d, "coeff", at), int(get<int64_t>(d, "symbol", at)), get<int64_t>(d, "offset", at)};
        TIR_USER_CHECK(dim.symbol >= -1 && dim.symbol < int(sig.symbols.size()))
            << "the signature " << at << " names shape symbol " << dim.symbol << " of " << sig.symbols.size();
        TIR_USER_CHECK((dim.symbol >= 0 && dim.coeff != 0) || dim.offset >= 0)
            << "the signature " << at << " has a negative extent";
        spec.shape.push_back(dim);
      }
    }
    sig.args.push_back(std::move(spec));
  }
  return sig;
}

}  // namespace tensorir::rpc
