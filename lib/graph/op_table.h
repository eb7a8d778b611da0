// The graph operators: arity, and how each node becomes a tensor expression of ops::.
// Shape inference and the executor share this table, so they cannot disagree.
#pragma once
#include <string>
#include <vector>

#include "tensorir/graph/graph.h"
#include "tensorir/te/tensor.h"

namespace tensorir::graph::detail {

// The number of inputs `op` takes; throws an Error naming the node for an unknown op.
int op_arity(const Node &n);

// The node's result computed from `inputs` (tensors with the input nodes' shapes).
// `blocked_conv` picks ops::conv2d_nchwc for ungrouped convolutions (for the tuned CPU
// schedule). Errors from ops:: are rethrown with the node's name in front.
Tensor make_tensor(const Node &n, const std::vector<Tensor> &inputs, const std::string &out_name,
                   bool blocked_conv = false);

// Sets n.shape and n.dtype from its inputs, checking them first.
void infer_shape(Node &n, const std::vector<const Node *> &inputs);

// "node 'conv1' (conv2d): " — the prefix of every error about a node.
std::string node_prefix(const Node &n);

}  // namespace tensorir::graph::detail
