// FuncSignature to and from JSON (signature_json.h).
#include "runtime/signature_json.h"

#include "tensorir/error.h"

namespace tensorir::runtime {

json::Value signature_json(const FuncSignature &sig) {
  json::Value args = json::Value::array();
  for (const ArgSpec &a : sig.args) {
    json::Value shape = json::Value::array();
    for (const DimSpec &d : a.shape) {
      json::Value dim = json::Value::object();
      dim.set("coeff", d.coeff);
      dim.set("symbol", d.symbol);
      dim.set("offset", d.offset);
      shape.push(std::move(dim));
    }
    json::Value arg = json::Value::object();
    arg.set("name", a.name);
    arg.set("kind", a.is_buffer() ? "buffer" : "scalar");
    arg.set("dtype", a.dtype.str());
    arg.set("shape", std::move(shape));
    // Only when set, so that files written before the flags read back the same.
    if (a.written) arg.set("written", true);
    if (a.may_alias) arg.set("may_alias", true);
    args.push(std::move(arg));
  }
  json::Value j = json::Value::object();
  j.set("name", sig.name);
  j.set("args", std::move(args));
  j.set("symbols", json::Value::array_of(sig.symbols));
  return j;
}

namespace {

const json::Value &member(const json::Value &j, const char *key, json::Value::Kind want, const std::string &where) {
  const json::Value *v = j.kind() == json::Value::Object ? j.find(key) : nullptr;
  // An integer may arrive as a number with a zero fraction; as_int() checks it.
  const bool ok = v && (v->kind() == want || (want == json::Value::Int && v->is_number()));
  const char *what = want == json::Value::Array ? "array" : want == json::Value::String ? "string" : "integer";
  TIR_USER_CHECK(ok) << "the signature " << where << " has no " << what << " \"" << key << "\"";
  return *v;
}

// An optional boolean member: false when absent.
bool flag(const json::Value &j, const char *key, const std::string &where) {
  const json::Value *v = j.find(key);
  if (!v) return false;
  TIR_USER_CHECK(v->kind() == json::Value::Bool) << "the signature " << where << " has a \"" << key
                                                 << "\" that is not true or false";
  return v->as_bool();
}

}  // namespace

FuncSignature signature_from_json(const json::Value &j) {
  using K = json::Value;
  FuncSignature sig;
  sig.name = member(j, "name", K::String, "of a function").as_string();
  const std::string where = "of '" + sig.name + "'";
  for (const json::Value &s : member(j, "symbols", K::Array, where).items()) {
    TIR_USER_CHECK(s.kind() == K::String) << "the signature " << where << " has a symbol that is not a string";
    sig.symbols.push_back(s.as_string());
  }
  for (const json::Value &a : member(j, "args", K::Array, where).items()) {
    ArgSpec spec;
    spec.name = member(a, "name", K::String, where).as_string();
    const std::string at = where + " (argument '" + spec.name + "')";
    const std::string arg_form = member(a, "kind", K::String, at).as_string();
    TIR_USER_CHECK(arg_form == "buffer" || arg_form == "scalar")
        << "the signature " << at << " has the kind '" << arg_form << "'; kinds are buffer and scalar";
    spec.kind = arg_form == "buffer" ? ArgSpec::Buffer : ArgSpec::Scalar;
    try {
      spec.dtype = Type::parse(member(a, "dtype", K::String, at).as_string());
    } catch (const Error &e) {
      TIR_THROW() << "the signature " << at << ": " << e.what();
    }
    if (spec.is_buffer()) {
      for (const json::Value &d : member(a, "shape", K::Array, at).items()) {
        DimSpec dim{member(d, "coeff", K::Int, at).as_int(), int(member(d, "symbol", K::Int, at).as_int()),
                    member(d, "offset", K::Int, at).as_int()};
        TIR_USER_CHECK(dim.symbol >= -1 && dim.symbol < int(sig.symbols.size()))
            << "the signature " << at << " names shape symbol " << dim.symbol << " of " << sig.symbols.size();
        TIR_USER_CHECK((dim.symbol >= 0 && dim.coeff != 0) || dim.offset >= 0)
            << "the signature " << at << " has a negative extent";
        spec.shape.push_back(dim);
      }
      spec.written = flag(a, "written", at);
      spec.may_alias = flag(a, "may_alias", at);
    }
    sig.args.push_back(std::move(spec));
  }
  return sig;
}

}  // namespace tensorir::runtime
