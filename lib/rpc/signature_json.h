// FuncSignature as JSON (docs/rpc.md, "signature"):
//   {"name","args":[{"name","kind":"buffer"|"scalar","dtype","shape":[{"coeff","symbol","offset"}]}],
//    "symbols":[name]}
#pragma once
#include <nlohmann/json.hpp>

#include "tensorir/runtime/module.h"

namespace tensorir::rpc {

nlohmann::json signature_to_json(const FuncSignature &sig);
// Throws an Error naming the function and the part that is malformed (a symbol index out
// of range, an unknown dtype or kind). The device is the CPU's.
FuncSignature signature_from_json(const nlohmann::json &j);

}  // namespace tensorir::rpc
