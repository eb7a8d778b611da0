// The helpers of ops_util.h that are more than a line or two.
#include "frontend/onnx/ops/ops_util.h"

#include <algorithm>

namespace tensorir::onnx::detail {

void legacy_broadcast(Context &c) {
  const Attributes &a = c.attrs();
  const std::vector<int64_t> &as = c.shape(0), &bs = c.shape(1);
  const std::string shapes = "A " + shape_str(as) + " and B " + shape_str(bs);
  if (a.i("broadcast", 0) == 0) {
    TIR_USER_CHECK(as == bs) << shapes << " differ and broadcast is not set";
    return;
  }
  const int ra = int(as.size()), rb = int(bs.size());
  TIR_USER_CHECK(rb <= ra) << shapes << ": B has more dimensions than A";
  if (element_count(bs) == 1) return;  // a scalar in every form
  const int axis = a.has("axis") ? normalize_axis(a.i("axis", 0), ra) : ra - rb;
  TIR_USER_CHECK(axis + rb <= ra) << shapes << ": B does not fit in A from axis " << axis;
  for (int j = 0; j < rb; ++j)
    TIR_USER_CHECK(bs[size_t(j)] == as[size_t(axis + j)] || bs[size_t(j)] == 1)
        << shapes << ": B does not match A from axis " << axis;
  if (axis + rb == ra) return;  // B's dimensions are A's last ones, as NumPy aligns them
  std::vector<int64_t> shape = bs;
  shape.resize(size_t(ra - axis), 1);
  if (c.known(1)) return c.replace_input(1, host_reshape(c.input(1).known, shape));
  c.replace_input(1, c.make("reshape", {c.node(1)}, {{"shape", shape}}));
}

void register_binary(const std::string &onnx_op, int since, const std::function<void(Context &)> &convert) {
  if (since < 7)
    register_converter({onnx_op, since, 6, nullptr, [convert](Context &c) {
                          legacy_broadcast(c);
                          convert(c);
                        }});
  register_converter({onnx_op, std::max(since, 7), kLatest, nullptr, convert});
}

graph::NodeRef channel_vector(Context &c, size_t i, int rank) {
  TIR_USER_CHECK(c.rank(i) == 1) << "input '" << c.input_name(i) << "' " << shape_str(c.shape(i))
                                 << " must be a vector";
  std::vector<int64_t> shape(size_t(std::max(rank - 1, 1)), 1);
  shape[0] = c.shape(i)[0];
  if (c.known(i)) return c.constant(host_reshape(c.input(i).known, shape), "channels");
  return c.make("reshape", {c.node(i)}, {{"shape", shape}});
}

}  // namespace tensorir::onnx::detail
