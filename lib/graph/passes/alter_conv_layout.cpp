// Channel-blocked layouts for the tuned CPU convolutions: weights packed once (constant
// folding evaluates their layout_transform), activations kept in NCHW<c>c blocks from
// one convolution to the next, with layout_transform nodes only where a blocked region
// meets an operator that wants NCHW.
#include <map>
#include <set>

#include "../op_table.h"
#include "tensorir/graph/passes.h"
#include "tensorir/ops/nn.h"

namespace tensorir::graph {

namespace {

std::string blocked_layout(int block) { return block ? "NCHW" + std::to_string(block) + "c" : "NCHW"; }

LayoutRule layout_rule(const Node &n) {
  const OpDef *def = find_op(n.op);
  return def ? def->layout : LayoutRule::kPlain;
}

// A convolution that reads a packed weight already.
bool packed(const Node &n) {
  auto it = n.attrs.find("kernel_layout");
  return it != n.attrs.end() && it->second != AttrValue(std::string("OIHW"));
}

// A convolution the pass rewrites: ungrouped, 2-D, with a constant OIHW weight, and
// with a fixed block (`fixed` > 0), output channels that split into such blocks.
bool packable_conv(const Graph &g, const Node &n, int fixed) {
  if (layout_rule(n) != LayoutRule::kConvolution || n.attr_int("groups") != 1 || packed(n)) return false;
  const Node &w = g.node(n.inputs[1]);
  return w.op == "constant" && w.shape.size() == 4 && g.node(n.inputs[0]).shape.size() == 4 &&
         (!fixed || w.shape[0] % fixed == 0);
}

// A depthwise convolution (groups = input channels = output channels) with a constant
// OIHW weight.
bool depthwise_conv(const Graph &g, const Node &n) {
  if (layout_rule(n) != LayoutRule::kConvolution || packed(n) || n.attr_int("groups") == 1) return false;
  const Node &w = g.node(n.inputs[1]);
  const std::vector<int64_t> &d = g.node(n.inputs[0]).shape;
  return w.op == "constant" && w.shape.size() == 4 && d.size() == 4 && w.shape[1] == 1 &&
         w.shape[0] == n.attr_int("groups") && d[1] == w.shape[0];
}

// One rewrite of the graph. Convolutions in `nchw_out` write NCHW even when activations
// are blocked; `run` reports in `want_nchw` those whose blocked result (through its
// element-wise tail) would need a layout_transform: to NCHW for a reader that wants NCHW
// or the graph's output, or of an NCHW activation beside it (an add of the graph's
// input, say). Writing NCHW there, in the fused kernel, saves that kernel.
class Rewriter {
 public:
  Rewriter(const Graph &g, bool blocked, int fixed, bool pad_channels, int lanes, const std::set<int> &nchw_out)
      : g_(g), blocked_(blocked), fixed_(fixed), pad_channels_(pad_channels), lanes_(lanes), nchw_out_(nchw_out),
        remap_(g.nodes().size(), -1) {
    for (const Node &n : g.nodes()) names_.insert(n.name);
  }

  Graph run(std::set<int> &want_nchw) {
    want_nchw_ = &want_nchw;
    for (int id : g_.topological_order()) {
      const Node &old = g_.node(id);
      Node n = old;
      for (int &in : n.inputs) in = remap_[size_t(in)];
      int block = 0, conv = -1;
      if (old.op == "input" || old.op == "constant") {
        // as they are
      } else if (packable_conv(g_, old, fixed_) && !nchw_both(old, n)) {
        block = rewrite_conv(old, n);
        conv = old.id;
      } else if (blocked_) {
        block = rewrite_other(old, n, conv);
      } else {
        for (int &in : n.inputs) in = to_layout(in, 0);
      }
      if (g_.is_output(id) && block) {
        if (conv >= 0) want_nchw_->insert(conv);
        // The output keeps its name and NCHW; the blocked result before it is renamed.
        const std::string name = n.name;
        n.name = unique_name(name + ".blocked");
        const int blocked_id = add(std::move(n), block, conv, true);
        names_.erase(name);  // free again in the new graph
        remap_[size_t(id)] = add_transform(blocked_id, blocked_layout(block), "NCHW", 0, name);
        continue;
      }
      remap_[size_t(id)] = add(std::move(n), block, conv, old.op != "input" && old.op != "constant");
    }
    std::vector<int> outputs;
    for (int id : g_.outputs()) outputs.push_back(remap_[size_t(id)]);
    out_.set_outputs(outputs);
    return std::move(out_);
  }

