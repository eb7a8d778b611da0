// Mistakes on the "opencl" target, and a machine without OpenCL, fail with a
// tensorir::Error that says what to do.
#include <tensorir/tensorir.h>

#include <catch2/catch.hpp>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <string>

using namespace tensorir;
using Catch::Contains;

namespace {

Tensor add_one(const Tensor &A) {
  return compute(A.shape(), [&](const std::vector<Var> &i) { return A(std::vector<Expr>(i.begin(), i.end())) + 1.0f; },
                 "B");
}

std::string run_command(const std::string &cmd) {
  std::string out;
  FILE *p = popen(cmd.c_str(), "r");
  REQUIRE(p != nullptr);
  char buf[512];
  while (size_t n = fread(buf, 1, sizeof buf, p)) out.append(buf, n);
  pclose(p);
  return out;
}

}  // namespace

TEST_CASE("opencl errors: a work-group larger than the device allows", "[error][opencl]") {
  Tensor A = placeholder({256}, Float(32), "A");
  Tensor B = add_one(A);
  Schedule s = create_schedule({B});
  auto [bx, tx] = s[B].split(B.axis(0), 128);
  s[B].bind(bx, thread_axis("blockIdx.x"));
  s[B].bind(tx, thread_axis("threadIdx.x"));
  CHECK_THROWS_WITH(build(s, {A, B}, "opencl -max-work-group-size=64", "wide"),
                    Contains("threadIdx.x has extent 128") && Contains("1 to 64"));
  // Without the option, the device's own limit applies.
  const int limit = Target("opencl").caps().max_work_group_size;
  REQUIRE(limit > 0);
  Tensor C = placeholder({4 * limit}, Float(32), "C");
  Tensor D = add_one(C);
  Schedule s2 = create_schedule({D});
  auto [cx, ctx] = s2[D].split(D.axis(0), 2 * limit);
  s2[D].bind(cx, thread_axis("blockIdx.x"));
  s2[D].bind(ctx, thread_axis("threadIdx.x"));
  CHECK_THROWS_WITH(build(s2, {C, D}, "opencl", "too_wide"),
                    Contains("threadIdx.x has extent " + std::to_string(2 * limit)) &&
                        Contains("1 to " + std::to_string(limit)));
}

TEST_CASE("opencl errors: a shared array larger than the local memory given", "[error][opencl]") {
  // Each work-group caches 4 rows of A (4 x 64 floats, 1024 bytes) in shared memory.
  Tensor A = placeholder({64, 64}, Float(32), "A");
  Tensor B = add_one(A);
  Schedule s = create_schedule({B});
  Tensor As = s.cache_read(A, "shared", {B});
  auto [rows, row] = s[B].split(B.axis(0), 4);
  s[B].bind(rows, thread_axis("blockIdx.x"));
  s[B].bind(B.axis(1), thread_axis("threadIdx.x"));
  s[As].compute_at(s[B], rows);
  s[As].bind(s[As]->leaf_iter_vars[1], thread_axis("threadIdx.x"));
  CHECK_THROWS_WITH(build(s, {A, B}, "opencl -max-local-memory=512", "rows"),
                    Contains("1024 bytes of shared memory") && Contains("allows 512") && Contains("smaller tiles"));
  CHECK(Target("opencl -max-local-memory=1024").caps().max_shared_memory_bytes == 1024);
  CHECK(Target("opencl -max-work-group-size=32").caps().max_work_group_size == 32);
}

TEST_CASE("opencl errors: a program that does not build shows the log and the numbered source",
          "[error][opencl]") {
  Tensor A = placeholder({16}, Float(32), "A");
  Tensor B = compute({16}, [&](Var i) { return call_extern(Float(32), "no_such_cl_function", {A(i)}); }, "B");
  try {
    build(create_schedule({B}), {A, B}, "opencl", "bad_call");
    FAIL("the program built");
  } catch (const Error &e) {
    const std::string msg = e.what();
    INFO(msg);
    CHECK(msg.find("does not build") != std::string::npos);
    CHECK(msg.find("CL_BUILD_PROGRAM_FAILURE") != std::string::npos);
    CHECK(msg.find("no_such_cl_function") != std::string::npos);
    CHECK(msg.find("   1  ") != std::string::npos);  // numbered lines
    CHECK(msg.find("__kernel") != std::string::npos);
  }
}

