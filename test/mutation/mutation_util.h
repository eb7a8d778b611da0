// What the mutation tests share: a seeded generator, files as bytes, and a tally of what
// became of each mutant (ran with the right answer, refused and why, or a failure).
#pragma once
#include <cctype>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <random>
#include <string>
#include <vector>

#include <unistd.h>

namespace tensorir::mutation {

namespace fs = std::filesystem;

using Bytes = std::string;

inline Bytes read_bytes(const fs::path &p) {
  std::ifstream in(p, std::ios::binary);
  return Bytes(std::istreambuf_iterator<char>(in), {});
}

inline void write_bytes(const fs::path &p, const Bytes &b) {
  std::ofstream out(p, std::ios::binary | std::ios::trunc);
  out.write(b.data(), std::streamsize(b.size()));
}

// A directory of its own under the system's temporary directory, removed at the end.
struct TempDir {
  fs::path path;
  explicit TempDir(const std::string &name)
      : path(fs::temp_directory_path() / ("tensorir_mutation_" + std::to_string(::getpid()) + "_" + name)) {
    fs::remove_all(path);
    fs::create_directories(path);
  }
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(path, ec);
  }
};

class Rng {
 public:
  explicit Rng(uint64_t seed) : gen_(seed) {}
  // In [0, n).
  size_t below(size_t n) { return n ? std::uniform_int_distribution<size_t>(0, n - 1)(gen_) : 0; }
  bool chance(double p) { return std::uniform_real_distribution<double>(0, 1)(gen_) < p; }
  template <typename T>
  const T &pick(const std::vector<T> &v) { return v[below(v.size())]; }

 private:
  std::mt19937_64 gen_;
};

// A refusal's message reduced to its kind: quoted names, paths and numbers dropped, the
// first words kept.
inline std::string reason_of(const std::string &message) {
  std::string plain;
  char quote = 0;
  for (char c : message) {
    if (quote) {
      if (c == quote) quote = 0;
      continue;
    }
    if (c == '\'' || c == '"') {
      quote = c;
      plain += "..";
      continue;
    }
    if (c >= '0' && c <= '9') {
      if (plain.empty() || plain.back() != '#') plain += '#';
      continue;
    }
    plain += c;
  }
  std::string out, word;
  int words = 0;
  plain += ' ';
  for (char c : plain) {
    if (c != ' ') {
      word += c;
      continue;
    }
    if (word.find('/') == std::string::npos && !word.empty()) {  // paths name the temporary directory
      out += (out.empty() ? "" : " ") + word;
      if (++words == 9) break;
    }
    word.clear();
  }
  return out;
}

// What became of each mutant, by outcome and by reason, printed as a table.
struct Tally {
  std::string title;
  std::map<std::string, int> outcomes, reasons;
  std::vector<std::string> failures;
  int total = 0;

  explicit Tally(std::string t) : title(std::move(t)) {}

  void ran(const std::string &how) {
    ++total;
    ++outcomes["ran: " + how];
  }
  void refused(const std::string &message) {
    ++total;
    ++outcomes["refused with tensorir::Error"];
    ++reasons[reason_of(message)];
  }
  void failed(const std::string &what) {
    ++total;
    ++outcomes["FAILED"];
    if (failures.size() < 20) failures.push_back(what);
  }
  // Prints the table, and writes it to mutation-reports/ in the working directory (the
  // build tree's test folder under ctest), where `make test` shows it.
  void print() const {
    std::string text = "\n" + title + ": " + std::to_string(total) + " mutants\n";
    auto row = [&](int n, const std::string &what, int indent) {
      char count[16];
      std::snprintf(count, sizeof count, "%8d", n);
      text += count + std::string(size_t(indent), ' ') + what + "\n";
    };
    for (const auto &[k, n] : outcomes) row(n, k, 2);
    text += "  refusals by reason:\n";
    for (const auto &[k, n] : reasons) row(n, k, 4);
    for (const std::string &f : failures) text += "  FAILED: " + f + "\n";
    std::fputs(text.c_str(), stdout);
    std::fflush(stdout);
    std::string slug;
    for (char c : title) slug += std::isalnum(static_cast<unsigned char>(c)) ? c : '_';
    fs::create_directories("mutation-reports");
    std::ofstream(fs::path("mutation-reports") / (slug.substr(0, 60) + ".txt")) << text;
  }
};

}  // namespace tensorir::mutation
