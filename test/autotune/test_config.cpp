// Config: fallbacks, define mode, mixed-radix indices and values, and its errors.
#include <tensorir/autotune/config.h>
#include <tensorir/error.h>

#include <algorithm>
#include <catch2/catch.hpp>
#include <string>

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

TEST_CASE("a knob that makes the space exceed 2^63 - 1 configurations is an error naming it",
          "[autotune][config][error]") {
  // 8^21 = 2^63: the knob k20 is the first that does not fit a 64-bit index.
  auto ask_many = [](Config &c) {
    for (int k = 0; k < 23; ++k) c.define_knob("k" + std::to_string(k), {0, 1, 2, 3, 4, 5, 6, 7}, 0);
  };
  for (Config c : {Config::from_index(0), Config::from_index(12345), Config::define()}) {
    CHECK_THROWS_WITH(ask_many(c), Catch::Contains("knob 'k20'") && Catch::Contains("larger than 2^63"));
    CHECK(c.names().size() == 20);
  }
  // The largest space that fits: 2^62 configurations, the last index decodes.
  Config last = Config::from_index((int64_t(1) << 62) - 1);
  for (int k = 0; k < 31; ++k) CHECK(last.define_knob("k" + std::to_string(k), {0, 1, 2, 3}, 0) == 3);
  // Untuned builds do not enumerate the space, and keep their fallbacks.
  Config fallback;
  CHECK_NOTHROW(ask_many(fallback));
  CHECK(fallback.values() == std::vector<int64_t>(23, 0));
}

TEST_CASE("define_split lists the divisors of any loop extent promptly", "[autotune][config]") {
  // The divisors agree with trial division over small extents and bounds.
  for (int64_t extent = -2; extent <= 400; ++extent)
    for (int64_t most : {int64_t(-1), int64_t(0), int64_t(1), int64_t(7), int64_t(64), extent, int64_t(1000)}) {
      std::vector<int64_t> expected;
      for (int64_t d = 1; d <= std::min(extent, most); ++d)
        if (extent % d == 0) expected.push_back(d);
      Config c = Config::define();
      c.define_split("s", extent, most, expected.empty() ? 1 : expected.back());
      INFO(extent << " " << most);
      CHECK(c.choices()[0] == (expected.empty() ? std::vector<int64_t>{1} : expected));
    }
  auto split = [](int64_t extent, int64_t most) {
    Config c = Config::define();
    c.define_split("s", extent, most, 1);
    return c.choices()[0];
  };
  // The largest extent: a prime (2^31 - 1), and a product of two primes near its root.
  CHECK(split(2147483647, INT64_MAX) == std::vector<int64_t>{1, 2147483647});
  CHECK(split(46337LL * 46327, 46330) == std::vector<int64_t>{1, 46327});
  CHECK(split(int64_t(1) << 30, INT64_MAX).size() == 31);
  // Past the loop extent compiled code indexes: an error, not minutes of trial division.
  const int64_t p = 1000000007, q = 1000000009;
  CHECK_THROWS_WITH(split(p * q, int64_t(1) << 62), Catch::Contains("split 's'") && Catch::Contains("2147483647"));
}

TEST_CASE("an optional knob whose value before it existed is not a choice is an error naming it",
          "[autotune][config][error]") {
  Config c = Config::define();
  try {
    c.define_optional_knob("p", {0, 16, 32}, 32, 8);
    FAIL("define_optional_knob accepted 8");
  } catch (const Error &e) {
    const std::string what = e.what();
    CHECK(what.find("internal error") == std::string::npos);
    CHECK(what.find("knob 'p'") != std::string::npos);
    CHECK(what.find("8") != std::string::npos);
    CHECK(what.find("{0, 16, 32}") != std::string::npos);
  }
}

TEST_CASE("a configuration's JSON escapes its knob names", "[autotune][config]") {
  Config c = Config::define();
  c.define_knob("a\"b", {1, 2}, 1);
  c.define_knob("back\\slash\n", {3}, 3);
  c.define_knob("z", {0}, 0);
  CHECK(c.json() == R"({"a\"b":1,"back\\slash\n":3,"z":0})");
  CHECK(autotune::config_json({"x"}, {-5}) == R"({"x":-5})");
  CHECK(autotune::config_json({}, {}) == "{}");
  CHECK_THROWS_WITH(autotune::config_json({"conv\xff"}, {1}), Catch::Contains("not valid UTF-8"));
}
