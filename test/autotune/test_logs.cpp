// Tuning logs: records written and read back, the best record of a workload, malformed
// lines and logs of another CPU; graph::build applying a log.
#include <tensorir/graph/executor.h>
#include <tensorir/graph/models.h>
#include <tensorir/graph/passes.h>
#include <tensorir/runtime/parallel.h>
#include <tensorir/warning.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <functional>
#include <limits>
#include <random>
#include <set>
#include <sstream>

#include "autotune/autotune_test_util.h"
#include "autotune/log_test_util.h"
#include "autotune/workload.h"
#include "reference/resnet18_reference.h"

using namespace tensorir;
using namespace tensorir::autotune_test;

namespace {

std::string lowered_text(const autotune::Instance &inst) {
  std::ostringstream os;
  os << lower(inst.schedule, inst.args, inst.name);
  return os.str();
}

// Builds conv_graph() with a log of the one record `r`, which must not apply: one warning
// naming the node, `why` and the untuned schedule, and the untuned build's results.
void check_not_applied(const autotune::Record &r, const std::string &why, uint64_t seed) {
  const graph::Graph g = conv_graph();
  std::vector<std::string> warnings;
  const graph::CompiledModel built = build_with_record(g, r, warnings);
  REQUIRE(warnings.size() == 1);
  CHECK(warnings[0].find("'conv'") != std::string::npos);
  CHECK(warnings[0].find(why) != std::string::npos);
  CHECK(warnings[0].find("untuned") != std::string::npos);
  CHECK(warnings[0].find("one_record") != std::string::npos);  // the log's file
  CHECK(warnings[0].find("line 1:") != std::string::npos);
  const NDArray x = NDArray::random({1, 16, 12, 12}, Float(32), seed);
  CHECK(built.run({{"x", x}}).to_vector<float>() == graph::build(g, "llvm").run({{"x", x}}).to_vector<float>());
}

}  // namespace

TEST_CASE("records are written and read back field for field", "[autotune][log]") {
  TempLog log("roundtrip");
  const std::vector<autotune::Task> tasks = autotune::extract_tasks(conv_graph(), "llvm");
  REQUIRE(tasks.size() == 1);
  autotune::Record failed = record_of(tasks[0], 1, {});
  failed.error = "build failed: \"quoted\"\nsecond line";
  autotune::append_record(log.path, record_of(tasks[0], 3, {2.0, 1.0, 3.0}));
  autotune::append_record(log.path, failed);
  const std::vector<autotune::Record> back = autotune::read_log(log.path);
  REQUIRE(back.size() == 2);
  CHECK(back[0].workload == tasks[0].workload);
  CHECK(back[0].target == "llvm");
  CHECK(back[0].index == 3);
  CHECK(back[0].config_json == tasks[0].config_json(3));
  CHECK(back[0].times_ms == std::vector<double>{2.0, 1.0, 3.0});
  CHECK(back[0].timestamp == 1.5e9);
  CHECK(back[1].error == failed.error);
  CHECK(back[1].times_ms.empty());
}

TEST_CASE("the best record of a workload has the lowest median among those without error", "[autotune][log]") {
  const std::vector<autotune::Task> tasks = autotune::extract_tasks(conv_graph(), "llvm");
  const autotune::Task &t = tasks.at(0);
  autotune::Record broken = record_of(t, 4, {0.1});
  broken.error = "timeout";
  // Medians 2, 1.5 (the best, though its minimum is not the lowest) and 3.
  const autotune::ApplyHistoryBest best({record_of(t, 1, {0.5, 2, 9}), record_of(t, 2, {1, 1.5, 1.6}), broken,
                                         record_of(t, 3, {3})});
  REQUIRE(best.best(t.workload, t.target));
  CHECK(best.best(t.workload, t.target)->index == 2);
  CHECK(best.best(t.workload, Target("wasm")) == nullptr);
  CHECK(best.best("{\"op\":\"other\"}", t.target) == nullptr);
}

