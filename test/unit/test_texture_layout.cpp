// The texture layout of the fragment-shader path: every element has exactly one texel,
// rows are full but the last, and sizes past the device's limit are a clear error.
#include <catch2/catch.hpp>
#include <cstdint>
#include <vector>

#include "../../backends/glsl/fragment/texture_layout.h"
#include "tensorir/error.h"

#if TENSORIR_WITH_OPENGL  // the layout is part of the OpenGL backends

using tensorir::glsl::TextureLayout;
using tensorir::glsl::texture_layout;

namespace {

// The invariants every layout must keep.
void check_layout(const TextureLayout &l, int64_t n, int max_size) {
  INFO("n = " << n << ", max = " << max_size << ": " << l.width << " x " << l.height);
  CHECK(l.numel == n);
  if (n == 0) {
    CHECK(l.width == 0);
    CHECK(l.height == 0);
    return;
  }
  CHECK(l.width >= 1);
  CHECK(l.height >= 1);
  CHECK(l.width <= max_size);
  CHECK(l.height <= max_size);
  CHECK(l.texels() >= n);                          // every element has a texel
  CHECK(int64_t(l.width) * (l.height - 1) < n);     // and no row is wholly empty
  CHECK(l.full_rows() * l.width + l.last_row_elements() == n);
  CHECK(l.last_row_elements() < l.width);
  CHECK(l.full_rows() + (l.last_row_elements() > 0 ? 1 : 0) == l.height);
}

}  // namespace

TEST_CASE("texture layouts cover every element for many sizes", "[unit][texture_layout]") {
  for (int max_size : {1, 3, 64, 2048, 16384})
    for (int64_t n = 0; n <= 300; ++n) {
      if (n > int64_t(max_size) * max_size) continue;
      check_layout(texture_layout(n, max_size, "T"), n, max_size);
    }
  for (int64_t n : {4095, 4096, 4097, 65536, 99991, 1000003, 5000000, 16777216, 268435456})
    check_layout(texture_layout(n, 16384, "T"), n, 16384);
}

TEST_CASE("texture layouts are near square and prefer full rows", "[unit][texture_layout]") {
  TextureLayout l = texture_layout(5000000, 16384, "big");
  CHECK(l.width == 2500);  // the first divisor of 5,000,000 at or above its square root
  CHECK(l.height == 2000);
  CHECK(l.last_row_elements() == 0);

  l = texture_layout(65536, 16384, "square");
  CHECK(l.width == 256);
  CHECK(l.height == 256);

  l = texture_layout(7, 16384, "prime");  // no divisor in [3, 6]: a 3 x 3 square, 2 texels spare
  CHECK(l.width == 3);
  CHECK(l.height == 3);
  CHECK(l.last_row_elements() == 1);

  l = texture_layout(1, 16384, "one");
  CHECK(l.width == 1);
  CHECK(l.height == 1);

  // A narrow limit wraps a long tensor over many rows.
  l = texture_layout(5000000, 4096, "narrow");
  CHECK(l.width <= 4096);
  CHECK(l.height <= 4096);
  CHECK(l.texels() >= 5000000);
}

TEST_CASE("texture layouts past the device limit are an error naming the tensor", "[unit][texture_layout]") {
  CHECK_NOTHROW(texture_layout(16384LL * 16384, 16384, "T"));
  CHECK_THROWS_WITH(texture_layout(16384LL * 16384 + 1, 16384, "weights"),
                    Catch::Contains("weights") && Catch::Contains("16384 x 16384"));
  CHECK_THROWS_AS(texture_layout(10, 3, "T"), tensorir::Error);
  CHECK_THROWS_AS(texture_layout(-1, 16, "T"), tensorir::Error);
  CHECK_THROWS_AS(texture_layout(4, 0, "T"), tensorir::Error);
}

TEST_CASE("texture layouts by shape use trailing dimensions as rows when not too elongated",
          "[unit][texture_layout]") {
  using Shape = std::vector<int64_t>;
  TextureLayout l = texture_layout(Shape{1, 64, 56, 56}, 16384, "feature map");
  CHECK(l.width == 56 * 56);  // 3136 x 64 is squarer than 56 x 3584
  CHECK(l.height == 64);

  l = texture_layout(Shape{67, 45}, 16384, "matrix");
  CHECK(l.width == 45);
  CHECK(l.height == 67);

  l = texture_layout(Shape{64, 3, 3, 3}, 16384, "weights");
  CHECK(l.width == 27);
  CHECK(l.height == 64);

  // Too elongated either way: the near-square layout of the element count.
  for (const Shape &s : {Shape{5000000}, Shape{1, 5000000}, Shape{1000, 3}, Shape{4096, 1}}) {
    int64_t n = 1;
    for (int64_t d : s) n *= d;
    CHECK(texture_layout(s, 16384, "T") == texture_layout(n, 16384, "T"));
  }
  // Rows wider than the device allows are not an option.
  l = texture_layout(Shape{2, 20000}, 16384, "wide");
  CHECK(l.width <= 16384);
  check_layout(l, 40000, 16384);

  // Scalars and empty tensors.
  l = texture_layout(Shape{}, 16384, "scalar");
  CHECK(l.width == 1);
  CHECK(l.height == 1);
  check_layout(texture_layout(Shape{3, 0, 5}, 16384, "empty"), 0, 16384);
  CHECK_THROWS_WITH(texture_layout(Shape{4, -1}, 16384, "bad"), Catch::Contains("bad"));
}

TEST_CASE("texture layouts by shape keep the invariants for many shapes", "[unit][texture_layout]") {
  for (int64_t a : {1, 2, 3, 7, 16, 63, 64, 65, 300})
    for (int64_t b : {1, 2, 5, 8, 64, 100, 1000})
      for (int64_t c : {1, 3, 17}) {
        std::vector<int64_t> s = {a, b, c};
        if (a * b * c > 2048 * 2048) {
          CHECK_THROWS_AS(texture_layout(s, 2048, "T"), tensorir::Error);
          continue;
        }
        check_layout(texture_layout(s, 2048, "T"), a * b * c, 2048);
      }
}

TEST_CASE("packed layouts hold four elements per texel", "[unit][texture_layout]") {
  using Shape = std::vector<int64_t>;
  using tensorir::glsl::packed_texel_shape;
  using tensorir::glsl::packed_texture_layout;
  // A last dimension divisible by 4 keeps the shape, a quarter as long.
  CHECK(packed_texel_shape(Shape{512, 512}) == Shape{512, 128});
  CHECK(packed_texel_shape(Shape{1, 64, 56, 56}) == Shape{1, 64, 56, 14});
  // Otherwise the texels are flat: ceil(numel / 4) of them.
  CHECK(packed_texel_shape(Shape{3, 5}) == Shape{4});
  CHECK(packed_texel_shape(Shape{}) == Shape{1});
  CHECK(packed_texel_shape(Shape{0, 7}) == Shape{0});

  TextureLayout l = packed_texture_layout(Shape{512, 512}, 16384, "C");
  CHECK(l.width == 128);
  CHECK(l.height == 512);
  l = packed_texture_layout(Shape{1, 5000000}, 16384, "big");
  CHECK(l.numel == 1250000);
  check_layout(l, 1250000, 16384);
  // The texel count, not the element count, meets the device limit.
  CHECK_NOTHROW(packed_texture_layout(Shape{4 * 4096LL * 4096}, 4096, "T"));
  CHECK_THROWS_WITH(packed_texture_layout(Shape{4 * 4096LL * 4096 + 4}, 4096, "T"), Catch::Contains("4096 x 4096"));
}

#endif  // TENSORIR_WITH_OPENGL
