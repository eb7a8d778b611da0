// bench_conv's Winograd rows: ResNet-18's 3x3 stride-1 layers (64@56, 128@28, 256@14,
// 512@7, pad 1, batch 1) as graph::build compiles them inside the network, channel-blocked
// in and out (NCHW16c), the weights prepared beforehand: the direct blocked convolution
// (conv2d_nchwc_packed) next to Winograd F(m, 3) for m = 2, 4, 6 (conv2d_winograd), on 1
// and 2 threads, in the same rounds. GF/s counts the direct convolution's FLOPs; the error
// is max |winograd - direct| / max |direct|.
#pragma once
#include <tensorir/ops/nn.h>
#include <tensorir/ops/schedule.h>
#include <tensorir/ops/winograd.h>
#include <tensorir/runtime/parallel.h>
#include <tensorir/tensorir.h>

#include <string>
#include <vector>

#include "common.h"

namespace bench_winograd {

using namespace tensorir;

struct Layer {
  int c, h;
};

// W [K][C][3][3] packed as [K/16][C/16][3][3][16][16].
inline NDArray pack_weight(const NDArray &w, int c) {
  NDArray p = NDArray::empty({c / 16, c / 16, 3, 3, 16, 16}, Float(32));
  const float *src = w.data_as<float>();
  float *dst = p.data_as<float>();
  for (int k = 0; k < c; ++k)
    for (int i = 0; i < c; ++i)
      for (int r = 0; r < 9; ++r)
        dst[((((k / 16) * (c / 16) + i / 16) * 9 + r) * 16 + i % 16) * 16 + k % 16] = src[(k * c + i) * 9 + r];
  return p;
}

// G g G^T once, on the host.
inline NDArray transform_weight(const NDArray &w, int m) {
  Tensor W = placeholder({w.shape()[0], w.shape()[1], 3, 3}, Float(32), "W");
  Tensor U = ops::winograd_weight_transform(W, m);
  const int64_t b = ops::winograd_panel(w.shape()[0]);
  NDArray u = NDArray::empty({m + 2, m + 2, w.shape()[0] / b, w.shape()[1], b}, Float(32));
  build(ops::schedule_generic({U}), {W, U}, "llvm", "transform")("transform")(w, u);
  return u;
}

// Returns false when a Winograd result strays from the direct one by more than 1e-4.
inline bool run_layers(const bench::Options &opt) {
  const std::vector<Layer> layers = {{64, 56}, {128, 28}, {256, 14}, {512, 7}};
  bench::Table table({"threads", "layer", "impl", "median ms", "GF/s", "x direct", "max rel err"});
  bool ok = true;
  for (const Layer &l : layers) {
    const std::string name = std::to_string(l.c) + "@" + std::to_string(l.h);
    const double flops = 2.0 * l.c * l.c * 9 * l.h * l.h;
    const std::vector<int64_t> blocked = {1, l.c / 16, l.h, l.h, 16};
    const NDArray x = NDArray::random(blocked, Float(32), 21);
    const NDArray w = NDArray::random({l.c, l.c, 3, 3}, Float(32), 22, -0.1, 0.1);
    Tensor D = placeholder({1, l.c / 16, l.h, l.h, 16}, Float(32), "D");

    struct Impl {
      std::string name;
      Function f;
      NDArray weight, out;
    };
    std::vector<Impl> impls;
    {
      Tensor WP = placeholder({l.c / 16, l.c / 16, 3, 3, 16, 16}, Float(32), "WP");
      ops::Conv2dAttrs a;
      a.padding = {1, 1};
      Tensor y = ops::conv2d_nchwc_packed(D, WP, a, true, "direct");
      Module m = build(ops::schedule_conv2d_llvm(y, Target("llvm")), {D, WP, y}, "llvm", "direct");
      impls.push_back({"direct", m("direct"), pack_weight(w, l.c), NDArray::empty(blocked, Float(32))});
    }
    for (int m : {2, 4, 6}) {
      const int b = ops::winograd_panel(l.c);
      Tensor U = placeholder({m + 2, m + 2, l.c / b, l.c, b}, Float(32), "U");
      Tensor y = ops::conv2d_winograd(D, U, {1, 1}, m, 16, "winograd");
      Module mod = build(ops::schedule_conv2d_winograd_llvm(y, y), {D, U, y}, "llvm", "winograd");
      impls.push_back({"winograd m=" + std::to_string(m), mod("winograd"), transform_weight(w, m),
                       NDArray::empty(blocked, Float(32))});
    }
    for (int threads : {1, 2}) {
      set_num_threads(threads);
      std::vector<std::function<void()>> engines;
      for (Impl &i : impls) engines.push_back([&i, &x] { i.f(x, i.weight, i.out); });
      const std::vector<bench::Timing> t = bench::interleaved_medians(engines, opt.quick ? 2 : 4, opt.quick ? 3 : 8);
      const size_t n = size_t(l.c) * l.h * l.h;
      for (size_t i = 0; i < impls.size(); ++i) {
        const double err =
            bench::max_rel_error(impls[i].out.data_as<float>(), impls[0].out.data_as<float>(), n);
        ok = ok && err < 1e-4;
        const double g = bench::gflops(flops, t[i].wall_ms);
        if (opt.json)
          bench::print_json("conv", "3x3_" + name, "tensorir-" + impls[i].name, threads, t[i].wall_ms, g,
                            {{"ratio_direct", bench::json_num(t[0].wall_ms / t[i].wall_ms)},
                             {"max_rel_err", bench::json_num(err)}});
        else
          table.add({std::to_string(threads), name, impls[i].name, bench::fmt(t[i].wall_ms, 3), bench::fmt(g),
                     bench::fmt(t[0].wall_ms / t[i].wall_ms, 2), bench::fmt_sci(err)});
      }
    }
  }
  if (!opt.json) {
    std::printf("\nResNet-18's 3x3 stride-1 layers, NCHW16c in and out, weights prepared beforehand; GF/s of the\n"
                "direct convolution's FLOPs; error: max |winograd - direct| / max |direct|\n");
    table.print();
  }
  return ok;
}

}  // namespace bench_winograd