TEST_CASE("a configuration timed several times is ranked by the median of its records' medians", "[autotune][log]") {
  const std::vector<autotune::Task> tasks = autotune::extract_tasks(conv_graph(), "llvm");
  const autotune::Task &t = tasks.at(0);
  // Configuration 1 was fast once by chance (0.5), then twice at 2: its time is 2, and
  // configuration 2's single 1.5 is the best. Without the later records 1 would win.
  const std::vector<autotune::Record> lucky = {record_of(t, 1, {0.5}), record_of(t, 2, {1.5})};
  CHECK(autotune::ApplyHistoryBest(lucky).best(t.workload, t.target)->index == 1);
  std::vector<autotune::Record> confirmed = lucky;
  confirmed.push_back(record_of(t, 1, {2, 2.1}));
  confirmed.push_back(record_of(t, 1, {1.9, 2}));
  CHECK(autotune::ApplyHistoryBest(confirmed).best(t.workload, t.target)->index == 2);
  // Equal times: the configuration the log names first.
  const autotune::ApplyHistoryBest tie({record_of(t, 3, {1}), record_of(t, 2, {1}), record_of(t, 3, {1})});
  CHECK(tie.best(t.workload, t.target)->index == 3);
}

TEST_CASE("a configuration replaces the default only when it measured 3% faster", "[autotune][log]") {
  const std::vector<autotune::Task> tasks = autotune::extract_tasks(conv_graph(), "llvm");
  const autotune::Task &t = tasks.at(0);
  const int64_t other = t.default_index == 0 ? 1 : 0;
  autotune::Record def = record_of(t, t.default_index, {1.0});
  def.is_default = true;
  // 2% faster: the default stays; 4% faster: the other; without the default's flag (a
  // log of an older tuner), the lowest time as before.
  CHECK(autotune::ApplyHistoryBest({def, record_of(t, other, {0.98})}).best(t.workload, t.target)->index ==
        t.default_index);
  CHECK(autotune::ApplyHistoryBest({def, record_of(t, other, {0.96})}).best(t.workload, t.target)->index == other);
  autotune::Record unflagged = def;
  unflagged.is_default = false;
  CHECK(autotune::ApplyHistoryBest({unflagged, record_of(t, other, {0.98})}).best(t.workload, t.target)->index ==
        other);
  // The flag is written and read back; a record without it is no default.
  TempLog log("default_flag");
  autotune::append_record(log.path, def);
  autotune::append_record(log.path, record_of(t, other, {0.98}));
  const std::vector<autotune::Record> back = autotune::read_log(log.path);
  REQUIRE(back.size() == 2);
  CHECK(back[0].is_default);
  CHECK_FALSE(back[1].is_default);
  CHECK(autotune::ApplyHistoryBest(back).best(t.workload, t.target)->index == t.default_index);
}

