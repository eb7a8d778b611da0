#include "rpc/rpc_process.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <stdexcept>

namespace tensorir::test {

namespace {

std::vector<char *> argv_of(std::vector<std::string> &args) {
  std::vector<char *> argv;
  for (std::string &a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  return argv;
}

// Starts argv[0] with `argv`, stdout or stderr (`fd_to_pipe`) into a pipe. The child gets
// SIGTERM when this process ends, so that a test that crashes leaves nothing running
// (a proxy or browser holding the test runner's output open would stall it).
pid_t spawn(std::vector<std::string> argv_strings, int &read_end, int fd_to_pipe) {
  int fds[2];
  if (pipe(fds) != 0) throw std::runtime_error("pipe failed");
  std::vector<char *> argv = argv_of(argv_strings);
  const pid_t parent = getpid();
  const pid_t pid = fork();
  if (pid < 0) throw std::runtime_error(std::string("fork failed: ") + std::strerror(errno));
  if (pid == 0) {
    prctl(PR_SET_PDEATHSIG, SIGTERM);
    if (getppid() != parent) _exit(1);  // the parent already went
    dup2(fds[1], fd_to_pipe);
    close(fds[0]);
    close(fds[1]);
    execvp(argv[0], argv.data());
    const std::string why = "cannot start " + argv_strings[0] + ": " + std::strerror(errno) + "\n";
    if (write(fd_to_pipe, why.data(), why.size()) < 0) _exit(127);
    _exit(127);
  }
  close(fds[1]);
  read_end = fds[0];
  return pid;
}

std::vector<std::string> rpc_argv(const std::vector<std::string> &args) {
  std::vector<std::string> argv = {TENSORIR_CLI, "rpc"};
  argv.insert(argv.end(), args.begin(), args.end());
  return argv;
}

}  // namespace

ChildProcess::ChildProcess(const std::vector<std::string> &argv, const std::string &ready, int timeout_s) {
  int out = -1;
  pid_ = spawn(argv, out, STDOUT_FILENO);
  std::string text;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(timeout_s);
  size_t at = std::string::npos;
  while (std::chrono::steady_clock::now() < deadline) {
    at = text.find(ready);
    if (at != std::string::npos && text.find('\n', at) != std::string::npos) break;
    pollfd p{out, POLLIN, 0};
    if (poll(&p, 1, 200) <= 0) continue;
    char buf[256];
    const ssize_t n = read(out, buf, sizeof buf);
    if (n <= 0) break;
    text.append(buf, size_t(n));
  }
  close(out);  // later output goes nowhere: the process gets EPIPE, not a full pipe
  at = text.find(ready);
  if (at == std::string::npos) {
    stop(2);
    throw std::runtime_error(argv[0] + " did not print \"" + ready + "\" within " + std::to_string(timeout_s) +
                             " s; its output: " + text);
  }
  const size_t start = text.rfind('\n', at) == std::string::npos ? 0 : text.rfind('\n', at) + 1;
  ready_line_ = text.substr(start, text.find('\n', at) - start);
}

ChildProcess::~ChildProcess() { stop(); }

int ChildProcess::stop(int grace_s, int signal) {
  if (pid_ <= 0) return -1;
  kill(pid_, signal);
  int status = 0;
  for (int i = 0; i < grace_s * 10; ++i) {
    if (waitpid(pid_, &status, WNOHANG) == pid_) {
      pid_ = -1;
      return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    }
    usleep(100 * 1000);
  }
  kill(pid_, SIGKILL);
  waitpid(pid_, &status, 0);
  pid_ = -1;
  return -1;
}

bool ChildProcess::alive() {
  int status = 0;
  if (pid_ > 0 && waitpid(pid_, &status, WNOHANG) == pid_) pid_ = -1;
  return pid_ > 0;
}

RpcProcess::RpcProcess(const std::vector<std::string> &args) : child_(rpc_argv(args), "listening on ", 30) {
  const std::string &line = child_.ready_line();
  const size_t start = line.find("listening on ") + 13;
  address_ = line.substr(start, line.find_first_of(" ;", start) - start);
  if (address_.rfind("http://", 0) == 0) address_ = address_.substr(7);
}

int RpcProcess::port() const { return std::stoi(address_.substr(address_.rfind(':') + 1)); }

BrowserPage::BrowserPage(const std::string &address, const std::string &key)
    : child_({TENSORIR_NODE, TENSORIR_SOURCE_DIR "/test/rpc/open_page.mjs",
              "http://" + address + "/rpc.html?key=" + key},
             "opened", 120) {}

int run_rpc_command(const std::vector<std::string> &args, std::string &err) {
  int fd = -1;
  const pid_t pid = spawn(rpc_argv(args), fd, STDERR_FILENO);
  char buf[512];
  ssize_t n;
  while ((n = read(fd, buf, sizeof buf)) > 0) err.append(buf, size_t(n));
  close(fd);
  int status = 0;
  waitpid(pid, &status, 0);
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

int http_get(int port, const std::string &target, std::string &body, const std::string &headers) {
  const int s = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(uint16_t(port));
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (connect(s, reinterpret_cast<sockaddr *>(&addr), sizeof addr) != 0) {
    close(s);
    throw std::runtime_error("cannot connect to 127.0.0.1:" + std::to_string(port));
  }
  const std::string request = "GET " + target + " HTTP/1.1\r\n" +
                              (headers.find("Host:") == std::string::npos ? "Host: 127.0.0.1\r\n" : "") +
                              (headers.find("Connection:") == std::string::npos ? "Connection: close\r\n" : "") +
                              headers + "\r\n";
  if (write(s, request.data(), request.size()) != ssize_t(request.size())) throw std::runtime_error("write failed");
  std::string response;
  char buf[4096];
  ssize_t n;
  while (response.find("\r\n\r\n") == std::string::npos || response.rfind("HTTP/1.1 101", 0) != 0) {
    if ((n = read(s, buf, sizeof buf)) <= 0) break;
    response.append(buf, size_t(n));
  }
  close(s);
  const size_t head_end = response.find("\r\n\r\n");
  if (response.rfind("HTTP/1.1 ", 0) != 0 || head_end == std::string::npos)
    throw std::runtime_error("not an HTTP response: " + response.substr(0, 80));
  body = response.substr(head_end + 4);
  return std::stoi(response.substr(9, 3));
}

}  // namespace tensorir::test
