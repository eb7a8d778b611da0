// The OpenGL runtime on the headless context: context facts, NDArray storage on
// Device::opengl() and its copies, shader compile errors. Fails when no context can be made.
#include <tensorir/tensorir.h>

#include <catch2/catch.hpp>
#include <cstdint>
#include <string>
#include <thread>
#include <vector>

#include "../../backends/opengl/gl_runtime.h"

using namespace tensorir;

#if TENSORIR_WITH_OPENGL

TEST_CASE("opengl runtime: the headless context reports its renderer and limits", "[unit][opengl]") {
  opengl::GLContext &ctx = opengl::GLContext::get();
  INFO("renderer: " << ctx.renderer() << ", version: " << ctx.version());
  CHECK_FALSE(ctx.renderer().empty());
  CHECK(ctx.version().rfind("4.", 0) == 0);
  CHECK(ctx.max_work_group_invocations() >= 128);
  CHECK(ctx.max_shared_memory_bytes() >= 16384);
  CHECK(ctx.max_texture_size() >= 2048);
  CHECK(ctx.max_work_group_count(0) >= 65535);
  CHECK(ctx.max_compute_storage_buffers() >= 8);
  CHECK(opengl::GLContext::alive());
}

TEST_CASE("opengl runtime: NDArrays round-trip through OpenGL buffers", "[unit][opengl]") {
  SECTION("float32, int32, uint8 (a size that is not whole words) and float64") {
    for (Type t : {Float(32), Int(32), UInt(8), Float(64), Int(16)}) {
      DYNAMIC_SECTION(t) {
        NDArray a = NDArray::random({3, 7}, t, 5, -50, 50);
        NDArray g = a.to(Device::opengl());
        CHECK(g.device() == Device::opengl());
        CHECK(g.shape() == a.shape());
        NDArray back = g.to(Device::cpu());
        std::vector<uint8_t> x(a.nbytes()), y(back.nbytes());
        a.copy_to_bytes(x.data(), x.size());
        back.copy_to_bytes(y.data(), y.size());
        CHECK(x == y);
      }
    }
  }
  SECTION("empty() on OpenGL is zero-filled") {
    NDArray g = NDArray::empty({5, 3}, Float(32), Device::opengl());
    std::vector<float> v = g.to(Device::cpu()).to_vector<float>();
    CHECK(v == std::vector<float>(15, 0.0f));
  }
  SECTION("copies between two OpenGL arrays, and copy_from_bytes") {
    std::vector<int32_t> src{1, -2, 3, -4, 5, 6};
    NDArray g = NDArray::empty({6}, Int(32), Device::opengl());
    g.copy_from_bytes(src.data(), src.size() * sizeof(int32_t));
    NDArray g2 = g.to(Device::opengl());
    g.copy_from_bytes(std::vector<int32_t>(6, 0).data(), 6 * sizeof(int32_t));  // the copy is independent
    CHECK(g2.to_vector<int32_t>() == src);
    CHECK(g.to_vector<int32_t>() == std::vector<int32_t>(6, 0));
  }
  SECTION("zero-element arrays") {
    NDArray g = NDArray::empty({0, 4}, Float(32), Device::opengl());
    CHECK(g.numel() == 0);
    CHECK(g.to(Device::cpu()).numel() == 0);
  }
  SECTION("host access to OpenGL storage is refused") {
    NDArray g = NDArray::empty({4}, Float(32), Device::opengl());
    CHECK_THROWS_WITH(g.data_as<float>(), Catch::Contains("to(Device::cpu())"));
  }
}

TEST_CASE("opengl runtime: several threads use the context in turn", "[unit][opengl]") {
  std::vector<std::thread> threads;
  std::vector<int> ok(4, 0);
  for (int t = 0; t < 4; ++t)
    threads.emplace_back([t, &ok] {
      int good = 0;
      for (int r = 0; r < 20; ++r) {
        std::vector<float> v(100 + t);
        for (size_t i = 0; i < v.size(); ++i) v[i] = static_cast<float>(t * 1000 + r * 10) + static_cast<float>(i);
        NDArray g = NDArray::from_vector(v, {static_cast<int64_t>(v.size())}).to(Device::opengl());
        good += g.to(Device::cpu()).to_vector<float>() == v;
      }
      ok[static_cast<size_t>(t)] = good;
    });
  for (std::thread &th : threads) th.join();
  CHECK(ok == std::vector<int>(4, 20));
}

TEST_CASE("opengl runtime: a shader that does not compile reports the log and the line", "[unit][opengl]") {
  const std::string src =
      "#version 430\n"
      "layout(local_size_x = 1) in;\n"
      "layout(std430, binding = 0) buffer B0 { float data[]; } out_buf;\n"
      "void main() {\n"
      "  out_buf.data[0] = undefined_function(1.0);\n"
      "}\n";
  try {
    opengl::compile_compute_program(src, "broken_kernel");
    FAIL("the broken shader compiled");
  } catch (const Error &e) {
    std::string msg = e.what();
    INFO(msg);
    CHECK(msg.find("broken_kernel") != std::string::npos);
    CHECK(msg.find("undefined_function") != std::string::npos);
    CHECK(msg.find("error") != std::string::npos);
    // The offending line, numbered and marked.
    CHECK(msg.find(">    5 |   out_buf.data[0] = undefined_function(1.0);") != std::string::npos);
  }
}

TEST_CASE("opengl runtime: shader logs are annotated with the lines they name", "[unit][opengl]") {
  const std::string src = "line one\nline two\nline three\nline four\nline five\n";
  SECTION("Mesa's format") {
    std::string s = opengl::annotate_shader_log("0:3(7): error: something\n", src);
    CHECK(s.find("0:3(7): error: something") != std::string::npos);
    CHECK(s.find(">    3 | line three") != std::string::npos);
    CHECK(s.find("     2 | line two") != std::string::npos);
    CHECK(s.find("     4 | line four") != std::string::npos);
    CHECK(s.find("line one") == std::string::npos);
  }
  SECTION("other drivers' formats") {
    CHECK(opengl::annotate_shader_log("ERROR: 0:5: bad\n", src).find(">    5 | line five") != std::string::npos);
    CHECK(opengl::annotate_shader_log("0(1) : error C0000: bad\n", src).find(">    1 | line one") != std::string::npos);
  }
  SECTION("no line reference: the whole source") {
    std::string s = opengl::annotate_shader_log("link failed\n", src);
    CHECK(s.find("     1 | line one") != std::string::npos);
    CHECK(s.find("     5 | line five") != std::string::npos);
  }
}

TEST_CASE("opengl runtime: fragment programs compile with the built-in vertex shader", "[unit][opengl]") {
  const std::string fs =
      "#version 300 es\n"
      "precision highp float;\n"
      "out vec4 color;\n"
      "void main() { color = vec4(gl_FragCoord.xy, 0.0, 1.0); }\n";
  unsigned p = opengl::compile_fragment_program(fs, "frag");
  CHECK(p != 0u);
  opengl::delete_program(p);
  CHECK_THROWS_WITH(opengl::compile_fragment_program("#version 300 es\nvoid main() { nope; }\n", "bad_frag"),
                    Catch::Contains("bad_frag") && Catch::Contains(">    2 |"));
}

#endif  // TENSORIR_WITH_OPENGL
