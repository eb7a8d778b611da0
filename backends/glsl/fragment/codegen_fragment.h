// The fragment-shader plan of a lowered function: one render pass per computed tensor
// stage, each a GLSL ES 3.00 fragment shader that computes one output element per
// fragment from the stage's tensor expression (not from the lowered loops). The same
// shaders run natively (OpenGL on Mesa) and in browsers (WebGL2). An element-wise stage
// that reads a reduction only at its own index (bias, residual add, activation after a
// convolution or dense layer) computes that reduction in its own pass.
//
// Storage: every tensor lives in one 2D texture (texture_layout.h). Inputs (placeholders)
// are single-channel, float32 in R32F (sampler2D), int32 in R32I (isampler2D), so ints
// keep all 32 bits. Computed tensors are packed by default: a fragment computes four
// consecutive elements into one RGBA32F / RGBA32I texel (fewer fragments, and the
// shader compiler shares what the four have in common, such as a reduction's loop and
// loads that do not depend on the innermost axis). FragmentOptions::pack_all (the webgl
// target) packs every tensor, inputs included, so that one kernel's output texture is
// the next kernel's input as it is. Index arithmetic in the shaders is
// 32-bit; int64 index expressions compute in 32 bits.
#pragma once
#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include "backends/glsl/fragment/texture_layout.h"
#include "tensorir/lower.h"

namespace tensorir::glsl {

// A tensor the passes read or write.
struct FragmentTensor {
  std::string name;          // the tensor's name, for messages
  std::string ident;         // GLSL identifier stem, unique within the plan
  Type dtype;                // float32 or int32
  std::vector<Expr> shape;   // constants or in terms of the plan's variables
  int arg_index = -1;        // the function argument it is bound to, -1 for an intermediate
  bool is_input = false;     // a placeholder: uploaded from its argument before the passes
  bool is_output = false;    // computed and read back into its argument after the passes
  bool packed = false;       // four elements per RGBA texel (packed_texture_layout)
  int64_t const_width = 0;   // layout width in texels when the shape is constant, else 0
  std::string width_uniform; // the uniform holding the layout width when it is not constant
  // > 1: one phase of a tensor of this shape computed `phases` texels per fragment
  // (FragmentPass::outputs): phase k holds the texels whose index along the innermost
  // axis of a texel row is k modulo `phases`, `phase_texels` of them in row-major order
  // (with that index divided by `phases`), laid out by phase_texture_layout.
  int phases = 1;
  int64_t phase_texels = 0;
};

// A uniform every pass may declare; the host sets those a program has.
struct FragmentUniform {
  enum Kind { Variable, Width };
  Kind kind = Variable;
  std::string name;  // GLSL identifier
  Var var;           // Variable: a shape variable or a scalar argument
  int arg_index = -1;// Variable: the scalar argument, or -1 for a shape variable
  int symbol = -1;   // Variable: index into the function's symbols, or -1
  int tensor = -1;   // Width: index into FragmentPlan::tensors
};

struct FragmentPass {
  int output = -1;                         // index into FragmentPlan::tensors
  // Every render target, at locations 0, 1, ... (outputs[0] == output). Several when
  // a fragment computes neighbouring texels of one row at once, one phase tensor each,
  // so that they share the fetches that do not move along the row (a convolution's
  // weights); the next pass interleaves the phases into the tensor.
  std::vector<int> outputs;
  std::vector<int> inputs;                 // tensors bound to texture units 0, 1, ...
  std::vector<std::string> sampler_names;  // the sampler uniform of each input
  std::string source;                      // the fragment shader
  std::vector<std::string> uniforms;       // the plan uniforms the shader declares, by name
  Expr loop_iterations;  // loop iterations per fragment, at most (in the plan's variables)
};

struct FragmentPlan {
  std::string name;
  int max_texture_size = 0;
  std::vector<FragmentTensor> tensors;
  std::vector<FragmentUniform> uniforms;
  std::vector<FragmentPass> passes;  // in execution order
};

// The planner's defaults; the webgl target's options -reduce-chunk and -unroll (a
// kernel's knobs of the same names) replace them.
constexpr int64_t kReduceChunk = 16384;
constexpr int64_t kMaxUnrolled = 256;

struct FragmentOptions {
  int max_texture_size = 4096;  // bounds the texture layouts
  bool pack = true;             // false: computed tensors one element per texel as well
  // Every tensor, placeholders included, packed four elements per RGBA texel (the web
  // layout: a kernel's output texture is the next kernel's input texture as it is).
  bool pack_all = false;
  // Texels of one row a reduction pass may compute per fragment, a power of two (see
  // FragmentPass::outputs); 1: every pass renders into one target.
  int max_phases = 1;
  // Reductions that may run longer than this many iterations per element are split into
  // partial passes (split_reduction, codegen_fragment_emit.h).
  int64_t reduce_chunk = kReduceChunk;
  // Reduction loops are unrolled up to this many source evaluations per lane group
  // (codegen_fragment_emit.cpp).
  int64_t max_unrolled = kMaxUnrolled;
};

// What the fragment path plans from: the function's signature (lower()'s arguments and
// shape symbols), the schedule whose tensor stages become passes, and per argument its
// tensor (with the operation that now computes it), undefined for scalars.
struct StageFunction {
  LoweredFunc func;
  Schedule schedule;
  std::vector<Tensor> arg_tensors;
};
StageFunction stage_function(const Schedule &s, const std::vector<BuildArg> &args, const std::string &name);

// Builds the passes of `f`. Throws tensorir::Error for what a fragment shader cannot
// compute (float64 or other unsupported types, extern calls, a placeholder that is not
// an argument).
FragmentPlan plan_fragment(const StageFunction &f, const FragmentOptions &options);
FragmentPlan plan_fragment(const StageFunction &f, int max_texture_size, bool pack = true);

// The texture layout of tensor `t` of the plan at these dimensions.
TextureLayout tensor_layout(const FragmentTensor &t, const std::vector<int64_t> &shape, int max_texture_size,
                            const std::string &what);

// Every pass's shader, each preceded by a comment naming what it computes.
std::string plan_source(const FragmentPlan &plan);

// Values of the plan's variables for one call, by variable node.
using VarValues = std::unordered_map<const VarNode *, int64_t>;
// A shape evaluated with the given variable values; throws if a dimension is not constant.
std::vector<int64_t> eval_shape(const std::vector<Expr> &shape, const VarValues &values,
                                const std::string &what);

}  // namespace tensorir::glsl
