// The sliding window of Conv and the pools over 1 to 3 spatial dimensions: kernel,
// strides, dilations, padding before and after each dimension (explicit pads or auto_pad)
// and the output extents, with ceil_mode's extra windows.
#pragma once
#include <string>
#include <vector>

#include "frontend/onnx/ops/ops_util.h"

namespace tensorir::onnx::detail {

struct Window {
  std::vector<int64_t> kernel, stride, dilation, begin, end;  // end: padding after
  std::vector<int64_t> out;
  // Padding past `end` that ceil_mode's last windows read.
  std::vector<int64_t> extra;

  size_t rank() const { return kernel.size(); }
  bool even() const { return begin == end; }
  bool has_extra() const;
  // The graph's "pads": begin, then end and the extra.
  std::vector<int64_t> pads() const;
  // The attributes of pool_nd and max_pool_indices, and conv3d's but for the kernel.
  std::map<std::string, graph::AttrValue> nd_attrs() const;
  // The same window over one more spatial dimension, of size 1, in front (1-D as 2-D).
  Window lifted() const;
};

// "" or why the attributes rule a window out: an unknown auto_pad, a kernel_shape of
// other than 1 to 3 values, dilations other than 1 when `dilations` is false.
std::string check_window(const Attributes &a, bool dilations);

// The window over the spatial extents `in` for `kernel`, from the node's strides,
// dilations, pads, auto_pad and (pools) ceil_mode. Malformed values are Errors.
Window window(const Context &c, const std::vector<int64_t> &in, const std::vector<int64_t> &kernel, bool ceil_mode);

// The spatial extents (dimensions from 2 on) of input i.
std::vector<int64_t> spatial(const Context &c, size_t i);

// The axes of those: 2 to rank - 1.
std::vector<int64_t> spatial_axes(const Context &c, size_t i);

// Unsupported unless input i is [N, C] and 1 to 3 spatial dimensions.
void need_spatial(const Context &c, size_t i);

}  // namespace tensorir::onnx::detail
