// FuncSignature to and from JSON (signature_json.h): the runtime's reader and writer
// (runtime/signature_json.h), so that the protocol and module files agree.
#include "rpc/signature_json.h"

#include "runtime/signature_json.h"

namespace tensorir::rpc {

nlohmann::json signature_to_json(const FuncSignature &sig) {
  return nlohmann::json::parse(runtime::signature_json(sig).dump());
}

FuncSignature signature_from_json(const nlohmann::json &j) { return runtime::signature_from_json(json::parse(j.dump())); }

}  // namespace tensorir::rpc
