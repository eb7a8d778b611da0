// Square SGEMM C = A * B (row-major): the operator library's SGEMM template
// (ops::matmul_llvm, B packed inside the call as the peers do) with its default knobs
// and with the best configuration of a short search of the tuning layer (autotune::tune
// on a Task of the template; TENSORIR_GEMM_TUNE_S seconds per size, 20 by default, 0:
// no tuned rows; the default is kept when it times faster than the search's best) next
// to OpenBLAS (cblas_sgemm), oneDNN (dnnl_sgemm) and Eigen, on 1 and
// 2 threads; the column "x best peer" is the ratio to the fastest peer. Then the
// same GEMM as OpenGL compute shaders (default schedule, shared-memory tiles) and as
// fragment shaders, with the data already on the device; then on the OpenCL device
// ("opencl": the operator library's GPU schedule of a matmul, which on a CPU device gives
// each work-item a tile of vectors) next to CLBlast's SGEMM on the same device.
// OpenBLAS, oneDNN and CLBlast are optional (TENSORIR_HAVE_OPENBLAS, TENSORIR_HAVE_DNNL,
// TENSORIR_HAVE_CLBLAST): without one, its rows are left out.
//   bench_gemm            full run: naive at 256/512/1024, tuned at 512/1024/2048,
//                         OpenGL at 256/512, OpenCL at 1024
//   bench_gemm --quick    256/512 only, few repetitions
//   bench_gemm --sizes 2048   only the sizes listed (the CPU rows; OpenGL and OpenCL keep theirs)
//   bench_gemm --json     one JSON object per result line
//   bench_gemm --no-gpu   without the OpenGL and OpenCL rows
//   bench_gemm --opencl   the OpenCL rows alone
// GCC 12 reports Eigen's AVX-512 transposes as maybe-uninitialized (the intrinsics start
// from an undefined vector on purpose); the warning says nothing about this file.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif
#if TENSORIR_HAVE_OPENBLAS
#include <cblas.h>
#endif
#if TENSORIR_HAVE_DNNL
#include <dnnl.h>
#endif
#if TENSORIR_HAVE_CLBLAST
#define CL_TARGET_OPENCL_VERSION 300
#include <clblast_c.h>
#endif
#include <tensorir/autotune/config.h>
#include <tensorir/autotune/record.h>
#include <tensorir/autotune/task.h>
#include <tensorir/autotune/tuner.h>
#include <tensorir/ops/gemm.h>
#include <tensorir/ops/nn.h>
#include <tensorir/ops/schedule.h>
#include <tensorir/runtime/parallel.h>
#include <tensorir/tensorir.h>

#include <Eigen/Core>
#include <algorithm>
#include <limits>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <optional>
#include <random>
#include <string>
#include <vector>
#ifdef _OPENMP
#include <omp.h>
#endif

#include "common.h"

using namespace tensorir;

