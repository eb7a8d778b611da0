// The processes an RPC test talks to, as children of the test: `tensorir rpc proxy|server`
// (started with --port 0; the address read from the first line it prints) and a headless
// Chromium showing the RPC page. Each is stopped (SIGTERM, then SIGKILL) and waited for
// when its object goes, so that no test leaves a process behind.
#pragma once
#include <signal.h>
#include <sys/types.h>

#include <string>
#include <vector>

namespace tensorir::test {

class ChildProcess {
 public:
  // Starts argv[0] with `argv`, and waits up to `timeout_s` for a line of its stdout that
  // contains `ready`; that line is kept in ready_line(). Throws std::runtime_error with the
  // output so far when the process ends or the time runs out first.
  ChildProcess(const std::vector<std::string> &argv, const std::string &ready, int timeout_s);
  ~ChildProcess();
  ChildProcess(const ChildProcess &) = delete;
  ChildProcess &operator=(const ChildProcess &) = delete;

  const std::string &ready_line() const { return ready_line_; }
  bool alive();
  // `signal`, then SIGKILL after `grace_s`; waits for it. Its exit status, or -1 when it
  // did not exit by itself (or was already stopped).
  int stop(int grace_s = 15, int signal = SIGTERM);

 private:
  pid_t pid_ = -1;
  std::string ready_line_;
};

// `tensorir rpc ARGS...`, e.g. {"proxy", "--port", "0"}.
class RpcProcess {
 public:
  explicit RpcProcess(const std::vector<std::string> &args);
  const std::string &address() const { return address_; }  // "127.0.0.1:PORT"
  int port() const;
  bool alive() { return child_.alive(); }
  // SIGTERM (or `signal`): the exit status, as ChildProcess::stop.
  int stop(int signal = SIGTERM) { return child_.stop(15, signal); }

 private:
  ChildProcess child_;
  std::string address_;
};

// The RPC page of the proxy at `address`, registered under `key`, in headless Chromium
// (test/rpc/open_page.mjs); closed when the object goes.
class BrowserPage {
 public:
  BrowserPage(const std::string &address, const std::string &key);
  bool alive() { return child_.alive(); }
  void close() { child_.stop(); }

 private:
  ChildProcess child_;
};

// Runs `tensorir rpc ARGS...` to its end: its exit status, and its stderr in `err`.
int run_rpc_command(const std::vector<std::string> &args, std::string &err);

// A plain HTTP GET of `target` from 127.0.0.1:port with `headers` ("Name: value" lines, each
// ending in \r\n) added: the status code, and the body in `body`.
int http_get(int port, const std::string &target, std::string &body, const std::string &headers = "");

}  // namespace tensorir::test
