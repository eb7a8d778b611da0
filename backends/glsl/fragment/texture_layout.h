// Where a tensor's elements sit in a 2D texture: the fragment-shader path stores every
// tensor, of any rank, flattened row-major into the texels of one single-channel texture.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace tensorir::glsl {

// Element i lives at texel (i % width, i / width). Every row but the last is full; the
// last holds last_row_elements() elements (all of it when the count divides evenly).
// For a packed tensor (below) the "elements" here are its texels.
struct TextureLayout {
  int64_t numel = 0;  // texels in use
  int width = 0;   // 0 for an empty tensor
  int height = 0;

  int64_t full_rows() const { return width ? numel / width : 0; }
  int last_row_elements() const { return width ? static_cast<int>(numel % width) : 0; }
  int64_t texels() const { return static_cast<int64_t>(width) * height; }
  bool operator==(const TextureLayout &o) const {
    return numel == o.numel && width == o.width && height == o.height;
  }
};

// A near-square layout (square blocks rasterise best) that prefers a width dividing
// `numel`, so that rows are full. Throws tensorir::Error naming `what` when the tensor
// needs more than max_size x max_size texels.
TextureLayout texture_layout(int64_t numel, int max_size, const std::string &what);

// The layout of a tensor of this shape: when the element count of some trailing
// dimensions makes a texture no more elongated than 64:1, that count is the width (a
// row is then one trailing sub-tensor and shaders address texels without division);
// otherwise texture_layout(numel, ...). The most square such choice wins.
TextureLayout texture_layout(const std::vector<int64_t> &shape, int max_size, const std::string &what);

// Packed tensors (what the passes compute) hold four consecutive elements per RGBA
// texel: element e is channel e % 4 of texel e / 4. Their texels are laid out as a
// tensor of this shape: the shortest run of trailing dimensions whose element count
// 4 divides, merged into one dimension a quarter as long (a texel then never straddles
// two values of the leading indices), else ceil(numel / 4) flat.
std::vector<int64_t> packed_texel_shape(const std::vector<int64_t> &shape);
TextureLayout packed_texture_layout(const std::vector<int64_t> &shape, int max_size, const std::string &what);

// The texture of a phase tensor (FragmentTensor::phases) of `texels` texels: flat, at
// (t % width, t / width), narrow (16 texels wide, or a wider power of two where max_size
// needs it), so that the pass computing it spreads over several of the rasteriser's
// tiles (64 x 64 on llvmpipe, one thread each) and fills its 4 x 4 blocks of fragments.
TextureLayout phase_texture_layout(int64_t texels, int max_size, const std::string &what);

}  // namespace tensorir::glsl
