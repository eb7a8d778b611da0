// Timing a candidate kernel, cold or hot. Run back to back, a kernel finds its weights in
// the caches; inside a model they pass through the caches once per inference, and a
// kernel with a large weight (a Winograd-transformed one) is slower there than hot
// timings say. Flushing its buffers before each timed call measures it as the model runs it.
#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#define TENSORIR_HAS_CLFLUSH 1
#endif

#include "autotune/measure.h"
#include "runtime/device_api.h"
#include "runtime/time_calls.h"
#include "tensorir/autotune/tuner.h"
#include "tensorir/error.h"

namespace tensorir::autotune {

void flush_from_caches(const void *data, size_t bytes) {
#ifdef TENSORIR_HAS_CLFLUSH
  const char *p = static_cast<const char *>(data);
  for (size_t off = 0; off < bytes; off += 64) _mm_clflush(p + off);
  if (bytes > 0) _mm_clflush(p + bytes - 1);  // the last line when `data` is not line-aligned
  _mm_mfence();
#else
  (void)data;
  (void)bytes;
#endif
}

std::vector<double> time_kernel(const Module &module, const std::string &function, const std::vector<NDArray> &args,
                                const MeasureOptions &options, const FlushFn &flush) {
  std::vector<Arg> call_args(args.begin(), args.end());
  const Device::Kind kind = signature_of(module, function).device;
  if (!options.flush_cache || kind != Device::CPU) {
    // A device's buffers have no host addresses to flush; where the device computes in
    // the CPU's caches (an OpenCL CPU driver), overwriting host memory evicts them.
    TimeOptions time = options.time;
    const DeviceAPI *api = kind == Device::CPU || args.empty() ? nullptr : find_device_api(kind);
    if (options.flush_cache && api && api->shares_host_caches(args.front().device()))
      time.evict_bytes = options.remote_evict_bytes;
    return module.time_evaluator(function, time).call(call_args).times_ms;
  }
  const TimeOptions &time = options.time;
  runtime::check_time_options(time, "measuring '" + function + "'");
  const Function f = module(function);
  return runtime::time_calls([&] { f.call(call_args); }, time, [&] {
    for (const NDArray &a : args) flush(a.data(), a.nbytes());
  });
}

}  // namespace tensorir::autotune