namespace {

using RowMat = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

// The default schedule: C[i, j] += A[i, k] * B[k, j] with k innermost, nothing else.
Module build_naive(int n) {
  Tensor A = placeholder({n, n}, Float(32), "A"), B = placeholder({n, n}, Float(32), "B");
  IterVar k = reduce_axis({0, n}, "k");
  Tensor C = compute({n, n}, [&](Var i, Var j) { return sum(A(i, k) * B(k, j), {k}); }, "C");
  Schedule s = create_schedule({C});
  return build(s, {A, B, C}, "llvm", "gemm");
}

// tensorir's rows use the operator library's SGEMM template (ops::matmul_llvm): "tensorir"
// with every knob at its default, "tensorir-tuned" with the best configuration a short
// search of the tuning layer found for that size (autotune::tune on a Task of the
// template, TENSORIR_GEMM_TUNE_S seconds per size, 20 by default, 0 to skip; each
// candidate timed in a child process on the runtime's threads and checked against the
// default configuration).
Module build_gemm(int n, autotune::Config *cfg = nullptr) {
  Tensor A = placeholder({n, n}, Float(32), "A"), B = placeholder({n, n}, Float(32), "B");
  ops::MatmulKernel k = ops::matmul_llvm(A, B, cfg);
  return build(k.schedule, {A, B, k.out}, "llvm", "gemm");
}

autotune::Task gemm_task(int n) {
  autotune::Config space = autotune::Config::define();
  build_gemm(n, &space);
  autotune::Task t;
  t.name = "sgemm " + std::to_string(n);
  t.workload = "{\"op\":\"bench_sgemm\",\"n\":" + std::to_string(n) + "}";
  t.target = "llvm";
  t.flops = 2.0 * n * double(n) * n;
  t.knob_names = space.names();
  std::vector<int64_t> defaults;
  for (size_t i = 0; i < space.choices().size(); ++i) {
    const std::vector<int64_t> &c = space.choices()[i];
    t.knob_sizes.push_back(int64_t(c.size()));
    defaults.push_back(std::find(c.begin(), c.end(), space.values()[i]) - c.begin());
  }
  for (size_t i = defaults.size(); i-- > 0;) t.default_index = t.default_index * t.knob_sizes[i] + defaults[i];
  auto inst = [n](autotune::Config &cfg) {
    Tensor A = placeholder({n, n}, Float(32), "A"), B = placeholder({n, n}, Float(32), "B");
    ops::MatmulKernel k = ops::matmul_llvm(A, B, &cfg);
    return autotune::Instance{k.schedule, {A, B, k.out}, "gemm"};
  };
  t.instantiate = [inst](int64_t index) {
    autotune::Config cfg = autotune::Config::from_index(index);
    return inst(cfg);
  };
  t.config_json = [inst](int64_t index) {
    autotune::Config cfg = autotune::Config::from_index(index);
    inst(cfg);
    return cfg.json();
  };
  return t;
}

// The best configuration of a short search (a record, index and knob values), or none.
std::optional<autotune::Record> tune_gemm(int n, double seconds) {
  if (seconds <= 0) return std::nullopt;
  autotune::TuneOptions o;
  o.time_budget_s = seconds;
  o.check_correctness = true;
  o.build_threads = 1;  // the timed child runs beside at most one build
  std::vector<autotune::Record> rs = autotune::tune({gemm_task(n)}, o);
  const autotune::Record *best = nullptr;
  for (const autotune::Record &r : rs)
    if (r.error.empty() && (!best || bench::median(r.times_ms) < bench::median(best->times_ms))) best = &r;
  if (!best) return std::nullopt;
  return *best;
}

void set_peer_threads(int t) {
#if TENSORIR_HAVE_OPENBLAS
  openblas_set_num_threads(t);
#endif
  Eigen::setNbThreads(t);
#ifdef _OPENMP
  omp_set_num_threads(t);  // oneDNN's sgemm runs on OpenMP
#endif
  tensorir::set_num_threads(t);
}

// Eigen's result must itself be right: compare sampled entries with a double-precision sum.
double eigen_self_check(Eigen::Map<const RowMat> a, Eigen::Map<const RowMat> b, const RowMat &c) {
  std::mt19937 rng(7);
  int n = static_cast<int>(a.rows());
  double diff = 0, scale = 0;
  for (int s = 0; s < 256; ++s) {
    int i = rng() % n, j = rng() % n;
    double acc = 0;
    for (int q = 0; q < n; ++q) acc += double(a(i, q)) * b(q, j);
    diff = std::max(diff, std::abs(acc - c(i, j)));
    scale = std::max(scale, std::abs(acc));
  }
  return scale > 0 ? diff / scale : diff;
}

struct Operands {
  int n;
  NDArray a, b, c;  // tensorir's buffers; the peers read a and b in place
  explicit Operands(int n_) : n(n_) {
    a = NDArray::random({n, n}, Float(32), 1000 + n);
    b = NDArray::random({n, n}, Float(32), 2000 + n);
    c = NDArray::empty({n, n}, Float(32));
  }
  const float *pa() const { return a.data_as<float>(); }
  const float *pb() const { return b.data_as<float>(); }
  Eigen::Map<const RowMat> ea() const { return {pa(), n, n}; }
  Eigen::Map<const RowMat> eb() const { return {pb(), n, n}; }
};

struct Result {
  std::string impl;
  double ms, gflops, err;
  double cpu_gflops = 0;  // from the calling thread's CPU time; 1-thread runs only
};

bool g_all_ok = true;  // every result matched the reference

// The OpenBLAS kernel in use, or "none" when the benchmark was built without OpenBLAS.
const char *openblas_core() {
#if TENSORIR_HAVE_OPENBLAS
  return openblas_get_corename();
#else
  return "none";
#endif
}

std::string onednn_version() {
#if TENSORIR_HAVE_DNNL
  return std::to_string(dnnl_version()->major) + "." + std::to_string(dnnl_version()->minor);
#else
  return "none";
#endif
}

void report(const bench::Options &opt, bench::Table &table, const std::string &part, int n, int threads,
            const std::vector<Result> &rs, bool ratio_to_peers) {
  double best_peer = 0;
  for (const Result &r : rs)
    if (r.impl.rfind("tensorir", 0) != 0) best_peer = std::max(best_peer, r.gflops);
  for (const Result &r : rs) {
    if (!(r.err < 1e-4)) {
      g_all_ok = false;
      std::fprintf(stderr, "gemm %d, %d thread(s): %s differs from the reference (max rel err %g)\n", n, threads,
                   r.impl.c_str(), r.err);
    }
    double ratio = best_peer > 0 ? r.gflops / best_peer : 0;
    if (opt.json) {
      std::vector<std::pair<std::string, std::string>> extra = {{"part", bench::json_str(part)},
                                                                 {"max_rel_err", bench::json_num(r.err)}};
      if (ratio_to_peers) extra.push_back({"ratio_best_peer", bench::json_num(ratio)});
      if (r.cpu_gflops > 0) extra.push_back({"gflops_cpu_time", bench::json_num(r.cpu_gflops)});
      bench::print_json("gemm", std::to_string(n), r.impl, threads, r.ms, r.gflops, extra);
    } else {
      table.add({std::to_string(n), std::to_string(threads), r.impl, bench::fmt(r.ms, 3), bench::fmt(r.gflops),
                 bench::fmt(ratio, 2), r.cpu_gflops > 0 ? bench::fmt(r.cpu_gflops) : "-", bench::fmt_sci(r.err)});
    }
  }
}

// ------------------------------------------------------------------ OpenGL

// Shared-memory tiles: a work group of tile x tile invocations computes a tile of C; for
// every chunk of `tile` along k the group first copies a tile of A and one of B into
// shared memory (one element per invocation, then a barrier), and each invocation
// accumulates its element of C from them.
Schedule schedule_shared(const Tensor &A, const Tensor &B, const Tensor &C, int tile) {
  Schedule s = create_schedule({C});
  Tensor As = s.cache_read(A, "shared", {C});
  Tensor Bs = s.cache_read(B, "shared", {C});
  auto [bi, bj, ti, tj] = s[C].tile(C.axis(0), C.axis(1), tile, tile);
  auto [ko, ki] = s[C].split(C.reduce_axis(0), tile);
  s[C].reorder({bi, bj, ko, ti, tj, ki});
  s[C].bind(bi, thread_axis("blockIdx.y"));
  s[C].bind(bj, thread_axis("blockIdx.x"));
  s[C].bind(ti, thread_axis("threadIdx.y"));
  s[C].bind(tj, thread_axis("threadIdx.x"));
  s[C].unroll(ki);
  for (const Tensor &T : {As, Bs}) {
    s[T].compute_at(s[C], ko);
    s[T].bind(s[T]->leaf_iter_vars[0], thread_axis("threadIdx.y"));
    s[T].bind(s[T]->leaf_iter_vars[1], thread_axis("threadIdx.x"));
  }
  return s;
}

// One device variant of the GEMM (OpenGL, OpenCL), built and checked.
struct DeviceGemm {
  std::string impl, target;
  Function f;
  NDArray c;  // on the device
  double build_ms = 0, first_ms = 0, err = 0;
};

DeviceGemm make_device_gemm(const std::string &impl, const std::string &target, bool shared, int n,
                            Device dev = Device::opengl()) {
  Tensor A = placeholder({n, n}, Float(32), "A"), B = placeholder({n, n}, Float(32), "B");
  IterVar k = reduce_axis({0, n}, "k");
  Tensor C = compute({n, n}, [&](Var i, Var j) { return sum(A(i, k) * B(k, j), {k}); }, "C");
  // Without bound loops, build() gives the compute target its default GPU schedule;
  // the fragment target computes one output texel per fragment whatever the loops.
  Schedule s = shared ? schedule_shared(A, B, C, 16) : create_schedule({C});
  auto t0 = bench::Clock::now();
  Module m = build(s, {A, B, C}, target, "gemm");
  DeviceGemm g{impl, target, m("gemm"), NDArray::empty({n, n}, Float(32), dev)};
  g.build_ms = bench::ms_since(t0);
  return g;
}

// (c) The GEMM on the OpenGL device. A and B are uploaded once; each timed run is one
// module call followed either by a wait for the device (bench::DeviceSync: "kernel") or
// by copying C back to the CPU ("+ readback"). tensorir's CPU SGEMM template, on as many
// threads as llvmpipe runs shaders on, is timed in the same rounds for the ratio.
void run_opengl(const bench::Options &opt) {
  std::string why;
  if (!bench::opengl_available(why)) {
    bench::print_opengl_skipped(opt, "gemm", why);
    return;
  }
  const int gl_threads = bench::llvmpipe_threads();
  const int cpu_threads = std::clamp(gl_threads, 1, std::max(1, int(std::thread::hardware_concurrency())));
  set_peer_threads(1);  // park the peers' worker threads
  tensorir::set_num_threads(cpu_threads);
  bench::Table table({"size", "thr", "impl", "kernel ms", "GFLOP/s", "x tensorir cpu", "+readback ms",
                      "GFLOP/s", "1st call ms", "max rel err"});
  double sync_ms = 0;
  for (int n : {256, 512}) {
    Operands o(n);
    RowMat ce(n, n);
    ce.noalias() = o.ea() * o.eb();
    const size_t nn = size_t(n) * n;
    const double flops = 2.0 * n * double(n) * n;
    NDArray a = o.a.to(Device::opengl()), b = o.b.to(Device::opengl());
    bench::DeviceSync sync({n, n});
    std::vector<DeviceGemm> gl;
    gl.push_back(make_device_gemm("tensorir-opengl-naive", "opengl", false, n));
    gl.push_back(make_device_gemm("tensorir-opengl-shared", "opengl", true, n));
    gl.push_back(make_device_gemm("tensorir-opengl-fragment", "opengl -mode=fragment", false, n));
    for (DeviceGemm &g : gl) {
      // The first call also compiles the shaders' machine code (llvmpipe does it at the
      // first launch) and, for fragment shaders, allocates the textures.
      auto t0 = bench::Clock::now();
      g.f(a, b, g.c);
      sync(g.c);
      g.first_ms = bench::ms_since(t0);
      NDArray back = g.c.to(Device::cpu());
      g.err = bench::max_rel_error(back.data_as<float>(), ce.data(), nn);
    }
    Module cpu_m = build_gemm(n);
    Function cpu_f = cpu_m("gemm");
    std::vector<std::function<void()>> engines = {[&] { cpu_f(o.a, o.b, o.c); }};
    for (DeviceGemm &g : gl) {
      engines.push_back([&] {
        g.f(a, b, g.c);
        sync(g.c);
      });
      engines.push_back([&] {
        g.f(a, b, g.c);
        NDArray back = g.c.to(Device::cpu());
      });
    }
    int rounds = opt.quick ? 1 : 3, reps = 3;
    std::vector<bench::Timing> t = bench::interleaved_medians(engines, rounds, reps);
    // The wait alone, with nothing queued: what it adds to each "kernel" figure.
    sync_ms = bench::median_ms([&] { sync(gl[0].c); }, 20, 2);

    double cpu_err = bench::max_rel_error(o.c.data_as<float>(), ce.data(), nn);
    double cpu_g = bench::gflops(flops, t[0].wall_ms);
    struct Row {
      std::string impl;
      int threads;
      double ms, readback_ms, first_ms, build_ms, err;
      std::string target;
    };
    std::vector<Row> rows = {{"tensorir", cpu_threads, t[0].wall_ms, 0, 0, 0, cpu_err, "llvm"}};
    for (size_t i = 0; i < gl.size(); ++i)
      rows.push_back({gl[i].impl, gl_threads, t[1 + 2 * i].wall_ms, t[2 + 2 * i].wall_ms, gl[i].first_ms,
                      gl[i].build_ms, gl[i].err, gl[i].target});
    for (const Row &r : rows) {
      if (!(r.err < 1e-4)) {
        g_all_ok = false;
        std::fprintf(stderr, "gemm %d: %s differs from the reference (max rel err %g)\n", n, r.impl.c_str(), r.err);
      }
      const bool dev = r.target != "llvm";
      double g = bench::gflops(flops, r.ms), g_rb = dev ? bench::gflops(flops, r.readback_ms) : 0;
      if (opt.json) {
        if (!dev) continue;  // the CPU figure is in each device row
        bench::print_json("gemm", std::to_string(n), r.impl, r.threads, r.ms, g,
                          {{"part", bench::json_str("opengl")},
                           {"target", bench::json_str(r.target)},
                           {"sync", bench::json_str("one-element probe kernel + 4-byte read")},
                           {"median_ms_with_readback", bench::json_num(r.readback_ms)},
                           {"gflops_with_readback", bench::json_num(g_rb)},
                           {"ratio_tensorir_cpu", bench::json_num(g / cpu_g)},
                           {"tensorir_cpu_ms", bench::json_num(t[0].wall_ms)},
                           {"tensorir_cpu_threads", std::to_string(cpu_threads)},
                           {"build_ms", bench::json_num(r.build_ms)},
                           {"first_call_ms", bench::json_num(r.first_ms)},
                           {"max_rel_err", bench::json_num(r.err)}});
      } else {
        table.add({std::to_string(n), std::to_string(r.threads), dev ? r.impl : "tensorir (cpu)",
                   bench::fmt(r.ms, 3), bench::fmt(g), bench::fmt_ratio(g / cpu_g), dev ? bench::fmt(r.readback_ms, 3) : "-",
                   dev ? bench::fmt(g_rb) : "-", dev ? bench::fmt(r.first_ms, 1) : "-", bench::fmt_sci(r.err)});
      }
    }
  }
  if (opt.json) {
    std::printf("{\"bench\":\"gemm\",\"case\":\"opengl\",\"metric\":\"sync\",\"median_ms\":%.4f}\n", sync_ms);
    return;
  }
  std::printf("\n(c) OpenGL, data already on the device (Device::opengl()); thr: the CPU threads that run\n"
              "    shaders when the device is Mesa llvmpipe (LP_NUM_THREADS, else one per CPU)\n"
              "    naive: default GPU schedule (one invocation per element of C, groups of 64)\n"
              "    shared: 16x16 work groups staging 16x16 tiles of A and B in shared memory\n"
              "    fragment: \"opengl -mode=fragment\", GLSL ES 3.00, 4 elements per RGBA texel; each call\n"
              "      also copies A and B into textures and C out of its texture\n"
              "    kernel ms: the call, then a wait for the device (a one-element read of C, %.3f ms alone)\n"
              "    +readback ms: the call, then C copied to the CPU;  1st call: includes shader codegen\n",
              sync_ms);
  table.print();
}

#if TENSORIR_WITH_OPENCL
// The OpenCL device tensorir's "opencl" target uses by default.
int opencl_device_index() {
  const char *env = std::getenv("TENSORIR_OPENCL_DEVICE");
  return env && *env ? std::atoi(env) : 0;
}

#if TENSORIR_HAVE_CLBLAST
// CLBlast's SGEMM on the same device (counted over all platforms, as tensorir counts),
// in a context of its own, with A and B uploaded once.
class ClBlastGemm {
 public:
  ClBlastGemm(const Operands &o, int device) : n_(o.n) {
    cl_uint np = 0;
    clGetPlatformIDs(0, nullptr, &np);
    std::vector<cl_platform_id> platforms(np);
    clGetPlatformIDs(np, platforms.data(), nullptr);
    int seen = 0;
    for (cl_platform_id p : platforms) {
      cl_uint nd = 0;
      if (clGetDeviceIDs(p, CL_DEVICE_TYPE_ALL, 0, nullptr, &nd) != CL_SUCCESS) continue;
      std::vector<cl_device_id> ids(nd);
      clGetDeviceIDs(p, CL_DEVICE_TYPE_ALL, nd, ids.data(), nullptr);
      for (cl_device_id d : ids)
        if (seen++ == device) device_ = d;
    }
    if (!device_) return;
    ctx_ = clCreateContext(nullptr, 1, &device_, nullptr, nullptr, nullptr);
    queue_ = clCreateCommandQueueWithProperties(ctx_, device_, nullptr, nullptr);
    const size_t bytes = size_t(n_) * n_ * sizeof(float);
    a_ = clCreateBuffer(ctx_, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, bytes, const_cast<float *>(o.pa()), nullptr);
    b_ = clCreateBuffer(ctx_, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, bytes, const_cast<float *>(o.pb()), nullptr);
    c_ = clCreateBuffer(ctx_, CL_MEM_READ_WRITE, bytes, nullptr, nullptr);
  }
  ~ClBlastGemm() {
    for (cl_mem m : {a_, b_, c_})
      if (m) clReleaseMemObject(m);
    if (queue_) clReleaseCommandQueue(queue_);
    if (ctx_) clReleaseContext(ctx_);
  }
  bool ok() const { return c_ != nullptr; }
  // One SGEMM, waited for.
  bool run() {
    const size_t n = size_t(n_);
    CLBlastStatusCode st = CLBlastSgemm(CLBlastLayoutRowMajor, CLBlastTransposeNo, CLBlastTransposeNo, n, n, n, 1.0f,
                                        a_, 0, n, b_, 0, n, 0.0f, c_, 0, n, &queue_, nullptr);
    clFinish(queue_);
    return st == CLBlastSuccess;
  }
  std::vector<float> result() const {
    std::vector<float> out(size_t(n_) * n_);
    clEnqueueReadBuffer(queue_, c_, CL_TRUE, 0, out.size() * sizeof(float), out.data(), 0, nullptr, nullptr);
    return out;
  }

