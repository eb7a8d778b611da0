// Work-group sizing and the register tiling shared by the GPU compute schedules.
#include "schedule_gpu_util.h"

#include <algorithm>

namespace tensorir::ops::gpu {

int group_limit(const Target &target) {
  const int limit = target.caps().max_work_group_size;
  return limit > 0 ? std::min(limit, 256) : 256;
}

int vector_lanes(const Target &target) { return target.caps().work_item_vector_lanes; }

int64_t divisor_at_most(int64_t n, int64_t cap) {
  for (int64_t d = std::min(n, cap); d > 1; --d)
    if (n % d == 0) return d;
  return 1;
}

int64_t first_divisor(int64_t n, std::initializer_list<int64_t> candidates) {
  for (int64_t c : candidates)
    if (n % c == 0) return c;
  return 1;
}

void inline_others(Schedule &s, const std::vector<Tensor> &keep) {
  for (const Stage &st : s.stages()) {
    const auto *c = st.op().as<ComputeOpNode>();
    const bool kept = std::any_of(keep.begin(), keep.end(), [&](const Tensor &t) { return st.op().same_as(t.op()); });
    if (c && c->reduce_axis.empty() && !kept) Stage(st).compute_inline();
  }
}

int64_t vector_dividing(int64_t n, int64_t lanes) {
  while (lanes >= 4 && n % lanes != 0) lanes /= 2;
  return lanes >= 4 ? lanes : 0;
}

IterVar bind_groups(Stage st, const IterVar &axis, int64_t threads) {
  if (threads <= 1) {
    st.bind(axis, thread_axis("blockIdx.x"));
    return axis;
  }
  auto [b, x] = st.split(axis, static_cast<int>(threads));
  st.bind(b, thread_axis("blockIdx.x"));
  st.bind(x, thread_axis("threadIdx.x"));
  return x;
}

IterVar bind_flat(Schedule &s, const Tensor &t, int64_t threads) {
  Stage o = s[t];
  IterVar all = t.axis(0);
  for (int i = 1; i < t.ndim(); ++i) all = o.fuse(all, t.axis(i));
  return bind_groups(o, all, threads);
}

Tensor tile_into_registers(Schedule &s, const Tensor &op, const Tensor &out, const std::vector<AxisTile> &tiles) {
  const bool fused = !(op == out);
  Tensor acc = s.cache_write(op, "local");
  if (fused) s[op].compute_inline();
  Stage o = s[out];
  std::vector<IterVar> blocks, threads, regs, vectors;
  for (size_t i = 0; i < tiles.size(); ++i) {
    IterVar axis = out.axis(static_cast<int>(i));
    TIR_ASSERT(tiles[i].vector == 1 || (i + 1 == tiles.size() && tiles[i].reg % tiles[i].vector == 0))
        << "a vector tile must divide the last axis' register tile";
    if (tiles[i].reg > 1) {
      auto [outer, inner] = o.split(axis, static_cast<int>(tiles[i].reg));
      if (tiles[i].vector > 1) {
        auto [lanes_outer, lanes] = o.split(inner, static_cast<int>(tiles[i].vector));
        vectors.push_back(lanes);
        inner = lanes_outer;
      }
      regs.push_back(inner);
      axis = outer;
    }
    if (tiles[i].threads > 1) {
      auto [outer, inner] = o.split(axis, static_cast<int>(tiles[i].threads));
      threads.push_back(inner);
      axis = outer;
    }
    blocks.push_back(axis);
  }
  std::vector<IterVar> order = blocks;
  order.insert(order.end(), threads.begin(), threads.end());
  order.insert(order.end(), regs.begin(), regs.end());
  order.insert(order.end(), vectors.begin(), vectors.end());
  o.reorder(order);
  // The last block axis runs over blockIdx.x, the one before over y, all others over z.
  static const char *kBlock[] = {"blockIdx.x", "blockIdx.y", "blockIdx.z"};
  static const char *kThread[] = {"threadIdx.x", "threadIdx.y", "threadIdx.z"};
  IterVar z = blocks.front();
  for (size_t i = 1; i + 2 < blocks.size(); ++i) z = o.fuse(z, blocks[i]);
  std::vector<IterVar> bound = blocks.size() > 2 ? std::vector<IterVar>{z, blocks[blocks.size() - 2], blocks.back()}
                                                 : blocks;
  for (size_t i = 0; i < bound.size(); ++i) o.bind(bound[bound.size() - 1 - i], thread_axis(kBlock[i]));
  TIR_USER_CHECK(threads.size() <= 3) << "a GPU schedule of " << out.name() << " binds " << threads.size()
                                      << " axes to threads; a work-group has 3 dimensions";
  for (size_t i = 0; i < threads.size(); ++i) o.bind(threads[threads.size() - 1 - i], thread_axis(kThread[i]));
  for (const IterVar &r : regs) o.unroll(r);
  for (const IterVar &v : vectors) o.vectorize(v);

  Stage a = s[acc];
  a.compute_at(o, threads.empty() ? blocks.back() : threads.back());
  const auto *ac = acc.op().as<ComputeOpNode>();
  std::vector<IterVar> acc_order(ac->reduce_axis.begin(), ac->reduce_axis.end());
  for (int i = 0; i < acc.ndim(); ++i) acc_order.push_back(acc.axis(i));
  a.reorder(acc_order);
  for (int i = 0; i < acc.ndim(); ++i) {
    const int64_t lanes = tiles[size_t(i)].vector;
    if (lanes == 1) {
      a.unroll(acc.axis(i));
      continue;
    }
    auto [outer, inner] = a.split(acc.axis(i), static_cast<int>(lanes));
    a.unroll(outer);
    a.vectorize(inner);
  }
  return acc;
}

}  // namespace tensorir::ops::gpu
