// ResNet-18 layers on Eigen: im2col + GEMM convolution and the simple per-element layers.
#include "reference/resnet18_reference.h"

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

FeatureMap conv2d(const FeatureMap &x, const NamedTensor &weight, int64_t stride, int64_t pad) {
  require(weight.shape.size() == 4 && weight.shape[2] == weight.shape[3],
          "conv2d: weight '" + weight.name + "' must be [Cout, Cin, K, K]");
  require(weight.shape[1] == x.c, "conv2d: weight '" + weight.name + "' expects " + std::to_string(weight.shape[1]) +
                                      " input channels, got " + std::to_string(x.c));
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
  ConstRowMap w(weight.data.data(), cout, x.c * k * k);
  RowMap out(y.data.data(), cout, y.h * y.w);
  out.noalias() = w * col;
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

FeatureMap basic_block(const FeatureMap &x, const std::vector<NamedTensor> &weights, const std::string &prefix,
                       int64_t stride) {
  FeatureMap y = conv2d(x, find_tensor(weights, prefix + ".conv1.weight"), stride, 1);
  y = relu(batch_norm(y, weights, prefix + ".bn1"));
  y = conv2d(y, find_tensor(weights, prefix + ".conv2.weight"), 1, 1);
  y = batch_norm(y, weights, prefix + ".bn2");
  FeatureMap shortcut = x;
  const std::string projection = prefix + ".downsample.0.weight";
  const bool projects =
      std::any_of(weights.begin(), weights.end(), [&](const NamedTensor &t) { return t.name == projection; });
  if (projects)
    shortcut = batch_norm(conv2d(x, find_tensor(weights, projection), stride, 0), weights, prefix + ".downsample.1");
  require(shortcut.data.size() == y.data.size(),
          "basic_block: '" + prefix + "' shortcut shape differs from the residual");
  for (size_t i = 0; i < y.data.size(); ++i) y.data[i] += shortcut.data[i];
  return relu(std::move(y));
}

std::vector<float> resnet18_forward(const std::vector<NamedTensor> &weights, const std::vector<float> &input) {
  require(input.size() == size_t(3 * 224 * 224), "resnet18_forward: input must be 1x3x224x224 (150528 floats)");
  FeatureMap x{3, 224, 224, input};
  x = conv2d(x, find_tensor(weights, "conv1.weight"), 2, 3);
  x = relu(batch_norm(x, weights, "bn1"));
  x = max_pool2d(x, 3, 2, 1);
  for (int layer = 1; layer <= 4; ++layer)
    for (int block = 0; block < 2; ++block) {
      const int64_t stride = (layer > 1 && block == 0) ? 2 : 1;
      x = basic_block(x, weights, "layer" + std::to_string(layer) + "." + std::to_string(block), stride);
    }
  return linear(global_avg_pool(x), find_tensor(weights, "fc.weight"), find_tensor(weights, "fc.bias"));
}

}  // namespace tensorir::reference