TEST_CASE("records timed alone rank among those of the thread count the kernels run at", "[autotune][log]") {
  const std::vector<autotune::Task> tasks = autotune::extract_tasks(conv_graph(), "llvm");
  const autotune::Task &t = tasks.at(0);
  const auto at = [&](int64_t index, int threads, double ms) {
    autotune::Record r = record_of(t, index, {ms});
    r.threads = threads;
    return r;
  };
  // A merged log: 1 wins on one thread, 2 on two, 3 on four.
  const std::vector<autotune::Record> log = {at(1, 1, 1.0), at(2, 1, 1.2), at(3, 1, 1.5), at(1, 2, 0.9), at(2, 2, 0.6),
                                             at(3, 2, 0.8), at(1, 4, 0.5), at(2, 4, 0.4), at(3, 4, 0.3)};
  const int saved = num_threads();
  const auto best_at = [&](int threads, const std::vector<autotune::Record> &records) {
    set_num_threads(threads);
    const autotune::ApplyHistoryBest best(records);
    set_num_threads(saved);
    REQUIRE(best.best(t.workload, t.target));
    return best.best(t.workload, t.target)->index;
  };
  CHECK(best_at(1, log) == 1);
  CHECK(best_at(2, log) == 2);
  CHECK(best_at(4, log) == 3);
  // No records at 3: 2 and 4 are as near, and the larger is taken; at 8, 4.
  CHECK(best_at(3, log) == 3);
  CHECK(best_at(8, log) == 3);
  // Records of an unknown count (an older log's) rank with the chosen count's.
  std::vector<autotune::Record> merged = log;
  merged.push_back(record_of(t, 4, {0.5}));
  CHECK(best_at(2, merged) == 4);
  CHECK(best_at(4, merged) == 3);
  // Where no record of the nearest count fits its template, the next count's best applies.
  set_num_threads(2);
  const autotune::ApplyHistoryBest all(log);
  set_num_threads(saved);
  const autotune::ApplyHistoryBest fitting =
      all.without([](const autotune::Record &r) { return r.threads == 2 ? std::string("a test's misfit") : ""; });
  REQUIRE(fitting.best(t.workload, t.target));
  CHECK(fitting.best(t.workload, t.target)->index == 1);  // the best on 1 thread, nearer to 2 than 4 is
  CHECK(fitting.best(t.workload, t.target)->threads == 1);
  // The count is written and read back.
  TempLog file("threads");
  autotune::append_record(file.path, at(2, 2, 0.6));
  autotune::append_record(file.path, record_of(t, 4, {0.5}));
  const std::vector<autotune::Record> back = autotune::read_log(file.path);
  REQUIRE(back.size() == 2);
  CHECK(back[0].threads == 2);
  CHECK(back[1].threads == 0);
}

TEST_CASE("a configuration read from a log schedules as its index does", "[autotune][log]") {
  TempLog log("same_schedule");
  const std::vector<autotune::Task> tasks = autotune::extract_tasks(graph::resnet18(1), "llvm");
  for (const autotune::Task &t : {tasks[2], tasks[3]}) {
    const int64_t index = t.space_size() * 2 / 3;
    autotune::append_record(log.path, record_of(t, index, {1.0}));
    const autotune::Record r = autotune::read_log(log.path).back();
    const autotune::Instance a = t.instantiate(index), b = t.instantiate_json(r.config_json);
    INFO(t.name << " " << r.config_json);
    // The printed IR: structural_equal would tell the two instances' buffers apart.
    CHECK(lowered_text(a) == lowered_text(b));
    // Another configuration differs, so the comparison can fail.
    CHECK(lowered_text(t.instantiate((index + 1) % t.space_size())) != lowered_text(a));
  }
}

