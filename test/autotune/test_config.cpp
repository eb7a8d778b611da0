// Config: fallbacks, define mode, mixed-radix indices and values, and its errors.
#include <tensorir/autotune/config.h>
#include <tensorir/error.h>

#include <catch2/catch.hpp>

using namespace tensorir;
using autotune::Config;

namespace {

// A template of three knobs; returns their values.
std::vector<int64_t> ask(Config &c) {
  return {c.define_knob("a", {1, 2, 4}, 2), c.define_split("b", 12, 6, 5), c.define_knob("c", {0, 1}, 0)};
}

}  // namespace

TEST_CASE("a config without configuration returns each knob's fallback", "[autotune][config]") {
  Config fallback, define = Config::define();
  CHECK(ask(fallback) == std::vector<int64_t>{2, 5, 0});
  CHECK(ask(define) == std::vector<int64_t>{2, 5, 0});
  CHECK(define.names() == std::vector<std::string>{"a", "b", "c"});
  // define_split: the divisors of 12 up to 6, and the fallback 5 joins them.
  CHECK(define.choices()[1] == std::vector<int64_t>{1, 2, 3, 4, 6, 5});
  CHECK(define.json() == "{\"a\":2,\"b\":5,\"c\":0}");
}

TEST_CASE("a configuration index is mixed-radix over the knobs, the first fastest", "[autotune][config]") {
  // Sizes 3, 6, 2: index = a + 3 * (b + 6 * c).
  Config c = Config::from_index(2 + 3 * (4 + 6 * 1));
  CHECK(ask(c) == std::vector<int64_t>{4, 6, 1});
  Config zero = Config::from_index(0);
  CHECK(ask(zero) == std::vector<int64_t>{1, 1, 0});
}

TEST_CASE("a configuration by values sets the knobs it names", "[autotune][config]") {
  Config c = Config::from_values({{"b", 3}, {"other", 9}});
  CHECK(ask(c) == std::vector<int64_t>{2, 3, 0});
}

TEST_CASE("config errors name the knob", "[autotune][config][error]") {
  Config bad = Config::from_values({{"a", 3}});
  CHECK_THROWS_WITH(ask(bad), Catch::Contains("knob 'a' = 3 is not one of its choices"));
  Config twice;
  twice.define_knob("x", {1}, 1);
  CHECK_THROWS_WITH(twice.define_knob("x", {1}, 1), Catch::Contains("knob 'x' twice"));
  CHECK_THROWS_WITH(Config::from_index(-1), Catch::Contains("negative"));
}

TEST_CASE("an optional knob: the fallback untuned, its value before it existed for a record without it",
          "[autotune][config]") {
  auto ask_optional = [](Config &c) { return c.define_optional_knob("p", {0, 16, 32}, 32, 0); };
  Config fallback, define = Config::define(), old_record = Config::from_values({{"a", 4}});
  Config new_record = Config::from_values({{"p", 16}}), indexed = Config::from_index(1);
  CHECK(ask_optional(fallback) == 32);
  CHECK(ask_optional(define) == 32);
  CHECK(define.optional(0));
  CHECK(ask_optional(old_record) == 0);
  CHECK(ask_optional(new_record) == 16);
  CHECK(ask_optional(indexed) == 16);
  // define_knob's knobs are not optional.
  Config plain = Config::define();
  plain.define_knob("q", {1, 2}, 1);
  CHECK_FALSE(plain.optional(0));
  Config bad = Config::from_values({{"p", 8}});
  CHECK_THROWS_WITH(ask_optional(bad), Catch::Contains("'p' = 8"));
}
