#include "frontend/onnx/ops/window.h"

#include <algorithm>

namespace tensorir::onnx::detail {

bool Window::has_extra() const {
  return std::any_of(extra.begin(), extra.end(), [](int64_t e) { return e > 0; });
}

std::vector<int64_t> Window::pads() const {
  std::vector<int64_t> p = begin;
  for (size_t i = 0; i < rank(); ++i) p.push_back(end[i] + extra[i]);
  return p;
}

std::map<std::string, graph::AttrValue> Window::nd_attrs() const {
  return {{"kernel", kernel}, {"strides", stride}, {"dilation", dilation}, {"pads", pads()}};
}

Window Window::lifted() const {
  Window w = *this;
  for (auto *v : {&w.kernel, &w.stride, &w.dilation, &w.out}) v->insert(v->begin(), 1);
  for (auto *v : {&w.begin, &w.end, &w.extra}) v->insert(v->begin(), 0);
  return w;
}

std::string check_window(const Attributes &a, bool dilations) {
  const std::string p = a.s("auto_pad", "NOTSET");
  if (p != "NOTSET" && p != "VALID" && p != "SAME_UPPER" && p != "SAME_LOWER") return "auto_pad '" + p + "' is unknown";
  const std::vector<int64_t> k = a.ints("kernel_shape");
  if (a.has("kernel_shape") && (k.empty() || k.size() > 3))
    return std::to_string(k.size()) + "-D windows (1-D to 3-D are supported)";
  if (!dilations && a.has("dilations")) return all_equal(a.ints("dilations"), 1, "dilations");
  return "";
}

Window window(const Context &c, const std::vector<int64_t> &in, const std::vector<int64_t> &kernel, bool ceil_mode) {
  const Attributes &a = c.attrs();
  const size_t nd = in.size();
  TIR_USER_CHECK(kernel.size() == nd) << "kernel_shape must have " << nd << " values, got " << kernel.size();
  Window w;
  w.kernel = kernel;
  w.stride = a.ints("strides", std::vector<int64_t>(nd, 1));
  w.dilation = a.ints("dilations", std::vector<int64_t>(nd, 1));
  const std::vector<int64_t> pads = a.ints("pads", std::vector<int64_t>(2 * nd, 0));
  TIR_USER_CHECK(w.stride.size() == nd && w.dilation.size() == nd && pads.size() == 2 * nd)
      << "strides, dilations and pads must have " << nd << ", " << nd << " and " << 2 * nd << " values for a " << nd
      << "-D window";
  const std::string auto_pad = a.s("auto_pad", "NOTSET");
  check_extents(w.stride, "strides", 1);
  check_extents(w.dilation, "dilations", 1);
  check_extents(w.kernel, "kernel_shape", 1);
  if (auto_pad == "NOTSET") check_extents(pads, "pads", 0);
  for (size_t i = 0; i < nd; ++i) {
    const int64_t span = (w.kernel[i] - 1) * w.dilation[i] + 1;
    int64_t begin = pads[i], end = pads[i + nd];
    if (auto_pad == "SAME_UPPER" || auto_pad == "SAME_LOWER") {
      const int64_t out = (in[i] + w.stride[i] - 1) / w.stride[i];
      const int64_t total = std::max<int64_t>((out - 1) * w.stride[i] + span - in[i], 0);
      begin = auto_pad == "SAME_UPPER" ? total / 2 : total - total / 2;
      end = total - begin;
    } else if (auto_pad == "VALID") {
      begin = end = 0;
    }
    TIR_USER_CHECK(begin >= 0 && end >= 0) << "negative pads";
    // The padded extent is a tensor's (a pad node's) or a kernel's bound.
    TIR_USER_CHECK(in[i] + begin + end <= kMaxGraphElements)
        << "spatial dimension " << i << " padded (" << in[i] << " + " << begin << " + " << end << " = "
        << in[i] + begin + end << ") is more than the " << kMaxGraphElements
        << " elements a tensor may hold (compiled kernels index with 32-bit integers); check the pads";
    const int64_t room = in[i] + begin + end - span;
    TIR_USER_CHECK(room >= 0) << "the window " << span << " is larger than the padded input " << in[i];
    int64_t out = room / w.stride[i] + 1;
    // ceil_mode: one more window, unless it would start in the padding after the input.
    if (ceil_mode && room % w.stride[i] && out * w.stride[i] < in[i] + begin) ++out;
    w.begin.push_back(begin);
    w.end.push_back(end);
    w.out.push_back(out);
    w.extra.push_back(std::max<int64_t>((out - 1) * w.stride[i] + span - (in[i] + begin + end), 0));
  }
  return w;
}

std::vector<int64_t> spatial(const Context &c, size_t i) { return {c.shape(i).begin() + 2, c.shape(i).end()}; }

std::vector<int64_t> spatial_axes(const Context &c, size_t i) {
  std::vector<int64_t> axes;
  for (int64_t a = 2; a < c.rank(i); ++a) axes.push_back(a);
  return axes;
}

void need_spatial(const Context &c, size_t i) {
  if (c.rank(i) < 3 || c.rank(i) > 5)
    unsupported("input '" + c.input_name(i) + "' has rank " + std::to_string(c.rank(i)) +
                "; 1 to 3 spatial dimensions after N and C are supported");
}

}  // namespace tensorir::onnx::detail
