// What the RPC page's test (rpc_page_test.mjs) sends the page, and what it must answer:
//   cases.json            per kernel: its signature (as docs/rpc.md sends it), its arguments,
//                         and the files below
//   <case>.wasm           the kernel built for "wasm", Module::save(path, "wasm")
//   <case>.webgl.json     the kernel built for "webgl", Module::source("webgl-json")
//   <case>.argN.bin       argument N's input (NDArray::random, seeded), raw
//   <case>.expected.bin   the output computed by the "llvm" build from those inputs
//   model-webgl/, model-wasm/, model.json   a small graph's web packages (no runtime files),
//                         its input and the "llvm" build's output
//   frames.json, frame*.bin  frames written by lib/rpc/protocol.cpp, with their headers
//
//   tensorir_rpc_page_data OUT_DIR
//   tensorir_rpc_page_data --decode FRAME_FILE   prints {"header", "payload_hex"} or {"error"}
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "rpc/protocol.h"
#include "tensorir/error.h"
#include "tensorir/graph/executor.h"
#include "tensorir/graph/export_web.h"
#include "tensorir/tensorir.h"

using namespace tensorir;
namespace fs = std::filesystem;
using nlohmann::json;

namespace {

void write_file(const fs::path &path, std::string_view bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(bytes.data(), std::streamsize(bytes.size()));
  TIR_USER_CHECK(out.good()) << "cannot write " << path.string();
}

std::string read_file(const fs::path &path) {
  std::ifstream in(path, std::ios::binary);
  TIR_USER_CHECK(in.good()) << "cannot read " << path.string();
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

std::string bytes_of(const NDArray &a) { return std::string(static_cast<const char *>(a.data()), a.nbytes()); }

std::string hex(std::string_view bytes) {
  std::string out;
  char b[3];
  for (unsigned char c : bytes) {
    std::snprintf(b, sizeof b, "%02x", c);
    out += b;
  }
  return out;
}

// A signature as the protocol sends it (docs/rpc.md, FuncSignature).
json signature_json(const FuncSignature &sig) {
  json args = json::array();
  for (const ArgSpec &a : sig.args) {
    json shape = json::array();
    for (const DimSpec &d : a.shape) shape.push_back({{"coeff", d.coeff}, {"symbol", d.symbol}, {"offset", d.offset}});
    args.push_back({{"name", a.name}, {"kind", a.is_buffer() ? "buffer" : "scalar"}, {"dtype", a.dtype.str()},
                    {"shape", shape}});
  }
  return {{"name", sig.name}, {"args", args}, {"symbols", sig.symbols}};
}

struct Case {
  std::string name;
  Schedule schedule;
  std::vector<BuildArg> args;
  std::vector<std::vector<int64_t>> shapes;  // of the buffers, in order; empty for a scalar
  double scalar = 0;                         // the scalar argument's value
  bool webgl = true;                         // constant shapes, no scalars
};

// Each argument's input (or the scalar), the kernel run on "llvm", and its modules.
json write_case(const Case &c, const fs::path &out) {
  const Module llvm = build(c.schedule, c.args, "llvm", c.name);
  std::vector<Arg> call_args;
  json args = json::array();
  for (size_t i = 0; i < c.shapes.size(); ++i) {
    if (c.shapes[i].empty()) {
      call_args.push_back(c.scalar);
      args.push_back({{"float", c.scalar}});
      continue;
    }
    const bool output = i + 1 == c.shapes.size();
    NDArray a = output ? NDArray::empty(c.shapes[i], Float(32)) : NDArray::random(c.shapes[i], Float(32), 100 + i);
    if (output) std::fill_n(static_cast<float *>(a.data()), a.numel(), 0.0f);
    call_args.push_back(a);
    json arg = {{"shape", c.shapes[i]}, {"dtype", "float32"}};
    if (!output) {
      const std::string file = c.name + ".arg" + std::to_string(i) + ".bin";
      write_file(out / file, bytes_of(a));
      arg["input"] = file;
    }
    args.push_back(arg);
  }
  llvm(c.name).call(call_args);
  const NDArray result = std::get<NDArray>(call_args.back());
  write_file(out / (c.name + ".expected.bin"), bytes_of(result));
  args.back()["expected"] = c.name + ".expected.bin";

  const Module wasm = build(c.schedule, c.args, "wasm", c.name);
  wasm.save((out / (c.name + ".wasm")).string(), "wasm");
  json modules = {{"wasm", c.name + ".wasm"}};
  if (c.webgl) {
    const Module webgl = build(c.schedule, c.args, "webgl", c.name);
    write_file(out / (c.name + ".webgl.json"), webgl.source("webgl-json"));
    modules["webgl"] = c.name + ".webgl.json";
  }
  return {{"name", c.name}, {"signature", signature_json(wasm(c.name).signature())}, {"args", args},
          {"modules", modules}};
}

std::vector<Case> cases() {
  std::vector<Case> out;
  {
    Tensor A = placeholder({37, 53}, Float(32), "A"), B = placeholder({37, 53}, Float(32), "B");
    Tensor C = compute({37, 53}, [&](Var i, Var j) { return A(i, j) + B(i, j); }, "C");
    out.push_back({"add", create_schedule({C}), {A, B, C}, {{37, 53}, {37, 53}, {37, 53}}});
  }
  {
    Tensor A = placeholder({19, 300}, Float(32), "A");
    IterVar k = reduce_axis({0, 300}, "k");
    Tensor S = compute({19}, [&](Var i) { return sum(A(i, k), {k}); }, "S");
    out.push_back({"row_sum", create_schedule({S}), {A, S}, {{19, 300}, {19}}});
  }
  {
    Tensor A = placeholder({24, 40}, Float(32), "A"), B = placeholder({40, 33}, Float(32), "B");
    IterVar k = reduce_axis({0, 40}, "k");
    Tensor C = compute({24, 33}, [&](Var i, Var j) { return sum(A(i, k) * B(k, j), {k}); }, "C");
    out.push_back({"matmul", create_schedule({C}), {A, B, C}, {{24, 40}, {40, 33}, {24, 33}}});
  }
  {
    // A symbolic length and a scalar: the symbol and the double word of the calling convention.
    Var n("n");
    Var alpha("alpha", Float(32));
    Tensor X = placeholder({n}, Float(32), "X"), Y = placeholder({n}, Float(32), "Y");
    Tensor Z = compute({n}, [&](Var i) { return X(i) + alpha * Y(i); }, "Z");
    out.push_back({"axpy", create_schedule({Z}), {X, Y, alpha, Z}, {{1000}, {1000}, {}, {1000}}, 0.75, false});
  }
  return out;
}

// A dense layer with a relu, as packages of both builds (without the runtime files).
json write_models(const fs::path &out) {
  graph::Builder b;
  auto x = b.input("x", {2, 30});
  auto w = b.constant("fc.weight", NDArray::random({12, 30}, Float(32), 7));
  const graph::Graph g = b.finish(b.relu(b.dense(x, w, "fc"), "out"));
  const NDArray input = NDArray::random({2, 30}, Float(32), 8);
  write_file(out / "model.input.bin", bytes_of(input));
  write_file(out / "model.expected.bin", bytes_of(graph::build(g, "llvm").run({{"x", input}})["out"]));
  for (const char *target : {"webgl", "wasm"})
    graph::export_web(graph::build(g, target), (out / (std::string("model-") + target)).string(),
                      {.name = "dense", .copy_runtime = false});
  return {{"input", "x"}, {"output", "out"}, {"input_file", "model.input.bin"}, {"expected", "model.expected.bin"}};
}

// Frames the page must read, and write byte for byte the same.
json write_frames(const fs::path &out) {
  const std::vector<std::pair<json, std::string>> frames = {
      {{{"type", "registered"}}, ""},
      {{{"type", "request"}, {"id", 7}, {"op", "write"}, {"handle", 3}, {"offset", 16}}, std::string("\x00\x01\xfe\xff", 4)},
      {{{"type", "reply"}, {"id", 12}, {"functions", {"add", "r\u00e9sum\u00e9 \"q\""}}, {"half", 0.5}, {"none", nullptr},
        {"ok", true}},
       std::string(300, 'x')},
      {rpc::error_header(nullptr, "the remote 'browser' closed"), ""},
  };
  json list = json::array();
  for (size_t i = 0; i < frames.size(); ++i) {
    const std::string file = "frame" + std::to_string(i) + ".bin";
    write_file(out / file, rpc::encode_frame(frames[i].first, frames[i].second));
    list.push_back({{"file", file}, {"header", frames[i].first}, {"payload_hex", hex(frames[i].second)}});
  }
  return list;
}

int decode(const fs::path &file) {
  json out;
  try {
    const rpc::Frame f = rpc::decode_frame(read_file(file));
    out = {{"header", f.header}, {"payload_hex", hex(f.payload)}};
  } catch (const Error &e) {
    out = {{"error", e.what()}};
  }
  std::cout << out.dump() << "\n";
  return 0;
}

}  // namespace

int main(int argc, char **argv) {
  try {
    if (argc == 3 && std::string(argv[1]) == "--decode") return decode(argv[2]);
    if (argc != 2) {
      std::cerr << "usage: tensorir_rpc_page_data OUT_DIR | --decode FRAME_FILE\n";
      return 2;
    }
    const fs::path out = argv[1];
    fs::create_directories(out);
    json doc = {{"cases", json::array()}};
    for (const Case &c : cases()) doc["cases"].push_back(write_case(c, out));
    doc["model"] = write_models(out);
    doc["frames"] = write_frames(out);
    write_file(out / "cases.json", doc.dump(1) + "\n");
    std::cout << "wrote " << doc["cases"].size() << " kernels, 2 models and " << doc["frames"].size()
              << " frames to " << out.string() << "\n";
    return 0;
  } catch (const std::exception &e) {
    std::cerr << "tensorir_rpc_page_data: " << e.what() << "\n";
    return 1;
  }
}
