// SGEMM for the CPU as a tunable schedule template.
#pragma once
#include "tensorir/target.h"
#include "tensorir/te/schedule.h"
#include "tensorir/te/tensor.h"

namespace tensorir::autotune {
class Config;
}

namespace tensorir::ops {

// C = A x B (A [M, K], B [K, N], row-major) as its own compute: B packed into panels of
// columns inside the call (zero-padded when the panel width does not divide N), a
// register block of rows x the panel's vectors kept in registers across the reduction,
// which is unrolled. Knobs (autotune/config.h): "tile_x" panel width (16-64 columns; by
// default down to one vector where N asks for it), "tile_y" rows per register block,
// "unroll_k", "parallel_rows" (0: panels in parallel, each packed by the thread that uses
// it; 1: panels x row blocks in parallel, B packed first), "tile_k", "pack_b", and where
// the target has prefetch instructions "prefetch_b". The defaults fit the register block
// to `target`'s vector registers ("llvm", this machine, without one): 6 rows x 64 columns
// with AVX-512 (the fastest at 512-2048 on an AVX-512 Xeon), 6 x 16 with AVX2, 6 x 8 on
// 128-bit SIMD; k unrolled by 8, panels in parallel.
struct MatmulKernel {
  Schedule schedule;
  Tensor out;
};
MatmulKernel matmul_llvm(const Tensor &a, const Tensor &b, autotune::Config *config = nullptr);
MatmulKernel matmul_llvm(const Tensor &a, const Tensor &b, autotune::Config *config, const Target &target);

}  // namespace tensorir::ops
