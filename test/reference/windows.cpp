#include "reference/windows.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <stdexcept>

namespace tensorir::reference {

namespace {

// Calls fn with every index of a tensor of `extents`, in row-major order.
void for_each_index(const std::vector<int64_t> &extents, const std::function<void(const std::vector<int64_t> &)> &fn) {
  for (int64_t e : extents)
    if (e <= 0) return;
  std::vector<int64_t> i(extents.size(), 0);
  while (true) {
    fn(i);
    size_t d = extents.size();
    while (d > 0 && ++i[d - 1] == extents[d - 1]) i[--d] = 0;
    if (d == 0) return;
  }
}

int64_t row_major(const std::vector<int64_t> &idx, const std::vector<int64_t> &shape) {
  int64_t flat = 0;
  for (size_t d = 0; d < shape.size(); ++d) flat = flat * shape[d] + idx[d];
  return flat;
}

int64_t count(const std::vector<int64_t> &shape) {
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
  return n;
}

size_t spatial_rank(const std::vector<int64_t> &xs, const WindowParams &p) {
  const size_t k = xs.size() - 2;
  if (p.strides.size() != k || p.dilation.size() != k || p.pads.size() != 2 * k)
    throw std::invalid_argument("window parameters do not fit the input's rank");
  return k;
}

}  // namespace

std::vector<double> conv_nd(const std::vector<float> &x, const std::vector<int64_t> &xs, const std::vector<float> &w,
                            const std::vector<int64_t> &ws, const WindowParams &p, std::vector<int64_t> *shape) {
  const size_t k = spatial_rank(xs, p);
  const int64_t cin_g = xs[1] / p.groups, cout_g = ws[0] / p.groups;
  *shape = {xs[0], ws[0]};
  for (size_t i = 0; i < k; ++i)
    shape->push_back((xs[2 + i] + p.pads[i] + p.pads[k + i] - (ws[2 + i] - 1) * p.dilation[i] - 1) / p.strides[i] + 1);
  std::vector<double> out(size_t(count(*shape)), 0.0);
  const std::vector<int64_t> kernel(ws.begin() + 2, ws.end());
  for_each_index(*shape, [&](const std::vector<int64_t> &o) {
    double acc = 0;
    for (int64_t c = 0; c < cin_g; ++c)
      for_each_index(kernel, [&](const std::vector<int64_t> &r) {
        std::vector<int64_t> xi = {o[0], o[1] / cout_g * cin_g + c}, wi = {o[1], c};
        for (size_t i = 0; i < k; ++i) {
          const int64_t pos = o[2 + i] * p.strides[i] - p.pads[i] + r[i] * p.dilation[i];
          if (pos < 0 || pos >= xs[2 + i]) return;
          xi.push_back(pos);
          wi.push_back(r[i]);
        }
        acc += double(x[size_t(row_major(xi, xs))]) * w[size_t(row_major(wi, ws))];
      });
    out[size_t(row_major(o, *shape))] = acc;
  });
  return out;
}

std::vector<double> conv_transpose_nd(const std::vector<float> &x, const std::vector<int64_t> &xs,
                                      const std::vector<float> &w, const std::vector<int64_t> &ws,
                                      const WindowParams &p, std::vector<int64_t> *shape) {
  const size_t k = spatial_rank(xs, p);
  const std::vector<int64_t> op = p.output_padding.empty() ? std::vector<int64_t>(k, 0) : p.output_padding;
  const int64_t cin_g = xs[1] / p.groups, cout_g = ws[1];
  *shape = {xs[0], cout_g * p.groups};
  for (size_t i = 0; i < k; ++i)
    shape->push_back(p.strides[i] * (xs[2 + i] - 1) + op[i] + (ws[2 + i] - 1) * p.dilation[i] + 1 - p.pads[i] -
                     p.pads[k + i]);
  std::vector<double> out(size_t(count(*shape)), 0.0);
  const std::vector<int64_t> kernel(ws.begin() + 2, ws.end());
  for_each_index(xs, [&](const std::vector<int64_t> &xi) {
    for (int64_t m = 0; m < cout_g; ++m)
      for_each_index(kernel, [&](const std::vector<int64_t> &r) {
        std::vector<int64_t> oi = {xi[0], xi[1] / cin_g * cout_g + m}, wi = {xi[1], m};
        for (size_t i = 0; i < k; ++i) {
          const int64_t pos = xi[2 + i] * p.strides[i] + r[i] * p.dilation[i] - p.pads[i];
          if (pos < 0 || pos >= (*shape)[2 + i]) return;
          oi.push_back(pos);
          wi.push_back(r[i]);
        }
        out[size_t(row_major(oi, *shape))] += double(x[size_t(row_major(xi, xs))]) * w[size_t(row_major(wi, ws))];
      });
  });
  return out;
}

PoolResult pool_nd(const std::vector<float> &x, const std::vector<int64_t> &xs, const PoolParams &p) {
  const WindowParams &win = p.window;
  const size_t k = spatial_rank(xs, win);
  PoolResult res;
  res.shape = {xs[0], xs[1]};
  for (size_t i = 0; i < k; ++i) {
    const int64_t room = xs[2 + i] + win.pads[i] + win.pads[k + i] - (p.kernel[i] - 1) * win.dilation[i] - 1;
    int64_t o = room / win.strides[i] + 1;
    if (p.ceil_mode && room % win.strides[i] != 0 && o * win.strides[i] - win.pads[i] < xs[2 + i]) ++o;
    res.shape.push_back(o);
  }
  for_each_index(res.shape, [&](const std::vector<int64_t> &o) {
    double acc = p.kind == PoolParams::kMax ? -std::numeric_limits<double>::infinity() : 0.0;
    int64_t best = -1, counted = 1;
    std::vector<int64_t> pos(k);
    for (size_t i = 0; i < k && p.count_include_pad; ++i) {
      // The window's extent inside the input and its explicit padding.
      const int64_t start = o[2 + i] * win.strides[i] - win.pads[i];
      const int64_t end = std::min(start + p.kernel[i], xs[2 + i] + win.pads[k + i]);
      counted *= end - start;
    }
    int64_t inside = 0;
    for_each_index(p.kernel, [&](const std::vector<int64_t> &r) {
      for (size_t i = 0; i < k; ++i) {
        pos[i] = o[2 + i] * win.strides[i] - win.pads[i] + r[i] * win.dilation[i];
        if (pos[i] < 0 || pos[i] >= xs[2 + i]) return;
      }
      std::vector<int64_t> xi = {o[0], o[1]};
      xi.insert(xi.end(), pos.begin(), pos.end());
      const double v = x[size_t(row_major(xi, xs))];
      ++inside;
      if (p.kind == PoolParams::kMax) {
        if (v > acc) {
          acc = v;
          int64_t spatial = 0, stride = 1;
          for (size_t i = 0; i < k; ++i) {
            spatial = p.storage_order ? spatial + pos[i] * stride : spatial * xs[2 + i] + pos[i];
            stride *= xs[2 + i];
          }
          best = (o[0] * xs[1] + o[1]) * stride + spatial;
        }
      } else {
        acc += p.kind == PoolParams::kLp ? std::pow(std::fabs(v), double(p.p)) : v;
      }
    });
    if (p.kind == PoolParams::kAvg) acc /= double(p.count_include_pad ? counted : inside);
    if (p.kind == PoolParams::kLp) acc = std::pow(acc, 1.0 / double(p.p));
    res.values.push_back(acc);
    if (p.kind == PoolParams::kMax) res.indices.push_back(best);
  });
  return res;
}

}  // namespace tensorir::reference
