// The runtime signature of a lowered function: what Function::call checks arguments
// against. Shared by every backend.
#pragma once
#include "tensorir/lower.h"
#include "tensorir/runtime/module.h"

namespace tensorir {

// Each buffer dimension must be a constant or affine in one shape variable
// (coeff * n + offset); otherwise throws tensorir::Error naming the argument.
FuncSignature make_signature(const LoweredFunc &f, Device::Kind device);

}  // namespace tensorir
