// Linking saved objects into a shared library with the system's compiler driver, which
// also supplies libgcc's helpers (half-precision conversions and the like).
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>
#include <vector>

#include "backends/llvm/object_file.h"
#include "backends/llvm/programs.h"
#include "tensorir/error.h"

namespace tensorir::llvm_backend {

namespace {

struct Linker {
  std::string path;
  bool driver = true;  // a compiler driver (cc), not a bare linker (ld.lld)
};

Linker find_linker() {
  if (const char *cc = std::getenv("TENSORIR_CC"); cc && *cc) {
    const std::string p = find_program(cc);
    TIR_USER_CHECK(!p.empty()) << "TENSORIR_CC is '" << cc
                               << "', which is not an executable program; point it at a C compiler";
    return {p, true};
  }
  for (const char *name : {"cc", "gcc", "clang", "clang-19"})
    if (std::string p = find_program(name); !p.empty()) return {p, true};
  for (const char *name : {"ld.lld-19", "ld.lld"})
    if (std::string p = find_program(name); !p.empty()) return {p, false};
  TIR_THROW() << "cannot link a shared library: no C compiler (cc, gcc, clang) or ld.lld was found on "
                 "PATH; install one (Debian: gcc) or set TENSORIR_CC to its path";
}

}  // namespace

void link_shared_library(const std::vector<std::string> &objects, const std::string &output,
                         const std::vector<std::string> &exports) {
  TIR_USER_CHECK(!objects.empty()) << "cannot link " << output << " from no object files";
  const Linker linker = find_linker();
  std::vector<std::string> argv = {linker.path, "-shared", "-o", output};
  argv.insert(argv.end(), objects.begin(), objects.end());
  const std::string script = output + ".exports";
  struct Remove {
    std::string path;
    ~Remove() { std::remove(path.c_str()); }
  } remove_script{exports.empty() ? std::string() : script};
  if (!exports.empty()) {
    std::ofstream f(script, std::ios::trunc);
    f << "{\n  global:\n";
    for (const std::string &e : exports) f << "    " << e << ";\n";
    f << "  local: *;\n};\n";
    f.close();
    TIR_USER_CHECK(f.good()) << "cannot write the linker's version script " << script << " (disk full?)";
    argv.push_back((linker.driver ? "-Wl,--version-script=" : "--version-script=") + script);
  }
  // A bare linker does not know the system's library directories: libm and libc then
  // resolve when the library is loaded (every process using the runtime has both).
  if (linker.driver) argv.push_back("-lm");
  else argv.insert(argv.end(), {"-z", "noexecstack"});
  std::string log;
  const int rc = run_program(argv, log);
  TIR_USER_CHECK(rc == 0) << "linking " << output << " with " << linker.path << " failed (exit status "
                          << rc << "): " << log;
}

}  // namespace tensorir::llvm_backend