TEST_CASE("a malformed log line is an error naming the file and line", "[autotune][log][error]") {
  TempLog log("corrupt");
  const std::vector<autotune::Task> tasks = autotune::extract_tasks(conv_graph(), "llvm");
  autotune::append_record(log.path, record_of(tasks[0], 0, {1.0}));
  const std::string good = [&] {
    std::ifstream in(log.path);
    std::string l;
    std::getline(in, l);
    return l;
  }();
  struct Case {
    std::string line, message;
  };
  // `line` with `from` replaced by `to`.
  const auto with = [](std::string line, const std::string &from, const std::string &to) {
    REQUIRE(line.find(from) != std::string::npos);
    return line.replace(line.find(from), from.size(), to);
  };
  const std::vector<Case> cases = {
      {"{\"version\": 1, \"workload\": ", "not JSON"},
      {"[1, 2]", "not a JSON object"},
      {good.substr(0, good.find("\"times_ms\"")) + "\"timesms\":[1]," + good.substr(good.find("\"timestamp\"")),
       "the field 'times_ms' is missing"},
      {std::string(good).replace(good.find("\"index\":0"), 9, "\"index\":\"zero\""), "the field 'index' is not an integer"},
      {std::string(good).replace(good.find("\"version\":1"), 11, "\"version\":7"), "version 7"},
      {good.substr(0, good.size() - 1) + ",\"default\":\"yes\"}", "the field 'default' is not true or false"},
      {good.substr(0, good.size() - 1) + ",\"in_model\":1}", "the field 'in_model' is not true or false"},
      {good.substr(0, good.size() - 1) + ",\"threads\":-2}", "the field 'threads' is -2"},
      // Numbers the JSON library would overflow, wrap or truncate.
      {with(good, "\"times_ms\":[1.0]", "\"times_ms\":[1e999]"), "a number is out of range"},
      {with(good, "\"index\":0", "\"index\":99999999999999999999999"), "the field 'index' is 9.999999999999999e+22, not an integer"},
      {with(good, "\"index\":0", "\"index\":18446744073709551615"), "the field 'index' is 18446744073709551615, not"},
      {with(good, "\"index\":0", "\"index\":1.5"), "the field 'index' is 1.5, not an integer (written without a point"},
      {with(good, "\"index\":0", "\"index\":-1"), "the field 'index' is -1, not a configuration index"},
      {with(good, "\"version\":1", "\"version\":4294967297"), "the field 'version' is 4294967297, not"},
      {with(good, "\"config\":{", "\"config\":{\"huge\":18446744073709551615,"), "the knob 'huge'"},
      // Times are durations.
      {with(good, "\"times_ms\":[1.0]", "\"times_ms\":[1.0,0]"), "the field 'times_ms' has 0, not a duration"},
      {with(good, "\"times_ms\":[1.0]", "\"times_ms\":[-2.5]"), "the field 'times_ms' has -2.5, not a duration"},
      // Nesting deep enough to overflow the stack of whatever copies or prints it; a long
      // value is quoted cut short.
      {good.substr(0, good.size() - 1) + ",\"deep\":" + std::string(100000, '[') + std::string(100000, ']') + "}",
       "nested more than 64 levels deep"},
      {with(good, "\"index\":0", "\"index\":\"" + std::string(4000, 'x') + "\""), "the field 'index' is not"},
      {with(good, "\"index\":0", "\"index\":" + std::string(4000, '9')), "a number is out of range"},
  };
  for (const Case &c : cases) {
    INFO(c.line);
    {
      std::ofstream out(log.path);
      out << good << "\n\n" << c.line << "\n" << good << "\n";
    }
    try {
      autotune::read_log(log.path);
      FAIL("read_log accepted " << c.line);
    } catch (const Error &e) {
      const std::string what = e.what();
      INFO(what);
      CHECK(what.find(log.path) != std::string::npos);
      CHECK(what.find("line 3") != std::string::npos);
      CHECK(what.find(c.message) != std::string::npos);
      CHECK(what.size() < 1000);  // values are quoted cut short
    }
  }
  CHECK_THROWS_WITH(autotune::read_log(log.path + ".missing"), Catch::Contains("cannot be opened"));
}

namespace {

// A record of a made-up workload, without a task.
autotune::Record plain_record(int64_t index, std::vector<double> times) {
  autotune::Record r;
  r.workload = "{\"op\":\"conv\"}";
  r.target = "llvm";
  r.index = index;
  r.config_json = "{\"a\":" + std::to_string(index) + "}";
  r.times_ms = std::move(times);
  r.timestamp = 1.5e9;
  return r;
}

}  // namespace

TEST_CASE("a directory given as a tuning log is an error, not an empty log", "[autotune][log][error]") {
  const std::string dir = std::filesystem::temp_directory_path().string();
  CHECK_THROWS_WITH(autotune::read_log(dir), Catch::Contains("is a directory"));
  graph::BuildOptions o;
  o.tuning_log = dir;
  CHECK_THROWS_WITH(graph::build(conv_graph(), "llvm", o), Catch::Contains("is a directory"));
}

