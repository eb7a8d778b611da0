// What code generation needs to know about the machine it targets.
#pragma once
#include <string>

namespace tensorir::llvm_backend {

struct CodeGenTarget {
  std::string triple;
  std::string data_layout;
  std::string cpu;
  std::string features;
  int prefer_vector_width = 0;  // bits; 0 leaves LLVM's choice
};

}  // namespace tensorir::llvm_backend