 private:
  int n_;
  cl_device_id device_ = nullptr;
  cl_context ctx_ = nullptr;
  cl_command_queue queue_ = nullptr;
  cl_mem a_ = nullptr, b_ = nullptr, c_ = nullptr;
};
#endif

// The GEMM as the operator library's matmul with its GPU schedule (what a model's MatMul
// gets on "opencl"), built for the OpenCL device.
DeviceGemm make_opencl_gemm(int n, Device dev) {
  Tensor A = placeholder({n, n}, Float(32), "A"), B = placeholder({n, n}, Float(32), "B");
  Tensor C = ops::batch_matmul(A, B, "C");
  const Target target("opencl -device=" + std::to_string(dev.id));
  auto t0 = bench::Clock::now();
  Module m = build(ops::schedule_matmul_gpu(C, C, target), {A, B, C}, target, "gemm");
  DeviceGemm g{"tensorir-opencl", target.str(), m("gemm"), NDArray::empty({n, n}, Float(32), dev)};
  g.build_ms = bench::ms_since(t0);
  return g;
}

// (d) The GEMM on the OpenCL device, data already there: tensorir's "opencl" target with
// the operator library's GPU schedule, and CLBlast's SGEMM on the same device. Each call
// waits for the device.
void run_opencl(const bench::Options &opt) {
  const int n = opt.quick ? 256 : 1024, device = opencl_device_index();
  const Device dev = Device::opencl(device);
  Operands o(n);
  RowMat ce(n, n);
  ce.noalias() = o.ea() * o.eb();
  const size_t nn = size_t(n) * n;
  const double flops = 2.0 * n * double(n) * n;
  std::vector<DeviceGemm> built;  // empty when OpenCL is missing: the message says why
  try {
    built.push_back(make_opencl_gemm(n, dev));
  } catch (const Error &e) {
    std::fprintf(stderr, "gemm: no OpenCL rows: %s\n", e.what());
    g_all_ok = false;
    return;
  }
  DeviceGemm &g = built[0];
  NDArray a = o.a.to(dev), b = o.b.to(dev);
  auto t0 = bench::Clock::now();
  g.f(a, b, g.c);
  g.first_ms = bench::ms_since(t0);
  g.err = bench::max_rel_error(g.c.to(Device::cpu()).data_as<float>(), ce.data(), nn);
  std::vector<std::string> names = {g.impl};
  std::vector<std::function<void()>> engines = {[&] { g.f(a, b, g.c); }};
  std::vector<double> errs = {g.err};
#if TENSORIR_HAVE_CLBLAST
  ClBlastGemm blast(o, device);
  if (blast.ok() && blast.run()) {
    names.push_back("clblast");
    engines.push_back([&] { blast.run(); });
    errs.push_back(bench::max_rel_error(blast.result().data(), ce.data(), nn));
  } else {
    std::fprintf(stderr, "gemm: CLBlast's SGEMM failed on OpenCL device %d\n", device);
  }
#endif
  const int rounds = opt.quick ? 1 : 3, reps = 3;
  std::vector<bench::Timing> t = bench::interleaved_medians(engines, rounds, reps);
  bench::Table table({"size", "impl", "median ms", "GFLOP/s", "x clblast", "build ms", "1st call ms", "max rel err"});
  const double peer_g = engines.size() > 1 ? bench::gflops(flops, t[1].wall_ms) : 0;
  for (size_t e = 0; e < engines.size(); ++e) {
    if (!(errs[e] < 1e-4)) {
      g_all_ok = false;
      std::fprintf(stderr, "gemm %d: %s differs from the reference (max rel err %g)\n", n, names[e].c_str(), errs[e]);
    }
    const double gf = bench::gflops(flops, t[e].wall_ms);
    const bool ours = e == 0;
    if (opt.json)
      bench::print_json("gemm", std::to_string(n), names[e], 0, t[e].wall_ms, gf,
                        {{"part", bench::json_str("opencl")},
                         {"device", std::to_string(device)},
                         {"ratio_clblast", bench::json_num(peer_g > 0 ? gf / peer_g : 0)},
                         {"max_rel_err", bench::json_num(errs[e])}});
    else
      table.add({std::to_string(n), names[e], bench::fmt(t[e].wall_ms, 3), bench::fmt(gf),
                 peer_g > 0 ? bench::fmt_ratio(gf / peer_g) : "-", ours ? bench::fmt(g.build_ms, 1) : "-",
                 ours ? bench::fmt(g.first_ms, 1) : "-", bench::fmt_sci(errs[e])});
  }
  if (opt.json) return;
  std::printf("\n(d) OpenCL device %d (TENSORIR_OPENCL_DEVICE, else 0), data already on the device\n"
              "    tensorir-opencl: \"opencl\", ops::batch_matmul with ops::schedule_matmul_gpu (on a CPU device:\n"
              "      a work-item per group, each an 8-row tile of vectors of columns)\n"
              "    clblast: CLBlast's SGEMM (C API) on the same device; each call waits for the device\n",
              device);
  table.print();
}
#endif

}  // namespace

