// Mutants of a saved model: each edited model.json or params.bin either loads and runs
// with the saved model's answer or is refused with a tensorir::Error; none crashes or
// touches memory it does not own (this test runs under AddressSanitizer in `make test`).
//
// Three kinds of edit per file:
//   as is     the edited file alone: the checksums in model.json and the plan's
//             fingerprint in model.so no longer match;
//   entry     params.bin edited and model.json's entry for it recomputed, so that the
//             parser reads every byte of the edit;
//   forged    model.json's checksums recomputed and model.so's fingerprint rewritten to
//             the edited plan: what a determined forger can do. The checks of the plan
//             against model.so's kernel table and against itself must still hold every
//             kernel to memory it owns; such a model may compute something else (weights
//             changed, an output moved), which is counted, never a crash.
#include <catch2/catch.hpp>

#include <cstring>

#include "json_mutator.h"
#include "mutation_util.h"
#include "runtime/kernel_table.h"
#include "runtime/model_files.h"
#include "small_model.h"
#include "tensorir/runtime/model_loader.h"

using namespace tensorir;
using namespace tensorir::mutation;

namespace {

constexpr uint64_t kSeed = 20261201;
constexpr int kMutants = 1000;

struct SavedFiles {
  TempDir dir{"saved"};
  Bytes plan, params, library;
  NDArray input = small_cnn_input();
  std::vector<float> want;
  size_t table_at = 0;  // the kernel table's offset in model.so

  SavedFiles() {
    graph::CompiledModel m = build_small_cnn();
    m.save(dir.path.string());
    want = m.run({{"x", input}}).to_vector<float>();
    plan = read_bytes(dir.path / runtime::kModelPlan);
    params = read_bytes(dir.path / runtime::kModelParams);
    library = read_bytes(dir.path / runtime::kModelLibrary);
    // The table starts with its magic, version and kernel count; the fingerprint follows.
    const uint32_t head[3] = {runtime::kKernelTableMagic, runtime::kKernelTableVersion,
                              uint32_t(m.num_kernels())};
    const std::string pattern(reinterpret_cast<const char *>(head), sizeof head);
    table_at = library.find(pattern);
    REQUIRE(table_at != Bytes::npos);
    REQUIRE(library.find(pattern, table_at + 1) == Bytes::npos);
  }

  // Writes the three files of one mutant.
  void write(const Bytes &p, const Bytes &par, const Bytes &lib) const {
    write_bytes(dir.path / runtime::kModelPlan, p);
    write_bytes(dir.path / runtime::kModelParams, par);
    write_bytes(dir.path / runtime::kModelLibrary, lib);
  }

  // model.json's plan with params.bin's entry recomputed for `par`; for `forge`, model.so
  // re-signed with the plan's fingerprint and its entry recomputed too. Returns false when
  // the plan does not parse (the mutant is then tried as is).
  bool resign(const Bytes &p, const Bytes &par, bool forge, Bytes &plan_out, Bytes &lib_out) const {
    const fs::path path = dir.path / "resign.json";
    write_bytes(path, p);
    runtime::SavedModel m;
    try {
      m = runtime::read_model_plan(path.string());
    } catch (const Error &) {
      return false;
    }
    m.params = runtime::SavedFile{par.size(), runtime::fnv1a32(par.data(), par.size())};
    lib_out = library;
    if (forge) {
      const uint32_t fp = runtime::plan_fingerprint(m);
      std::memcpy(&lib_out[table_at + 12], &fp, sizeof fp);
      m.library = runtime::SavedFile{lib_out.size(), runtime::fnv1a32(lib_out.data(), lib_out.size())};
    }
    runtime::write_model_plan(m, path.string());
    plan_out = read_bytes(path);
    return true;
  }
};

enum class Allowed { SameAnswer, AnyAnswer };

// Loads and runs the mutant in `files.dir`; records the outcome in `tally`.
void attempt(const SavedFiles &files, Allowed allowed, const std::string &what, Tally &tally) {
  try {
    runtime::LoadedModel m = runtime::load_model(files.dir.path.string());
    const std::vector<float> got = m.run({{"x", files.input}}).to_vector<float>();
    if (got == files.want) return tally.ran("the saved model's answer");
    if (allowed == Allowed::AnyAnswer) return tally.ran("another answer (forged plan or weights)");
    tally.failed(what + ": ran, with another answer");
  } catch (const Error &e) {
    tally.refused(e.what());
  } catch (const std::exception &e) {
    tally.failed(what + ": " + typeid(e).name() + ": " + e.what());
  }
}

// params.bin's layout (runtime/model_files.cpp): the offsets of its header fields, where
// edits matter most, and the byte ranges of the constants' values.
struct ParamsLayout {
  std::vector<size_t> fields = {0, 8, 12};
  std::vector<std::pair<size_t, size_t>> data;
  bool in_data(size_t begin, size_t end) const {
    for (const auto &[b, e] : data)
      if (begin >= b && end <= e) return true;
    return false;
  }
};

ParamsLayout params_layout(const Bytes &b) {
  ParamsLayout l;
  size_t p = 16;
  auto u32 = [&](size_t o) { uint32_t v = 0; std::memcpy(&v, &b[o], 4); return v; };
  const uint32_t count = u32(12);
  for (uint32_t i = 0; i < count; ++i) {
    l.fields.push_back(p);
    p += 4 + u32(p);
    l.fields.push_back(p);
    const uint32_t ndim = u32(p);
    p += 4;
    for (uint32_t d = 0; d < ndim; ++d, p += 8) l.fields.push_back(p);
    l.fields.push_back(p);
    uint64_t n = 0;
    std::memcpy(&n, &b[p], 8);
    p += 8;
    l.data.emplace_back(p, p + n);
    p += n;
  }
  l.fields.push_back(p);  // the checksum
  REQUIRE(p + 8 == b.size());
  return l;
}

}  // namespace

