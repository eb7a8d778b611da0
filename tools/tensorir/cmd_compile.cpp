// tensorir compile MODEL --target T [--target T2] -o OUT: a saved CPU model ("llvm"), or a
// web package ("webgl", "wasm", or both in one package whose runtime chooses).
#include <CLI/CLI.hpp>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <signal.h>
#include <unistd.h>

#include "cli.h"
#include "cli_checks.h"
#include "tensorir/graph/artifact.h"
#include "tensorir/graph/executor.h"
#include "tensorir/graph/export_web.h"
#include "runtime/model_files.h"
#include "tensorir/target_kind.h"

namespace tensorir::cli {

namespace {

struct CompileArgs {
  std::string model, out;
  std::vector<std::string> targets;
  ModelOptions model_options;
  int64_t max_texture = 0;
  bool no_alter_layout = false;
  std::string tuning_log;
};

double ms_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

std::string mib(size_t bytes) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.2f MiB", double(bytes) / (1024.0 * 1024.0));
  return buf;
}

std::string joined(const std::vector<std::string> &v, const char *sep) {
  std::string s;
  for (const std::string &x : v) s += (s.empty() ? "" : sep) + x;
  return s;
}

// The targets, checked before the first (slow) build: all web kinds, or one kind with a
// model writer.
std::vector<Target> parse_targets(const CompileArgs &a, bool &web) {
  std::vector<Target> parsed;
  bool texture_limit_used = false;
  for (const std::string &text : a.targets) {
    Target t(text);
    if (a.max_texture > 0 && t.caps().textures && t.kind_info().find_option("max-texture-size")) {
      t.options["max-texture-size"] = std::to_string(a.max_texture);
      t.check();
      texture_limit_used = true;
    }
    parsed.push_back(t);
  }
  if (a.max_texture > 0 && !texture_limit_used)
    throw UsageError{"--max-texture-size is an option of targets that keep tensors in textures (--target webgl)"};
  for (size_t i = 0; i < parsed.size(); ++i)
    for (size_t j = 0; j < i; ++j)
      if (parsed[i].kind == parsed[j].kind)
        throw UsageError{"--target '" + a.targets[j] + "' and --target '" + a.targets[i] + "' are both " +
                         parsed[i].kind + ": a package holds one build per kind"};
  const auto writers = graph::model_writer_kinds();
  web = std::all_of(parsed.begin(), parsed.end(), [](const Target &t) { return graph::has_web_exporter(t.kind); });
  const bool saved = parsed.size() == 1 && std::find(writers.begin(), writers.end(), parsed[0].kind) != writers.end();
  if (!web && !saved)
    throw UsageError{"--target " + joined(a.targets, " --target ") + ": compile writes a saved model for one of " +
                     joined(writers, ", ") + ", or a web package for " + joined(graph::web_exporter_kinds(), ", ") +
                     " (one target, or several web targets in one package)"};
  return parsed;
}

// The model as a graph; a model whose refused nodes all need an input's value or shape
// says which inputs to fix or bind, since a saved model or a web package is compiled for
// fixed shapes.
graph::Graph static_graph(const CompileArgs &a) {
  try {
    return load_graph(a.model, a.model_options);
  } catch (const onnx::UnsupportedError &e) {
    std::vector<std::string> values, shapes;
    for (const onnx::UnsupportedNode &u : e.nodes()) {
      if (u.input.empty()) throw;
      std::vector<std::string> &names = u.symbolic_shape ? shapes : values;
      if (std::find(names.begin(), names.end(), u.input) == names.end()) names.push_back(u.input);
    }
    std::string fix;
    if (!shapes.empty()) {
      const bool one = shapes.size() == 1;
      fix = std::string(one ? "input '" : "inputs '") + joined(shapes, "', '") + (one ? "' has" : "' have") +
            " symbolic dimensions: bind them with --input-shape NAME=D0,D1,...";
    }
    if (!values.empty()) {
      const bool one = values.size() == 1;
      fix += std::string(fix.empty() ? "" : "; ") + (one ? "input '" : "inputs '") + joined(values, "', '") +
             (one ? "' decides" : "' decide") + " shapes: fix " + (one ? "it" : "them") +
             " with --input-value NAME=FILE (tensorir run and test take " + (one ? "it" : "them") + " at run time)";
    }
    throw Error("'" + a.model + "': compile makes a model of fixed shapes, and " + fix + "\n" + e.what());
  }
}

// Ctrl-C (or SIGTERM, SIGHUP) while compiling: the empty staging directory and the
// directories made for -o are removed before the process ends as the signal says. Only
// rmdir, which is safe in a signal handler: the staging directory is empty until the
// model is written, in the last moments of a compile.
class InterruptCleanup {
 public:
  static constexpr int kSignals[] = {SIGINT, SIGTERM, SIGHUP};
  // `dirs` innermost first.
  explicit InterruptCleanup(const std::vector<std::filesystem::path> &dirs) {
    count_ = 0;
    for (const std::filesystem::path &d : dirs) {
      const std::string s = d.string();
      if (count_ == kMaxDirs || s.size() >= sizeof(paths_[0])) break;
      std::memcpy(paths_[count_], s.c_str(), s.size() + 1);
      count_ = count_ + 1;
    }
    struct sigaction act {};
    act.sa_handler = &on_signal;
    sigemptyset(&act.sa_mask);
    // A signal the caller ignores (nohup's SIGHUP, SIGINT of a background job) stays ignored.
    for (size_t i = 0; i < std::size(kSignals); ++i)
      installed_[i] = ::sigaction(kSignals[i], nullptr, &old_[i]) == 0 && old_[i].sa_handler != SIG_IGN &&
                      ::sigaction(kSignals[i], &act, nullptr) == 0;
  }
  InterruptCleanup(const InterruptCleanup &) = delete;
  InterruptCleanup &operator=(const InterruptCleanup &) = delete;
  ~InterruptCleanup() {
    for (size_t i = 0; i < std::size(kSignals); ++i)
      if (installed_[i]) ::sigaction(kSignals[i], &old_[i], nullptr);
    count_ = 0;
  }

