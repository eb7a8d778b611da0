// The IR after each lowering pass, written to numbered files (lower()'s dump option).
#pragma once
#include <string>

#include "tensorir/ir/expr.h"

namespace tensorir {

class IRDump {
 public:
  // Creates `dir` (a clear error if it cannot); an empty `dir` writes nothing.
  IRDump(std::string dir, std::string func);
  // Writes <dir>/<func>.NN_<pass>.txt, NN counting the calls from 00.
  void operator()(const std::string &pass, const Stmt &s);

 private:
  std::string dir_, func_;
  int count_ = 0;
};

}  // namespace tensorir
