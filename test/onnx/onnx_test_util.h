// Building ONNX models in tests with ONNX's own protobuf classes, and comparing results.
#pragma once
#include <onnx/onnx_pb.h>
#include <tensorir/frontend/onnx.h>
#include <tensorir/graph/executor.h>
#include <tensorir/runtime/ndarray.h>

#include <catch2/catch.hpp>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <functional>
#include <map>
#include <string>
#include <variant>
#include <unistd.h>
#include <vector>

namespace tensorir::onnx_test {

// A fresh directory under the system's temporary one, named for the test and the process.
inline std::filesystem::path temp_dir(const std::string &name) {
  const std::filesystem::path d =
      std::filesystem::temp_directory_path() / ("tensorir_onnx_" + name + "_" + std::to_string(::getpid()));
  std::filesystem::remove_all(d);
  std::filesystem::create_directories(d);
  return d;
}

// A dimension: a number or a symbol name.
using Dim = std::variant<int64_t, std::string>;
// Fixed dimensions as Dims.
inline std::vector<Dim> dims(const std::vector<int64_t> &shape) { return std::vector<Dim>(shape.begin(), shape.end()); }

inline int32_t onnx_type(Type t) {
  if (t == Float(32)) return ::onnx::TensorProto::FLOAT;
  if (t == Int(64)) return ::onnx::TensorProto::INT64;
  if (t == Int(32)) return ::onnx::TensorProto::INT32;
  if (t == UInt(8)) return ::onnx::TensorProto::UINT8;
  if (t == UInt(16)) return ::onnx::TensorProto::UINT16;
  if (t == UInt(32)) return ::onnx::TensorProto::UINT32;
  if (t == UInt(64)) return ::onnx::TensorProto::UINT64;
  if (t == Int(8)) return ::onnx::TensorProto::INT8;
  if (t == Int(16)) return ::onnx::TensorProto::INT16;
  if (t.is_bool()) return ::onnx::TensorProto::BOOL;
  if (t == Float(64)) return ::onnx::TensorProto::DOUBLE;
  FAIL("no ONNX type for " << t);
  return 0;
}

// A TensorProto of `a`'s values as raw data.
inline ::onnx::TensorProto tensor_proto(const std::string &name, const NDArray &a) {
  ::onnx::TensorProto t;
  t.set_name(name);
  t.set_data_type(onnx_type(a.dtype()));
  for (int64_t d : a.shape()) t.add_dims(d);
  t.set_raw_data(std::string(static_cast<const char *>(a.data()), a.nbytes()));
  return t;
}

class ModelBuilder {
 public:
  explicit ModelBuilder(int64_t opset = 13, const std::string &name = "test") {
    m_.set_ir_version(8);
    m_.set_producer_name("tensorir-test");
    auto *o = m_.add_opset_import();
    o->set_domain("");
    o->set_version(opset);
    m_.mutable_graph()->set_name(name);
  }

  ::onnx::ModelProto &model() { return m_; }
  ::onnx::GraphProto &graph() { return *m_.mutable_graph(); }

  void input(const std::string &name, const std::vector<Dim> &dims, int32_t type = ::onnx::TensorProto::FLOAT) {
    value_info(graph().add_input(), name, dims, type);
  }
  void output(const std::string &name, const std::vector<Dim> &dims = {}, int32_t type = ::onnx::TensorProto::FLOAT) {
    value_info(graph().add_output(), name, dims, type);
  }
  void initializer(const std::string &name, const NDArray &value) {
    *graph().add_initializer() = tensor_proto(name, value);
  }

  ::onnx::NodeProto &node(const std::string &op, const std::vector<std::string> &inputs,
                          const std::vector<std::string> &outputs, const std::string &name = "") {
    ::onnx::NodeProto *n = graph().add_node();
    n->set_op_type(op);
    n->set_name(name);
    for (const std::string &i : inputs) n->add_input(i);
    for (const std::string &o : outputs) n->add_output(o);
    return *n;
  }

  std::string bytes() const { return m_.SerializeAsString(); }

 private:
  static void value_info(::onnx::ValueInfoProto *v, const std::string &name, const std::vector<Dim> &dims,
                         int32_t type) {
    v->set_name(name);
    auto *tt = v->mutable_type()->mutable_tensor_type();
    tt->set_elem_type(type);
    auto *shape = tt->mutable_shape();
    for (const Dim &d : dims) {
      auto *dim = shape->add_dim();
      if (const int64_t *i = std::get_if<int64_t>(&d))
        dim->set_dim_value(*i);
      else
        dim->set_dim_param(std::get<std::string>(d));
    }
  }

