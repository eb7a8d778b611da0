// build(): the registry of backends by target kind, and the schedule-to-module entry point.
#include "tensorir/build.h"

#include "schedule/schedule_internal.h"
#include "transforms/passes.h"

#include <map>
#include <mutex>
#include <set>

namespace tensorir {

namespace {
struct BackendRegistry {
  std::mutex mu;
  std::map<std::string, BackendBuildFn> backends;
};

// Function-local: backends register from static initialisers in other files.
BackendRegistry &registry() {
  static BackendRegistry *r = new BackendRegistry;
  return *r;
}

// What the target cannot do taken out of the functions: prefetches where it has no
// prefetch instructions (the GPUs, WebAssembly), index checks and asserts where its
// kernels cannot fail a call (the GPUs: the indices are clamped instead).
std::vector<LoweredFunc> for_target(const std::vector<LoweredFunc> &funcs, const TargetCaps &caps) {
  if (caps.prefetch && caps.kernel_errors) return funcs;
  std::vector<LoweredFunc> out;
  for (const LoweredFunc &f : funcs) {
    auto *n = new LoweredFuncNode();  // Objects are not copyable: field by field
    n->name = f->name;
    n->args = f->args;
    n->symbols = f->symbols;
    n->body = caps.prefetch ? f->body : strip_prefetch(f->body);
    if (!caps.kernel_errors) n->body = drop_asserts(clamp_checked_indices(n->body));
    out.emplace_back(n);
  }
  return out;
}
}  // namespace

void register_backend(const std::string &target_kind, BackendBuildFn fn) {
  TIR_USER_CHECK(fn != nullptr) << "register_backend('" << target_kind << "'): empty function";
  BackendRegistry &r = registry();
  std::lock_guard<std::mutex> lock(r.mu);
  r.backends[target_kind] = std::move(fn);
}

bool has_backend(const std::string &target_kind) {
  BackendRegistry &r = registry();
  std::lock_guard<std::mutex> lock(r.mu);
  return r.backends.count(target_kind) != 0;
}

Module build(const std::vector<LoweredFunc> &funcs, const Target &target) {
  // Options edited after parsing are checked here, once, so no backend checks them again.
  target.check();
  TIR_USER_CHECK(!funcs.empty()) << "build() needs at least one function";
  std::set<std::string> names;
  for (const LoweredFunc &f : funcs) {
    TIR_USER_CHECK(f.defined()) << "build() was given an undefined LoweredFunc";
    TIR_USER_CHECK(names.insert(f->name).second)
        << "build() was given two functions named '" << f->name << "'; give each a unique name";
  }
  BackendBuildFn fn;
  {
    BackendRegistry &r = registry();
    std::lock_guard<std::mutex> lock(r.mu);
    auto it = r.backends.find(target.kind);
    if (it == r.backends.end()) {
      std::string available;
      for (const auto &entry : r.backends)
        available += (available.empty() ? "" : ", ") + entry.first;
      TIR_THROW() << "no backend registered for target '" << target.kind
                  << "'; available: " << (available.empty() ? "none" : available);
    }
    fn = it->second;
  }
  // Called outside the lock: a backend may itself look up others.
  return fn(for_target(funcs, target.caps()), target);
}

namespace {
struct ScheduleBuilderRegistry {
  std::mutex mu;
  std::map<std::string, ScheduleBuildFn> builders;
};

ScheduleBuilderRegistry &schedule_builders() {
  static ScheduleBuilderRegistry *r = new ScheduleBuilderRegistry;
  return *r;
}
}  // namespace

void register_schedule_builder(const std::string &target_kind, ScheduleBuildFn fn) {
  TIR_USER_CHECK(fn != nullptr) << "register_schedule_builder('" << target_kind << "'): empty function";
  ScheduleBuilderRegistry &r = schedule_builders();
  std::lock_guard<std::mutex> lock(r.mu);
  r.builders[target_kind] = std::move(fn);
}

Module build(const Schedule &s, const std::vector<BuildArg> &args, const Target &target,
             const std::string &name) {
  TIR_USER_CHECK(s.get()) << "build('" << name << "'): the schedule is undefined; create it with "
                          << "create_schedule({outputs})";
  target.check();
  ScheduleBuildFn fn;
  {
    ScheduleBuilderRegistry &r = schedule_builders();
    std::lock_guard<std::mutex> lock(r.mu);
    if (auto it = r.builders.find(target.kind); it != r.builders.end()) fn = it->second;
  }
  return fn ? fn(s, args, target, name) : build_lowered(s, args, target, name);
}

Module build_lowered(const Schedule &s, const std::vector<BuildArg> &args, const Target &target,
                     const std::string &name) {
  // The CPU targets run loops, not GPU threads: a bound loop would reach code generation
  // naming a thread index that no CPU code defines.
  if (target.caps().cpu_schedules)
    for (const Stage &st : s.stages()) {
      if (st->attach_type == AttachType::Inline) continue;  // runs no loops of its own
      for (const auto &[axis, thread] : st->bound_threads)
        TIR_THROW() << "stage '" << st->op->name << "' binds axis '" << axis->var.name() << "' to "
                    << thread->thread_tag << ", but target '" << target.str()
                    << "' runs on the CPU, which has no thread indices: bind axes only for the GPU targets "
                       "(opengl, opencl), and use parallel() for CPU threads";
    }
  // GPU compute kernels need bound loops: stages that bind none get the default schedule
  // unless the target says -no-default-schedule. It goes on a copy: the caller's schedule
  // stays as written (building it again, or for another target, sees the same schedule).
  Schedule sched = s;
  if (target.caps().default_gpu_schedule) {
    sched = s.copy();
    apply_default_gpu_schedule(sched);
  }
  return build(std::vector<LoweredFunc>{lower(sched, args, name)}, target);
}

}  // namespace tensorir