 private:
  // With fixed blocks (for fragment shaders) a convolution from NCHW data to an NCHW
  // result gains nothing from packed weights: it stays as it is.
  bool nchw_both(const Node &old, const Node &n) const {
    return fixed_ && (!blocked_ || nchw_out_.count(old.id)) && !block_[size_t(n.inputs[0])];
  }

  // conv2d(x, W) -> conv2d(x', layout_transform(W)) with the layouts as attributes: the
  // weight packed as conv2d_nchwc packs it (or in the fixed blocks; input channels that
  // do not split into them, such as an image's 3, are padded with zeros to whole blocks,
  // data and weight alike, when activations are blocked, else read from NCHW data in
  // blocks of 1),
  // the data as it comes (blocked or NCHW), the result blocked when activations stay
  // blocked. Returns the result's block.
  int rewrite_conv(const Node &old, Node &n) {
    const Node &w = g_.node(old.inputs[1]);
    int ci = ops::conv2d_channel_block(w.shape[1]), co = ops::conv2d_channel_block(w.shape[0]);
    // One fetch of a block per tap beats picking one channel of an NCHW texel per tap.
    const bool pad = fixed_ && blocked_ && pad_channels_ && w.shape[1] % fixed_ != 0;
    if (fixed_) {
      ci = w.shape[1] % fixed_ == 0 || pad ? fixed_ : 1;
      co = fixed_;
    }
    // The weight's block: the result's, or whole vectors with the output channels padded
    // (not where Winograd may take the convolution: its transform reads every channel).
    const int cw = fixed_ || winograd_eligible(g_, old) ? co : ops::conv2d_compute_block(w.shape[0], lanes_);
    if (cw != co) n.attrs["out_channels"] = w.shape[0];
    const std::string wl = "OIHW" + std::to_string(ci) + "i" + std::to_string(cw) + "o";
    const int weight = memo_transform(n.inputs[1], "OIHW", wl, 0, w.name + "." + wl, pad || cw != co);
    int data = n.inputs[0];
    if (pad) {
      TIR_ASSERT(!block_[size_t(data)]) << "alter_conv_layout: " << old.name << " reads blocked data of "
                                        << w.shape[1] << " channels";
      const std::string dl = blocked_layout(fixed_);
      data = memo_transform(data, "NCHW", dl, fixed_, out_.node(data).name + ".to_" + dl, true);
    }
    const int db = block_[size_t(data)];
    const int want = blocked_ && (!fixed_ || ci == fixed_) ? ci : 0;
    if (db && db != want) data = to_layout(data, want);
    const int out = blocked_ && !nchw_out_.count(old.id) ? co : 0;
    n.attrs["data_layout"] = blocked_layout(block_[size_t(data)]);
    n.attrs["kernel_layout"] = wl;
    n.attrs["out_layout"] = blocked_layout(out);
    n.inputs = {data, weight};
    return out;
  }

