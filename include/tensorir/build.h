// build(): lower a schedule and compile it for a target into a callable Module.
#pragma once
#include <functional>
#include <string>
#include <vector>

#include "tensorir/lower.h"
#include "tensorir/runtime/module.h"
#include "tensorir/target.h"

namespace tensorir {

Module build(const Schedule &s, const std::vector<BuildArg> &args, const Target &target,
             const std::string &name);
Module build(const std::vector<LoweredFunc> &funcs, const Target &target);

// Makes a C function callable from kernels (call_extern, tensor intrinsics) under `name`.
// Functions of the process's own shared libraries (libm, ...) need no registration.
void register_extern_function(const std::string &name, void *address);
// The address registered under `name`, or nullptr.
void *lookup_extern_function(const std::string &name);

// Backends plug in by target kind; build() looks them up here.
using BackendBuildFn = std::function<Module(const std::vector<LoweredFunc> &, const Target &)>;
void register_backend(const std::string &target_kind, BackendBuildFn fn);
bool has_backend(const std::string &target_kind);

}  // namespace tensorir