TEST_CASE("opencl errors: a device index that does not exist", "[error][opencl]") {
  Tensor A = placeholder({16}, Float(32), "A");
  Tensor B = add_one(A);
  CHECK_THROWS_WITH(build(create_schedule({B}), {A, B}, "opencl -device=99", "f"),
                    Contains("no OpenCL device 99") && Contains("-device=N"));
  CHECK_THROWS_WITH(build(create_schedule({B}), {A, B}, "opencl -platform=99", "f"),
                    Contains("platform 99") && Contains("clinfo"));
  CHECK_THROWS_WITH(NDArray::empty({4}, Float(32), Device::opencl(99)), Contains("no OpenCL device 99"));
  CHECK_THROWS_WITH(Target("opencl -device=x"), Contains("device"));
}

TEST_CASE("opencl errors: arrays on another device and unknown source formats", "[error][opencl]") {
  Tensor A = placeholder({64}, Float(32), "A");
  Tensor B = add_one(A);
  Module m = build(create_schedule({B}), {A, B}, "opencl", "needs_cl");
  NDArray a = NDArray::empty({64}, Float(32)), b = NDArray::empty({64}, Float(32), Device::opencl());
  CHECK_THROWS_WITH(m("needs_cl")(a, b), Contains("argument A") && Contains("cpu(0)"));
  CHECK_THROWS_WITH(m.source("glsl"), Contains("available formats: cl"));
}

// Run by the next test in a process of its own, whose ICD loader finds no platform.
TEST_CASE("opencl errors: building without a platform (child)", "[.opencl_no_platform]") {
  Tensor A = placeholder({16}, Float(32), "A");
  Tensor B = add_one(A);
  try {
    build(create_schedule({B}), {A, B}, "opencl", "f");
    std::cout << "BUILT\n";
  } catch (const Error &e) {
    std::cout << "ERROR: " << e.what() << "\n";
  }
}

TEST_CASE("opencl errors: no OpenCL platform says to install an ICD", "[error][opencl]") {
  namespace fs = std::filesystem;
  const fs::path empty = fs::temp_directory_path() / ("tensorir_no_icd_" + std::to_string(::getpid()));
  fs::create_directories(empty);
  const std::string self = fs::read_symlink("/proc/self/exe").string();
  const std::string out =
      run_command("OCL_ICD_VENDORS='" + empty.string() + "' '" + self + "' '[.opencl_no_platform]' 2>&1");
  fs::remove_all(empty);
  INFO(out);
  CHECK(out.find("ERROR: no OpenCL platform found") != std::string::npos);
  CHECK(out.find("pocl-opencl-icd") != std::string::npos);
}

TEST_CASE("opencl errors: a result that overlaps its input through sub-buffers", "[error][opencl][alias]") {
  Tensor A = placeholder({256}, Float(32), "A");
  Tensor B = add_one(A);
  Schedule s = create_schedule({B});
  auto [bx, tx] = s[B].split(B.axis(0), 64);
  s[B].bind(bx, thread_axis("blockIdx.x"));
  s[B].bind(tx, thread_axis("threadIdx.x"));
  Module m = build(s, {A, B}, "opencl", "step");
  // Views 1 KiB apart (every device aligns sub-buffers to at most 1 KiB): the first two
  // arrays of 256 floats are disjoint, the third starts inside the first.
  const NDArray host = NDArray::random({768}, Float(32), 7);
  NDArray storage = host.to(Device::opencl());
  NDArray a = storage.view({256}, Float(32), 0), b = storage.view({256}, Float(32), 1024);
  m("step")(a, b);
  const std::vector<float> x = host.to_vector<float>(), y = b.to(Device::cpu()).to_vector<float>();
  for (size_t i = 0; i < 256; ++i) REQUIRE(y[i] == x[i] + 1.0f);
  const int align_bytes = 512;
  NDArray inside = storage.view({256}, Float(32), align_bytes);
  CHECK_THROWS_WITH(m("step")(a, inside), Contains("step: argument B, which the function writes, shares storage with "
                                                   "argument A"));
}
