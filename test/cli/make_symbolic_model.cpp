// Saves an ONNX model whose input has a symbolic dimension (x [N, 3], y = Relu(x)) into
// argv[1], for the command-line test of what compile says about binding it: the ONNX
// backend test data has no plain tensor model with one.
#include <onnx/onnx_pb.h>

#include <cstdio>
#include <fstream>

namespace {

void tensor_info(::onnx::ValueInfoProto *v, const char *name) {
  v->set_name(name);
  auto *t = v->mutable_type()->mutable_tensor_type();
  t->set_elem_type(::onnx::TensorProto::FLOAT);
  t->mutable_shape()->add_dim()->set_dim_param("N");
  t->mutable_shape()->add_dim()->set_dim_value(3);
}

}  // namespace

int main(int argc, char **argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: tensorir_make_symbolic_model OUT.onnx\n");
    return 2;
  }
  ::onnx::ModelProto m;
  m.set_ir_version(8);
  auto *opset = m.add_opset_import();
  opset->set_domain("");
  opset->set_version(13);
  auto *g = m.mutable_graph();
  g->set_name("symbolic");
  tensor_info(g->add_input(), "x");
  tensor_info(g->add_output(), "y");
  auto *relu = g->add_node();
  relu->set_op_type("Relu");
  relu->add_input("x");
  relu->add_output("y");
  std::ofstream out(argv[1], std::ios::binary);
  if (!m.SerializeToOstream(&out)) {
    std::fprintf(stderr, "tensorir_make_symbolic_model: cannot write %s\n", argv[1]);
    return 1;
  }
  return 0;
}
