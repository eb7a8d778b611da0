// libFuzzer target: runtime::load_model, then a run, on a saved model whose model.json or
// params.bin is replaced by the input. The input's first byte picks the file (even:
// model.json, odd: params.bin, with model.json's entry for it recomputed so that the
// parser reads every byte); the other files are those of the seed model that `make fuzz`
// saves ($TENSORIR_FUZZ_MODEL). Loading must succeed or throw tensorir::Error.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>

#include <unistd.h>

#include "runtime/model_files.h"
#include "tensorir/error.h"
#include "tensorir/runtime/model_loader.h"

namespace fs = std::filesystem;
using namespace tensorir;

namespace {

fs::path g_dir;
runtime::SavedModel g_plan;
std::string g_plan_text, g_params;

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
  g_plan_text = read(g_dir / runtime::kModelPlan);
  g_params = read(g_dir / runtime::kModelParams);
  g_plan = runtime::read_model_plan((g_dir / runtime::kModelPlan).string());
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size == 0) return 0;
  const char *body = reinterpret_cast<const char *>(data + 1);
  const size_t n = size - 1;
  if (data[0] & 1) {
    runtime::SavedModel plan = g_plan;
    plan.params = runtime::SavedFile{n, runtime::fnv1a32(body, n)};
    runtime::write_model_plan(plan, (g_dir / runtime::kModelPlan).string());
    write(g_dir / runtime::kModelParams, body, n);
  } else {
    write(g_dir / runtime::kModelPlan, body, n);
    write(g_dir / runtime::kModelParams, g_params.data(), g_params.size());
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
