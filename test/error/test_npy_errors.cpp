// NDArray::load_npy on paths that are not .npy files: each is an Error naming the path
// and what it is, at once (a FIFO must not block, /dev/zero must not fill memory).
#include <tensorir/tensorir.h>

#include <catch2/catch.hpp>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <future>
#include <random>

using namespace tensorir;
using Catch::Contains;
namespace fs = std::filesystem;

namespace {

// A fresh directory under the system's temporary folder, removed afterwards.
struct TempDir {
  fs::path path;
  TempDir() {
    path = fs::temp_directory_path() / ("tensorir_npy_" + std::to_string(::getpid()) + "_" +
                                        std::to_string(std::random_device{}()));
    fs::create_directories(path);
  }
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(path, ec);
  }
};

}  // namespace

TEST_CASE("load_npy: a directory is named as one", "[error][npy]") {
  TempDir dir;
  REQUIRE_THROWS_AS(NDArray::load_npy(dir.path.string()), Error);
  REQUIRE_THROWS_WITH(NDArray::load_npy(dir.path.string()),
                      Contains(dir.path.string()) && Contains("is a directory"));
}

TEST_CASE("load_npy: a FIFO is refused without waiting for a writer", "[error][npy]") {
  TempDir dir;
  const std::string fifo = (dir.path / "pipe.npy").string();
  REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
  auto result = std::async(std::launch::async, [&]() -> std::string {
    try {
      NDArray::load_npy(fifo);
    } catch (const Error &e) {
      return e.what();
    }
    return "no error";
  });
  if (result.wait_for(std::chrono::seconds(10)) == std::future_status::timeout) {
    // Release the reader blocked in open() so the process can go on, then fail.
    const int fd = ::open(fifo.c_str(), O_WRONLY);
    if (fd >= 0) ::close(fd);
    result.wait();
    FAIL("load_npy blocked on a FIFO");
  }
  const std::string message = result.get();
  CHECK_THAT(message, Contains(fifo) && Contains("is not a regular file (a FIFO)"));
}

TEST_CASE("load_npy: /dev/zero is a device, not read until memory runs out", "[error][npy]") {
  REQUIRE_THROWS_WITH(NDArray::load_npy("/dev/zero"),
                      Contains("'/dev/zero'") && Contains("is not a regular file (a character device)"));
}

TEST_CASE("load_npy: a missing file and a file cut after its header", "[error][npy]") {
  TempDir dir;
  const std::string missing = (dir.path / "absent.npy").string();
  REQUIRE_THROWS_WITH(NDArray::load_npy(missing), Contains(missing) && Contains("no such file"));

  const std::string cut = (dir.path / "cut.npy").string();
  NDArray a = NDArray::empty({4, 4}, Float(32));
  a.save_npy(cut);
  fs::resize_file(cut, fs::file_size(cut) - a.nbytes());  // the header alone
  REQUIRE_THROWS_WITH(NDArray::load_npy(cut), Contains(cut) && Contains("truncated data") &&
                                                  Contains("[4, 4] of float32") && Contains("0 bytes present"));
}