int main(int argc, char **argv) {
  // OpenBLAS 0.3.21 may not recognise this CPU and then falls back to a slow generic
  // kernel; it reads these variables when it is loaded, hence the restart. Mesa's shader
  // cache off: build() times are those of a first compile.
  bench::reexec_with_env(argv, {{"OPENBLAS_CORETYPE", "SkylakeX"}, {"MESA_SHADER_CACHE_DISABLE", "true"}},
                         {"OPENBLAS_L2_SIZE"});
#if TENSORIR_WITH_OPENCL
  // --opencl: the OpenCL rows alone (tensorir-opencl and clblast at 1024).
  if (argc == 2 && std::string(argv[1]) == "--opencl") {
    run_opencl(bench::Options{});
    return g_all_ok ? 0 : 1;
  }
#endif
  bench::Options opt = bench::parse_options(argc, argv);
  const double flop_scale = 2.0;

  if (!opt.json) {
    std::printf("OpenBLAS core: %s   oneDNN %s   Eigen %d.%d.%d   tensorir pool: %d threads\n", openblas_core(),
                onednn_version().c_str(), EIGEN_WORLD_VERSION, EIGEN_MAJOR_VERSION, EIGEN_MINOR_VERSION,
                tensorir::num_threads());
    bench::print_machine_load("at start");
  } else {
    std::printf("{\"bench\":\"gemm\",\"case\":\"env\",\"openblas_core\":\"%s\",\"tensorir_threads\":%d,"
                "\"cpu_pressure_avg10\":%.1f}\n",
                openblas_core(), tensorir::num_threads(), bench::cpu_pressure());
  }

  // ------------------------------------------------------------ (a) naive vs Eigen
  bench::Table naive_table({"size", "thr", "impl", "median ms", "GFLOP/s", "x best peer", "GF/s cpu", "max rel err"});
  std::vector<int> naive_sizes = opt.quick ? std::vector<int>{256, 512} : std::vector<int>{256, 512, 1024};
  // With --sizes the naive loops run only at those of their sizes asked for.
  if (!opt.sizes.empty())
    naive_sizes.erase(std::remove_if(naive_sizes.begin(), naive_sizes.end(),
                                     [&](int n) { return std::count(opt.sizes.begin(), opt.sizes.end(), n) == 0; }),
                      naive_sizes.end());
  set_peer_threads(1);
  for (int n : naive_sizes) {
    Operands o(n);
    RowMat ce(n, n);
    Module naive = build_naive(n);
    Function f = naive("gemm");
    auto run_naive = [&] { f(o.a, o.b, o.c); };
    auto run_eigen = [&] { ce.noalias() = o.ea() * o.eb(); };
    // The naive loop nest takes seconds at 1024: a single run there, no warm-up.
    bench::Timing tn = n >= 1024 ? bench::interleaved_medians({run_naive}, 1, 1, 0, 0)[0]
                                 : bench::interleaved_medians({run_naive}, 1, 3)[0];
    bench::Timing te = bench::interleaved_medians({run_eigen}, 2, 5)[0];
    double flops = flop_scale * n * double(n) * n;
    double err_eigen = eigen_self_check(o.ea(), o.eb(), ce);
    double err = bench::max_rel_error(o.c.data_as<float>(), ce.data(), size_t(n) * n);
    report(opt, naive_table, "naive", n, 1,
           {{"tensorir-naive", tn.wall_ms, bench::gflops(flops, tn.wall_ms), err, bench::gflops(flops, tn.cpu_ms)},
            {"eigen", te.wall_ms, bench::gflops(flops, te.wall_ms), err_eigen, bench::gflops(flops, te.cpu_ms)}},
           true);
  }
  if (!opt.json) {
    std::printf("\n(a) default schedule (create_schedule only) vs Eigen, 1 thread"
                " (eigen's error: against a double-precision sum on sampled entries)\n");
    naive_table.print();
  }

  // ------------------------------------------------------------ (b) tuned vs peers
  bench::Table table({"size", "thr", "impl", "median ms", "GFLOP/s", "x best peer", "GF/s cpu", "max rel err"});
  std::vector<int> sizes = opt.quick ? std::vector<int>{256, 512} : std::vector<int>{512, 1024, 2048};
  if (!opt.sizes.empty()) sizes = opt.sizes;
  double compile_ms = 0;
  const char *tune_env = std::getenv("TENSORIR_GEMM_TUNE_S");
  const double tune_s = tune_env ? std::atof(tune_env) : (opt.quick ? 5 : 20);
  std::vector<std::string> tuned_configs;
  for (int n : sizes) {
    Operands o(n);
    Module dflt = build_gemm(n);
    Function f = dflt("gemm");
    if (n == 1024) {
      std::vector<double> t;
      for (int r = 0; r < 5; ++r) {
        auto t0 = bench::Clock::now();
        Module m = build_gemm(n);
        t.push_back(bench::ms_since(t0));
      }
      compile_ms = bench::median(t);
    }
    set_peer_threads(2);
    std::optional<autotune::Record> best = tune_gemm(n, tune_s);
    Module tuned_m = dflt;
    if (best) {
      autotune::Config cfg = autotune::Config::from_index(best->index);
      tuned_m = build_gemm(n, &cfg);
      tuned_configs.push_back(std::to_string(n) + ": " + best->config_json);
    }
    Function ft = tuned_m("gemm");
    // The default configuration is a candidate too: a search on a busy machine can pick
    // a configuration that was lucky once; the two are timed again side by side.
    if (best) {
      std::vector<bench::Timing> t =
          bench::interleaved_medians({[&] { f(o.a, o.b, o.c); }, [&] { ft(o.a, o.b, o.c); }}, 3, n >= 2048 ? 1 : 3);
      if (t[0].wall_ms < t[1].wall_ms) {
        ft = f;
        tuned_configs.back() += " (slower than the default here: default kept)";
      }
    }
    // Every engine reads the same A and B and writes the same C, so that no engine's time
    // depends on where in physical memory its own output landed (the same kernel timed
    // into two buffers differed by up to 3% at 2048). Each is checked by one more run after
    // the timing, against Eigen's product made beforehand.
    float *out = o.c.data_as<float>();
    const RowMat ref = o.ea() * o.eb();
    const double ref_err = eigen_self_check(o.ea(), o.eb(), ref);
    struct Engine {
      const char *name;
      std::function<void()> run;
    };
    std::vector<Engine> engines;
    engines.push_back({"tensorir", [&] { f(o.a, o.b, o.c); }});
    if (best) engines.push_back({"tensorir-tuned", [&] { ft(o.a, o.b, o.c); }});
#if TENSORIR_HAVE_OPENBLAS
    engines.push_back({"openblas", [&] {
                         cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, n, n, n, 1.0f, o.pa(), n, o.pb(), n,
                                     0.0f, out, n);
                       }});
#endif
#if TENSORIR_HAVE_DNNL
    engines.push_back({"onednn", [&] {
                         dnnl_status_t st = dnnl_sgemm('N', 'N', n, n, n, 1.0f, o.pa(), n, o.pb(), n, 0.0f, out, n);
                         if (st != dnnl_success) {
                           std::fprintf(stderr, "dnnl_sgemm failed (status %d)\n", int(st));
                           std::exit(1);
                         }
                       }});
#endif
    engines.push_back({"eigen", [&] { Eigen::Map<RowMat>(out, n, n).noalias() = o.ea() * o.eb(); }});
    std::vector<std::function<void()>> runs;
    for (const Engine &e : engines) runs.push_back(e.run);
    double flops = flop_scale * n * double(n) * n;
    // Rounds in turn, not reps in a row, are what even out a neighbour's busy spell: 2048
    // takes 7 short rounds (14 timed runs, about 1 s an engine).
    int rounds = opt.quick ? 3 : (n >= 2048 ? 7 : 5);
    int reps = opt.quick ? 5 : (n >= 2048 ? 2 : (n >= 1024 ? 4 : 10));
    for (int threads : {1, 2}) {
      set_peer_threads(threads);
      // Idle between engines on 2 threads so the previous library's spinning workers
      // sleep before the next one is timed.
      std::vector<bench::Timing> t = bench::interleaved_medians(runs, rounds, reps, threads > 1 ? 200 : 0);
      size_t nn = size_t(n) * n;
      std::vector<Result> rs;
      for (size_t e = 0; e < engines.size(); ++e) {
        // NaN first: an engine that wrote nothing fails the check.
        std::fill(out, out + nn, std::numeric_limits<float>::quiet_NaN());
        engines[e].run();
        double err = std::string(engines[e].name) == "eigen" ? std::max(ref_err, bench::max_rel_error(out, ref.data(), nn))
                                                           : bench::max_rel_error(out, ref.data(), nn);
        rs.push_back({engines[e].name, t[e].wall_ms, bench::gflops(flops, t[e].wall_ms), err,
                      threads == 1 ? bench::gflops(flops, t[e].cpu_ms) : 0.0});
      }
      report(opt, table, "tuned", n, threads, rs, true);
    }
  }
  if (!opt.json) {
    std::printf("\n(b) ops::matmul_llvm (packed B panels, register blocks, parallel panels) vs peers;\n"
                "    tensorir: default knobs, tensorir-tuned: the best of a %.0f s search per size\n", tune_s);
    for (const std::string &c : tuned_configs) std::printf("    tuned %s\n", c.c_str());
    std::printf(
                "    x best peer: against the fastest of the peers (openblas, onednn, eigen) in the same case;\n"
                "    GF/s cpu: from the thread's CPU time (1 thread), what the kernel does while it has the core\n");
    table.print();
    if (compile_ms > 0) std::printf("\nJIT compile of the default 1024 GEMM (build(), median of 5): %.1f ms\n", compile_ms);
  } else if (compile_ms > 0) {
    std::printf("{\"bench\":\"gemm\",\"case\":\"1024\",\"impl\":\"tensorir\",\"metric\":\"compile\",\"median_ms\":%.2f}\n",
                compile_ms);
  }
  if (opt.gpu) run_opengl(opt);
#if TENSORIR_WITH_OPENCL
  if (opt.gpu) run_opencl(opt);
#endif
  if (!opt.json) bench::print_machine_load("at the end");
  return g_all_ok ? 0 : 1;
}
