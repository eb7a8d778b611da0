// One ResNet-18 layer: 3x3 convolution, 64 -> 64 channels, 56x56, stride 1, pad 1,
// batch 1, NCHW in and out. tensorir's default schedule and a tuned one next to
// im2col + OpenBLAS sgemm, on 1 and 2 threads, then the default schedule as OpenGL
// compute shaders and as fragment shaders with the data already on the device, all
// checked against plain C++ loops; then ResNet-18's 3x3 layers directly and by Winograd
// (conv_winograd.h).
//   bench_conv [--quick] [--json] [--no-gpu]
#include <cblas.h>
#include <tensorir/runtime/parallel.h>
#include <tensorir/tensorir.h>

#include <algorithm>
#include <cstdio>
#include <functional>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "common.h"
#include "conv_winograd.h"

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

// (a) A padding stage and the convolution as one reduction, default schedule. For
// "opengl" build() binds the loops itself (the default GPU schedule); "opengl
// -mode=fragment" runs each stage as a fragment shader.
Module build_naive(ConvTensors &t, const std::string &target = "llvm") {
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
  return build(s, {t.input, t.weight, t.output}, target, "conv");
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

// The layer on the OpenGL device: the default schedule as compute shaders and as
// fragment shaders. Input and weights are uploaded once; each timed run is one module
// call followed either by a wait for the device (bench::DeviceSync: "kernel") or by
// copying the output back to the CPU ("+ readback"). tensorir's tuned CPU schedule, on as
// many threads as llvmpipe runs shaders on, is timed in the same rounds for the ratio.
// Returns false when a result differs from the reference.
bool run_opengl(const bench::Options &opt, const std::string &case_name, const NDArray &in, const NDArray &w,
                const Function &cpu_f, const std::vector<float> &ref) {
  std::string why;
  if (!bench::opengl_available(why)) {
    bench::print_opengl_skipped(opt, "conv", why);
    return true;
  }
  const int gl_threads = bench::llvmpipe_threads();
  const int cpu_threads = std::clamp(gl_threads, 1, std::max(1, int(std::thread::hardware_concurrency())));
  tensorir::set_num_threads(cpu_threads);
  openblas_set_num_threads(1);
  const std::vector<int64_t> out_shape = {1, kK, kH, kW};
  NDArray in_gl = in.to(Device::opengl()), w_gl = w.to(Device::opengl());
  NDArray out_cpu = NDArray::empty(out_shape, Float(32));
  bench::DeviceSync sync(out_shape);

  struct DeviceConv {
    std::string impl, target;
    Function f;
    NDArray out;
    double build_ms = 0, first_ms = 0, err = 0;
  };
  std::vector<DeviceConv> gl;
  for (auto [impl, target] : std::vector<std::pair<std::string, std::string>>{
           {"tensorir-opengl", "opengl"}, {"tensorir-opengl-fragment", "opengl -mode=fragment"}}) {
    ConvTensors t;
    auto t0 = bench::Clock::now();
    Module m = build_naive(t, target);
    DeviceConv d{impl, target, m("conv"), NDArray::empty(out_shape, Float(32), Device::opengl())};
    d.build_ms = bench::ms_since(t0);
    // The first call also compiles the shaders' machine code (llvmpipe does it at the
    // first launch) and, for fragment shaders, allocates the textures.
    t0 = bench::Clock::now();
    d.f(in_gl, w_gl, d.out);
    sync(d.out);
    d.first_ms = bench::ms_since(t0);
    NDArray back = d.out.to(Device::cpu());
    d.err = bench::max_rel_error(back.data_as<float>(), ref.data(), ref.size());
    gl.push_back(std::move(d));
  }
  std::vector<std::function<void()>> engines = {[&] { cpu_f(in, w, out_cpu); }};
  for (DeviceConv &d : gl) {
    engines.push_back([&] {
      d.f(in_gl, w_gl, d.out);
      sync(d.out);
    });
    engines.push_back([&] {
      d.f(in_gl, w_gl, d.out);
      NDArray back = d.out.to(Device::cpu());
    });
  }
  std::vector<bench::Timing> t = bench::interleaved_medians(engines, opt.quick ? 1 : 3, 3);
  // The wait alone, with nothing queued: what it adds to each "kernel" figure.
  double sync_ms = bench::median_ms([&] { sync(gl[0].out); }, 20, 2);
  double cpu_err = bench::max_rel_error(out_cpu.data_as<float>(), ref.data(), ref.size());
  double cpu_g = bench::gflops(kFlops, t[0].wall_ms);

  bool ok = cpu_err < 1e-4;
  bench::Table table({"thr", "impl", "kernel ms", "GFLOP/s", "x tensorir cpu", "+readback ms", "GFLOP/s",
                      "1st call ms", "max rel err"});
  table.add({std::to_string(cpu_threads), "tensorir (cpu, tuned)", bench::fmt(t[0].wall_ms, 3), bench::fmt(cpu_g),
             "1.00", "-", "-", "-", bench::fmt_sci(cpu_err)});
  for (size_t i = 0; i < gl.size(); ++i) {
    const DeviceConv &d = gl[i];
    double ms = t[1 + 2 * i].wall_ms, rb_ms = t[2 + 2 * i].wall_ms;
    double g = bench::gflops(kFlops, ms), g_rb = bench::gflops(kFlops, rb_ms);
    if (!(d.err < 1e-4)) {
      ok = false;
      std::fprintf(stderr, "conv %s: %s differs from the reference (max rel err %g)\n", case_name.c_str(),
                   d.impl.c_str(), d.err);
    }
    if (opt.json)
      bench::print_json("conv", case_name, d.impl, gl_threads, ms, g,
                        {{"part", bench::json_str("opengl")},
                         {"target", bench::json_str(d.target)},
                         {"sync", bench::json_str("one-element probe kernel + 4-byte read")},
                         {"median_ms_with_readback", bench::json_num(rb_ms)},
                         {"gflops_with_readback", bench::json_num(g_rb)},
                         {"ratio_tensorir_cpu", bench::json_num(g / cpu_g)},
                         {"tensorir_cpu_ms", bench::json_num(t[0].wall_ms)},
                         {"tensorir_cpu_threads", std::to_string(cpu_threads)},
                         {"build_ms", bench::json_num(d.build_ms)},
                         {"first_call_ms", bench::json_num(d.first_ms)},
                         {"max_rel_err", bench::json_num(d.err)}});
    else
      table.add({std::to_string(gl_threads), d.impl, bench::fmt(ms, 3), bench::fmt(g), bench::fmt_ratio(g / cpu_g),
                 bench::fmt(rb_ms, 3), bench::fmt(g_rb), bench::fmt(d.first_ms, 1), bench::fmt_sci(d.err)});
  }
  if (opt.json) {
    std::printf("{\"bench\":\"conv\",\"case\":\"opengl\",\"metric\":\"sync\",\"median_ms\":%.4f}\n", sync_ms);
  } else {
    std::printf("\nOpenGL, data already on the device (Device::opengl()), default schedule: a padding pass and\n"
                "the convolution; thr: the CPU threads that run shaders when the device is Mesa llvmpipe\n"
                "    tensorir-opengl: compute shaders, one invocation per output element, groups of 64\n"
                "    tensorir-opengl-fragment: \"opengl -mode=fragment\", GLSL ES 3.00, 4 elements per RGBA\n"
                "      texel; each call also copies the input and weights into textures and the output out\n"
                "    kernel ms: the call, then a wait for the device (a one-element read, %.3f ms alone)\n"
                "    +readback ms: the call, then the output copied to the CPU;  1st call: includes shader codegen\n",
                sync_ms);
    table.print();
  }
  return ok;
}

}  // namespace

int main(int argc, char **argv) {
  // OpenBLAS 0.3.21 may not recognise this CPU and then falls back to a slow generic
  // kernel; it reads these variables when it is loaded, hence the restart. Mesa's shader
  // cache off: build() times are those of a first compile.
  bench::reexec_with_env(argv, {{"OPENBLAS_CORETYPE", "SkylakeX"}, {"MESA_SHADER_CACHE_DISABLE", "true"}},
                         {"OPENBLAS_L2_SIZE"});
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
  }
  ok = bench_winograd::run_layers(opt) && ok;
  if (opt.gpu) ok = run_opengl(opt, case_name, in, w, f_tuned, ref) && ok;
  if (!opt.json) {
    bench::print_machine_load("at the end");
    if (!ok) std::printf("ERROR: a result differs from the reference\n");
  }
  return ok ? 0 : 1;
}