  // Operators other than the packed convolutions: element-wise ones and pools follow a
  // blocked input; everything else reads NCHW. Returns the result's block and sets
  // `conv` to the convolution whose fused tail the result continues, if any.
  int rewrite_other(const Node &old, Node &n, int &conv) {
    int b = 0;
    for (int in : n.inputs) b = b ? b : block_[size_t(in)];
    const bool four_d = old.shape.size() == 4;
    const int data_conv = conv_of_[size_t(n.inputs[0])];
    const LayoutRule rule = layout_rule(old);
    if (!fixed_ && block_[size_t(n.inputs[0])] && depthwise_conv(g_, old)) {
      conv = old.id;
      return rewrite_depthwise(old, n);
    }
    if (b && four_d && rule == LayoutRule::kElementWise) {
      conv = data_conv;
      return b;
    }
    if (b && rule == LayoutRule::kSpatial) return b;
    if (b && four_d && rule == LayoutRule::kChannelBias && block_[size_t(n.inputs[0])] == b &&
        (old.attr_int("axis") + 4) % 4 == 1 &&
        g_.node(old.inputs[1]).shape.size() == 1) {
      // x + bias as a broadcast over the blocked tensor: the bias becomes [1, C/b, 1, 1, b].
      n.op = "add";
      n.attrs.clear();
      n.inputs[1] = block_vector(n.inputs[1], b);
      conv = data_conv;
      return b;
    }
    if (b && four_d && rule == LayoutRule::kBinary) {
      // Both sides NCHW with all the channels (other dimensions may broadcast).
      bool fits = true;
      for (int in : old.inputs) {
        const std::vector<int64_t> &s = g_.node(in).shape;
        fits = fits && s.size() == 4 && s[1] == old.shape[1];
      }
      if (fits) {
        // An NCHW activation beside a convolution's blocked tail: that convolution
        // should rather write NCHW (the next rewrite does).
        for (int in : n.inputs)
          if (!block_[size_t(in)] && out_.node(in).op != "constant")
            for (int other : n.inputs)
              if (block_[size_t(other)] && conv_of_[size_t(other)] >= 0) want_nchw_->insert(conv_of_[size_t(other)]);
        for (int &in : n.inputs) in = to_layout(in, b);
        for (int in : n.inputs) conv = conv >= 0 ? conv : conv_of_[size_t(in)];
        return b;
      }
    }
    for (int &in : n.inputs) in = to_layout(in, 0);
    return 0;
  }

  // A depthwise convolution of blocked data stays in its blocks (as far as its readers
  // let it): its weight packed as [C/b][1][R][S][1][b], a vector of b channels per tap.
  int rewrite_depthwise(const Node &old, Node &n) {
    const int b = block_[size_t(n.inputs[0])];
    const std::string wl = "OIHW1i" + std::to_string(b) + "o";
    n.inputs[1] = memo_transform(n.inputs[1], "OIHW", wl, 0, g_.node(old.inputs[1]).name + "." + wl);
    const int out = nchw_out_.count(old.id) ? 0 : b;
    n.attrs["data_layout"] = blocked_layout(b);
    n.attrs["kernel_layout"] = wl;
    n.attrs["out_layout"] = blocked_layout(out);
    return out;
  }

  // Per-channel vector `id` as [1, C/b, 1, 1, b]. In that order its elements stay where
  // they are, so a constant becomes a view of itself, with no kernel to fold.
  int block_vector(int id, int b) {
    const Node &v = out_.node(id);
    const std::string layout = blocked_layout(b);
    if (v.op != "constant") return memo_transform(id, "C", layout, b, v.name + "." + layout);
    auto key = std::make_pair(id, layout);
    auto it = memo_.find(key);
    if (it != memo_.end()) return it->second;
    Node c;
    c.op = "constant";
    c.name = unique_name(v.name + "." + layout);
    c.shape = {1, v.shape[0] / b, 1, 1, b};
    c.dtype = v.dtype;
    c.value = v.value.view(c.shape, v.dtype);
    const int cid = add(std::move(c), 0, -1, false);
    memo_.emplace(key, cid);
    return cid;
  }

  // Node `id` of the new graph in layout NCHW (block 0) or NCHW<block>c; one transform
  // per node and layout, shared by its readers.
  int to_layout(int id, int block) {
    const int from = block_[size_t(id)];
    if (from == block) return id;
    if (!block && conv_of_[size_t(id)] >= 0) want_nchw_->insert(conv_of_[size_t(id)]);
    return memo_transform(id, blocked_layout(from), blocked_layout(block), block,
                          out_.node(id).name + ".to_" + blocked_layout(block));
  }

