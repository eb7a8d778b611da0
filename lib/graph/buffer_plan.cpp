// Grouping overlapping result arrays into buffers.
#include "buffer_plan.h"

#include <algorithm>
#include <cstdint>

namespace tensorir::graph {

BufferPlan plan_buffers(const std::vector<std::pair<int, NDArray>> &arrays) {
  struct Span {
    uintptr_t begin, end;
    int node;
  };
  std::vector<Span> spans;
  for (const auto &[id, a] : arrays) {
    const auto p = reinterpret_cast<uintptr_t>(a.data());
    spans.push_back(Span{p, p + std::max<size_t>(a.nbytes(), 1), id});
  }
  std::sort(spans.begin(), spans.end(), [](const Span &a, const Span &b) { return a.begin < b.begin; });
  BufferPlan plan;
  for (size_t i = 0; i < spans.size();) {
    const uintptr_t start = spans[i].begin & ~uintptr_t(63);
    uintptr_t end = spans[i].end;
    size_t j = i;
    for (; j < spans.size() && spans[j].begin < end; ++j) end = std::max(end, spans[j].end);
    const int buffer = int(plan.bytes.size());
    plan.bytes.push_back(size_t(end - start));
    for (size_t k = i; k < j; ++k) plan.place[spans[k].node] = {buffer, size_t(spans[k].begin - start)};
    i = j;
  }
  return plan;
}

}  // namespace tensorir::graph