 private:
  static void on_signal(int sig) {
    for (int i = 0; i < count_; ++i) ::rmdir(paths_[i]);
    ::signal(sig, SIG_DFL);
    ::raise(sig);
  }
  static constexpr int kMaxDirs = 32;
  static inline char paths_[kMaxDirs][4096];
  static inline volatile sig_atomic_t count_ = 0;
  struct sigaction old_[std::size(kSignals)] {};
  bool installed_[std::size(kSignals)] = {};
};

// The model is written to a hidden directory inside OUT and moved into place once it is
// whole: a compile that fails leaves OUT as it was, and replacing an earlier model there
// leaves none of its files behind (model.so beside a web package): the files its model.json
// (its format) says it wrote, nothing when that is no model of tensorir's. The user's own files
// in OUT stay. OUT itself is never renamed: it may be a mount point, a link, or served.
class StagedOutput {
 public:
  explicit StagedOutput(const std::string &out) : out_(out) {
    namespace fs = std::filesystem;
    std::error_code ec;
    require_output_directory(out);
    // One directory at a time, so that a failed compile removes exactly those it made.
    fs::path p;
    for (const fs::path &part : out_) {
      p /= part;
      if (part.empty()) continue;
      const bool made = fs::create_directory(p, ec);
      if (ec) {
        undo();
        throw Error("cannot create the output directory '" + out + "': " + ec.message());
      }
      if (made) created_.push_back(p);
    }
    std::string name = (out_ / ".tensorir-partial-XXXXXX").string();
    if (!::mkdtemp(name.data())) {
      const int err = errno;
      undo();
      throw Error("cannot write in the output directory '" + out + "': " + std::strerror(err));
    }
    staging_ = name;
    std::vector<std::filesystem::path> dirs{staging_};
    dirs.insert(dirs.end(), created_.rbegin(), created_.rend());
    cleanup_.emplace(dirs);
  }
  StagedOutput(const StagedOutput &) = delete;
  StagedOutput &operator=(const StagedOutput &) = delete;
  ~StagedOutput() {
    cleanup_.reset();
    std::error_code ec;
    if (!staging_.empty()) std::filesystem::remove_all(staging_, ec);
    if (!committed_) undo();
  }
  std::string path() const { return staging_.string(); }
  void commit() {
    namespace fs = std::filesystem;
    std::error_code ec;
    for (const std::string &name : graph::earlier_model_entries(out_.string())) remove(out_ / name);
    for (const fs::directory_entry &e : fs::directory_iterator(staging_)) {
      const fs::path target = out_ / e.path().filename();
      remove(target);  // a file of the user's with a model file's name is replaced
      fs::rename(e.path(), target, ec);
      if (ec) throw Error("cannot move " + e.path().string() + " to " + target.string() + ": " + ec.message());
    }
    committed_ = true;
  }

 private:
  // Removes the directories the constructor made, innermost first, each only while empty.
  void undo() {
    std::error_code ec;
    for (auto it = created_.rbegin(); it != created_.rend(); ++it) std::filesystem::remove(*it, ec);
  }
  static void remove(const std::filesystem::path &p) {
    std::error_code ec;
    std::filesystem::remove_all(p, ec);
    if (ec) throw Error("cannot replace " + p.string() + " of the earlier model: " + ec.message());
  }