TEST_CASE("a measurement whose times are not durations is logged as a failure that shows them",
          "[autotune][log]") {
  TempLog log("bad_times");
  const double nan = std::numeric_limits<double>::quiet_NaN(), inf = std::numeric_limits<double>::infinity();
  autotune::Record timeout = plain_record(5, {-1.0});
  timeout.error = "timeout";
  for (const autotune::Record &r : {plain_record(1, {1.0, nan}), plain_record(2, {inf}), plain_record(3, {-0.5}),
                                    plain_record(4, {0.0, 0.2}), timeout, plain_record(6, {0.8})})
    autotune::append_record(log.path, r);
  const std::vector<autotune::Record> back = autotune::read_log(log.path);
  REQUIRE(back.size() == 6);
  const std::vector<std::string> shown = {"1 nan", "inf", "-0.5", "0 0.2", "-1"};
  for (size_t i = 0; i < 5; ++i) {
    INFO(back[i].error);
    CHECK(back[i].times_ms.empty());
    CHECK(back[i].error.find("not durations") != std::string::npos);
    CHECK(back[i].error.find(shown[i]) != std::string::npos);
  }
  CHECK(back[4].error.rfind("timeout; ", 0) == 0);
  CHECK(back[5].times_ms == std::vector<double>{0.8});
  const autotune::ApplyHistoryBest best(back);
  REQUIRE(best.best(back[0].workload, Target("llvm")));
  CHECK(best.best(back[0].workload, Target("llvm"))->index == 6);
}

TEST_CASE("append_record refuses a record read_log would reject, naming what is wrong", "[autotune][log][error]") {
  TempLog log("refused");
  autotune::append_record(log.path, plain_record(0, {1.0}));
  struct Case {
    autotune::Record record;
    std::string message;
  };
  std::vector<Case> cases;
  const auto add = [&](const std::function<void(autotune::Record &)> &change, const std::string &message) {
    autotune::Record r = plain_record(1, {2.0});
    change(r);
    cases.push_back({r, message});
  };
  add([](autotune::Record &r) { r.workload = "conv\xff"; }, "the field 'workload' is not valid UTF-8");
  add([](autotune::Record &r) { r.target = "llvm\xc3"; }, "the field 'target' is not valid UTF-8");
  add([](autotune::Record &r) { r.cpu = "+avx\x80"; }, "the field 'cpu' is not valid UTF-8");
  add([](autotune::Record &r) { r.timestamp = std::nan(""); }, "the field 'timestamp' is not a number");
  add([](autotune::Record &r) { r.version = 2; }, "version 2");
  add([](autotune::Record &r) { r.index = -3; }, "the field 'index' is -3");
  add([](autotune::Record &r) { r.threads = -1; }, "the field 'threads' is -1");
  add([](autotune::Record &r) { r.times_ms.clear(); }, "neither times nor an error");
  add([](autotune::Record &r) { r.config_json = "[1]"; }, "the field 'config' is not an object");
  add([](autotune::Record &r) { r.config_json = "{\"a\":1.5}"; }, "the knob 'a'");
  add([](autotune::Record &r) { r.config_json = "{\"a\":"; }, "config_json is not JSON");
  add([](autotune::Record &r) { r.config_json = "{\"a\":" + std::string(100000, '[') + std::string(100000, ']') + "}"; },
      "nested more than 64 levels deep");
  for (const Case &c : cases) {
    INFO(c.message);
    try {
      autotune::append_record(log.path, c.record);
      FAIL("append_record accepted the record");
    } catch (const Error &e) {
      INFO(e.what());
      CHECK(std::string(e.what()).find(c.message) != std::string::npos);
    }
  }
  // An error message that is not UTF-8 is written with U+FFFD in place of its bad bytes.
  autotune::Record crashed = plain_record(2, {});
  crashed.error = "crashed: \xff\xfe output";
  autotune::append_record(log.path, crashed);
  const std::vector<autotune::Record> back = autotune::read_log(log.path);
  REQUIRE(back.size() == 2);
  CHECK(back[0].index == 0);
  CHECK(back[1].error == "crashed: \xef\xbf\xbd\xef\xbf\xbd output");
}

TEST_CASE("a configuration whose knob names need escaping is written and read back", "[autotune][log]") {
  TempLog log("escaped_knobs");
  autotune::Config c = autotune::Config::from_values({{"a\"b", 2}});
  c.define_knob("a\"b", {1, 2}, 1);
  c.define_knob("tab\there", {7}, 7);
  autotune::Record r = plain_record(3, {1.0});
  r.config_json = c.json();
  autotune::append_record(log.path, r);
  const std::vector<autotune::Record> back = autotune::read_log(log.path);
  REQUIRE(back.size() == 1);
  CHECK(back[0].config_json == r.config_json);
  CHECK(autotune::config_values(back[0].config_json) ==
        std::map<std::string, int64_t>{{"a\"b", 2}, {"tab\there", 7}});
}

