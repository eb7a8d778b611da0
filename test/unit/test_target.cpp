// Target strings: kinds, options and round trips.
#include <catch2/catch.hpp>

#include "tensorir/target.h"
#include "tensorir/error.h"

using namespace tensorir;

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

  Target w = std::string("  webgl   -flag ");
  REQUIRE(w.kind == "webgl");
  REQUIRE(w.option("flag") == "true");

  REQUIRE(Target("c").options.empty());
}

TEST_CASE("target: str round-trips", "[target]") {
  for (const char *s : {"llvm", "llvm -mcpu=native -mattr=+avx2,+fma", "opengl -mode=fragment",
                        "webgl -flag", "c -opt=a=b"}) {
    Target t = Target::parse(s);
    Target back = Target::parse(t.str());
    INFO(s << " -> " << t.str());
    REQUIRE(back.kind == t.kind);
    REQUIRE(back.options == t.options);
    REQUIRE(back.str() == t.str());
  }
  REQUIRE(Target("llvm").str() == "llvm");
  REQUIRE(Target("llvm -mcpu=native").str() == "llvm -mcpu=native");
}

TEST_CASE("target: malformed strings are errors", "[target]") {
  REQUIRE_THROWS_AS(Target::parse("cuda"), Error);
  REQUIRE_THROWS_WITH(Target::parse("cuda -arch=sm_80"),
                      Catch::Contains("unknown target kind 'cuda'") &&
                          Catch::Contains("llvm, c, opengl, webgl"));
  REQUIRE_THROWS_WITH(Target::parse(""), Catch::Contains("empty target"));
  REQUIRE_THROWS_WITH(Target::parse("llvm mcpu=native"),
                      Catch::Contains("malformed option 'mcpu=native'"));
  REQUIRE_THROWS_WITH(Target::parse("llvm -"), Catch::Contains("malformed option"));
  REQUIRE_THROWS_WITH(Target::parse("llvm -mcpu="), Catch::Contains("no value"));
  REQUIRE_THROWS_WITH(Target::parse("llvm -a=1 -a=2"), Catch::Contains("appears twice"));
}
