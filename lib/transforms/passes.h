// The lowering passes after flattening, one per file; lib/lower.cpp runs them in order.
#pragma once
#include "tensorir/ir/expr.h"

namespace tensorir {

// Stage::prefetch: each "prefetch" attribute on a loop's body becomes prefetch calls, one
// per cache line, for the part of the buffer that the iteration `offset` steps ahead reads.
Stmt inject_prefetch(const Stmt &s);
// Removes prefetch attributes and calls, for targets without prefetch instructions.
Stmt strip_prefetch(const Stmt &s);
// For targets whose kernels cannot fail a call: each checked_index (ir/op.h) becomes
// its index clamped into range.
Stmt clamp_checked_indices(const Stmt &s);
Expr clamp_checked_indices(const Expr &e);
// For the same targets: AssertStmts (a split factor given at run time) become their body.
Stmt drop_asserts(const Stmt &s);
// Splits loops whose body is guarded by a condition that holds on a prefix of the
// iteration space (the tail of a non-dividing split) into a guard-free part and a tail.
Stmt loop_partition(const Stmt &s);
// Vectorized loops of constant extent become vector code (Ramp/Broadcast); a loop body
// that cannot be widened (a vector-dependent branch, a scatter to one address) stays a
// serial loop.
Stmt vectorize_loops(const Stmt &s);
// Unrolled loops of constant extent are replaced by copies of their body; the unrolled
// loops around a statement may copy it at most 1024 times in all (an Error beyond).
Stmt unroll_loops(const Stmt &s);

}  // namespace tensorir
