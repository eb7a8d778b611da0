// ResNet-18 (the zoo model, seeded; batch 1, 3x224x224) in one run on every target this
// machine has: "llvm", "opencl" (when that kind is built), "opengl" compute shaders with
// the GPU schedules and, for comparison, with the generic schedule alone, fragment
// shaders ("opengl -mode=fragment"), the browser's shaders run natively ("webgl"), and in
// headless Chromium the webgl and wasm web packages (bench/web/run_bench.mjs). Prints the
// median latency and the ratio to "llvm" of each, and writes a bar chart of the
// latencies, bench_targets.svg, next to this program. `--targets llvm,opencl` runs only
// the rows listed ("llvm" always runs: the reference; "chromium" names both browser rows).
#include <tensorir/graph/executor.h>
#include <tensorir/graph/models.h>
#include <tensorir/target_kind.h>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <map>
#include <string>
#include <unistd.h>
#include <vector>

#include "common.h"

using namespace tensorir;

namespace {

const char *kCase = "1x3x224x224";
// Multiply-adds of torchvision's resnet18 at 224x224, counted twice for GF/s.
const double kFlops = 2 * 1.814e9;

struct Row {
  std::string target;
  double ms = -1;    // median; < 0 when it did not run
  double err = -1;   // max |out - llvm| / max |llvm|, < 0 when unknown
  std::string note;  // why it did not run
};

// The first line of an error message.
std::string first_line(const std::string &s) { return s.substr(0, s.find('\n')); }

Row run_native(const graph::Graph &g, const std::string &label, const std::string &target,
               const graph::BuildOptions &options, const NDArray &input, int reps, std::vector<float> &llvm_out) {
  Row r{label, -1, -1, ""};
  try {
    const graph::CompiledModel m = graph::build(g, target, options);
    const std::map<std::string, NDArray> inputs{{"data", input}};
    const std::vector<float> out = m.run(inputs).to_vector<float>();
    if (target == "llvm") llvm_out = out;
    if (!llvm_out.empty()) r.err = bench::max_rel_error(out.data(), llvm_out.data(), out.size());
    r.ms = bench::median_ms([&] { m.run(inputs); }, reps, 1);
  } catch (const std::exception &e) {
    r.note = first_line(e.what());
  }
  return r;
}

// The web packages in headless Chromium, one JSON line per engine from run_bench.mjs.
std::vector<Row> run_browser(int reps) {
  std::vector<Row> rows = {{"chromium webgl2", -1, -1, ""}, {"chromium wasm", -1, -1, ""}};
  const char *chromium = std::getenv("CHROMIUM");
  const std::string browser = chromium && *chromium ? chromium : "/usr/bin/chromium";
  std::string why;
  if (access(browser.c_str(), X_OK) != 0) why = "no Chromium at " + browser + " (set CHROMIUM)";
  else if (!bench::command_ok("node --version")) why = "no node on PATH";
  if (!why.empty()) {
    for (Row &r : rows) r.note = why;
    return rows;
  }
  const std::string cmd = "node '" + bench::bench_file("web/run_bench.mjs") + "' --engines tensorir,tensorir-wasm --json --runs " +
                          std::to_string(reps) + " --warmup 2 2>/dev/null";
  FILE *p = popen(cmd.c_str(), "r");
  std::map<std::string, std::string> lines;  // by impl
  char buf[1 << 14];
  while (p && std::fgets(buf, sizeof buf, p)) {
    const std::string line = buf;
    for (const char *impl : {"tensorir", "tensorir-wasm"})
      if (line.find("\"impl\":\"" + std::string(impl) + "\"") != std::string::npos) lines[impl] = line;
  }
  const int status = p ? pclose(p) : -1;
  const char *impls[] = {"tensorir", "tensorir-wasm"};
  for (size_t i = 0; i < rows.size(); ++i) {
    auto it = lines.find(impls[i]);
    if (it == lines.end()) {
      rows[i].note = "run_bench.mjs gave no result (exit " + std::to_string(status) + "; run " + cmd + " to see why)";
      continue;
    }
    rows[i].ms = bench::json_field(it->second, "median_ms");
    rows[i].err = bench::json_field(it->second, "max_rel_err");
    if (rows[i].ms < 0) rows[i].note = "failed: " + first_line(it->second);
  }
  return rows;
}

std::string xml_escape(const std::string &s) {
  std::string out;
  for (char c : s) out += c == '<' ? "&lt;" : c == '>' ? "&gt;" : c == '&' ? "&amp;" : std::string(1, c);
  return out;
}

// Horizontal bars of the latencies, the longest bar the slowest target.
void write_svg(const std::vector<Row> &rows, const std::string &path) {
  double slowest = 0;
  for (const Row &r : rows) slowest = std::max(slowest, r.ms);
  const int label_w = 230, bar_w = 460, row_h = 28, top = 40;
  const int height = top + row_h * static_cast<int>(rows.size()) + 20;
  std::ofstream f(path);
  f << "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" << label_w + bar_w + 120 << "\" height=\"" << height
    << "\" font-family=\"sans-serif\" font-size=\"13\">\n"
    << "<text x=\"10\" y=\"24\" font-size=\"15\">ResNet-18, batch 1, " << kCase
    << ": median latency (ms, lower is better)</text>\n";
  for (size_t i = 0; i < rows.size(); ++i) {
    const Row &r = rows[i];
    const int y = top + row_h * static_cast<int>(i);
    f << "<text x=\"" << label_w - 8 << "\" y=\"" << y + 17 << "\" text-anchor=\"end\">" << xml_escape(r.target)
      << "</text>\n";
    if (r.ms < 0) {
      f << "<text x=\"" << label_w << "\" y=\"" << y + 17 << "\" fill=\"#888\">not run</text>\n";
      continue;
    }
    const int w = std::max(1, static_cast<int>(bar_w * r.ms / slowest));
    f << "<rect x=\"" << label_w << "\" y=\"" << y + 4 << "\" width=\"" << w << "\" height=\"" << row_h - 8
      << "\" fill=\"#4878a8\"/>\n"
      << "<text x=\"" << label_w + w + 6 << "\" y=\"" << y + 17 << "\">" << bench::fmt(r.ms, 1) << "</text>\n";
  }
  f << "</svg>\n";
}

// The directory of this program (the build tree's bench folder).
std::string program_dir() {
  char buf[4096];
  const ssize_t n = readlink("/proc/self/exe", buf, sizeof buf - 1);
  if (n <= 0) return ".";
  std::string p(buf, static_cast<size_t>(n));
  return p.substr(0, p.rfind('/'));
}

// Takes "--targets LIST" out of the arguments; an empty list (no option): every row.
std::vector<std::string> take_targets(int &argc, char **argv) {
  std::vector<std::string> list;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--help" || a == "-h")
      std::printf("  --targets LIST  only these rows, e.g. llvm,opencl (also: opengl, fragment, webgl, chromium)\n");
    if (a != "--targets" || i + 1 >= argc) continue;
    std::string names = argv[i + 1];
    for (size_t start = 0; start <= names.size();) {
      const size_t end = std::min(names.find(',', start), names.size());
      list.push_back(names.substr(start, end - start));
      start = end + 1;
    }
    for (int j = i; j + 2 < argc; ++j) argv[j] = argv[j + 2];
    argc -= 2;
    break;
  }
  return list;
}

}  // namespace