  // layout_transform(id) from `src` to `dst`, made once per node and target layout.
  // `block` is the result's channel block (0 unless it is NCHW<block>c).
  // With `pad`, channels are padded with zeros to whole blocks (a transform of its own:
  // its result has more channels than `id`).
  int memo_transform(int id, const std::string &src, const std::string &dst, int block, const std::string &name,
                     bool pad = false) {
    auto key = std::make_pair(id, pad ? dst + "+pad" : dst);
    auto it = memo_.find(key);
    if (it == memo_.end()) it = memo_.emplace(key, add_transform(id, src, dst, block, name, pad)).first;
    return it->second;
  }

  int add_transform(int id, const std::string &src, const std::string &dst, int block, const std::string &name,
                    bool pad = false) {
    Node t;
    t.op = "layout_transform";
    t.name = unique_name(name);
    t.attrs["src_layout"] = src;
    t.attrs["dst_layout"] = dst;
    if (pad) t.attrs["pad"] = int64_t{1};
    t.inputs = {id};
    return add(std::move(t), block, -1, true);
  }

  // Appends `n` with its shape inferred (when `infer`), recording its block and the
  // convolution whose tail it is on.
  int add(Node n, int block, int conv, bool infer) {
    if (infer) {
      std::vector<const Node *> in;
      for (int i : n.inputs) in.push_back(&out_.node(i));
      detail::infer_shape(n, in);
    }
    names_.insert(n.name);
    const int id = out_.add_node(std::move(n));
    block_.resize(size_t(id) + 1, 0);
    conv_of_.resize(size_t(id) + 1, -1);
    block_[size_t(id)] = block;
    conv_of_[size_t(id)] = block ? conv : -1;
    return id;
  }

  std::string unique_name(const std::string &base) {
    std::string name = base;
    for (int i = 1; names_.count(name); ++i) name = base + "_" + std::to_string(i);
    return name;
  }

  const Graph &g_;
  const bool blocked_;
  const int fixed_;  // the channel block of every rewritten convolution, 0: conv2d_channel_block's
  const bool pad_channels_;  // input channels that do not split into fixed blocks are padded
  const int lanes_;          // float32 lanes of the CPU's vectors (ops::conv2d_compute_block), 0: none
  const std::set<int> &nchw_out_;
  std::set<int> *want_nchw_ = nullptr;
  Graph out_;
  std::vector<int> remap_;    // old id -> new id
  std::vector<int> block_;    // new id -> channel block of its NCHW<c>c layout, 0 for plain
  std::vector<int> conv_of_;  // new id -> old id of the conv whose blocked tail it is on, or -1
  std::set<std::string> names_;
  std::map<std::pair<int, std::string>, int> memo_;  // (node, target layout) -> its transform
};

}  // namespace

namespace {

Graph rewrite(const Graph &g, bool blocked_activations, int channel_block, bool pad_input_channels, int lanes) {
  g.validate();
  for (const Node &n : g.nodes())
    if (n.op == "layout_transform" || packed(n)) return g;  // altered already
  // Each round moves more convolutions to NCHW results, so this ends.
  std::set<int> nchw_out;
  for (;;) {
    std::set<int> want = nchw_out;
    Graph out = Rewriter(g, blocked_activations, channel_block, pad_input_channels, lanes, nchw_out).run(want);
    if (want == nchw_out) {
      out.validate();
      return out;
    }
    nchw_out = std::move(want);
  }
}

}  // namespace

Graph alter_conv_layout(const Graph &g, bool blocked_activations) { return rewrite(g, blocked_activations, 0, true, 0); }

Graph alter_conv_layout(const Graph &g, bool blocked_activations, int channel_block, bool pad_input_channels) {
  TIR_USER_CHECK(channel_block >= 0) << "alter_conv_layout: channel_block must be 0 (the CPU blocks) or positive, got "
                                     << channel_block;
  return rewrite(g, blocked_activations, channel_block, pad_input_channels, 0);
}

Graph alter_conv_layout_cpu(const Graph &g, bool blocked_activations, int vector_lanes) {
  TIR_USER_CHECK(vector_lanes >= 0) << "alter_conv_layout_cpu: vector_lanes must be 0 (unknown) or positive, got "
                                    << vector_lanes;
  return rewrite(g, blocked_activations, 0, true, vector_lanes);
}

}  // namespace tensorir::graph
