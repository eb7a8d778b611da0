// The layout rule shared by the native runtime and, through exported layouts, the web one.
#include "backends/glsl/fragment/texture_layout.h"

#include <algorithm>
#include <cmath>

#include "tensorir/error.h"

namespace tensorir::glsl {

namespace {
// The smallest w with w * w >= n.
int64_t ceil_sqrt(int64_t n) {
  int64_t w = static_cast<int64_t>(std::sqrt(static_cast<double>(n)));
  while (w * w < n) ++w;
  while (w > 1 && (w - 1) * (w - 1) >= n) --w;
  return w;
}
}  // namespace

TextureLayout texture_layout(int64_t numel, int max_size, const std::string &what) {
  TIR_USER_CHECK(numel >= 0) << what << ": negative element count " << numel;
  TIR_USER_CHECK(max_size > 0) << what << ": the maximum texture size must be positive, got " << max_size;
  TextureLayout l;
  l.numel = numel;
  if (numel == 0) return l;
  const int64_t max = max_size;
  TIR_USER_CHECK(numel <= max * max)
      << what << " needs " << numel << " texels, more than the " << max * max << " of the largest " << max << " x "
      << max << " texture allowed (the device's limit, or the target's -max-texture-size); raise that limit "
      << "where the device allows, or split the tensor into smaller ones";
  int64_t base = std::min(ceil_sqrt(numel), max);
  // Rows are full when the width divides the count; look for such a width up to twice
  // the square one (the texture stays within a 2:1 aspect ratio), else keep the square.
  int64_t width = base;
  for (int64_t w = base; w <= std::min(2 * base, max); ++w)
    if (numel % w == 0) {
      width = w;
      break;
    }
  l.width = static_cast<int>(width);
  l.height = static_cast<int>((numel + width - 1) / width);
  TIR_ASSERT(l.height <= max_size) << what << ": layout " << l.width << " x " << l.height;
  return l;
}

TextureLayout texture_layout(const std::vector<int64_t> &shape, int max_size, const std::string &what) {
  int64_t numel = 1;
  for (int64_t d : shape) {
    TIR_USER_CHECK(d >= 0) << what << ": negative dimension " << d;
    numel *= d;
  }
  TextureLayout fallback = texture_layout(numel, max_size, what);
  if (numel == 0) return fallback;
  const int64_t kMaxAspect = 64;
  int64_t best = 0, best_aspect = kMaxAspect + 1;
  int64_t p = 1;
  for (size_t d = shape.size(); d-- > 0;) {
    p *= shape[d];
    int64_t rows = numel / p;
    if (p > max_size) break;
    if (rows > max_size) continue;
    int64_t aspect = std::max(p, rows) / std::min(p, rows);
    if (aspect < best_aspect) {
      best = p;
      best_aspect = aspect;
    }
  }
  if (best == 0) return fallback;
  TextureLayout l;
  l.numel = numel;
  l.width = static_cast<int>(best);
  l.height = static_cast<int>(numel / best);
  return l;
}

std::vector<int64_t> packed_texel_shape(const std::vector<int64_t> &shape) {
  // The shortest run of trailing dimensions whose element count 4 divides becomes one
  // dimension of texels (a texel then never straddles two of the leading indices).
  int64_t p = 1;
  for (size_t d = shape.size(); d-- > 0;) {
    p *= shape[d];
    if (p % 4 == 0) {
      std::vector<int64_t> s(shape.begin(), shape.begin() + static_cast<long>(d));
      s.push_back(p / 4);
      return s;
    }
  }
  int64_t numel = 1;
  for (int64_t d : shape) numel *= d;
  return {(numel + 3) / 4};
}

TextureLayout packed_texture_layout(const std::vector<int64_t> &shape, int max_size, const std::string &what) {
  for (int64_t d : shape) TIR_USER_CHECK(d >= 0) << what << ": negative dimension " << d;
  return texture_layout(packed_texel_shape(shape), max_size, what);
}

TextureLayout phase_texture_layout(int64_t texels, int max_size, const std::string &what) {
  TIR_ASSERT(texels > 0) << what << ": " << texels << " texels";
  TextureLayout l;
  l.numel = texels;
  int64_t width = 16;
  while (width > max_size) width /= 2;  // a power of two: shaders split t with shifts
  while ((texels + width - 1) / width > max_size) width *= 2;
  TIR_USER_CHECK(width <= max_size) << what << " needs " << texels << " texels, more than a " << max_size
                                    << " x " << max_size << " texture holds";
  l.width = static_cast<int>(width);
  l.height = static_cast<int>((texels + width - 1) / width);
  return l;
}

}  // namespace tensorir::glsl
