// A `tensorir rpc server` process for the tests: started with --port 0 and the given
// options, its port read from its first line, stopped with SIGTERM when the object goes.
#pragma once
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <chrono>
#include <string>
#include <thread>
#include <vector>

extern char **environ;

namespace tensorir::rpc_test {

class ServerProcess {
 public:
  // Starts the server; `stderr_path` receives its log. Fails the test when no
  // "listening on" line comes within a minute.
  explicit ServerProcess(const std::vector<std::string> &options, const std::string &stderr_path = "/dev/null") {
    start(options, stderr_path);
    const std::string line = first_line();
    const std::string prefix = "tensorir rpc server: listening on 127.0.0.1:";
    INFO("the server's first line: " << line);
    REQUIRE(line.rfind(prefix, 0) == 0);
    port_ = std::stoi(line.substr(prefix.size()));
  }
  // Starts a server that is expected to refuse to start: exit_status() says how it ended.
  struct Refused {};
  ServerProcess(Refused, const std::vector<std::string> &options, const std::string &stderr_path) {
    start(options, stderr_path);
  }
  ~ServerProcess() {
    if (pid_ > 0) {
      kill(pid_, SIGKILL);
      waitpid(pid_, nullptr, 0);
    }
    if (out_ >= 0) close(out_);
  }
  ServerProcess(const ServerProcess &) = delete;
  ServerProcess &operator=(const ServerProcess &) = delete;

  std::string address() const { return "127.0.0.1:" + std::to_string(port_); }

  // Sends `signal` (0: none) and waits up to a minute for the process to end: its exit
  // status, or -1 when it did not exit by itself (it is then killed).
  int stop(int signal = SIGTERM) {
    if (signal) kill(pid_, signal);
    for (int i = 0; i < 600; ++i) {
      int status = 0;
      if (waitpid(pid_, &status, WNOHANG) == pid_) {
        pid_ = -1;
        return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    return -1;
  }

 private:
  void start(const std::vector<std::string> &options, const std::string &stderr_path) {
    int fds[2];
    REQUIRE(pipe(fds) == 0);
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_adddup2(&actions, fds[1], 1);
    posix_spawn_file_actions_addclose(&actions, fds[0]);
    posix_spawn_file_actions_addopen(&actions, 2, stderr_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    std::vector<std::string> args = {TENSORIR_CLI, "rpc", "server"};
    args.insert(args.end(), options.begin(), options.end());
    std::vector<char *> argv;
    for (std::string &a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    const int rc = posix_spawn(&pid_, TENSORIR_CLI, &actions, nullptr, argv.data(), environ);
    posix_spawn_file_actions_destroy(&actions);
    close(fds[1]);
    out_ = fds[0];
    INFO("starting " << TENSORIR_CLI);
    REQUIRE(rc == 0);
  }

  std::string first_line() {
    std::string line;
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::minutes(1);
    char c = 0;
    while (std::chrono::steady_clock::now() < deadline) {
      pollfd p{out_, POLLIN, 0};
      if (poll(&p, 1, 100) <= 0) continue;
      if (read(out_, &c, 1) != 1 || c == '\n') break;
      line += c;
    }
    return line;
  }

  pid_t pid_ = -1;
  int out_ = -1;
  int port_ = 0;
};

}  // namespace tensorir::rpc_test
