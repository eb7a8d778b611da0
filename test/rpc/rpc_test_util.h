// Helpers shared by the RPC tests: the kernels they send to remotes.
#pragma once
#include <tensorir/tensorir.h>

#include <string>

namespace tensorir::rpc_test {

// c = a + b over n float32 elements, as function "add".
inline Module build_add(int64_t n, const std::string &target = "llvm") {
  Tensor A = placeholder({n}, Float(32), "A");
  Tensor B = placeholder({n}, Float(32), "B");
  Tensor C = compute({n}, [&](Var i) { return A(i) + B(i); }, "C");
  Schedule s = create_schedule({C});
  return build(s, {A, B, C}, target, "add");
}

}  // namespace tensorir::rpc_test
