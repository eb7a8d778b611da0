// FuncSignature as JSON, for files and messages that carry compiled functions (the
// "gpu-json" module file, the RPC protocol):
//   {"name","args":[{"name","kind":"buffer"|"scalar","dtype","shape":[{"coeff","symbol","offset"}],
//                    "written":true?,"may_alias":true?}],
//    "symbols":[name]}
// The two flags appear only when true (files from before them read back as false).
#pragma once
#include "runtime/json.h"
#include "tensorir/runtime/module.h"

namespace tensorir::runtime {

json::Value signature_json(const FuncSignature &sig);
// Throws an Error naming the function and the part that is malformed (a symbol index out
// of range, an unknown dtype or kind). The device is left as the CPU's.
FuncSignature signature_from_json(const json::Value &j);

}  // namespace tensorir::runtime
