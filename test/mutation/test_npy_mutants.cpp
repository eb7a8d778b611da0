// Mutants of .npy files: each edited file either loads as exactly the array its bytes
// describe (checked here by an independent reading of the header length) or is refused
// with a tensorir::Error; none crashes or reads past the file (AddressSanitizer in
// `make test`).
#include <catch2/catch.hpp>

#include <cstring>

#include "mutation_util.h"
#include "tensorir/runtime/ndarray.h"

using namespace tensorir;
using namespace tensorir::mutation;

namespace {

constexpr uint64_t kSeed = 20261202;
constexpr int kMutants = 1200;

// Where an array's data starts in a .npy file, read from its version and header length
// alone; npos when the file is too short to say.
size_t data_offset(const Bytes &b) {
  if (b.size() < 10) return Bytes::npos;
  const unsigned major = static_cast<unsigned char>(b[6]);
  const size_t len_bytes = major == 1 ? 2 : 4;
  if (b.size() < 8 + len_bytes) return Bytes::npos;
  size_t len = 0;
  for (size_t i = 0; i < len_bytes; ++i) len |= size_t(static_cast<unsigned char>(b[8 + i])) << (8 * i);
  return 8 + len_bytes + len;
}

Bytes mutate(const Bytes &original, Rng &rng, std::string &what) {
  Bytes b = original;
  const size_t header_end = std::min(data_offset(b), b.size());
  // Most edits go to the header, where the parser is.
  const size_t at = rng.chance(0.8) ? rng.below(header_end) : rng.below(b.size());
  static const std::vector<std::string> inserts = {"9", "99999999999", "-1", "0", ",", "(", ")", "'", ":",
                                                   "<f8", "|b1", ">i4", "True", " ", "\n", "\\x00", "L"};
  switch (rng.below(7)) {
    case 0: b[at] = char(b[at] ^ (1 << rng.below(8))); what = "bit flipped at " + std::to_string(at); break;
    case 1: b.erase(at, 1 + rng.below(3)); what = "bytes deleted at " + std::to_string(at); break;
    case 2: {
      const std::string &s = rng.pick(inserts);
      b.insert(at, s);
      what = "'" + s + "' inserted at " + std::to_string(at);
      break;
    }
    case 3: {
      const std::string &s = rng.pick(inserts);
      b.replace(at, std::min(s.size(), b.size() - at), s);
      what = "'" + s + "' written at " + std::to_string(at);
      break;
    }
    case 4: b.resize(at); what = "cut at " + std::to_string(at); break;
    case 5: {  // the header length field
      const size_t field = 8 + rng.below(static_cast<unsigned char>(b[6]) == 1 ? 2 : 4);
      b[field] = char(rng.pick(std::vector<int>{0, 1, 0x7f, 0x80, 0xff}));
      what = "header length byte " + std::to_string(field) + " changed";
      break;
    }
    default: b[6] = char(rng.below(5)); what = "version byte set to " + std::to_string(int(b[6])); break;
  }
  return b;
}

}  // namespace

TEST_CASE("mutants of .npy files load as what their bytes say or are refused", "[mutation][npy]") {
  TempDir dir("npy");
  std::vector<Bytes> originals;
  const std::vector<std::pair<std::vector<int64_t>, Type>> arrays = {
      {{3, 4, 5}, Float(32)}, {{7}, Int(64)}, {{2, 3}, UInt(8)}, {{}, Float(64)}, {{4}, Bool()}, {{2, 0, 3}, Int(16)}};
  for (size_t i = 0; i < arrays.size(); ++i) {
    const fs::path p = dir.path / ("a" + std::to_string(i) + ".npy");
    NDArray::random(arrays[i].first, arrays[i].second, 40 + i).save_npy(p.string());
    originals.push_back(read_bytes(p));
  }
  Rng rng(kSeed);
  Tally tally{".npy mutants (seed " + std::to_string(kSeed) + ")"};
  const fs::path path = dir.path / "mutant.npy";
  for (int i = 0; i < kMutants; ++i) {
    std::string what;
    const Bytes b = mutate(rng.pick(originals), rng, what);
    what = "mutant " + std::to_string(i) + ": " + what;
    write_bytes(path, b);
    try {
      const NDArray a = NDArray::load_npy(path.string());
      const size_t at = data_offset(b);
      if (at == Bytes::npos || at + a.nbytes() > b.size()) {
        tally.failed(what + ": loaded " + std::to_string(a.nbytes()) + " bytes the file does not hold");
      } else if (a.nbytes() && std::memcmp(a.data(), b.data() + at, a.nbytes()) != 0) {
        tally.failed(what + ": loaded values that differ from the file's bytes");
      } else {
        tally.ran("loaded the array its bytes describe");
      }
    } catch (const Error &e) {
      tally.refused(e.what());
    } catch (const std::exception &e) {
      tally.failed(what + ": " + typeid(e).name() + ": " + e.what());
    }
  }
  tally.print();
  CHECK(tally.failures.empty());
  CHECK(tally.total == kMutants);
}
