// Checks of command-line values, shared by the subcommands. The numeric ones are CLI11
// validators (option->check(...)): CLI11 reports a value they refuse as "--option: <why>",
// a usage error (exit status 2). They take plain decimal text only, so that 0x10, 010, 1e3
// or inf are refused rather than read as another number than the one meant.
#pragma once
#include <CLI/CLI.hpp>

#include <cstdint>
#include <string>

namespace tensorir::cli {

// A whole number from lo to hi: "2000 is not a whole number from 1 to 1024".
CLI::Validator whole_number(int64_t lo, uint64_t hi);
// A seed: any whole number from 0 to 2^64 - 1.
CLI::Validator seed_number();
// A TCP port to listen on: 0 (any free port) to 65535.
CLI::Validator port_number();
// A finite number >= 0 (tolerances).
CLI::Validator non_negative_number();
// A finite number of seconds above 0 and at most max_s (timeouts).
CLI::Validator seconds(double max_s);
// A duration "90", "90s", "10m" or "1.5h" from min_s to max_s seconds.
CLI::Validator duration(double min_s, double max_s);
// The seconds of a duration that duration() accepts; a UsageError otherwise.
double duration_seconds(const std::string &text);
// An existing regular file (or a link to one).
CLI::Validator regular_file();

// Why `path` cannot be read as a file ("is a directory", ...), or "" when it is a regular
// file or a link to one. Devices (/dev/zero) and pipes are refused: a reader of one may
// never reach its end, and a pipe can be read only once.
std::string not_a_regular_file(const std::string &path);
// A UsageError "<what> '<path>' is a directory: ..." unless `path` is a regular file.
void require_regular_file(const std::string &path, const std::string &what);
// A UsageError for an output directory -o that cannot be made: `dir`, or one of its
// parents, exists and is not a directory. Checked before any work.
void require_output_directory(const std::string &dir);

}  // namespace tensorir::cli
