// The phases of a fragment pass (fragment_phases.h): how many, and the interleave pass.
#include "backends/glsl/fragment/fragment_phases.h"

#include <sstream>

#include "backends/glsl/common/glsl_common.h"
#include "backends/glsl/fragment/texel_grid.h"
#include "tensorir/ir/visitor.h"

namespace tensorir::glsl {

int64_t phase_texel_count(const FragmentTensor &t, int phases) { return phase_grid(t, phases).texels; }

int choose_phases(const FragmentPlan &plan, const ComputeOpNode *op, const Expr &body, int out, int max_phases) {
  const FragmentTensor &ot = plan.tensors[static_cast<size_t>(out)];
  if (max_phases < 2 || !ot.packed || !ot.dtype.is_float() || !rows_are_subtensors(ot)) return 1;
  const ReduceNode *r = single_reduction(body);
  if (!r) return 1;
  std::vector<Var> axes, row;
  for (const IterVar &ax : op->axis) axes.push_back(ax.var());
  for (const IterVar &ax : r->axis)
    if (uses_var(ax.dom().min, axes) || uses_var(ax.dom().extent, axes)) return 1;
  const int along = row_axis(ot);
  if (along < 0) return 1;
  // A read that no axis of the row moves (a convolution's weights) is what the phases
  // share; the last axis, packed, moves only between the lanes of one texel.
  for (size_t d = static_cast<size_t>(row_split(ot)); d < axes.size(); ++d)
    if (d + 1 < axes.size() || along == static_cast<int>(d)) row.push_back(axes[d]);
  struct Invariant : IRVisitor {
    const std::vector<Var> *row;
    bool found = false;
    using IRVisitor::visit;
    void visit(const TensorLoadNode *n) override {
      bool moves = false;
      for (const Expr &a : n->args) moves = moves || uses_var(a, *row);
      found = found || !moves;
      IRVisitor::visit(n);
    }
  };
  Invariant inv;
  inv.row = &row;
  for (const Expr &s : r->source) inv.visit(s);
  if (!inv.found) return 1;
  // As many phases as allowed, but no more than the axis needs.
  const int64_t extent = *as_const_int(grid_shape(ot)[static_cast<size_t>(along)]);
  int p = 1;
  while (p * 2 <= max_phases && p < extent) p *= 2;
  return p;
}

FragmentPass emit_interleave_pass(const FragmentPlan &plan, const std::vector<int> &phases, int out) {
  const FragmentTensor &ot = plan.tensors[static_cast<size_t>(out)];
  const int n = static_cast<int>(phases.size());
  TIR_ASSERT(n > 1 && (n & (n - 1)) == 0) << plan.name << ": " << n << " phases";
  const PhaseGrid pg = phase_grid(ot, n);
  const int64_t wf = plan.tensors[static_cast<size_t>(phases[0])].const_width;
  TIR_ASSERT((wf & (wf - 1)) == 0) << plan.name << ": phase layout width " << wf;
  // The output's texel x of row y is (r, e) along the row, e on the stepped axis (the
  // axes after it have extent 1): phase e % n, phase texel (y * R + r) * steps + e / n.
  const int64_t per_row = ot.const_width / pg.extent;
  FragmentPass pass;
  pass.output = out;
  pass.outputs = {out};
  std::ostringstream src;
  src << "#version 300 es\n"
      << "// " << plan.name << ": interleaves the " << n << " phases of " << ot.name << "\n"
      << "precision highp float;\nprecision highp int;\nprecision highp sampler2D;\n";
  for (int t : phases) {
    pass.inputs.push_back(t);
    pass.sampler_names.push_back("tex_" + plan.tensors[static_cast<size_t>(t)].ident);
    src << "uniform highp sampler2D " << pass.sampler_names.back() << ";\n";
  }
  src << "layout(location = 0) out highp vec4 result;\n"
      << "void main() {\n"
      << "  ivec2 at = ivec2(gl_FragCoord.xy);\n"
      << "  int r = at.x / " << pg.extent << ";\n"
      << "  int e = at.x - r * " << pg.extent << ";\n"
      << "  int t = (at.y * " << per_row << " + r) * " << pg.steps << " + (e >> " << log2_exact(n) << ");\n"
      << "  ivec2 from = ivec2(t & " << (wf - 1) << ", t >> " << log2_exact(wf) << ");\n"
      << "  int phase = e & " << (n - 1) << ";\n"
      << "  vec4 v = texelFetch(" << pass.sampler_names[0] << ", from, 0);\n";
  for (int k = 1; k < n; ++k)
    src << "  if (phase == " << k << ") v = texelFetch(" << pass.sampler_names[static_cast<size_t>(k)]
        << ", from, 0);\n";
  src << "  result = v;\n}\n";
  pass.source = src.str();
  return pass;
}

}  // namespace tensorir::glsl