  std::filesystem::path out_, staging_;
  std::vector<std::filesystem::path> created_;  // by the constructor, outermost first
  bool committed_ = false;
  std::optional<InterruptCleanup> cleanup_;
};

void compile(const CompileArgs &a) {
  bool web = false;
  const std::vector<Target> targets = parse_targets(a, web);
  StagedOutput staged(a.out);
  auto t0 = std::chrono::steady_clock::now();
  const graph::Graph g = static_graph(a);
  const double import_ms = ms_since(t0);
  graph::BuildOptions options;
  options.alter_layout = !a.no_alter_layout;
  options.tuning_log = a.tuning_log;
  t0 = std::chrono::steady_clock::now();
  std::vector<graph::CompiledModel> built;
  for (const Target &t : targets) built.push_back(graph::build(g, t, options));
  const double build_ms = ms_since(t0);
  t0 = std::chrono::steady_clock::now();
  std::printf("%s for %s -> %s\n", a.model.c_str(), joined(a.targets, " and ").c_str(), a.out.c_str());
  if (!web) {
    built[0].save(staged.path());
    std::vector<std::string> files;
    for (const std::filesystem::directory_entry &e : std::filesystem::directory_iterator(staged.path()))
      files.push_back(e.path().filename().string());
    std::sort(files.begin(), files.end());
    staged.commit();
    std::printf("  loaded in %.0f ms, compiled %zu kernels in %.0f ms, saved in %.0f ms (%s)\n", import_ms,
                built[0].num_kernels(), build_ms, ms_since(t0), joined(files, ", ").c_str());
    return;
  }
  const std::string name = std::filesystem::path(a.model).stem().string();
  graph::WebExportInfo info;
  if (built.size() == 1) {
    info = graph::export_web(built[0], staged.path(), {.name = name});
  } else {
    std::vector<const graph::CompiledModel *> models;
    for (const graph::CompiledModel &m : built) models.push_back(&m);
    info = graph::export_web_index(models, staged.path(), {.name = name});
  }
  staged.commit();
  std::printf("  loaded in %.0f ms, compiled %zu kernels in %.0f ms, exported in %.0f ms\n", import_ms,
              built[0].num_kernels(), build_ms, ms_since(t0));
  if (built.size() > 1)
    std::printf("  one package per target, and model.json indexing them for the runtime to choose\n");
  else if (built[0].target().caps().textures)
    std::printf("  %zu passes, %zu programs, %zu textures (%s; %s with one texture per value)\n", info.passes,
                info.programs, info.textures, mib(info.peak_bytes).c_str(), mib(info.naive_bytes).c_str());
  else
    std::printf("  model.wasm with %zu kernels; %s of memory for inputs and results\n", info.passes,
                mib(info.peak_bytes).c_str());
  std::printf("  model.json %s, params.bin %s, %zu files, %s in all\n", mib(info.model_json_bytes).c_str(),
              mib(info.params_bytes).c_str(), info.files.size(), mib(info.total_bytes).c_str());
  if (info.runtime_files == 0)
    std::printf("  note: this tensorir was built without the web runtime (web/runtime/*.js); the package "
                "has no index.html or tensorir/*.js\n");
}

}  // namespace

void add_compile(CLI::App &app) {
  auto a = std::make_shared<CompileArgs>();
  CLI::App *cmd = app.add_subcommand("compile", "compile a model to a saved CPU model or a web package");
  cmd->add_option("MODEL", a->model, "an .onnx file, or a built-in network: " + zoo_names())->required();
  cmd->add_option("--target,-t", a->targets,
                  "llvm (a saved model: model.so, model.json, params.bin), or webgl and/or wasm (a web package); "
                  "options as in the target string, e.g. \"webgl -draw-buffers=8\"")
      ->required();
  cmd->add_option("-o,--output", a->out, "the output directory (created if needed)")->required();
  add_model_options(*cmd, a->model_options);
  add_weight_seed_option(*cmd, a->model_options);
  cmd->add_option("--max-texture-size", a->max_texture, "webgl: the largest texture width or height")
      ->check(whole_number(1, INT32_MAX));
  cmd->add_flag("--no-alter-layout", a->no_alter_layout, "keep convolutions in NCHW");
  cmd->add_option("--tuning-log", a->tuning_log,
                  "a log of `tensorir tune`: each kernel scheduled by its workload's best configuration there")
      ->check(regular_file());
  cmd->callback([a] { compile(*a); });
}

}  // namespace tensorir::cli