int main(int argc, char **argv) {
  const std::vector<std::string> only = take_targets(argc, argv);
  auto wanted = [&](const std::string &name) {
    return only.empty() || std::find(only.begin(), only.end(), name) != only.end();
  };
  const bench::Options o = bench::parse_options(argc, argv);
  const int reps = o.quick ? 3 : 10;
  if (!o.json) {
    std::printf("ResNet-18 inference on every target, batch 1, %s, median of %d runs after warm-up\n", kCase, reps);
    bench::print_machine_load("before");
  }
  const graph::Graph g = graph::resnet18(1);
  const NDArray input = NDArray::random({1, 3, 224, 224}, Float(32), 42);
  std::vector<float> llvm_out;
  graph::BuildOptions generic;
  generic.tuned_schedules = false;

  std::vector<Row> rows;
  rows.push_back(run_native(g, "llvm", "llvm", {}, input, reps, llvm_out));
  if (!wanted("opencl")) rows.push_back({"opencl", -1, -1, "not in --targets"});
  else if (find_target_kind("opencl")) rows.push_back(run_native(g, "opencl", "opencl", {}, input, reps, llvm_out));
  else rows.push_back({"opencl", -1, -1, "not built (no \"opencl\" target kind in this build)"});
  std::string why;
  const bool gl = wanted("opengl") || wanted("fragment") || wanted("webgl");
  if (o.gpu && gl && bench::opengl_available(why)) {
    if (wanted("opengl")) {
      rows.push_back(run_native(g, "opengl", "opengl", {}, input, reps, llvm_out));
      rows.push_back(run_native(g, "opengl, generic schedules", "opengl", generic, input, reps, llvm_out));
    }
    if (wanted("fragment"))
      rows.push_back(run_native(g, "opengl -mode=fragment", "opengl -mode=fragment", {}, input, reps, llvm_out));
    if (wanted("webgl")) rows.push_back(run_native(g, "webgl (native)", "webgl", {}, input, reps, llvm_out));
  } else {
    for (const char *t : {"opengl", "opengl -mode=fragment", "webgl (native)"})
      rows.push_back({t, -1, -1, !o.gpu ? "--no-gpu" : !gl ? "not in --targets" : why});
  }
  if (wanted("chromium"))
    for (Row &r : run_browser(reps)) rows.push_back(r);

  const double llvm_ms = rows[0].ms;
  if (o.json) {
    for (const Row &r : rows) {
      if (r.ms >= 0)
        bench::print_json("targets", r.target, "tensorir", 0, r.ms, bench::gflops(kFlops, r.ms),
                          {{"ratio_to_llvm", bench::json_num(llvm_ms > 0 ? r.ms / llvm_ms : -1)},
                           {"max_rel_err", bench::json_num(r.err)}});
      else
        std::printf("{\"bench\":\"targets\",\"case\":%s,\"impl\":\"tensorir\",\"skipped\":true,\"reason\":%s}\n",
                    bench::json_str(r.target).c_str(), bench::json_str(r.note).c_str());
    }
  } else {
    bench::Table t({"target", "median ms", "/ llvm", "max rel err", "note"});
    for (const Row &r : rows)
      t.add({r.target, r.ms >= 0 ? bench::fmt(r.ms, 2) : "-",
             r.ms >= 0 && llvm_ms > 0 ? bench::fmt_ratio(r.ms / llvm_ms) : "-", r.err >= 0 ? bench::fmt_sci(r.err) : "-",
             r.note});
    t.print();
    bench::print_machine_load("after");
  }
  const std::string svg = program_dir() + "/bench_targets.svg";
  write_svg(rows, svg);
  if (!o.json) std::printf("bar chart: %s\n", svg.c_str());
  return 0;
}
