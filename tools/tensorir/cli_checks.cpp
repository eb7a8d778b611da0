// The checks of command-line values (cli_checks.h).
#include "cli_checks.h"

#include <sys/stat.h>

#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <regex>

#include "cli.h"

namespace tensorir::cli {

namespace {

// Plain decimal digits only: CLI11 itself reads 0x10 as 16 and 010 as 8.
bool whole_in_range(const std::string &text, int64_t lo, uint64_t hi) {
  static const std::regex form("-?[0-9]+");
  if (!std::regex_match(text, form)) return false;
  errno = 0;
  if (text[0] == '-') {
    const long long v = std::strtoll(text.c_str(), nullptr, 10);
    return errno != ERANGE && v >= lo;
  }
  const unsigned long long v = std::strtoull(text.c_str(), nullptr, 10);
  return errno != ERANGE && (lo <= 0 || v >= uint64_t(lo)) && v <= hi;
}

// `text` as a finite decimal number ("0.5", "1e-3", "-2"), or NaN.
double decimal(const std::string &text) {
  static const std::regex form("[-+]?([0-9]+\\.?[0-9]*|\\.[0-9]+)([eE][-+]?[0-9]+)?");
  if (!std::regex_match(text, form)) return NAN;
  const double v = std::strtod(text.c_str(), nullptr);
  return std::isfinite(v) ? v : NAN;
}

std::string number_text(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g", v);
  return buf;
}

// 90 -> "90s", 600 -> "10m", 7200 -> "2h".
std::string duration_text(double s) {
  if (s >= 3600 && std::fmod(s, 3600) == 0) return number_text(s / 3600) + "h";
  if (s >= 60 && std::fmod(s, 60) == 0) return number_text(s / 60) + "m";
  return number_text(s) + "s";
}

// The seconds of "90", "90s", "10m" or "1.5h"; NaN when `text` is not one.
double parse_duration(const std::string &text) {
  static const std::regex form("([0-9]+\\.?[0-9]*|\\.[0-9]+)([smh]?)");
  std::smatch m;
  if (!std::regex_match(text, m, form)) return NAN;
  const std::string unit = m[2];
  return std::strtod(m[1].str().c_str(), nullptr) * (unit == "h" ? 3600 : unit == "m" ? 60 : 1);
}

}  // namespace

CLI::Validator whole_number(int64_t lo, uint64_t hi) {
  const std::string range = std::to_string(lo) + " to " + std::to_string(hi);
  return CLI::Validator(
      [=](std::string &text) {
        return whole_in_range(text, lo, hi) ? std::string() : text + " is not a whole number from " + range;
      },
      std::to_string(lo) + ".." + std::to_string(hi));
}

CLI::Validator seed_number() { return whole_number(0, UINT64_MAX).description("0..2^64-1"); }

CLI::Validator port_number() { return whole_number(0, 65535); }

CLI::Validator non_negative_number() {
  return CLI::Validator(
      [](std::string &text) {
        const double v = decimal(text);
        return v >= 0 ? std::string() : text + " is not a finite number >= 0";
      },
      ">=0");
}

CLI::Validator seconds(double max_s) {
  return CLI::Validator(
      [=](std::string &text) {
        const double v = decimal(text);
        return v > 0 && v <= max_s ? std::string()
                                   : text + " is not a number of seconds above 0 and at most " + number_text(max_s);
      },
      "SECONDS");
}

CLI::Validator duration(double min_s, double max_s) {
  return CLI::Validator(
      [=](std::string &text) {
        const double v = parse_duration(text);
        return v >= min_s && v <= max_s ? std::string()
                                        : text + " is not a duration from " + duration_text(min_s) + " to " +
                                              duration_text(max_s) + ": write e.g. 90s, 10m or 1.5h";
      },
      "DURATION");
}

double duration_seconds(const std::string &text) {
  const double v = parse_duration(text);
  if (std::isnan(v)) throw UsageError{"'" + text + "' is not a duration: write e.g. 90s, 10m or 1.5h"};
  return v;
}

CLI::Validator regular_file() {
  return CLI::Validator(
      [](std::string &path) {
        const std::string why = not_a_regular_file(path);
        return why.empty() ? why : "'" + path + "' " + why;
      },
      "FILE");
}

std::string not_a_regular_file(const std::string &path) {
  struct stat st;
  if (::stat(path.c_str(), &st) != 0)
    return errno == ENOENT ? "does not exist" : std::string("cannot be read: ") + std::strerror(errno);
  if (S_ISDIR(st.st_mode)) return "is a directory, not a file";
  if (!S_ISREG(st.st_mode))
    return "is not a regular file (a device, a pipe or a socket): give the path of a file";
  return "";
}

void require_regular_file(const std::string &path, const std::string &what) {
  const std::string why = not_a_regular_file(path);
  if (!why.empty()) throw UsageError{what + " '" + path + "' " + why};
}

void require_output_directory(const std::string &dir) {
  namespace fs = std::filesystem;
  if (dir.empty()) throw UsageError{"-o needs a directory"};
  std::error_code ec;
  fs::path p;
  for (const fs::path &part : fs::path(dir)) {
    p /= part;
    if (part.empty()) continue;
    const fs::file_status st = fs::status(p, ec);
    if (!fs::exists(st)) return;  // made from here on
    if (fs::is_directory(st)) continue;
    if (p == fs::path(dir)) throw UsageError{"-o '" + dir + "' exists and is not a directory"};
    throw UsageError{"-o '" + dir + "': '" + p.string() + "' is a file, not a directory"};
  }
}

}  // namespace tensorir::cli
