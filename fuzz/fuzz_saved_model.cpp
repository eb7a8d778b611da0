// libFuzzer target: runtime::load_model, then a run, on a saved model whose model.json or
// params.bin is replaced by the input. The input's first byte says how:
//   bit 0   the file: model.json (0) or params.bin (1, with model.json's entry for it
//           recomputed so that the parser reads every byte);
//   bit 1   forged: model.so's plan fingerprint rewritten to the plan and its checksum in
//           model.json recomputed, as a forger would, so that the checks of the plan
//           against model.so's kernels, the allocation of storage and the kernels run on
//           edited plans and weights too.
// The other files are those of the seed model that `make fuzz` saves
// ($TENSORIR_FUZZ_MODEL). Loading must succeed or throw tensorir::Error.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>

#include <unistd.h>

#include "runtime/kernel_table.h"
#include "runtime/model_files.h"
#include "tensorir/error.h"
#include "tensorir/runtime/model_loader.h"

namespace fs = std::filesystem;
using namespace tensorir;

namespace {

fs::path g_dir;
runtime::SavedModel g_plan;
std::string g_params, g_library;
size_t g_table_at = std::string::npos;  // the kernel table's offset in model.so

std::string read(const fs::path &p) {
  std::ifstream in(p, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

void write(const fs::path &p, const char *data, size_t n) {
  std::ofstream out(p, std::ios::binary | std::ios::trunc);
  out.write(data, std::streamsize(n));
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int *, char ***) {
  const char *seed = std::getenv("TENSORIR_FUZZ_MODEL");
  if (!seed || !fs::is_directory(seed)) {
    std::fprintf(stderr, "fuzz_saved_model: set TENSORIR_FUZZ_MODEL to a saved model's directory "
                         "(make fuzz saves one)\n");
    std::exit(2);
  }
  g_dir = fs::temp_directory_path() / ("tensorir_fuzz_model_" + std::to_string(::getpid()));
  fs::remove_all(g_dir);
  fs::create_directories(g_dir);
  std::atexit([] {
    std::error_code ec;
    fs::remove_all(g_dir, ec);
  });
  for (const char *f : {runtime::kModelLibrary, runtime::kModelPlan, runtime::kModelParams})
    fs::copy_file(fs::path(seed) / f, g_dir / f, fs::copy_options::overwrite_existing);
  g_params = read(g_dir / runtime::kModelParams);
  g_library = read(g_dir / runtime::kModelLibrary);
  g_plan = runtime::read_model_plan((g_dir / runtime::kModelPlan).string());
  // The table starts with its magic and version; the fingerprint is its fourth word.
  const uint32_t head[2] = {runtime::kKernelTableMagic, runtime::kKernelTableVersion};
  const std::string pattern(reinterpret_cast<const char *>(head), sizeof head);
  g_table_at = g_library.find(pattern);
  if (g_table_at == std::string::npos || g_library.find(pattern, g_table_at + 1) != std::string::npos) {
    std::fprintf(stderr, "fuzz_saved_model: cannot find the kernel table in the seed's model.so\n");
    std::exit(2);
  }
  return 0;
}

namespace {

// Writes `plan` with model.so re-signed for it (the fingerprint and the library's entry).
void write_forged(runtime::SavedModel plan) {
  std::string library = g_library;
  const uint32_t fp = runtime::plan_fingerprint(plan);
  std::memcpy(&library[g_table_at + 12], &fp, sizeof fp);
  plan.library = runtime::SavedFile{library.size(), runtime::fnv1a32(library.data(), library.size())};
  write(g_dir / runtime::kModelLibrary, library.data(), library.size());
  runtime::write_model_plan(plan, (g_dir / runtime::kModelPlan).string());
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size == 0) return 0;
  const char *body = reinterpret_cast<const char *>(data + 1);
  const size_t n = size - 1;
  const bool params = data[0] & 1, forge = data[0] & 2;
  write(g_dir / runtime::kModelLibrary, g_library.data(), g_library.size());
  if (params) {
    runtime::SavedModel plan = g_plan;
    plan.params = runtime::SavedFile{n, runtime::fnv1a32(body, n)};
    write(g_dir / runtime::kModelParams, body, n);
    if (forge)
      write_forged(plan);
    else
      runtime::write_model_plan(plan, (g_dir / runtime::kModelPlan).string());
  } else {
    write(g_dir / runtime::kModelPlan, body, n);
    write(g_dir / runtime::kModelParams, g_params.data(), g_params.size());
    if (forge) {
      try {
        write_forged(runtime::read_model_plan((g_dir / runtime::kModelPlan).string()));
      } catch (const Error &) {  // not a plan: loaded as it is
      }
    }
  }
  try {
    const runtime::LoadedModel m = runtime::load_model(g_dir.string());
    std::map<std::string, NDArray> inputs;
    for (const runtime::ModelInput &in : m.inputs()) inputs[in.name] = NDArray::empty(in.shape, in.dtype);
    (void)m.run_all(inputs);
  } catch (const Error &) {
  }
  return 0;
}
