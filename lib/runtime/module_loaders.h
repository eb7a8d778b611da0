// Readers of the module files backends write (Module::save) whose code needs a device to
// run on: each backend registers one per format and device kind at static
// initialisation, and Module::load finds it (the RPC server loads modules it is sent so).
#pragma once
#include <string>

#include "tensorir/runtime/module.h"

namespace tensorir::runtime {

// Reads the file at `path` and makes a Module whose functions run on `device`; throws a
// tensorir::Error naming the file for one it cannot run there.
using ModuleLoader = Module (*)(const std::string &path, Device device);

void register_module_loader(const std::string &format, Device::Kind kind, ModuleLoader load);

}  // namespace tensorir::runtime
