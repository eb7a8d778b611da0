// Square SGEMM C = A * B (row-major): tensorir's default and tuned schedules next to
// OpenBLAS (cblas_sgemm), oneDNN (dnnl_sgemm) and Eigen, on 1 and 2 threads.
//   bench_gemm            full run: naive at 256/512/1024, tuned at 512/1024/2048
//   bench_gemm --quick    256/512 only, few repetitions
//   bench_gemm --json     one JSON object per result line
// GCC 12 reports Eigen's AVX-512 transposes as maybe-uninitialized (the intrinsics start
// from an undefined vector on purpose); the warning says nothing about this file.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif
#include <cblas.h>
#include <dnnl.h>
#include <tensorir/runtime/parallel.h>
#include <tensorir/tensorir.h>

#include <Eigen/Core>
#include <cstdio>
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

struct GemmCompute {
  Tensor A, B, C;
};

// The default schedule: C[i, j] += A[i, k] * B[k, j] with k innermost, nothing else.
Module build_naive(int n) {
  Tensor A = placeholder({n, n}, Float(32), "A"), B = placeholder({n, n}, Float(32), "B");
  IterVar k = reduce_axis({0, n}, "k");
  Tensor C = compute({n, n}, [&](Var i, Var j) { return sum(A(i, k) * B(k, j), {k}); }, "C");
  Schedule s = create_schedule({C});
  return build(s, {A, B, C}, "llvm", "gemm");
}

// Register-block sizes of the tuned schedule: a bm x bn block of C stays in registers
// (bm * bn / 16 zmm accumulators) while k advances ku steps per unrolled iteration.
struct Blocking {
  int bm = 8, bn = 32, ku = 8;
};

// The tuned schedule.
//  * B is packed into panels BP[j / bn][k][j % bn]: the bn columns a micro-kernel reads
//    are contiguous for every k, so one k step loads bn / 16 full vectors.
//  * Loops: j.outer (a panel; packed right there, so the panel is hot in L2 while all of
//    A streams past it), i.outer, then k, and the bm x bn register block innermost:
//    i.inner unrolled, j.inner vectorized, k unrolled by ku. LLVM keeps the block of C in
//    zmm registers across the k loop and emits broadcast + fma.
//  * j.outer runs in parallel: each thread packs and computes its own panels.
Schedule schedule_tuned(int n, const Blocking &b, GemmCompute &g) {
  TIR_USER_CHECK(n % b.bn == 0 && n % b.bm == 0 && n % b.ku == 0)
      << "gemm size " << n << " must be a multiple of the block sizes " << b.bm << ", " << b.bn << ", " << b.ku;
  const int bn = b.bn;
  g.A = placeholder({n, n}, Float(32), "A");
  g.B = placeholder({n, n}, Float(32), "B");
  Tensor &A = g.A, &B = g.B;
  Tensor BP = compute({n / bn, n, bn}, [&](Var x, Var y, Var z) { return B(y, x * bn + z); }, "BP");
  IterVar k = reduce_axis({0, n}, "k");
  g.C = compute({n, n}, [&](Var i, Var j) { return sum(A(i, k) * BP(j / bn, k, j % bn), {k}); }, "C");
  Tensor &C = g.C;

  Schedule s = create_schedule({C});
  auto [io, jo, ii, ji] = s[C].tile(C.axis(0), C.axis(1), b.bm, bn);
  auto [ko, ki] = s[C].split(C.reduce_axis(0), b.ku);
  s[C].reorder({jo, io, ko, ki, ii, ji});
  s[C].vectorize(ji);
  s[C].unroll(ii);
  s[C].unroll(ki);
  s[C].parallel(jo);
  s[BP].compute_at(s[C], jo);
  s[BP].vectorize(BP.axis(2));
  return s;
}

Module build_tuned(int n, const Blocking &b = {}) {
  GemmCompute g;
  Schedule s = schedule_tuned(n, b, g);
  return build(s, {g.A, g.B, g.C}, "llvm", "gemm");
}

void set_peer_threads(int t) {
  openblas_set_num_threads(t);
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

}  // namespace

