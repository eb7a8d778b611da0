// The checks of a saved model's plan that need its kernels: made once at load time,
// before any kernel runs, so that an edited model.json is an Error rather than a kernel
// reading or writing outside its arrays.
#pragma once
#include <string>
#include <vector>

#include "runtime/model_files.h"
#include "tensorir/runtime/module.h"

namespace tensorir::runtime {

// Checks every kernel of `plan` against `table` (model.so's kernels): it is there, takes
// as many arguments, of the same dtypes and shapes; and the plan against itself: input
// names are unique, every kernel reads values an earlier kernel computed and no kernel
// has overwritten since, writes no value twice nor over storage it reads (but the argument
// it computes in place of, exactly under its result), every value
// with storage is some kernel's result, and every output still holds its value at the end. Returns, per plan kernel, its index in
// `table`. Throws an Error naming `plan_path`, the kernel or value and the mismatch.
// (read_model_plan has checked indices, buffer bounds and alignment.)
std::vector<size_t> check_plan(const SavedModel &plan, const std::vector<FuncSignature> &table,
                               const std::string &plan_path, const std::string &library_path);

}  // namespace tensorir::runtime
