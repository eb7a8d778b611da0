// Linking saved objects into a shared library with the system's compiler driver, which
// also supplies libgcc's helpers (half-precision conversions and the like).
#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <sstream>
#include <string>
#include <vector>

#include "object_file.h"
#include "tensorir/error.h"

extern char **environ;

namespace tensorir::llvm_backend {

namespace {

// The full path of `name` (as is when it has a slash) if it is an executable file.
std::string find_program(const std::string &name) {
  if (name.find('/') != std::string::npos) return access(name.c_str(), X_OK) == 0 ? name : "";
  const char *path = std::getenv("PATH");
  std::stringstream dirs(path && *path ? path : "/usr/local/bin:/usr/bin:/bin");
  for (std::string dir; std::getline(dirs, dir, ':');) {
    const std::string full = (dir.empty() ? "." : dir) + "/" + name;
    if (access(full.c_str(), X_OK) == 0) return full;
  }
  return "";
}

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

// Runs argv, returning its exit status and everything it printed.
int run(const std::vector<std::string> &argv, std::string &output) {
  int fds[2];
  TIR_USER_CHECK(pipe2(fds, O_CLOEXEC) == 0) << "cannot start the linker: pipe failed";
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, fds[1], 1);
  posix_spawn_file_actions_adddup2(&actions, fds[1], 2);
  std::vector<char *> args;
  for (const std::string &a : argv) args.push_back(const_cast<char *>(a.c_str()));
  args.push_back(nullptr);
  pid_t pid = 0;
  const int err = posix_spawn(&pid, argv[0].c_str(), &actions, nullptr, args.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  close(fds[1]);
  if (err != 0) {
    close(fds[0]);
    TIR_THROW() << "cannot run the linker " << argv[0] << ": error " << err;
  }
  char buf[4096];
  for (ssize_t n; (n = read(fds[0], buf, sizeof buf)) != 0;) {
    if (n < 0) {
      if (errno == EINTR) continue;
      break;
    }
    output.append(buf, size_t(n));
  }
  close(fds[0]);
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

}  // namespace

void link_shared_library(const std::vector<std::string> &objects, const std::string &output) {
  TIR_USER_CHECK(!objects.empty()) << "cannot link " << output << " from no object files";
  const Linker linker = find_linker();
  std::vector<std::string> argv = {linker.path, "-shared", "-o", output};
  argv.insert(argv.end(), objects.begin(), objects.end());
  // A bare linker does not know the system's library directories: libm and libc then
  // resolve when the library is loaded (every process using the runtime has both).
  if (linker.driver) argv.push_back("-lm");
  else argv.insert(argv.end(), {"-z", "noexecstack"});
  std::string log;
  const int rc = run(argv, log);
  TIR_USER_CHECK(rc == 0) << "linking " << output << " with " << linker.path << " failed (exit status "
                          << rc << "): " << log;
}

}  // namespace tensorir::llvm_backend
