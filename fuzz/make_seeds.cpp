// The seeds of the fuzz targets (fuzz/): the small model of the mutation tests saved to
// <out>/model, and starting corpora <out>/saved_model (its model.json and params.bin, each
// behind the byte that selects it, as is and forged) and <out>/npy (arrays of several
// dtypes and ranks).
#include <cstdio>
#include <filesystem>
#include <fstream>

#include "small_model.h"

namespace fs = std::filesystem;
using namespace tensorir;

namespace {

void copy_with_prefix(const fs::path &from, char prefix, const fs::path &to) {
  std::ifstream in(from, std::ios::binary);
  std::ofstream out(to, std::ios::binary | std::ios::trunc);
  out.put(prefix);
  out << in.rdbuf();
}

}  // namespace

int main(int argc, char **argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s <output directory>\n", argv[0]);
    return 2;
  }
  const fs::path out = argv[1];
  try {
    for (const char *d : {"model", "saved_model", "npy"}) fs::create_directories(out / d);
    mutation::build_small_cnn().save((out / "model").string());
    copy_with_prefix(out / "model" / "model.json", '\0', out / "saved_model" / "plan");
    copy_with_prefix(out / "model" / "params.bin", '\1', out / "saved_model" / "params");
    copy_with_prefix(out / "model" / "model.json", '\2', out / "saved_model" / "plan_forged");
    copy_with_prefix(out / "model" / "params.bin", '\3', out / "saved_model" / "params_forged");
    NDArray::random({3, 4, 5}, Float(32), 1).save_npy((out / "npy" / "f32.npy").string());
    NDArray::random({7}, Int(64), 2, -100, 100).save_npy((out / "npy" / "i64.npy").string());
    NDArray::random({2, 3}, UInt(8), 3, 0, 255).save_npy((out / "npy" / "u8.npy").string());
    NDArray::random({}, Float(64), 4).save_npy((out / "npy" / "f64_scalar.npy").string());
    NDArray::random({4}, Bool(), 5).save_npy((out / "npy" / "bool.npy").string());
    NDArray::random({2, 0, 3}, Int(16), 6).save_npy((out / "npy" / "i16_empty.npy").string());
    std::printf("fuzz seeds in %s\n", out.c_str());
  } catch (const Error &e) {
    std::fprintf(stderr, "error: %s\n", e.what());
    return 1;
  }
  return 0;
}
