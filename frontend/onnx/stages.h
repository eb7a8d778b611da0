// Models that need, at import, values they compute at run time: the boxes of a
// NonMaxSuppression, the input of a NonZero, the condition of a Compress, a Range's limit
// computed from data. onnx::Session runs such a model in stages around those nodes (the
// "boundary"): the nodes that do not depend on them, compiled as one model; the boundary
// nodes, computed on the host from the values the first stage gives (the importer's own
// converters, every input known); and the nodes after them, a Session of their own whose
// inputs take the shapes those results have, so that it compiles once per shape.
#pragma once
#include <onnx/onnx_pb.h>

#include <map>
#include <set>
#include <string>
#include <vector>

#include "tensorir/frontend/onnx.h"

namespace tensorir::onnx::detail {

struct Stages {
  std::vector<int> boundary;     // indices of the boundary nodes in the model's graph
  ::onnx::ModelProto before;     // the nodes before: no nodes when the boundary reads inputs only
  ::onnx::ModelProto after;      // the nodes after (graph inputs typed at the first run)
  std::vector<std::string> cut;  // what `after` reads from the stages before it, in order
  bool has_before = false, has_after = false;
};

// The stages of `m` around the nodes of `refused` that need a run-time value
// (UnsupportedNode::value); false when there are none, or one is not a node of the main
// graph (a node in a Loop's body, say).
bool split_stages(const ::onnx::ModelProto &m, const std::vector<UnsupportedNode> &refused, Stages *out);

// The outputs of node `n` of `m` computed on the host from `inputs`, which give every
// input the node reads (its subgraphs' outer values included): the node converted alone,
// all its inputs constants. An Error says why it cannot be.
// `compiles` (when given) counts the graphs compiled to do it.
std::map<std::string, NDArray> compute_on_host(const ::onnx::ModelProto &m, const ::onnx::NodeProto &n,
                                               const std::map<std::string, NDArray> &inputs, const std::string &dir,
                                               const std::string &what, size_t *compiles = nullptr);

// The outputs of model `m` computed on the host from `inputs`, which give each of its
// graph inputs: the model converted with those as initializers. Unlike a compiled
// session it takes empty arrays (a dimension of 0) wherever the converters compute their
// results at import. An Error (UnsupportedError where a node cannot be) says why not.
std::map<std::string, NDArray> compute_on_host(const ::onnx::ModelProto &m, const std::map<std::string, NDArray> &inputs,
                                               const std::string &dir, const std::string &what,
                                               size_t *compiles = nullptr);

// The names node `n` reads: its inputs and the outer values its subgraphs read.
std::set<std::string> names_read(const ::onnx::NodeProto &n);
// The names subgraph `g` reads that it does not define: what it takes from around it.
std::set<std::string> outer_reads(const ::onnx::GraphProto &g);
// `m` with an empty graph: its opsets, functions and metadata only.
::onnx::ModelProto empty_like(const ::onnx::ModelProto &m);

// `after` with its graph inputs declared as `values` are (element type; every dimension
// symbolic, bound by the arrays given at each run).
void type_inputs(::onnx::ModelProto &after, const std::map<std::string, NDArray> &values);

}  // namespace tensorir::onnx::detail