TEST_CASE("a log made on a CPU with other vector features is ignored with a warning", "[autotune][log]") {
  TempLog log("foreign");
  const graph::Graph g = conv_graph();
  const std::vector<autotune::Task> tasks = autotune::extract_tasks(g, "llvm");
  autotune::Record r = record_of(tasks[0], find_config(tasks[0], {"\"parallel\":1"}), {1.0});
  r.cpu = "+avx512f,+some_future_unit";
  autotune::append_record(log.path, r);
  std::vector<std::string> warnings;
  const WarningHandler previous = set_warning_handler([&](const std::string &m) { warnings.push_back(m); });
  graph::BuildOptions o;
  o.tuning_log = log.path;
  const graph::CompiledModel m = graph::build(g, "llvm", o);
  const autotune::ApplyHistoryBest best = autotune::ApplyHistoryBest::load(log.path);
  set_warning_handler(previous);
  CHECK(best.size() == 0);
  CHECK(best.foreign() == 1);
  REQUIRE(warnings.size() == 2);
  CHECK(warnings[0].find(log.path) != std::string::npos);
  CHECK(warnings[0].find("+some_future_unit") != std::string::npos);
  CHECK(warnings[0].find("ignored") != std::string::npos);
  // The fallback blocks: 16 input and 16 output channels.
  CHECK(m.graph().node("conv").attr_string("kernel_layout") == "OIHW16i16o");
}

TEST_CASE("graph::build applies a log's configurations and computes the same", "[autotune][log][build]") {
  TempLog log("apply");
  const graph::Graph g = conv_graph();
  const std::vector<autotune::Task> tasks = autotune::extract_tasks(g, "llvm");
  const autotune::Task &t = tasks.at(0);
  // Knobs other than the fallback's; the blocks are not knobs, the fallback's 16 and 16.
  const int64_t chosen = find_config(t, {"\"tile_ow\":4", "\"parallel\":1"});
  autotune::append_record(log.path, record_of(t, 0, {5.0}));
  autotune::append_record(log.path, record_of(t, chosen, {1.0}));
  graph::BuildOptions o;
  o.tuning_log = log.path;
  std::vector<std::string> warnings;
  const graph::CompiledModel tuned = build_warning(g, o, warnings);
  CHECK(warnings.empty());
  CHECK(tuned.graph().node("conv").attr_string("kernel_layout") == "OIHW16i16o");
  const graph::CompiledModel plain = graph::build(g, "llvm");
  const NDArray x = NDArray::random({1, 16, 12, 12}, Float(32), 23);
  const std::vector<float> a = tuned.run({{"x", x}}).to_vector<float>(), b = plain.run({{"x", x}}).to_vector<float>();
  CHECK(max_rel_error(a, b) < 1e-5);
  // Records read once serve several builds.
  o.tuning_log.clear();
  o.tuning = std::make_shared<autotune::ApplyHistoryBest>(autotune::read_log(log.path));
  CHECK(graph::build(g, "llvm", o).run({{"x", x}}).to_vector<float>() == a);
  o.tuning_log = log.path;
  CHECK_THROWS_WITH(graph::build(g, "llvm", o), Catch::Contains("set one"));
}

