// layout_transform: moves a tensor between layouts such as NCHW, NCHW16c and OIHW8i16o.
#include <cctype>
#include <map>

#include "op_util.h"
#include "tensorir/ops/transform.h"

namespace tensorir::ops {

using namespace detail;

namespace {

// One dimension of a layout: the axis letter (upper case) and, for a block of an axis,
// the block size (0 for the outer or whole axis).
struct LayoutDim {
  char axis;
  int64_t block;
};

std::vector<LayoutDim> parse_layout(const std::string &layout, const std::string &what) {
  std::vector<LayoutDim> dims;
  std::map<char, int> outer, inner;  // how often each axis appears
  for (size_t i = 0; i < layout.size();) {
    const char c = layout[i];
    if (std::isupper(static_cast<unsigned char>(c))) {
      dims.push_back({c, 0});
      TIR_USER_CHECK(++outer[c] == 1) << "layout_transform: " << what << " layout '" << layout << "' names axis "
                                      << c << " twice";
      ++i;
      continue;
    }
    size_t end = i;
    while (end < layout.size() && std::isdigit(static_cast<unsigned char>(layout[end]))) ++end;
    TIR_USER_CHECK(end > i && end < layout.size() && std::islower(static_cast<unsigned char>(layout[end])))
        << "layout_transform: " << what << " layout '" << layout
        << "' is malformed at position " << i << "; write axes as upper-case letters and blocks as a size and "
        << "the lower-case letter, e.g. NCHW16c";
    TIR_USER_CHECK(end - i <= 9) << "layout_transform: " << what << " layout '" << layout << "' has a block of "
                                 << layout.substr(i, end - i) << ", larger than any tensor's dimension";
    const int64_t block = std::stoll(layout.substr(i, end - i));
    const char axis = static_cast<char>(std::toupper(static_cast<unsigned char>(layout[end])));
    TIR_USER_CHECK(block > 0) << "layout_transform: " << what << " layout '" << layout << "' has a block of size 0";
    TIR_USER_CHECK(++inner[axis] == 1) << "layout_transform: " << what << " layout '" << layout
                                       << "' blocks axis " << axis << " twice";
    dims.push_back({axis, block});
    i = end + 1;
  }
  for (const auto &[axis, n] : inner)
    TIR_USER_CHECK(outer.count(axis)) << "layout_transform: " << what << " layout '" << layout << "' has a block of "
                                      << axis << " but no axis " << axis;
  return dims;
}

// The block size of `axis` in `dims`, 0 when it is not blocked.
int64_t block_of(const std::vector<LayoutDim> &dims, char axis) {
  for (const LayoutDim &d : dims)
    if (d.axis == axis && d.block) return d.block;
  return 0;
}

// Both transforms; with `pad`, an axis that a block of the target does not divide grows
// to whole blocks, the new elements zero.
Tensor transform(const Tensor &x, const std::string &src_layout, const std::string &dst_layout,
                 const std::string &name, bool pad) {
  const std::vector<int64_t> in = const_shape(x, "layout_transform");
  const std::vector<LayoutDim> src = parse_layout(src_layout, "source"), dst = parse_layout(dst_layout, "target");
  TIR_USER_CHECK(src.size() == in.size()) << "layout_transform: tensor " << x.name() << " " << shape_str(in)
                                          << " has " << in.size() << " dimensions but layout '" << src_layout
                                          << "' has " << src.size();
  // The whole extent of every axis of the source.
  std::map<char, int64_t> extent;
  for (size_t i = 0; i < src.size(); ++i) {
    const LayoutDim &d = src[i];
    if (d.block) {
      TIR_USER_CHECK(in[i] == d.block) << "layout_transform: dimension " << i << " of " << x.name() << " "
                                       << shape_str(in) << " is " << in[i] << " but layout '" << src_layout
                                       << "' makes it a block of " << d.block;
      continue;
    }
    const int64_t b = block_of(src, d.axis);
    extent[d.axis] = in[i] * (b ? b : 1);
  }
  // Axes only in the target have extent 1; axes only in the source must have extent 1.
  for (const LayoutDim &d : dst)
    if (!d.block && !extent.count(d.axis)) extent[d.axis] = 1;
  for (const LayoutDim &d : src)
    if (!d.block && !block_of(dst, d.axis)) {
      bool kept = false;
      for (const LayoutDim &e : dst) kept |= e.axis == d.axis;
      TIR_USER_CHECK(kept || extent[d.axis] == 1)
          << "layout_transform of " << x.name() << " from '" << src_layout << "' to '" << dst_layout << "': axis "
          << d.axis << " has extent " << extent[d.axis] << " and the target layout has no place for it";
    }
  // Axes padded to whole blocks: their extent in x, before padding.
  std::map<char, int64_t> padded;
  if (pad)
    for (const LayoutDim &d : dst)
      if (d.block && extent.count(d.axis) && extent[d.axis] % d.block) {
        padded[d.axis] = extent[d.axis];
        extent[d.axis] = (extent[d.axis] + d.block - 1) / d.block * d.block;
      }
  std::vector<int64_t> out;
  for (const LayoutDim &d : dst) {
    const int64_t b = block_of(dst, d.axis);
    if (d.block) {
      out.push_back(d.block);
      continue;
    }
    TIR_USER_CHECK(!b || extent[d.axis] % b == 0)
        << "layout_transform of " << x.name() << " " << shape_str(in) << " to '" << dst_layout << "': axis "
        << d.axis << " of extent " << extent[d.axis] << " does not split into blocks of " << b;
    out.push_back(b ? extent[d.axis] / b : extent[d.axis]);
  }
  return compute(
      to_exprs(out),
      [&](const std::vector<Var> &v) {
        // The whole index of each axis, from the target's outer and inner parts.
        std::map<char, Expr> whole;
        for (size_t i = 0; i < dst.size(); ++i) {
          const LayoutDim &d = dst[i];
          if (d.block) continue;
          const int64_t b = block_of(dst, d.axis);
          Expr e = v[i];
          if (b)
            for (size_t j = 0; j < dst.size(); ++j)
              if (dst[j].axis == d.axis && dst[j].block) e = e * static_cast<int>(b) + v[j];
          whole[d.axis] = e;
        }
        // Past the end of a padded axis: read its last element and select zero instead.
        Expr inside;
        for (const auto &[axis, n] : padded) {
          Expr ok = whole[axis] < static_cast<int>(n);
          inside = inside.defined() ? (inside && ok) : ok;
          whole[axis] = min(whole[axis], Expr(static_cast<int>(n - 1)));
        }
        std::vector<Expr> idx;
        for (const LayoutDim &d : src) {
          auto it = whole.find(d.axis);
          Expr e = it == whole.end() ? Expr(0) : it->second;
          const int64_t b = block_of(src, d.axis);
          if (b) e = d.block ? e % static_cast<int>(b) : e / static_cast<int>(b);
          idx.push_back(e);
        }
        if (!inside.defined()) return x(idx);
        return select(inside, x(idx), make_const(x.dtype(), 0.0));
      },
      name, kInjective);
}

}  // namespace

Tensor layout_transform(const Tensor &x, const std::string &src_layout, const std::string &dst_layout,
                        const std::string &name) {
  return transform(x, src_layout, dst_layout, name, false);
}

Tensor layout_transform_pad(const Tensor &x, const std::string &src_layout, const std::string &dst_layout,
                            const std::string &name) {
  return transform(x, src_layout, dst_layout, name, true);
}

}  // namespace tensorir::ops
