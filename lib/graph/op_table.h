// What the graph layer asks of a node's operator (op_registry.cpp): its definition, its
// attributes checked against the schema, its inferred shape and its tensor expression.
#pragma once
#include <string>
#include <vector>

#include "tensorir/graph/graph.h"
#include "tensorir/graph/op_registry.h"
#include "tensorir/te/tensor.h"

namespace tensorir::graph::detail {

// The registered operator of `n`; an unknown one throws an Error naming the node.
const OpDef &node_op(const Node &n);

// Whether `def` takes `count` inputs: exactly its roles, or with OpDef::variadic one or
// more in the last role.
bool takes_inputs(const OpDef &def, size_t count);

// Checks n.attrs against its operator's schema (unknown names, kinds, sizes) and adds
// the defaults of those not given.
void check_attrs(Node &n);
// Adds the defaults of the attributes n lacks, when n's operator is registered; checks nothing.
void add_default_attrs(Node &n);

// The node's result computed from `inputs` (tensors with the input nodes' shapes), by
// `compute` (a strategy's) or, when it is empty, the operator's own. Errors are
// rethrown with the node's name in front.
Tensor make_tensor(const Node &n, const std::vector<Tensor> &inputs, const std::string &out_name,
                   const ComputeFn &compute = nullptr);

// Checks n's attributes and inputs, adds default attributes, and sets n.shape and n.dtype.
void infer_shape(Node &n, const std::vector<const Node *> &inputs);

// "node 'conv1' (conv2d): " — the prefix of every error about a node.
std::string node_prefix(const Node &n);

}  // namespace tensorir::graph::detail
