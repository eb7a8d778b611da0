// One ResNet-18 layer: 3x3 convolution, 64 -> 64 channels, 56x56, stride 1, pad 1,
// batch 1, NCHW in and out. tensorir's default schedule and a tuned one next to
// im2col + OpenBLAS sgemm, on 1 and 2 threads, all checked against plain C++ loops.
//   bench_conv [--quick] [--json]
#include <cblas.h>
#include <tensorir/runtime/parallel.h>
#include <tensorir/tensorir.h>

#include <algorithm>
#include <cstdio>
#include <string>
#include <thread>
#include <vector>

#include "common.h"

using namespace tensorir;

namespace {

constexpr int kC = 64, kK = 64, kH = 56, kW = 56, kR = 3;  // in/out channels, height, width, kernel
constexpr double kFlops = 2.0 * kK * kH * kW * kC * kR * kR;

struct ConvTensors {
  Tensor input, weight, output;
};

Expr clamp_index(Expr v, int hi) { return min(max(v, 0), hi); }

// The padded input as a select over in-bounds reads. The read index is clamped so that
// the untaken side of the select never leaves the buffer.
Expr padded_read(const Tensor &input, Expr n, Expr c, Expr h, Expr w) {
  Expr inside = h >= 1 && h <= kH && w >= 1 && w <= kW;
  return select(inside, input(n, c, clamp_index(h - 1, kH - 1), clamp_index(w - 1, kW - 1)), 0.0f);
}

// (a) A padding stage and the convolution as one reduction, default schedule.
Module build_naive(ConvTensors &t) {
  t.input = placeholder({1, kC, kH, kW}, Float(32), "I");
  t.weight = placeholder({kK, kC, kR, kR}, Float(32), "W");
  Tensor &I = t.input, &Wt = t.weight;
  Tensor pad = compute({1, kC, kH + 2, kW + 2}, [&](Var n, Var c, Var h, Var w) { return padded_read(I, n, c, h, w); },
                       "pad");
  IterVar ic = reduce_axis({0, kC}, "ic"), kh = reduce_axis({0, kR}, "kh"), kw = reduce_axis({0, kR}, "kw");
  t.output = compute({1, kK, kH, kW}, [&](Var n, Var k, Var y, Var x) {
    return sum(pad(n, ic, y + kh, x + kw) * Wt(k, ic, kh, kw), {ic, kh, kw});
  }, "conv");
  Schedule s = create_schedule({t.output});
  return build(s, {t.input, t.weight, t.output}, "llvm", "conv");
}

// Register tile of the tuned schedule: kOcBlocks blocks of 16 output channels (one zmm
// each) times kXTile output columns: 2 x 7 = 14 accumulators.
constexpr int kOcBlocks = 2, kXTile = 7;

// (b) Channel-blocked direct convolution (the NCHW[16]c layout):
//   IP[icb][h][w][16]              padded input, 16 input channels innermost (at root)
//   WP[ocb][icb][kh][kw][16i][16o] weights, 16 output channels innermost (at root)
//   OB[ocb][y][x][16o]             the convolution: for every (icb, kh, kw, ic) one
//                                  input value is broadcast against a vector of 16 output
//                                  channels, for a 2 x 7 block of (oc-block, x) in registers
//   O[n][k][y][x]                  back to NCHW
// OB is computed at O's (oc-block group, row) loop, which runs in parallel: one output
// row of 32 channels (7 KB) is accumulated and then copied out while it is in L1.
Module build_tuned(ConvTensors &t) {
  t.input = placeholder({1, kC, kH, kW}, Float(32), "I");
  t.weight = placeholder({kK, kC, kR, kR}, Float(32), "W");
  Tensor &I = t.input, &Wt = t.weight;
  Tensor IP = compute({kC / 16, kH + 2, kW + 2, 16},
                      [&](Var cb, Var h, Var w, Var c) { return padded_read(I, 0, cb * 16 + c, h, w); }, "IP");
  Tensor WP = compute({kK / 16, kC / 16, kR, kR, 16, 16}, [&](const std::vector<Var> &v) {
    return Wt(v[0] * 16 + v[5], v[1] * 16 + v[4], v[2], v[3]);
  }, "WP");
  IterVar icb = reduce_axis({0, kC / 16}, "icb"), ici = reduce_axis({0, 16}, "ici");
  IterVar kh = reduce_axis({0, kR}, "kh"), kw = reduce_axis({0, kR}, "kw");
  Tensor OB = compute({kK / 16, kH, kW, 16}, [&](Var ob, Var y, Var x, Var o) {
    return sum(IP(icb, y + kh, x + kw, ici) * WP(ob, icb, kh, kw, ici, o), {icb, kh, kw, ici});
  }, "OB");
  t.output = compute({1, kK, kH, kW}, [&](Var n, Var k, Var y, Var x) { return OB(k / 16, y, x, k % 16); }, "conv");
  Tensor &O = t.output;

  Schedule s = create_schedule({O});
  auto [obo, obi] = s[OB].split(OB.axis(0), kOcBlocks);
  auto [xo, xi] = s[OB].split(OB.axis(2), kXTile);
  s[OB].reorder({obo, OB.axis(1), xo, icb, kh, kw, ici, obi, xi, OB.axis(3)});
  s[OB].vectorize(OB.axis(3));
  s[OB].unroll(xi);
  s[OB].unroll(obi);
  auto [co, ci] = s[O].split(O.axis(1), 16 * kOcBlocks);
  s[O].reorder({O.axis(0), co, O.axis(2), ci, O.axis(3)});
  IterVar rows = s[O].fuse(co, O.axis(2));
  s[O].parallel(rows);
  s[OB].compute_at(s[O], rows);
  s[IP].vectorize(IP.axis(3));
  s[IP].parallel(IP.axis(1));
  s[WP].parallel(WP.axis(1));
  return build(s, {t.input, t.weight, t.output}, "llvm", "conv");
}

// (c) im2col into a (C*3*3) x (H*W) matrix, then one sgemm: O[K][HW] = W[K][C*9] * col.
struct Im2colGemm {
  std::vector<float> col = std::vector<float>(size_t(kC) * kR * kR * kH * kW);
  int threads = 1;