  ::onnx::ModelProto m_;
};

inline void attr(::onnx::NodeProto &n, const std::string &name, int64_t v) {
  auto *a = n.add_attribute();
  a->set_name(name);
  a->set_type(::onnx::AttributeProto::INT);
  a->set_i(v);
}
inline void attr(::onnx::NodeProto &n, const std::string &name, float v) {
  auto *a = n.add_attribute();
  a->set_name(name);
  a->set_type(::onnx::AttributeProto::FLOAT);
  a->set_f(v);
}
inline void attr(::onnx::NodeProto &n, const std::string &name, const std::vector<int64_t> &v) {
  auto *a = n.add_attribute();
  a->set_name(name);
  a->set_type(::onnx::AttributeProto::INTS);
  for (int64_t x : v) a->add_ints(x);
}
inline void attr(::onnx::NodeProto &n, const std::string &name, const std::string &v) {
  auto *a = n.add_attribute();
  a->set_name(name);
  a->set_type(::onnx::AttributeProto::STRING);
  a->set_s(v);
}

// A graph attribute whose graph has `inputs` and `outputs` (float tensors of unknown shape
// unless typed) and the nodes `build` adds.
inline void graph_attr(::onnx::NodeProto &n, const std::string &name,
                       const std::vector<std::pair<std::string, int32_t>> &inputs,
                       const std::vector<std::string> &outputs, const std::function<void(ModelBuilder &)> &build) {
  ModelBuilder sub;
  for (const auto &[in, type] : inputs) sub.input(in, {}, type);
  for (const std::string &out : outputs) sub.graph().add_output()->set_name(out);
  build(sub);
  auto *a = n.add_attribute();
  a->set_name(name);
  a->set_type(::onnx::AttributeProto::GRAPH);
  *a->mutable_g() = sub.graph();
  a->mutable_g()->set_name(name);
}

inline NDArray int64_scalar(int64_t v) {
  NDArray a = NDArray::empty({}, Int(64));
  *static_cast<int64_t *>(a.data()) = v;
  return a;
}

inline NDArray bool_scalar(bool v) {
  NDArray a = NDArray::empty({}, Bool());
  *static_cast<uint8_t *>(a.data()) = v ? 1 : 0;
  return a;
}

// |got - want| <= atol + rtol * |want| for every element (NaN matches NaN), as ONNX's
// backend tests compare.
inline bool allclose(const std::vector<double> &got, const std::vector<double> &want, double rtol, double atol,
                     std::string *why = nullptr) {
  if (got.size() != want.size()) {
    if (why) *why = "sizes differ: " + std::to_string(got.size()) + " vs " + std::to_string(want.size());
    return false;
  }
  for (size_t i = 0; i < got.size(); ++i) {
    const double g = got[i], w = want[i];
    if (std::isnan(w) && std::isnan(g)) continue;
    if (g == w) continue;  // infinities of one sign
    if (!(std::fabs(g - w) <= atol + rtol * std::fabs(w))) {
      if (why) *why = "element " + std::to_string(i) + ": got " + std::to_string(g) + ", want " + std::to_string(w);
      return false;
    }
  }
  return true;
}

// The model built by `mb`, imported, compiled for "llvm" and run on `feed`.
inline graph::Outputs run(const ModelBuilder &mb, const std::map<std::string, NDArray> &feed) {
  return graph::build(onnx::import_bytes(mb.bytes()), "llvm").run(feed);
}

// `got` (float32) against `want`, as allclose.
inline void check_close(const NDArray &got, const std::vector<double> &want, double rtol = 1e-4, double atol = 1e-6) {
  const std::vector<float> g = got.to_vector<float>();
  std::string why;
  const bool ok = allclose(std::vector<double>(g.begin(), g.end()), want, rtol, atol, &why);
  INFO(why);
  CHECK(ok);
}
// (A template, so that a braced list of numbers picks the overload above.)
template <typename T>
void check_close(const NDArray &got, const std::vector<T> &want, double rtol = 1e-4, double atol = 1e-6) {
  check_close(got, std::vector<double>(want.begin(), want.end()), rtol, atol);
}

}  // namespace tensorir::onnx_test
