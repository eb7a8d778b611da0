// Row-wise CPU schedule pieces shared by softmax and layer_norm: rows in parallel, and a
// row's reductions as vectors of partial results.
#pragma once
#include <string>
#include <vector>

#include "tensorir/te/schedule.h"

namespace tensorir::ops::detail {

// The leading axes of `st` (all but the last) fused into one parallel loop, returned;
// the last split by a vector of `lanes` and vectorized when it has that many (a partial
// last vector, as for 197 columns, is a peeled iteration of the serial loop of vectors).
IterVar parallel_rows(Stage st, const std::vector<IterVar> &axes, int lanes);

// The first stage of `s` whose compute carries `tag`, or an undefined Stage.
Stage tagged(const Schedule &s, const std::string &tag);

// The single reduction of `st` (a row's maximum or sum) as 16 partial results, each
// reducing every 16th element of the row with the 16 of them one vector, then combined:
// a chain of hundreds of dependent scalar maxima or additions is otherwise most of the
// work. Reductions over fewer than 64 elements, or over several axes, stay as they are.
// Call it before `st` is computed anywhere (rfactor comes before compute_at).
void vector_partials(Schedule &s, Stage st);

}  // namespace tensorir::ops::detail
