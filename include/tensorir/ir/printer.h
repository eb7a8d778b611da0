// Readable pseudo-code for expressions and loop nests.
#pragma once
#include <ostream>
#include <string>

#include "tensorir/ir/expr.h"

namespace tensorir {

std::ostream &operator<<(std::ostream &os, const Expr &e);
std::ostream &operator<<(std::ostream &os, const Stmt &s);
std::ostream &operator<<(std::ostream &os, const Range &r);
std::string to_string(const Expr &e);
std::string to_string(const Stmt &s);

}  // namespace tensorir
