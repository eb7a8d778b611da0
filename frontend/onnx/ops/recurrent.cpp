// RNN, GRU and LSTM, unrolled over the sequence length known at import. One skeleton
// serves the three cells: per direction, X times W (and the biases that simply add) for
// all steps at once as one dense, then one step per time through the cell's own
// function, which adds H times R and applies the gates. sequence_lens, when some length
// is not the whole sequence or it is computed at run time, masks the steps past each
// batch's length. Inside, the sequence runs as [seq, batch, ...]; layout 1 is transposed
// on the way in and out.
#include <algorithm>
#include <cctype>

#include "frontend/onnx/ops/ops_util.h"

namespace tensorir::onnx::detail {

namespace {

enum class Cell { kRnn, kGru, kLstm };

int gates(Cell k) { return k == Cell::kRnn ? 1 : k == Cell::kGru ? 3 : 4; }

std::vector<std::string> default_activations(Cell k) {
  if (k == Cell::kRnn) return {"tanh"};
  if (k == Cell::kGru) return {"sigmoid", "tanh"};
  return {"sigmoid", "tanh", "tanh"};
}

std::string lower(std::string s) {
  for (char &ch : s) ch = char(std::tolower(static_cast<unsigned char>(ch)));
  return s;
}

// An activation function and its alpha and beta.
struct Activation {
  std::string name;
  double alpha = 0, beta = 0;
};

bool takes_alpha(const std::string &n) {
  return n == "affine" || n == "leakyrelu" || n == "thresholdedrelu" || n == "scaledtanh" || n == "hardsigmoid" ||
         n == "elu";
}
bool takes_beta(const std::string &n) { return n == "affine" || n == "scaledtanh" || n == "hardsigmoid"; }

// The activations of each direction: alphas and betas go, in order, to the functions
// that take them; a list for one direction serves both.
std::vector<std::vector<Activation>> activations(const Attributes &a, Cell k, int dirs) {
  const size_t per = default_activations(k).size();
  std::vector<std::string> names;
  if (a.has("activations")) {
    for (const auto &s : a.get("activations")->strings()) names.push_back(lower(s));
    if (names.size() == per && dirs == 2) names.insert(names.end(), names.begin(), names.end());
    TIR_USER_CHECK(names.size() == per * size_t(dirs))
        << "activations lists " << names.size() << " functions; " << per * size_t(dirs) << " are needed";
  } else {
    for (int d = 0; d < dirs; ++d)
      for (const std::string &n : default_activations(k)) names.push_back(n);
  }
  const std::vector<float> alphas = a.floats("activation_alpha"), betas = a.floats("activation_beta");
  size_t ia = 0, ib = 0;
  std::vector<std::vector<Activation>> out(static_cast<size_t>(dirs));
  for (size_t i = 0; i < names.size(); ++i) {
    Activation f{names[i]};
    const std::string &n = f.name;
    // ONNX's defaults where the function has them.
    f.alpha = n == "leakyrelu" ? 0.01 : n == "hardsigmoid" ? 0.2 : 1.0;
    f.beta = n == "hardsigmoid" ? 0.5 : n == "affine" ? 0.0 : 1.0;
    if (takes_alpha(n) && ia < alphas.size()) f.alpha = alphas[ia++];
    if (takes_beta(n) && ib < betas.size()) f.beta = betas[ib++];
    out[i / per].push_back(f);
  }
  return out;
}

std::string check_activation(const std::string &n) {
  static const char *known[] = {"relu",       "tanh",        "sigmoid", "affine",   "leakyrelu", "thresholdedrelu",
                                "scaledtanh", "hardsigmoid", "elu",     "softsign", "softplus"};
  for (const char *k : known)
    if (n == k) return "";
  return "activation '" + n + "' is not supported";
}

std::string check(const Attributes &a, Cell k) {
  const std::string dir = a.s("direction", "forward");
  if (dir != "forward" && dir != "reverse" && dir != "bidirectional") return "direction '" + dir + "' is unknown";
  if (a.has("activations"))
    for (const auto &s : a.get("activations")->strings())
      if (std::string r = check_activation(lower(s)); !r.empty()) return r;
  if (k == Cell::kLstm && a.i("input_forget", 0) != 0) return "input_forget other than 0 is not supported";
  const int64_t layout = a.i("layout", 0);
  if (layout != 0 && layout != 1) return "layout " + std::to_string(layout) + " is unknown";
  return "";
}

// The node's sizes and attributes, which every step reads.
struct Unroll {
  Context &c;
  Cell kind;
  int dirs;
  int64_t seq, batch, input, hidden, gates;
  bool batch_first, linear_before_reset;
  double clip;
  graph::NodeRef lens;  // sequence_lens, when it masks steps (id -1: every length is seq)
};

graph::NodeRef constant(Unroll &u, double v) { return u.c.constant(scalar(v, Float(32)), "const"); }

// x[begin:end] along `axis` of a tensor of `shape`.
graph::NodeRef slice(Context &c, graph::NodeRef x, const std::vector<int64_t> &shape, int axis, int64_t begin,
                     int64_t end) {
  std::vector<int64_t> b(shape.size(), 0), e = shape;
  b[size_t(axis)] = begin;
  e[size_t(axis)] = end;
  return c.make("slice", {x}, {{"begin", b}, {"end", e}});
}

// x[i] along axis 0, that dimension dropped.
graph::NodeRef pick(Context &c, graph::NodeRef x, const std::vector<int64_t> &shape, int64_t i) {
  std::vector<int64_t> rest(shape.begin() + 1, shape.end());
  return c.make("reshape", {slice(c, x, shape, 0, i, i + 1)}, {{"shape", rest}});
}

// Gate g (of hidden columns each) of pre-activations [batch, gates * hidden].
graph::NodeRef gate(Unroll &u, graph::NodeRef x, int64_t g, int64_t count) {
  return slice(u.c, x, {u.batch, count * u.hidden}, 1, g * u.hidden, (g + 1) * u.hidden);
}

// f(clip(x)), or f(x) where `clipped` is false.
graph::NodeRef activate(Unroll &u, const Activation &f, graph::NodeRef x, bool clipped = true) {
  Context &c = u.c;
  if (u.clip > 0 && clipped) x = c.make("clip", {x}, {{"lo", -u.clip}, {"hi", u.clip}});
  auto mul = [&](graph::NodeRef v, double k) { return k == 1 ? v : c.make("multiply", {v, constant(u, k)}); };
  auto add = [&](graph::NodeRef v, double k) { return k == 0 ? v : c.make("add", {v, constant(u, k)}); };
  auto neg_part = [&](graph::NodeRef v) { return c.make("minimum", {v, constant(u, 0)}); };
  const std::string &n = f.name;
  if (n == "relu" || n == "tanh" || n == "sigmoid") return c.make(n, {x});
  if (n == "affine") return add(mul(x, f.alpha), f.beta);
  if (n == "leakyrelu") return c.make("add", {c.make("relu", {x}), mul(neg_part(x), f.alpha)});
  if (n == "thresholdedrelu")
    return c.make("where", {c.make("greater", {x, constant(u, f.alpha)}), x, constant(u, 0)});
  if (n == "scaledtanh") return mul(c.make("tanh", {mul(x, f.beta)}), f.alpha);
  if (n == "hardsigmoid") return c.make("clip", {add(mul(x, f.alpha), f.beta)}, {{"lo", 0.0}, {"hi", 1.0}});
  if (n == "elu") {
    graph::NodeRef e = add(c.make("exp", {neg_part(x)}), -1);
    return c.make("add", {c.make("relu", {x}), mul(e, f.alpha)});
  }
  if (n == "softsign") return c.make("divide", {x, add(c.make("abs", {x}), 1)});
  return c.make("add", softplus_terms(c, x, constant(u, 1)));
}

// One direction's weights and state.
struct Direction {
  std::vector<Activation> f;
  graph::NodeRef xw;       // [seq, batch, gates * hidden]: X W^T plus the biases that add
  graph::NodeRef r;        // R [gates * hidden, hidden], dense's weight
  graph::NodeRef r_bias;   // GRU with linear_before_reset: Rbh [hidden]
  graph::NodeRef peep[3];  // LSTM: P's i, o, f [hidden]
  graph::NodeRef h, cell;  // the state
};

graph::NodeRef hidden_times(Unroll &u, graph::NodeRef h, graph::NodeRef r) { return u.c.make("dense", {h, r}); }

void rnn_step(Unroll &u, Direction &d, graph::NodeRef x) {
  d.h = activate(u, d.f[0], u.c.make("add", {x, hidden_times(u, d.h, d.r)}));
}

// z, r, h gates; H = (1 - z) h + z H.
void gru_step(Unroll &u, Direction &d, graph::NodeRef x) {
  Context &c = u.c;
  const int64_t hs = u.hidden;
  graph::NodeRef z, r, pre;
  if (u.linear_before_reset) {
    graph::NodeRef hr = hidden_times(u, d.h, d.r);
    z = c.make("add", {gate(u, x, 0, 3), gate(u, hr, 0, 3)});
    r = c.make("add", {gate(u, x, 1, 3), gate(u, hr, 1, 3)});
    r = activate(u, d.f[0], r);
    graph::NodeRef hh = c.make("add", {gate(u, hr, 2, 3), d.r_bias});
    pre = c.make("add", {gate(u, x, 2, 3), c.make("multiply", {r, hh})});
  } else {
    graph::NodeRef rzr = slice(c, d.r, {3 * hs, hs}, 0, 0, 2 * hs), rh = slice(c, d.r, {3 * hs, hs}, 0, 2 * hs, 3 * hs);
    graph::NodeRef hr = hidden_times(u, d.h, rzr);
    z = c.make("add", {gate(u, x, 0, 3), gate(u, hr, 0, 2)});
    r = activate(u, d.f[0], c.make("add", {gate(u, x, 1, 3), gate(u, hr, 1, 2)}));
    pre = c.make("add", {gate(u, x, 2, 3), hidden_times(u, c.make("multiply", {r, d.h}), rh)});
  }
  z = activate(u, d.f[0], z);
  graph::NodeRef h = activate(u, d.f[1], pre);
  graph::NodeRef keep = c.make("subtract", {constant(u, 1), z});
  d.h = c.make("add", {c.make("multiply", {keep, h}), c.make("multiply", {z, d.h})});
}

// i, o, f, c gates, the peepholes on i and f reading the old cell and on o the new one.
void lstm_step(Unroll &u, Direction &d, graph::NodeRef x) {
  Context &c = u.c;
  graph::NodeRef pre = c.make("add", {x, hidden_times(u, d.h, d.r)});
  auto peep = [&](graph::NodeRef g, int p, graph::NodeRef cell) {
    return d.peep[p].id < 0 ? g : c.make("add", {g, c.make("multiply", {d.peep[p], cell})});
  };
  graph::NodeRef i = activate(u, d.f[0], peep(gate(u, pre, 0, 4), 0, d.cell));
  graph::NodeRef f = activate(u, d.f[0], peep(gate(u, pre, 2, 4), 2, d.cell));
  graph::NodeRef g = activate(u, d.f[1], gate(u, pre, 3, 4));
  d.cell = c.make("add", {c.make("multiply", {f, d.cell}), c.make("multiply", {i, g})});
  graph::NodeRef o = activate(u, d.f[0], peep(gate(u, pre, 1, 4), 1, d.cell));
  // `clip` bounds the gates' pre-activations, not the cell state h reads (as ONNX Runtime).
  d.h = c.make("multiply", {o, activate(u, d.f[2], d.cell, false)});
}

// Input i ([dirs, batch, hidden], or [batch, dirs, hidden] in layout 1) for direction
// d, or zeros [batch, hidden].
graph::NodeRef initial(Unroll &u, size_t i, int d) {
  Context &c = u.c;
  if (!c.has_input(i)) {
    check_host_size({u.batch, u.hidden}, Float(32), "the initial state of zeros");
    const std::vector<double> zeros(size_t(u.batch * u.hidden), 0.0);
    return c.constant(from_doubles(zeros, {u.batch, u.hidden}, Float(32)), "zeros");
  }
  need_float32(c, i);
  const std::vector<int64_t> want = {u.dirs, u.batch, u.hidden};
  const std::vector<int64_t> given = u.batch_first ? std::vector<int64_t>{u.batch, u.dirs, u.hidden} : want;
  TIR_USER_CHECK(c.shape(i) == given) << "'" << c.input_name(i) << "' has shape " << shape_str(c.shape(i)) << "; "
                                      << shape_str(given) << " was expected";
  graph::NodeRef x = c.node(i);
  if (u.batch_first) x = c.make("transpose", {x}, {{"axes", std::vector<int64_t>{1, 0, 2}}});
  return pick(c, x, want, d);
}

// Input i of `what`, whose shape must be [dirs, per], for direction d.
graph::NodeRef per_direction(Unroll &u, size_t i, int64_t per, int d, const std::string &what) {
  need_float32(u.c, i);
  TIR_USER_CHECK(u.c.shape(i) == (std::vector<int64_t>{u.dirs, per}))
      << what << " has shape " << shape_str(u.c.shape(i)) << "; " << shape_str({u.dirs, per}) << " was expected";
  return pick(u.c, u.c.node(i), {u.dirs, per}, d);
}

// The sizes and attributes, checked; sequence_lens masks only when some length differs
// from seq or it is computed at run time.
Unroll read(Context &c, Cell kind) {
  const Attributes &a = c.attrs();
  for (size_t i : {0, 1, 2}) need_float32(c, i);
  TIR_USER_CHECK(c.rank(0) == 3 && c.rank(1) == 3 && c.rank(2) == 3) << "X, W and R must have rank 3";
  const bool batch_first = a.i("layout", 0) == 1;
  const std::vector<int64_t> &xs = c.shape(0), &ws = c.shape(1), &rs = c.shape(2);
  Unroll u{c,
           kind,
           a.s("direction", "forward") == "bidirectional" ? 2 : 1,
           xs[batch_first ? 1 : 0],
           xs[batch_first ? 0 : 1],
           xs[2],
           rs[2],
           gates(kind),
           batch_first,
           a.i("linear_before_reset", 0) != 0,
           a.f("clip", 0.0f),
           {}};
  const int64_t gh = u.gates * u.hidden;
  TIR_USER_CHECK(ws == (std::vector<int64_t>{u.dirs, gh, u.input}) &&
                 rs == (std::vector<int64_t>{u.dirs, gh, u.hidden}))
      << "W " << shape_str(ws) << " and R " << shape_str(rs) << " do not fit X " << shape_str(xs) << " with " << u.dirs
      << " direction(s) of " << u.gates << " gate(s)";
  TIR_USER_CHECK(!a.has("hidden_size") || a.i("hidden_size", 0) == u.hidden)
      << "hidden_size " << a.i("hidden_size", 0) << " differs from R's " << u.hidden;
  TIR_USER_CHECK(u.seq > 0) << "an empty sequence";
  if (c.has_input(4)) {
    TIR_USER_CHECK(c.dtype(4) == Int(32) && c.shape(4) == std::vector<int64_t>{u.batch})
        << "sequence_lens must be " << u.batch << " int32 values";
    bool full = c.known(4);
    for (int64_t n : c.known(4) ? to_int64s(c.input(4).known) : std::vector<int64_t>{}) {
      TIR_USER_CHECK(n >= 0 && n <= u.seq) << "sequence_lens holds " << n << ", beyond the sequence length " << u.seq;
      full = full && n == u.seq;
    }
    if (!full) u.lens = c.node(4);
  }
  return u;
}

const std::map<std::string, graph::AttrValue> kTimeBatch = {{"time_axis", int64_t{0}}, {"batch_axis", int64_t{1}}};

// Direction d's weights, and X W^T plus the biases that simply add (Wb + Rb, less GRU's
// Rbh when it goes inside the reset) for every step: x is X as [seq, batch, input]. A
// masked reverse direction reads each sequence reversed within its length.
Direction prepare(Unroll &u, int d, graph::NodeRef x, const std::vector<Activation> &f, bool reverse) {
  Context &c = u.c;
  const int64_t hs = u.hidden, gh = u.gates * hs;
  Direction s;
  s.f = f;
  s.r = pick(c, c.node(2), c.shape(2), d);
  if (u.lens.id >= 0 && reverse) x = c.make("reverse_sequence", {x, u.lens}, kTimeBatch);
  x = c.make("reshape", {x}, {{"shape", std::vector<int64_t>{u.seq * u.batch, u.input}}});
  graph::NodeRef xw = c.make("dense", {x, pick(c, c.node(1), c.shape(1), d)});
  if (c.has_input(3)) {
    graph::NodeRef b = per_direction(u, 3, 2 * gh, d, "B");
    graph::NodeRef rb = slice(c, b, {2 * gh}, 0, gh, 2 * gh);
    if (u.kind == Cell::kGru && u.linear_before_reset) {
      s.r_bias = slice(c, rb, {gh}, 0, 2 * hs, 3 * hs);
      rb = c.make("pad", {slice(c, rb, {gh}, 0, 0, 2 * hs)},
                  {{"before", std::vector<int64_t>{0}}, {"after", std::vector<int64_t>{hs}}});
    }
    graph::NodeRef bias = c.make("add", {slice(c, b, {2 * gh}, 0, 0, gh), rb});
    xw = c.make("bias_add", {xw, bias}, {{"axis", int64_t{1}}});
  } else if (u.kind == Cell::kGru && u.linear_before_reset) {
    s.r_bias = constant(u, 0);
  }
  s.xw = c.make("reshape", {xw}, {{"shape", std::vector<int64_t>{u.seq, u.batch, gh}}});
  if (u.kind == Cell::kLstm && c.has_input(7)) {
    graph::NodeRef p = per_direction(u, 7, 3 * hs, d, "P");
    for (int k = 0; k < 3; ++k) s.peep[k] = slice(c, p, {3 * hs}, 0, k * hs, (k + 1) * hs);
  }
  s.h = initial(u, 5, d);
  if (u.kind == Cell::kLstm) s.cell = initial(u, 6, d);
  return s;
}

// The steps of one direction, in time order or reversed: H after each step, by time.
// Masked, a step past a batch's length keeps its state and gives zeros.
std::vector<graph::NodeRef> unroll(Unroll &u, Direction &s, bool reverse) {
  Context &c = u.c;
  const bool masked = u.lens.id >= 0;
  std::vector<graph::NodeRef> ys(size_t(u.seq));
  for (int64_t k = 0; k < u.seq; ++k) {
    const int64_t t = reverse && !masked ? u.seq - 1 - k : k;
    graph::NodeRef xt = pick(c, s.xw, {u.seq, u.batch, u.gates * u.hidden}, t);
    const graph::NodeRef h = s.h, cell = s.cell;
    if (u.kind == Cell::kRnn) rnn_step(u, s, xt);
    if (u.kind == Cell::kGru) gru_step(u, s, xt);
    if (u.kind == Cell::kLstm) lstm_step(u, s, xt);
    ys[size_t(t)] = s.h;
    if (!masked) continue;
    graph::NodeRef live = c.make("less", {c.constant(scalar(double(t), Int(32)), "step"), u.lens});
    live = c.make("reshape", {live}, {{"shape", std::vector<int64_t>{u.batch, 1}}});
    ys[size_t(t)] = c.make("where", {live, s.h, constant(u, 0)});
    s.h = c.make("where", {live, s.h, h});
    if (u.kind == Cell::kLstm) s.cell = c.make("where", {live, s.cell, cell});
  }
  return ys;
}

// parts, each reshaped to `each`, joined along `axis`.
graph::NodeRef stack(Context &c, const std::vector<graph::NodeRef> &parts, const std::vector<int64_t> &each, int axis) {
  std::vector<graph::NodeRef> r;
  for (graph::NodeRef p : parts) r.push_back(c.make("reshape", {p}, {{"shape", each}}));
  return r.size() == 1 ? r[0] : c.make("concatenate", r, {{"axis", int64_t(axis)}});
}

// Output i from v, its axes permuted by `batch_first` in layout 1.
void finish(Unroll &u, size_t i, graph::NodeRef v, const std::vector<int64_t> &batch_first) {
  if (u.batch_first)
    u.c.output(i, "transpose", {v}, {{"axes", batch_first}});
  else
    u.c.set_output(i, v);
}

void recurrent(Context &c, Cell kind) {
  Unroll u = read(c, kind);
  const std::string dir = c.attrs().s("direction", "forward");
  const std::vector<std::vector<Activation>> acts = activations(c.attrs(), kind, u.dirs);
  graph::NodeRef x = c.node(0);
  if (u.batch_first) x = c.make("transpose", {x}, {{"axes", std::vector<int64_t>{1, 0, 2}}});
  const int64_t b = u.batch, hs = u.hidden;
  std::vector<graph::NodeRef> ys, hs_last, cs_last;  // per direction
  for (int d = 0; d < u.dirs; ++d) {
    const bool reverse = dir == "reverse" || d == 1;
    Direction s = prepare(u, d, x, acts[size_t(d)], reverse);
    graph::NodeRef y = stack(c, unroll(u, s, reverse), {1, b, hs}, 0);
    if (u.lens.id >= 0 && reverse) y = c.make("reverse_sequence", {y, u.lens}, kTimeBatch);
    ys.push_back(y);
    hs_last.push_back(s.h);
    cs_last.push_back(s.cell);
  }
  // Y [seq, dirs, batch, hidden]; Y_h and Y_c [dirs, batch, hidden].
  if (c.wants_output(0)) finish(u, 0, stack(c, ys, {u.seq, 1, b, hs}, 1), {2, 0, 1, 3});
  if (c.wants_output(1)) finish(u, 1, stack(c, hs_last, {1, b, hs}, 0), {1, 0, 2});
  if (kind == Cell::kLstm && c.wants_output(2)) finish(u, 2, stack(c, cs_last, {1, b, hs}, 0), {1, 0, 2});
}

const bool registered = [] {
  for (Cell k : {Cell::kRnn, Cell::kGru, Cell::kLstm}) {
    const std::string op = k == Cell::kRnn ? "RNN" : k == Cell::kGru ? "GRU" : "LSTM";
    register_converter({op, kMinOpset, kLatest, [k](const Attributes &a) { return check(a, k); },
                        [k](Context &c) { recurrent(c, k); }});
  }
  return true;
}();

}  // namespace

}  // namespace tensorir::onnx::detail
