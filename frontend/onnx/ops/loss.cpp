// Losses: NegativeLogLikelihoodLoss and SoftmaxCrossEntropyLoss (the former after a
// log_softmax over the classes), composed from gather_elements (the input at each
// target's class), take (the target's weight), where (ignore_index) and reductions.
#include "frontend/onnx/ops/ops_util.h"

namespace tensorir::onnx::detail {

namespace {

using Shape = std::vector<int64_t>;

// The loss of log-probabilities `logp` ([N, C, d...]) at targets input t ([N, d...]) with
// the optional weight input w ([C]), into output 0.
void nll(Context &c, graph::NodeRef logp, size_t t, size_t w) {
  const Shape &in = c.shape(0);
  const Type dt = c.dtype(0);
  if (in.size() < 2) unsupported("input of rank " + std::to_string(in.size()));
  if (!c.dtype(t).is_int()) unsupported("target '" + c.input_name(t) + "' is " + c.dtype(t).str());
  Shape ts = in;
  ts.erase(ts.begin() + 1);
  TIR_USER_CHECK(c.shape(t) == ts) << "target " << shape_str(c.shape(t)) << " does not fit input " << shape_str(in);
  if (element_count(in) == 0) unsupported("an empty input");
  const std::string reduction = c.attrs().s("reduction", "mean");
  if (reduction != "none" && reduction != "sum" && reduction != "mean")
    unsupported("reduction '" + reduction + "'");
  graph::NodeRef target = c.node(t), hit;
  const bool ignoring = c.attrs().has("ignore_index");
  if (ignoring) {
    // The ignored targets may be any value, out of the classes' range too: they read class
    // 0 instead, and their weight is zero.
    const double ignore = double(c.attrs().i("ignore_index", 0));
    hit = c.make("equal", {target, c.constant(scalar(ignore, c.dtype(t)), "ignore_index")});
    target = c.make("where", {hit, c.constant(scalar(0, c.dtype(t)), "class_zero"), target});
  }
  Shape t1 = ts;
  t1.insert(t1.begin() + 1, 1);
  graph::NodeRef picked = c.make("gather_elements", {logp, c.make("reshape", {target}, {{"shape", t1}})},
                                 {{"axis", int64_t{1}}});
  picked = c.make("reshape", {picked}, {{"shape", ts}});
  graph::NodeRef weight;
  const bool has_weight = c.num_inputs() > w && c.has_input(w);
  if (has_weight) {
    TIR_USER_CHECK(c.dtype(w) == dt && c.shape(w) == Shape{in[1]}) << "weight '" << c.input_name(w)
                                                                      << "' does not fit " << in[1] << " classes";
    weight = c.make("take", {c.node(w), target}, {{"axis", int64_t{0}}});
  }
  if (ignoring) {
    graph::NodeRef zero = c.constant(scalar(0, dt), "zero");
    weight = c.make("where", {hit, zero, has_weight ? weight : c.constant(scalar(1, dt), "one")});
  }
  const bool weighted = has_weight || ignoring;
  const std::map<std::string, graph::AttrValue> all = {{"axes", Shape{}}, {"keepdims", int64_t{0}}};
  if (!weighted) {
    if (reduction == "none") return void(c.output(0, "neg", {picked}));
    graph::NodeRef loss = c.make("neg", {picked});
    return void(c.output(0, reduction == "sum" ? "reduce_sum" : "reduce_mean", {loss}, all));
  }
  graph::NodeRef loss = c.make("neg", {picked});
  if (reduction == "none") return void(c.output(0, "multiply", {loss, weight}));
  loss = c.make("reduce_sum", {c.make("multiply", {loss, weight})}, all);
  if (reduction == "sum") return c.set_output(0, loss);
  // The mean divides by the total weight of the targets, not their number.
  c.output(0, "divide", {loss, c.make("reduce_sum", {weight}, all)});
}

void nll_loss(Context &c) {
  need_float(c, 0);
  nll(c, c.node(0), 1, 2);
}

// loss of log_softmax(scores) over the classes; output 1 the log-probabilities.
void softmax_cross_entropy(Context &c) {
  need_float(c, 0);
  if (c.rank(0) < 2) unsupported("input of rank " + std::to_string(c.rank(0)));
  graph::NodeRef logp = c.make("log_softmax", {c.node(0)}, {{"axis", int64_t{1}}});
  if (c.num_outputs() > 1 && c.wants_output(1)) c.set_output(1, logp);
  nll(c, logp, 1, 2);
}

const bool registered = [] {
  register_converter({"NegativeLogLikelihoodLoss", 12, kLatest, nullptr, nll_loss});
  register_converter({"SoftmaxCrossEntropyLoss", 12, kLatest, nullptr, softmax_cross_entropy});
  return true;
}();

}  // namespace

}  // namespace tensorir::onnx::detail