int main(int argc, char **argv) {
  // OpenBLAS 0.3.21 may not recognise this CPU and then falls back to a slow generic
  // kernel; it reads these variables when it is loaded, hence the restart.
  bench::reexec_with_env(argv, {{"OPENBLAS_CORETYPE", "SkylakeX"}}, {"OPENBLAS_L2_SIZE"});
  bench::Options opt = bench::parse_options(argc, argv);
  const double flop_scale = 2.0;

  if (!opt.json) {
    std::printf("OpenBLAS core: %s   oneDNN %d.%d   Eigen %d.%d.%d   tensorir pool: %d threads\n",
                openblas_get_corename(), dnnl_version()->major, dnnl_version()->minor, EIGEN_WORLD_VERSION,
                EIGEN_MAJOR_VERSION, EIGEN_MINOR_VERSION, tensorir::num_threads());
    bench::print_machine_load("at start");
  } else {
    std::printf("{\"bench\":\"gemm\",\"case\":\"env\",\"openblas_core\":\"%s\",\"tensorir_threads\":%d,"
                "\"cpu_pressure_avg10\":%.1f}\n",
                openblas_get_corename(), tensorir::num_threads(), bench::cpu_pressure());
  }

  // ------------------------------------------------------------ (a) naive vs Eigen
  bench::Table naive_table({"size", "thr", "impl", "median ms", "GFLOP/s", "x best peer", "GF/s cpu", "max rel err"});
  std::vector<int> naive_sizes = opt.quick ? std::vector<int>{256, 512} : std::vector<int>{256, 512, 1024};
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
  double compile_ms = 0;
  for (int n : sizes) {
    Operands o(n);
    Module tuned = build_tuned(n);
    Function f = tuned("gemm");
    if (n == 1024) {
      std::vector<double> t;
      for (int r = 0; r < 5; ++r) {
        auto t0 = bench::Clock::now();
        Module m = build_tuned(n);
        t.push_back(bench::ms_since(t0));
      }
      compile_ms = bench::median(t);
    }
    RowMat ce(n, n), cb(n, n), cd(n, n);
    auto run_tir = [&] { f(o.a, o.b, o.c); };
    auto run_blas = [&] {
      cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, n, n, n, 1.0f, o.pa(), n, o.pb(), n, 0.0f, cb.data(), n);
    };
    auto run_dnnl = [&] {
      dnnl_status_t st = dnnl_sgemm('N', 'N', n, n, n, 1.0f, o.pa(), n, o.pb(), n, 0.0f, cd.data(), n);
      if (st != dnnl_success) {
        std::fprintf(stderr, "dnnl_sgemm failed (status %d)\n", int(st));
        std::exit(1);
      }
    };
    auto run_eigen = [&] { ce.noalias() = o.ea() * o.eb(); };
    double flops = flop_scale * n * double(n) * n;
    int rounds = opt.quick ? 3 : (n >= 2048 ? 3 : 5);
    int reps = opt.quick ? 5 : (n >= 2048 ? 2 : (n >= 1024 ? 4 : 10));
    for (int threads : {1, 2}) {
      set_peer_threads(threads);
      // Idle between engines on 2 threads so the previous library's spinning workers
      // sleep before the next one is timed.
      std::vector<bench::Timing> t =
          bench::interleaved_medians({run_tir, run_blas, run_dnnl, run_eigen}, rounds, reps, threads > 1 ? 200 : 0);
      size_t nn = size_t(n) * n;
      const char *names[] = {"tensorir", "openblas", "onednn", "eigen"};
      const float *outs[] = {o.c.data_as<float>(), cb.data(), cd.data(), nullptr};
      std::vector<Result> rs;
      for (int e = 0; e < 4; ++e) {
        double err = outs[e] ? bench::max_rel_error(outs[e], ce.data(), nn)
                             : eigen_self_check(o.ea(), o.eb(), ce);
        rs.push_back({names[e], t[e].wall_ms, bench::gflops(flops, t[e].wall_ms), err,
                      threads == 1 ? bench::gflops(flops, t[e].cpu_ms) : 0.0});
      }
      report(opt, table, "tuned", n, threads, rs, true);
    }
  }
  if (!opt.json) {
    std::printf("\n(b) tuned schedule (packed B panels, 8x32 register block, parallel panels) vs peers\n"
                "    x best peer: against the fastest of openblas/onednn/eigen in the same case;\n"
                "    GF/s cpu: from the thread's CPU time (1 thread), what the kernel does while it has the core\n");
    table.print();
    if (compile_ms > 0) std::printf("\nJIT compile of the tuned 1024 GEMM (build(), median of 5): %.1f ms\n", compile_ms);
    bench::print_machine_load("at the end");
  } else if (compile_ms > 0) {
    std::printf("{\"bench\":\"gemm\",\"case\":\"1024\",\"impl\":\"tensorir\",\"metric\":\"compile\",\"median_ms\":%.2f}\n",
                compile_ms);
  }
  return g_all_ok ? 0 : 1;
}
