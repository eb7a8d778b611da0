// The files of a saved model, shared by the compiler side that writes them
// (lib/graph/save_model.cpp) and the runtime loader that reads them.
//
//   <dir>/model.so    the kernels, one exported `int32_t fname(const ArgValue *args)` each
//   <dir>/model.txt   the execution plan (text, one record per line, see model_files.cpp)
//   <dir>/params.bin  the constants (binary, with a magic, a version and a checksum)
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "tensorir/runtime/ndarray.h"

namespace tensorir::runtime {

// 2: model.txt records the hashes of model.so and params.bin of the same save.
inline constexpr int kModelFormatVersion = 3;
inline constexpr const char *kModelLibrary = "model.so";
inline constexpr const char *kModelPlan = "model.txt";
inline constexpr const char *kModelParams = "params.bin";

// One array a kernel reads or writes.
struct SavedValue {
  enum Role { Input, Constant, Buffer };
  Role role = Buffer;
  std::string name;  // the graph node's name
  Type dtype;
  std::vector<int64_t> shape;
  int param = -1;     // Constant: index into params.bin
  int buffer = -1;    // Buffer: index into SavedModel::buffers
  size_t offset = 0;  // Buffer: byte offset into it (keeps 64-byte alignment)

  bool is_input() const { return role == Input; }
  bool is_constant() const { return role == Constant; }
  bool is_buffer() const { return role == Buffer; }
};

struct SavedKernel {
  std::string fname;               // the symbol in model.so
  std::string node, op;            // as in graph::KernelProfile
  std::vector<std::string> fused;  // the nodes the kernel computes
  std::vector<int> args;           // indices into SavedModel::values, the result last
};

struct SavedModel {
  std::string target;                // the target string it was compiled for
  std::string cpu;                   // the LLVM CPU the code was compiled for
  std::vector<std::string> cpu_features;  // its LLVM features ("+avx2", "-avx512f", ...)
  // Hashes of the files saved with this plan, so that files of different saves are not
  // mixed: file_hash of model.so (0 when there are no kernels), params.bin's checksum.
  uint64_t library_hash = 0, params_hash = 0;
  std::vector<size_t> buffers;       // bytes of each storage buffer (memory-plan slots)
  std::vector<SavedValue> values;
  std::vector<SavedKernel> kernels;  // in execution order
  int output = -1;                   // index into values
};

// FNV-1a 64 taken 8 bytes at a time (then the last bytes one by one).
uint64_t file_hash(const void *data, size_t n);

// The whole of a regular file; throws an Error naming `what` and the path otherwise.
std::vector<unsigned char> read_file_bytes(const std::string &path, const char *what);

void write_model_plan(const SavedModel &m, const std::string &path);
// Throws an Error naming the file and line for anything malformed or out of range.
SavedModel read_model_plan(const std::string &path);

// Constants in order; CPU arrays. Returns the file's hash (SavedModel::params_hash).
uint64_t write_params(const std::vector<NDArray> &params, const std::string &path);
// Throws an Error for a missing, truncated or corrupt file or another format version.
// `hash`, when given, receives the file's hash.
std::vector<NDArray> read_params(const std::string &path, uint64_t *hash = nullptr);

}  // namespace tensorir::runtime
