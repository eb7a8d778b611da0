// lower()'s IR dump: one numbered file per pass, holding the IR after that pass, from
// LowerOptions::dump_dir or the TENSORIR_DUMP_IR environment variable.
#include <catch2/catch.hpp>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <unistd.h>

#include "schedule/schedule_internal.h"
#include "tensorir/arith/simplify.h"
#include "tensorir/ir/op.h"
#include "tensorir/ir/printer.h"
#include "tensorir/ir/visitor.h"
#include "tensorir/lower.h"
#include "transforms/passes.h"
#include "transforms/storage_flatten.h"

using namespace tensorir;
namespace fs = std::filesystem;

namespace {
// A fresh directory for one test, removed at the end.
struct TempDir {
  fs::path path;
  explicit TempDir(const std::string &tag)
      : path(fs::temp_directory_path() / ("tensorir_dump_" + tag + "_" + std::to_string(::getpid()))) {
    fs::remove_all(path);
  }
  ~TempDir() { fs::remove_all(path); }
};

std::string read(const fs::path &p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

std::vector<std::string> listing(const fs::path &dir) {
  std::vector<std::string> names;
  for (const auto &e : fs::directory_iterator(dir)) names.push_back(e.path().filename().string());
  std::sort(names.begin(), names.end());
  return names;
}

const std::vector<std::string> kPasses = {"00_schedule_ops",    "01_storage_flatten", "02_simplify",
                                          "03_inject_prefetch", "04_loop_partition",  "05_simplify",
                                          "06_vectorize_loops", "07_unroll_loops",    "08_simplify"};

std::vector<std::string> expected_files(const std::string &func) {
  std::vector<std::string> names;
  for (const std::string &p : kPasses) names.push_back(func + "." + p + ".txt");
  return names;
}

struct Scale {
  Tensor A = placeholder({10}, Float(32), "A");
  Tensor B = compute({10}, [&](Var i) { return A(i) * 2.0f; }, "B");
  Schedule s = create_schedule({B});
  Scale() {
    auto [o, in] = s[B].split(B.axis(0), 4);
    s[B].vectorize(in);
  }
};
}  // namespace

TEST_CASE("lower: the IR after every pass goes to numbered files", "[pass]") {
  TempDir dir("option");
  Scale k;
  LoweredFunc f = lower(k.s, {k.A, k.B}, "scale", LowerOptions{(dir.path / "nested").string()});
  const fs::path out = dir.path / "nested";
  REQUIRE(listing(out) == expected_files("scale"));

  // The same passes, run here one by one: each file holds the IR after its pass.
  EffectiveBodies bodies = inline_stages(k.s);
  Stmt stmt = schedule_ops(k.s, bodies, infer_bounds(k.s, bodies));
  std::vector<Stmt> after{stmt};
  stmt = storage_flatten(stmt, {{k.A, f->args[0].var}, {k.B, f->args[1].var}}, "scale");
  after.push_back(stmt);
  after.push_back(stmt = simplify(stmt));
  after.push_back(stmt = inject_prefetch(stmt));
  after.push_back(stmt = loop_partition(stmt));
  after.push_back(stmt = simplify(stmt));
  after.push_back(stmt = vectorize_loops(stmt));
  after.push_back(stmt = unroll_loops(stmt));
  after.push_back(stmt = simplify(stmt));
  for (size_t p = 0; p < kPasses.size(); ++p) {
    INFO("after " << kPasses[p]);
    CHECK(read(out / ("scale." + kPasses[p] + ".txt")) == to_string(after[p]));
  }
  CHECK(read(out / "scale.08_simplify.txt") == to_string(f->body));
  // The dump shows the passes at work: the guard is gone after loop_partition, the
  // vector lanes appear with vectorize_loops.
  CHECK(read(out / "scale.02_simplify.txt").find("if ") != std::string::npos);
  CHECK(read(out / "scale.06_vectorize_loops.txt").find("ramp") != std::string::npos);
}

TEST_CASE("lower: TENSORIR_DUMP_IR names the dump directory when the option does not", "[pass]") {
  TempDir env("env"), option("env_option");
  Scale k;
  REQUIRE(::setenv("TENSORIR_DUMP_IR", env.path.string().c_str(), 1) == 0);
  LoweredFunc f = lower(k.s, {k.A, k.B}, "from_env");
  LoweredFunc g = lower(k.s, {k.A, k.B}, "from_option", LowerOptions{option.path.string()});
  ::unsetenv("TENSORIR_DUMP_IR");
  REQUIRE(listing(env.path) == expected_files("from_env"));
  CHECK(read(env.path / "from_env.08_simplify.txt") == to_string(f->body));
  CHECK(listing(option.path) == expected_files("from_option"));
  // Without either, lowering writes nothing.
  LoweredFunc h = lower(k.s, {k.A, k.B}, "quiet");
  CHECK(listing(env.path) == expected_files("from_env"));
}

TEST_CASE("lower: a dump directory that cannot be created is an error", "[pass]") {
  TempDir dir("blocked");
  fs::create_directories(dir.path);
  std::ofstream(dir.path / "file") << "in the way";
  Scale k;
  CHECK_THROWS_WITH(lower(k.s, {k.A, k.B}, "blocked", LowerOptions{(dir.path / "file" / "sub").string()}),
                    Catch::Contains("cannot create the IR dump directory") && Catch::Contains("file/sub"));
}

TEST_CASE("lower: without unrolling the passes stop before unroll_loops and unrolled loops stay loops", "[pass]") {
  TempDir dir("no_unroll");
  Tensor A = placeholder({8}, Float(32), "A");
  Tensor B = compute({8}, [&](Var i) { return A(i) + 1.0f; }, "B");
  Schedule s = create_schedule({B});
  auto [o, in] = s[B].split(B.axis(0), 4);
  s[B].unroll(in);
  LowerOptions options{dir.path.string()};
  options.unroll = false;
  LoweredFunc kept = lower(s, {A, B}, "kept", options);
  std::vector<std::string> upto_vectorize = expected_files("kept");
  upto_vectorize.resize(kPasses.size() - 2);  // no 07_unroll_loops, no 08_simplify
  CHECK(listing(dir.path) == upto_vectorize);
  CHECK(to_string(kept->body) == read(dir.path / "kept.06_vectorize_loops.txt"));

  // Count the loops marked unrolled left in each form.
  struct Unrolled : IRVisitor {
    int loops = 0;
    using IRVisitor::visit;
    void visit(const ForNode *op) override {
      loops += op->for_kind == ForKind::Unrolled;
      IRVisitor::visit(op);
    }
  };
  Unrolled without, with;
  without.visit(kept->body);
  with.visit(lower(s, {A, B}, "unrolled")->body);
  CHECK(without.loops == 1);
  CHECK(with.loops == 0);
}