  void im2col_rows(const float *in, int c0, int c1) {
    for (int c = c0; c < c1; ++c)
      for (int kh = 0; kh < kR; ++kh)
        for (int kw = 0; kw < kR; ++kw) {
          float *dst = col.data() + size_t((c * kR + kh) * kR + kw) * kH * kW;
          for (int y = 0; y < kH; ++y) {
            float *row = dst + y * kW;
            int yy = y + kh - 1;
            if (yy < 0 || yy >= kH) {
              std::fill(row, row + kW, 0.0f);
              continue;
            }
            // Output column x reads input column x + kw - 1; the one that falls off an
            // edge (kw = 0: x = 0, kw = 2: x = W - 1) is padding.
            int x0 = std::max(0, 1 - kw), x1 = std::min(kW, kW + 1 - kw);
            std::fill(row, row + x0, 0.0f);
            std::copy(in + (c * kH + yy) * kW + x0 + kw - 1, in + (c * kH + yy) * kW + x1 + kw - 1, row + x0);
            std::fill(row + x1, row + kW, 0.0f);
          }
        }
  }
  void run(const float *in, const float *w, float *out) {
    if (threads > 1) {  // the copy is memory-bound: split it over the threads too
      std::thread helper([&] { im2col_rows(in, kC / 2, kC); });
      im2col_rows(in, 0, kC / 2);
      helper.join();
    } else {
      im2col_rows(in, 0, kC);
    }
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, kK, kH * kW, kC * kR * kR, 1.0f, w, kC * kR * kR,
                col.data(), kH * kW, 0.0f, out, kH * kW);
  }
};

// Plain loops in double precision: the reference for everyone.
std::vector<float> reference_conv(const float *in, const float *w) {
  std::vector<float> out(size_t(kK) * kH * kW);
  for (int k = 0; k < kK; ++k)
    for (int y = 0; y < kH; ++y)
      for (int x = 0; x < kW; ++x) {
        double acc = 0;
        for (int c = 0; c < kC; ++c)
          for (int kh = 0; kh < kR; ++kh)
            for (int kw = 0; kw < kR; ++kw) {
              int yy = y + kh - 1, xx = x + kw - 1;
              if (yy < 0 || yy >= kH || xx < 0 || xx >= kW) continue;
              acc += double(in[(c * kH + yy) * kW + xx]) * w[((k * kC + c) * kR + kh) * kR + kw];
            }
        out[(k * kH + y) * kW + x] = float(acc);
      }
  return out;
}

}  // namespace

