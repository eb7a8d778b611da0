// Target strings: kinds, options and round trips, checked against the registered kinds.
#include <catch2/catch.hpp>

#include <algorithm>

#include "tensorir/error.h"
#include "tensorir/target.h"
#include "tensorir/target_kind.h"

using namespace tensorir;
using Catch::Contains;

TEST_CASE("target: parse kind and options", "[target]") {
  Target t = Target::parse("llvm -mcpu=native -mattr=+avx2");
  REQUIRE(t.kind == "llvm");
  REQUIRE(t.options.size() == 2);
  REQUIRE(t.option("mcpu") == "native");
  REQUIRE(t.option("mattr") == "+avx2");
  REQUIRE(t.option("missing") == "");
  REQUIRE(t.option("missing", "x") == "x");

  Target g = "opengl -mode=fragment";
  REQUIRE(g.kind == "opengl");
  REQUIRE(g.option("mode") == "fragment");

  Target f = std::string("  opengl   -no-default-schedule ");
  REQUIRE(f.kind == "opengl");
  REQUIRE(f.option("no-default-schedule") == "true");

  REQUIRE(Target("webgl").options.empty());
}

TEST_CASE("target: str round-trips", "[target]") {
  for (const char *s : {"llvm", "llvm -mcpu=native -mattr=+avx2,+fma", "opengl -mode=fragment",
                        "opengl -no-default-schedule -loop-limit=100", "webgl -draw-buffers=8 -max-texture-size=8",
                        "wasm -mattr=+relaxed-simd"}) {
    Target t = Target::parse(s);
    Target back = Target::parse(t.str());
    INFO(s << " -> " << t.str());
    REQUIRE(back.kind == t.kind);
    REQUIRE(back.options == t.options);
    REQUIRE(back.str() == t.str());
  }
  REQUIRE(Target("llvm").str() == "llvm");
  REQUIRE(Target("llvm -mcpu=native").str() == "llvm -mcpu=native");
  // Only a flag is written bare: an option's value "true" reads back as it was given.
  REQUIRE(Target("llvm -mcpu=true").str() == "llvm -mcpu=true");
  REQUIRE(Target::parse(Target("llvm -mcpu=true").str()).option("mcpu") == "true");
}

TEST_CASE("target: malformed strings are errors", "[target]") {
  REQUIRE_THROWS_AS(Target::parse("cuda"), Error);
  REQUIRE_THROWS_WITH(Target::parse("cuda -arch=sm_80"),
                      Contains("unknown target kind 'cuda'") && Contains("opengl, wasm, webgl"));
  // "c" has no backend, so it is no kind.
  REQUIRE_THROWS_WITH(Target::parse("c"), Contains("unknown target kind 'c'"));
  REQUIRE_THROWS_WITH(Target::parse(""), Contains("empty target"));
  REQUIRE_THROWS_WITH(Target::parse("llvm mcpu=native"), Contains("malformed option 'mcpu=native'"));
  REQUIRE_THROWS_WITH(Target::parse("llvm -"), Contains("malformed option"));
  REQUIRE_THROWS_WITH(Target::parse("llvm -mcpu="), Contains("no value"));
  // An option that takes a value, given bare, says so (not that "true" is no CPU).
  REQUIRE_THROWS_WITH(Target::parse("llvm -mcpu"), Contains("option -mcpu in target \"llvm -mcpu\" needs a value: -mcpu="));
  REQUIRE_THROWS_WITH(Target::parse("webgl -draw-buffers"), Contains("-draw-buffers") && Contains("needs a value"));
  REQUIRE_THROWS_WITH(Target::parse("llvm -mcpu=a -mcpu=b"), Contains("appears twice"));
}