TEST_CASE("ResNet-18 built with a log of sampled configurations matches the reference", "[autotune][log][build]") {
  TempLog log("resnet18");
  const uint64_t seed = 2024;
  const graph::Graph g = graph::resnet18(seed);
  const std::vector<autotune::Task> tasks = autotune::extract_tasks(g, "llvm");
  std::mt19937_64 rng(17);
  for (const autotune::Task &t : tasks)
    autotune::append_record(log.path, record_of(t, int64_t(rng() % uint64_t(t.space_size())), {1.0}));
  graph::BuildOptions o;
  o.tuning_log = log.path;
  const graph::CompiledModel m = graph::build(g, "llvm", o);
  const NDArray input = NDArray::random({1, 3, 224, 224}, Float(32), 99);
  const std::vector<float> got = m.run({{"data", input}}).to_vector<float>();
  const std::vector<float> ref = reference::resnet18_forward(reference::resnet18_weights(seed), input.to_vector<float>());
  const double err = max_rel_error(got, ref);
  INFO("max |a - b| / max |b| = " << err);
  CHECK(err < 1e-4);
}

// The distinct conv2d and dense workloads of `g`, counted on the graph as written: the
// operator, its input shapes and its attributes.
size_t distinct_workloads(const graph::Graph &g) {
  std::set<std::string> workloads;
  for (const graph::Node &n : g.nodes()) {
    if (n.op != "conv2d" && n.op != "dense") continue;
    std::ostringstream key;
    key << n.op;
    for (int in : n.inputs)
      for (int64_t d : g.node(in).shape) key << " " << d;
    if (n.op == "conv2d") {
      for (const char *a : {"strides", "padding", "dilation"})
        for (int64_t v : n.attr_ints(a)) key << " " << a << v;
      key << " groups" << n.attr_int("groups");
    }
    workloads.insert(key.str());
  }
  return workloads.size();
}

// The tasks of convolutions and dense among `tasks`.
size_t products(const std::vector<autotune::Task> &tasks) {
  size_t n = 0;
  for (const autotune::Task &t : tasks) n += t.name.rfind("conv2d", 0) == 0 || t.name.rfind("dense", 0) == 0;
  return n;
}

TEST_CASE("extract_tasks gives ResNet-18 one task per distinct conv2d and dense workload", "[autotune][tasks]") {
  const graph::Graph g = graph::resnet18(5);
  const std::vector<autotune::Task> tasks = autotune::extract_tasks(g, "llvm");
  CHECK(products(tasks) == distinct_workloads(g));
  // 11 convolutions (3 of them 1x1 downsamples; the four 3x3 stride-1 ones choose
  // Winograd by a knob) and the classifier; and the two pools, on blocked data.
  CHECK(products(tasks) == 12);
  REQUIRE(tasks.size() == 14);
  CHECK(tasks[1].name == "max_pool2d 1x4x112x112x16");
  CHECK(tasks[12].name == "global_avg_pool2d 1x32x7x7x16");
  std::set<std::string> keys;
  for (const autotune::Task &t : tasks) {
    keys.insert(t.workload);
    CHECK(t.flops > 0);
    CHECK(t.knob_names.size() == t.knob_sizes.size());
    CHECK(t.target.str() == "llvm");
  }
  CHECK(keys.size() == tasks.size());
  CHECK(tasks[0].name == "conv2d 1x3x224x224 k64 7x7 s2");
  CHECK(tasks[0].flops == 2.0 * 64 * 112 * 112 * 3 * 7 * 7);
  // The keys are those graph::build looks up, of the graph before its layout passes.
  CHECK(tasks[0].workload == autotune::workload_key(g, g.node("conv1")));
}

TEST_CASE("a task counts the nodes that run its workload", "[autotune][tasks]") {
  const graph::Graph g = graph::resnet18(5);
  const std::vector<autotune::Task> tasks = autotune::extract_tasks(g, "llvm");
  int nodes = 0;
  for (const autotune::Task &t : tasks) nodes += t.occurrences;
  // Every convolution, the pools and the dense layer, once each.
  int tunable = 0;
  for (const graph::Node &n : g.nodes())
    tunable += n.op == "conv2d" || n.op == "max_pool2d" || n.op == "global_avg_pool2d" || n.op == "dense";
  CHECK(nodes == tunable);
  // Layer 1's four 3x3 convolutions of 64 channels share one workload.
  const auto l1 = std::find_if(tasks.begin(), tasks.end(),
                               [](const autotune::Task &t) { return t.name == "conv2d 1x64x56x56 k64 3x3 s1"; });
  REQUIRE(l1 != tasks.end());
  CHECK(l1->occurrences == 4);
}

