// The files of a saved model, shared by the compiler side that writes them
// (backends/llvm/saved_model.cpp) and the runtime loader that reads them.
//
//   <dir>/model.so    the kernels (`int32_t fname(const ArgValue *args)`), exported only
//                     through one table of them (runtime/kernel_table.h)
//   <dir>/model.json  the execution plan (JSON, see model_files.cpp)
//   <dir>/params.bin  the constants (binary, with a magic, a version and a checksum)
//
// model.json records the size and FNV-1a 32 checksum ("0x%08x") of model.so and
// params.bin, as a web package's model.json does for its files (web/runtime/validate.js),
// so that files of different saves are not mixed.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "runtime/json.h"
#include "tensorir/runtime/ndarray.h"

namespace tensorir::runtime {

// 6: model.so's kernel table holds the plan's fingerprint (plan_fingerprint).
// 5: model.so exports its kernels only as a table (runtime/kernel_table.h).
// 4: the plan is JSON (model.json), with several outputs and FNV-1a 32 file checksums.
// 3 and before: a line format in model.txt, which load_model recognises and refuses.
inline constexpr int kModelFormatVersion = 6;
inline constexpr const char *kModelFormat = "tensorir-saved-model";
inline constexpr const char *kModelLibrary = "model.so";
inline constexpr const char *kModelPlan = "model.json";
inline constexpr const char *kOldModelPlan = "model.txt";  // formats 1 to 3
inline constexpr const char *kModelParams = "params.bin";
// params.bin's own layout, unchanged since format 3 of the plan.
inline constexpr int kParamsFormatVersion = 3;

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
  int in_place = -1;               // an index into args whose storage the result takes, or -1
};

// A file saved with the plan: its size and checksum.
struct SavedFile {
  uint64_t bytes = 0;
  uint32_t fnv1a32 = 0;
  bool operator==(const SavedFile &o) const { return bytes == o.bytes && fnv1a32 == o.fnv1a32; }
};

struct SavedModel {
  std::string target;                // the target string it was compiled for
  std::string cpu;                   // the LLVM CPU the code was compiled for
  std::vector<std::string> cpu_features;  // its LLVM features ("+avx2", "-avx512f", ...)
  SavedFile library, params;         // model.so (absent without kernels) and params.bin
  std::vector<size_t> buffers;       // bytes of each storage buffer
  std::vector<SavedValue> values;
  std::vector<SavedKernel> kernels;  // in execution order
  std::vector<int> outputs;          // indices into values, in the graph's order
};

// FNV-1a, 32 bits, a byte at a time: the checksum of every file a saved model or a web
// package lists (the JS runtime computes the same, web/runtime/validate.js).
uint32_t fnv1a32(const void *data, size_t n);
inline uint32_t fnv1a32(std::string_view bytes) { return fnv1a32(bytes.data(), bytes.size()); }
// "0x%08x", as model.json writes checksums.
std::string hex32(uint32_t v);
// model.json's entry for a file: {"file", "bytes", "fnv1a32"}.
json::Value file_json(const std::string &file, const void *data, size_t n);
inline json::Value file_json(const std::string &file, std::string_view bytes) {
  return file_json(file, bytes.data(), bytes.size());
}

// The whole of a regular file; throws an Error naming `what` and the path otherwise.
std::vector<unsigned char> read_file_bytes(const std::string &path, const char *what);

void write_model_plan(const SavedModel &m, const std::string &path);
// FNV-1a 32 of the plan as model.json writes it, less model.so's own entry. model.so's
// kernel table carries it, so that an edited plan (a kernel argument pointed at another
// value of the same shape, an output moved) is refused, not run.
uint32_t plan_fingerprint(const SavedModel &m);
// Throws an Error naming the file and the JSON member for anything malformed or out of
// range, and for a plan of another format version (an older tensorir's model.txt: "saved
// by an older tensorir (format 3); save the model again").
SavedModel read_model_plan(const std::string &path);

// Constants in order; CPU arrays. Returns the file's size and checksum (SavedModel::params).
SavedFile write_params(const std::vector<NDArray> &params, const std::string &path);
// Throws an Error for a missing, truncated or corrupt file or another format version.
// `file`, when given, receives the file's size and checksum. A file matching `expected`
// (the plan's entry) skips params.bin's own checksum: the plan's already covers it.
std::vector<NDArray> read_params(const std::string &path, SavedFile *file = nullptr,
                                 const SavedFile *expected = nullptr);

}  // namespace tensorir::runtime