TEST_CASE("target: options are checked against the kind's schema", "[target]") {
  // An unknown option lists the kind's options.
  REQUIRE_THROWS_WITH(Target::parse("llvm -a=1"),
                      Contains("unknown option '-a' for target 'llvm'") && Contains("-mcpu") && Contains("-mattr"));
  REQUIRE_THROWS_WITH(Target::parse("webgl -flag"), Contains("unknown option '-flag'") &&
                                                        Contains("-max-texture-size") && Contains("-draw-buffers"));
  REQUIRE_THROWS_WITH(Target::parse("webgl -pack=0"), Contains("unknown option '-pack' for target 'webgl'"));
  REQUIRE_THROWS_WITH(Target::parse("wasm -mcpu=znver4"), Contains("unknown option '-mcpu'") && Contains("-mattr"));
  // A value the option does not take names the option and what it takes.
  REQUIRE_THROWS_WITH(Target::parse("opengl -mode=vertex"),
                      Contains("unknown mode 'vertex'") && Contains("compute, fragment"));
  REQUIRE_THROWS_WITH(Target::parse("webgl -draw-buffers=3"), Contains("-draw-buffers") && Contains("1, 2, 4, 8"));
  REQUIRE_THROWS_WITH(Target::parse("webgl -max-texture-size=abc"),
                      Contains("-max-texture-size=abc") && Contains("positive"));
  REQUIRE_THROWS_WITH(Target::parse("webgl -max-texture-size=0"), Contains("-max-texture-size=0"));
  REQUIRE_THROWS_WITH(Target::parse("webgl -max-texture-size=4096x"), Contains("-max-texture-size=4096x"));
  REQUIRE_THROWS_WITH(Target::parse("opengl -loop-limit=-5"), Contains("-loop-limit=-5"));
  REQUIRE_THROWS_WITH(Target::parse("opengl -no-default-schedule=1"),
                      Contains("-no-default-schedule is a flag") && Contains("takes no value"));
  // Options edited after parsing are checked by check().
  Target t("webgl");
  t.options["max-texture-size"] = "-1";
  REQUIRE_THROWS_WITH(t.check(), Contains("-max-texture-size=-1"));
  t.options["max-texture-size"] = "8192";
  REQUIRE_NOTHROW(t.check());
}

TEST_CASE("target: the registry describes every kind", "[target]") {
  const std::vector<std::string> kinds = target_kind_names();
#if TENSORIR_WITH_OPENCL
  REQUIRE(kinds == std::vector<std::string>{"llvm", "opencl", "opengl", "wasm", "webgl"});
#else
  REQUIRE(kinds == std::vector<std::string>{"llvm", "opengl", "wasm", "webgl"});
#endif
  for (const std::string &k : kinds) {
    const TargetKindInfo *info = find_target_kind(k);
    REQUIRE(info != nullptr);
    CHECK(info->name == k);
    CHECK(!info->help.empty());
    for (const TargetOption &o : info->options) CHECK(!o.help.empty());
  }
  REQUIRE(find_target_kind("c") == nullptr);
  REQUIRE(&Target("llvm -mcpu=native").kind_info() == find_target_kind("llvm"));
  REQUIRE(find_target_kind("opengl")->find_option("mode")->usage() == "-mode=compute|fragment");
  REQUIRE(find_target_kind("opengl")->find_option("no-default-schedule")->usage() == "-no-default-schedule");
  REQUIRE(find_target_kind("llvm")->find_option("mtriple") == nullptr);
  // Registering a kind twice is a bug in the backend.
  TargetKindInfo again;
  again.name = "llvm";
  REQUIRE_THROWS_AS(register_target_kind(again), Error);
  Target empty;
  REQUIRE_THROWS_WITH(empty.caps(), Contains("no kind"));
}

TEST_CASE("target: capabilities follow the kind and its options", "[target]") {
  const TargetCaps llvm = Target("llvm -mcpu=native").caps();
  CHECK(llvm.device == Device::CPU);
  CHECK(llvm.runs_in_process);
  CHECK(llvm.cpu_schedules);
  CHECK_FALSE(llvm.small_vector_registers);
  CHECK_FALSE(llvm.textures);
  CHECK_FALSE(llvm.default_gpu_schedule);

  const TargetCaps wasm = Target("wasm").caps();
  CHECK(wasm.device == Device::CPU);
  CHECK_FALSE(wasm.runs_in_process);  // a JavaScript engine runs it
  CHECK(wasm.cpu_schedules);
  CHECK(wasm.small_vector_registers);
  CHECK(wasm.texture_channel_block == 0);

  const TargetCaps compute = Target("opengl").caps();
  CHECK(compute.device == Device::OpenGL);
  CHECK(compute.runs_in_process);
  CHECK(compute.default_gpu_schedule);
  CHECK_FALSE(compute.textures);
  CHECK_FALSE(compute.cpu_schedules);
  CHECK_FALSE(Target("opengl -mode=compute -no-default-schedule").caps().default_gpu_schedule);

  const TargetCaps fragment = Target("opengl -mode=fragment").caps();
  CHECK(fragment.device == Device::OpenGL);
  CHECK(fragment.textures);
  CHECK(fragment.texture_channel_block == 0);  // -pack packs elements, not channels
  CHECK_FALSE(fragment.default_gpu_schedule);

  const TargetCaps webgl = Target("webgl").caps();
  CHECK(webgl.device == Device::CPU);
  CHECK_FALSE(webgl.runs_in_process);  // a browser runs it
  CHECK(webgl.textures);
  CHECK(webgl.texture_channel_block == 4);
  CHECK_FALSE(webgl.cpu_schedules);
}
