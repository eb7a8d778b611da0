// The reference layers on Eigen: im2col + GEMM convolution and the simple per-element layers.
#include "reference/layers.h"

#include <Eigen/Core>
#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>

namespace tensorir::reference {

namespace {

using RowMatrix = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
using ConstRowMap = Eigen::Map<const RowMatrix>;
using RowMap = Eigen::Map<RowMatrix>;

void require(bool ok, const std::string &message) {
  if (!ok) throw std::invalid_argument(message);
}

int64_t out_extent(int64_t in, int64_t kernel, int64_t stride, int64_t pad) {
  return (in + 2 * pad - kernel) / stride + 1;
}

// Rows are (ci, kh, kw) in the weight's order, columns are output pixels (oy, ox); padded taps are 0.
RowMatrix im2col(const FeatureMap &x, int64_t k, int64_t stride, int64_t pad, int64_t oh, int64_t ow) {
  RowMatrix col(x.c * k * k, oh * ow);
  for (int64_t ci = 0; ci < x.c; ++ci)
    for (int64_t ky = 0; ky < k; ++ky)
      for (int64_t kx = 0; kx < k; ++kx) {
        float *row = col.data() + ((ci * k + ky) * k + kx) * oh * ow;
        for (int64_t oy = 0; oy < oh; ++oy) {
          const int64_t iy = oy * stride - pad + ky;
          for (int64_t ox = 0; ox < ow; ++ox) {
            const int64_t ix = ox * stride - pad + kx;
            const bool inside = iy >= 0 && iy < x.h && ix >= 0 && ix < x.w;
            row[oy * ow + ox] = inside ? x.data[size_t((ci * x.h + iy) * x.w + ix)] : 0.0f;
          }
        }
      }
  return col;
}

}  // namespace

FeatureMap conv2d(const FeatureMap &x, const NamedTensor &weight, int64_t stride, int64_t pad, int64_t groups) {
  require(weight.shape.size() == 4 && weight.shape[2] == weight.shape[3],
          "conv2d: weight '" + weight.name + "' must be [Cout, Cin / groups, K, K]");
  require(groups >= 1 && x.c % groups == 0 && weight.shape[0] % groups == 0,
          "conv2d: groups " + std::to_string(groups) + " must divide the input and output channels of '" +
              weight.name + "'");
  require(weight.shape[1] * groups == x.c, "conv2d: weight '" + weight.name + "' expects " +
                                               std::to_string(weight.shape[1] * groups) + " input channels, got " +
                                               std::to_string(x.c));
  require(int64_t(weight.data.size()) == numel(weight.shape), "conv2d: weight '" + weight.name + "' data size");
  require(int64_t(x.data.size()) == x.c * x.h * x.w, "conv2d: feature map data size does not match c*h*w");
  const int64_t cout = weight.shape[0], k = weight.shape[2];
  FeatureMap y;
  y.c = cout;
  y.h = out_extent(x.h, k, stride, pad);
  y.w = out_extent(x.w, k, stride, pad);
  require(y.h > 0 && y.w > 0, "conv2d: input smaller than the kernel for '" + weight.name + "'");
  y.data.resize(size_t(cout * y.h * y.w));
  const RowMatrix col = im2col(x, k, stride, pad, y.h, y.w);
  const int64_t taps = weight.shape[1] * k * k;  // one group's im2col rows
  ConstRowMap w(weight.data.data(), cout, taps);
  RowMap out(y.data.data(), cout, y.h * y.w);
  if (groups == 1) {
    out.noalias() = w * col;
    return y;
  }
  // im2col rows are (ci, kh, kw), so group g's rows are one contiguous band of `col`.
  const int64_t per_group = cout / groups;
  for (int64_t g = 0; g < groups; ++g)
    out.middleRows(g * per_group, per_group).noalias() =
        w.middleRows(g * per_group, per_group) * col.middleRows(g * taps, taps);
  return y;
}

FeatureMap batch_norm(const FeatureMap &x, const std::vector<NamedTensor> &weights, const std::string &prefix,
                      float eps) {
  const NamedTensor &gamma = find_tensor(weights, prefix + ".weight");
  const NamedTensor &beta = find_tensor(weights, prefix + ".bias");
  const NamedTensor &mean = find_tensor(weights, prefix + ".running_mean");
  const NamedTensor &var = find_tensor(weights, prefix + ".running_var");
  for (const NamedTensor *t : {&gamma, &beta, &mean, &var})
    require(int64_t(t->data.size()) == x.c, "batch_norm: '" + t->name + "' must have one value per channel");
  FeatureMap y = x;
  const int64_t plane = x.h * x.w;
  for (int64_t c = 0; c < x.c; ++c) {
    // Folded into one multiply-add per element, as inference kernels do.
    const float scale = gamma.data[size_t(c)] / std::sqrt(var.data[size_t(c)] + eps);
    const float shift = beta.data[size_t(c)] - mean.data[size_t(c)] * scale;
    float *p = y.data.data() + c * plane;
    for (int64_t i = 0; i < plane; ++i) p[i] = p[i] * scale + shift;
  }
  return y;
}

FeatureMap relu(FeatureMap x) {
  for (float &v : x.data) v = std::max(v, 0.0f);
  return x;
}

FeatureMap relu6(FeatureMap x) {
  for (float &v : x.data) v = std::min(std::max(v, 0.0f), 6.0f);
  return x;
}

FeatureMap add(FeatureMap a, const FeatureMap &b) {
  require(a.c == b.c && a.h == b.h && a.w == b.w && a.data.size() == b.data.size(),
          "add: the two feature maps differ in shape");
  for (size_t i = 0; i < a.data.size(); ++i) a.data[i] += b.data[i];
  return a;
}

FeatureMap max_pool2d(const FeatureMap &x, int64_t kernel, int64_t stride, int64_t pad) {
  FeatureMap y;
  y.c = x.c;
  y.h = out_extent(x.h, kernel, stride, pad);
  y.w = out_extent(x.w, kernel, stride, pad);
  require(y.h > 0 && y.w > 0, "max_pool2d: input smaller than the window");
  y.data.resize(size_t(y.c * y.h * y.w));
  for (int64_t c = 0; c < x.c; ++c)
    for (int64_t oy = 0; oy < y.h; ++oy)
      for (int64_t ox = 0; ox < y.w; ++ox) {
        float best = -std::numeric_limits<float>::infinity();
        for (int64_t ky = 0; ky < kernel; ++ky)
          for (int64_t kx = 0; kx < kernel; ++kx) {
            const int64_t iy = oy * stride - pad + ky, ix = ox * stride - pad + kx;
            if (iy >= 0 && iy < x.h && ix >= 0 && ix < x.w)
              best = std::max(best, x.data[size_t((c * x.h + iy) * x.w + ix)]);
          }
        y.data[size_t((c * y.h + oy) * y.w + ox)] = best;
      }
  return y;
}

std::vector<float> global_avg_pool(const FeatureMap &x) {
  require(x.h * x.w > 0, "global_avg_pool: empty feature map");
  ConstRowMap planes(x.data.data(), x.c, x.h * x.w);
  std::vector<float> means(size_t(x.c));
  Eigen::Map<Eigen::VectorXf>(means.data(), x.c) = planes.rowwise().mean();
  return means;
}

std::vector<float> linear(const std::vector<float> &x, const NamedTensor &weight, const NamedTensor &bias) {
  require(weight.shape.size() == 2 && weight.shape[1] == int64_t(x.size()),
          "linear: weight '" + weight.name + "' must be [out, " + std::to_string(x.size()) + "]");
  require(int64_t(bias.data.size()) == weight.shape[0],
          "linear: bias '" + bias.name + "' must have one value per output");
  const int64_t out = weight.shape[0], in = weight.shape[1];
  std::vector<float> y(static_cast<size_t>(out));
  Eigen::Map<Eigen::VectorXf> result(y.data(), out);
  ConstRowMap w(weight.data.data(), out, in);
  result.noalias() = w * Eigen::Map<const Eigen::VectorXf>(x.data(), in);
  result += Eigen::Map<const Eigen::VectorXf>(bias.data.data(), out);
  return y;
}

}  // namespace tensorir::reference