int main(int argc, char **argv) {
  // OpenBLAS 0.3.21 may not recognise this CPU and then falls back to a slow generic
  // kernel; it reads these variables when it is loaded, hence the restart.
  bench::reexec_with_env(argv, {{"OPENBLAS_CORETYPE", "SkylakeX"}}, {"OPENBLAS_L2_SIZE"});
  bench::Options opt = bench::parse_options(argc, argv);
  const std::string case_name = "3x3_64to64_56x56";

  NDArray in = NDArray::random({1, kC, kH, kW}, Float(32), 11);
  NDArray w = NDArray::random({kK, kC, kR, kR}, Float(32), 12, -0.1, 0.1);
  std::vector<float> ref = reference_conv(in.data_as<float>(), w.data_as<float>());
  const size_t n_out = ref.size();

  ConvTensors tn, tt;
  Module naive = build_naive(tn);
  auto t0 = bench::Clock::now();
  Module tuned = build_tuned(tt);
  double compile_ms = bench::ms_since(t0);
  Function f_naive = naive("conv"), f_tuned = tuned("conv");
  NDArray out_naive = NDArray::empty({1, kK, kH, kW}, Float(32));
  NDArray out_tuned = NDArray::empty({1, kK, kH, kW}, Float(32));
  std::vector<float> out_blas(n_out);
  Im2colGemm blas;

  if (!opt.json)
    std::printf("conv2d %s (NCHW, batch 1, stride 1, pad 1): %.1f MFLOP   OpenBLAS core: %s\n", case_name.c_str(),
                kFlops / 1e6, openblas_get_corename());
  if (!opt.json) bench::print_machine_load("at start");
  else
    std::printf("{\"bench\":\"conv\",\"case\":\"env\",\"openblas_core\":\"%s\",\"cpu_pressure_avg10\":%.1f}\n",
                openblas_get_corename(), bench::cpu_pressure());

  bench::Table table({"threads", "impl", "median ms", "GFLOP/s", "x im2col+openblas", "GF/s cpu", "max rel err"});
  bool ok = true;
  for (int threads : {1, 2}) {
    tensorir::set_num_threads(threads);
    openblas_set_num_threads(threads);
    blas.threads = threads;
    auto run_naive = [&] { f_naive(in, w, out_naive); };
    auto run_tuned = [&] { f_tuned(in, w, out_tuned); };
    auto run_blas = [&] { blas.run(in.data_as<float>(), w.data_as<float>(), out_blas.data()); };
    int rounds = opt.quick ? 2 : 5, reps = opt.quick ? 5 : 10;
    std::vector<bench::Timing> fast =
        bench::interleaved_medians({run_tuned, run_blas}, rounds, reps, threads > 1 ? 100 : 0);
    // The default schedule is slow (the reduction innermost, no vectors): a few runs.
    std::vector<bench::Timing> slow;
    if (threads == 1) slow = bench::interleaved_medians({run_naive}, 1, opt.quick ? 1 : 3);

    struct Row {
      std::string impl;
      bench::Timing t;
      const float *out;
    };
    std::vector<Row> rows = {{"tensorir", fast[0], out_tuned.data_as<float>()},
                             {"im2col+openblas", fast[1], out_blas.data()}};
    if (threads == 1) rows.insert(rows.begin(), Row{"tensorir-naive", slow[0], out_naive.data_as<float>()});
    double peer = bench::gflops(kFlops, fast[1].wall_ms);
    for (const Row &r : rows) {
      double g = bench::gflops(kFlops, r.t.wall_ms), err = bench::max_rel_error(r.out, ref.data(), n_out);
      // CPU time of the calling thread: the work itself on 1 thread (wall time also counts
      // the time other processes held the core).
      double g_cpu = threads == 1 ? bench::gflops(kFlops, r.t.cpu_ms) : 0;
      ok = ok && err < 1e-4;
      std::string impl = r.impl == "im2col+openblas" ? "openblas" : r.impl;
      if (opt.json) {
        std::vector<std::pair<std::string, std::string>> extra = {{"max_rel_err", bench::json_num(err)},
                                                                   {"ratio_best_peer", bench::json_num(g / peer)}};
        if (impl == "openblas") extra.push_back({"method", bench::json_str("im2col+sgemm")});
        if (g_cpu > 0) extra.push_back({"gflops_cpu_time", bench::json_num(g_cpu)});
        bench::print_json("conv", case_name, impl, threads, r.t.wall_ms, g, extra);
      } else {
        table.add({std::to_string(threads), r.impl, bench::fmt(r.t.wall_ms, 3), bench::fmt(g), bench::fmt(g / peer, 2),
                   g_cpu > 0 ? bench::fmt(g_cpu) : "-", bench::fmt_sci(err)});
      }
    }
  }
  if (!opt.json) {
    table.print();
    std::printf("JIT compile of the tuned conv (build()): %.1f ms\n", compile_ms);
    bench::print_machine_load("at the end");
    if (!ok) std::printf("ERROR: a result differs from the reference\n");
  }
  return ok ? 0 : 1;
}
