#include "transforms/ir_dump.h"

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <utility>

#include "tensorir/error.h"
#include "tensorir/ir/printer.h"

namespace tensorir {

IRDump::IRDump(std::string dir, std::string func) : dir_(std::move(dir)), func_(std::move(func)) {
  if (dir_.empty()) return;
  std::error_code ec, is_dir_ec;
  std::filesystem::create_directories(dir_, ec);
  TIR_USER_CHECK(!ec && std::filesystem::is_directory(dir_, is_dir_ec))
      << "lower('" << func_ << "'): cannot create the IR dump directory '" << dir_ << "'"
      << (ec ? ": " + ec.message() : std::string(": a file of that name is in the way"));
}

void IRDump::operator()(const std::string &pass, const Stmt &s) {
  if (dir_.empty()) return;
  char number[16];
  std::snprintf(number, sizeof number, "%02d", count_++);
  const std::filesystem::path path = std::filesystem::path(dir_) / (func_ + "." + number + "_" + pass + ".txt");
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << to_string(s);
  out.close();
  TIR_USER_CHECK(out.good()) << "lower('" << func_ << "'): cannot write the IR dump file '" << path.string() << "'";
}

}  // namespace tensorir