TEST_CASE("extract_tasks gives MobileNetV2 one task per distinct convolution and dense", "[autotune][tasks]") {
  const graph::Graph g = graph::mobilenet_v2(5);
  const std::vector<autotune::Task> tasks = autotune::extract_tasks(g, "llvm");
  CHECK(products(tasks) == distinct_workloads(g));
  size_t depthwise = 0;
  for (const autotune::Task &t : tasks) depthwise += t.name.find(" g") != std::string::npos;
  CHECK(depthwise > 0);
}

TEST_CASE("a configuration without one of its template's knobs (an older template's) warns and builds the fallback",
          "[autotune][log][error]") {
  const std::vector<autotune::Task> tasks = autotune::extract_tasks(conv_graph(), "llvm");
  // The best record, and one that is not the default, so that applying it would show.
  const int64_t other = find_config(tasks[0], {"\"tile_order\":0", "\"parallel\":1"});
  autotune::Record r = record_of(tasks[0], other, {0.5});
  r.config_json = json_with_knob(r.config_json, "tile_order", nullptr);
  check_not_applied(r, "no knob 'tile_order'", 31);
}

TEST_CASE("a configuration that does not fit its workload's template warns and builds the fallback",
          "[autotune][log][error]") {
  const std::vector<autotune::Task> tasks = autotune::extract_tasks(conv_graph(), "llvm");
  autotune::Record r = record_of(tasks[0], 0, {1.0});
  r.config_json = json_with_knob(r.config_json, "tile_oc", 3);  // no tile of 3 blocks
  check_not_applied(r, "knob 'tile_oc' = 3 is not one of its choices", 29);
  // A task asked for such a configuration (a tuner's own) is still an error.
  CHECK_THROWS_WITH(tasks[0].instantiate_json("{\"tile_oc\":3}"), Catch::Contains("'tile_oc' = 3"));
  CHECK_THROWS_WITH(tasks[0].instantiate_json("{\"tile_ow\":\"wide\"}"), Catch::Contains("'tile_ow'"));
  CHECK_THROWS_WITH(tasks[0].instantiate(tasks[0].space_size()), Catch::Contains("outside its space"));
  CHECK_THROWS_WITH(tasks[0].config_json(-1), Catch::Contains("outside its space"));
}

TEST_CASE("a record made before an optional knob existed applies, the knob as the kernel it measured",
          "[autotune][log]") {
  const graph::Graph g = conv_graph();
  const std::vector<autotune::Task> tasks = autotune::extract_tasks(g, "llvm");
  REQUIRE(tasks.size() == 1);
  // A configuration that is not the default (so that applying it shows), written as the
  // template before the weight prefetch wrote it: without the knob.
  const int64_t other = find_config(tasks[0], {"\"tile_order\":0", "\"parallel\":1", "\"prefetch\":32"});
  autotune::Record old = record_of(tasks[0], other, {0.5});
  old.config_json = json_with_knob(old.config_json, "prefetch", nullptr);
  std::vector<std::string> warnings;
  build_with_record(g, old, warnings);
  CHECK(warnings.empty());
  // It builds the kernel it measured: no prefetch, the same as naming "prefetch": 0.
  const autotune::Instance as_old = tasks[0].instantiate_json(old.config_json);
  const autotune::Instance without = tasks[0].instantiate_json(json_with_knob(old.config_json, "prefetch", 0));
  const autotune::Instance with = tasks[0].instantiate(other);
  CHECK(lowered_text(as_old) == lowered_text(without));
  CHECK(lowered_text(as_old).find("tensorir.prefetch") == std::string::npos);
  CHECK(lowered_text(with).find("tensorir.prefetch") != std::string::npos);
  // And not the default tiles: the record was applied.
  const autotune::Instance defaults =
      tasks[0].instantiate_json(json_with_knob(tasks[0].config_json(tasks[0].default_index), "prefetch", 0));
  CHECK(lowered_text(as_old) != lowered_text(defaults));
}