TEST_CASE("mutants of model.json run with the right answer or are refused", "[mutation][save]") {
  SavedFiles files;
  Rng rng(kSeed);
  JsonMutator mutator(files.plan, rng);
  Tally as_is{"model.json mutants, as is (seed " + std::to_string(kSeed) + ")"};
  Tally forged{"model.json mutants, checksums and fingerprint forged (seed " + std::to_string(kSeed) + ")"};
  for (int i = 0; i < kMutants; ++i) {
    std::string what;
    const Bytes plan = mutator.mutate(what);
    what = "mutant " + std::to_string(i) + ": " + what;
    files.write(plan, files.params, files.library);
    attempt(files, Allowed::SameAnswer, what, as_is);
    Bytes p, lib;
    if (files.resign(plan, files.params, true, p, lib)) {
      files.write(p, files.params, lib);
      attempt(files, Allowed::AnyAnswer, what + " (forged)", forged);
    } else {
      attempt(files, Allowed::AnyAnswer, what + " (forged)", forged);
    }
  }
  as_is.print();
  forged.print();
  CHECK(as_is.failures.empty());
  CHECK(forged.failures.empty());
  CHECK(as_is.total == kMutants);
  // The saved files themselves still load and give the answer.
  files.write(files.plan, files.params, files.library);
  CHECK(runtime::load_model(files.dir.path.string()).run({{"x", files.input}}).to_vector<float>() == files.want);
}

TEST_CASE("mutants of params.bin run with the right answer or are refused", "[mutation][save]") {
  SavedFiles files;
  Rng rng(kSeed + 1);
  const ParamsLayout layout = params_layout(files.params);
  Tally tallies[3] = {Tally("params.bin mutants, as is"),
                      Tally("params.bin mutants, model.json's entry recomputed"),
                      Tally("params.bin mutants, checksums and fingerprint forged")};
  static const uint64_t specials[] = {0, 1, 0xff, 0x7fffffff, 0x80000000, 0xffffffff, 1ull << 40, ~0ull};
  for (int i = 0; i < kMutants; ++i) {
    Bytes par = files.params;
    std::string what = "mutant " + std::to_string(i) + ": ";
    bool weights_only = false;  // the layout kept: only the values of constants changed
    const size_t at = rng.chance(0.6) ? rng.pick(layout.fields) : rng.below(par.size());
    switch (rng.below(4)) {
      case 0: {
        const size_t width = rng.chance(0.5) ? 4 : 8, begin = std::min(at, par.size() - width);
        const uint64_t v = specials[rng.below(std::size(specials))];
        std::memcpy(&par[begin], &v, width);
        weights_only = layout.in_data(begin, begin + width);
        what += std::to_string(width) + " bytes at " + std::to_string(begin) + " set to " + std::to_string(v);
        break;
      }
      case 1: {
        const int delta = rng.chance(0.5) ? 1 : -1;
        par[at] = char(par[at] + delta);
        weights_only = layout.in_data(at, at + 1);
        what += "byte " + std::to_string(at) + (delta > 0 ? " +1" : " -1");
        break;
      }
      case 2: par.resize(at); what += "cut at " + std::to_string(at); break;
      default: par.append(1 + rng.below(64), 'z'); what += "bytes appended"; break;
    }
    const size_t kind = rng.below(3);
    Bytes plan = files.plan, lib = files.library;
    if (kind > 0) REQUIRE(files.resign(files.plan, par, kind == 2, plan, lib));
    files.write(plan, par, lib);
    attempt(files, kind == 2 && weights_only ? Allowed::AnyAnswer : Allowed::SameAnswer, what, tallies[kind]);
  }
  int total = 0;
  for (const Tally &t : tallies) {
    t.print();
    CHECK(t.failures.empty());
    total += t.total;
  }
  CHECK(total == kMutants);
}
