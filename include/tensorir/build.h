// build(): lower a schedule and compile it for a target into a callable Module.
#pragma once
#include <cstdint>
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
// How many registrations there have been: kernels compiled before a registration may call
// the function it replaced (a cache of compiled kernels keys on this).
uint64_t extern_function_registrations();

// Backends plug in by target kind; build() looks them up here.
using BackendBuildFn = std::function<Module(const std::vector<LoweredFunc> &, const Target &)>;
void register_backend(const std::string &target_kind, BackendBuildFn fn);
bool has_backend(const std::string &target_kind);

// Backends that generate code from the schedule's tensor stages rather than from the
// lowered loop nest (the fragment-shader path) plug in here as well: build(schedule, ...)
// calls the one registered for target.kind, which decides itself whether to plan from
// the stages or to take the default path, build_lowered().
using ScheduleBuildFn =
    std::function<Module(const Schedule &, const std::vector<BuildArg> &, const Target &, const std::string &)>;
void register_schedule_builder(const std::string &target_kind, ScheduleBuildFn fn);
// build(schedule, ...)'s default path: lower() the schedule, then the LoweredFunc backend
// of target.kind.
Module build_lowered(const Schedule &s, const std::vector<BuildArg> &args, const Target &target,
                     const std::string &name);

}  // namespace tensorir
