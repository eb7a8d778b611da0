// A read under select / if_then_else runs only where the condition picks it: the value
// not picked may lie outside its buffer, on memory that faults. Here the buffers end (or
// start) at an unmapped page, or the indices point gigabytes away, so a read the
// condition rules out crashes the test; every result is checked against plain C++.
// Each runs for the host and for CPUs without AVX-512 (whose masked loads suppress
// faults by themselves, so LLVM folds an eager select of a load into one there): AVX2,
// with masked loads of its own, and SSE4.2, where a masked load becomes a branch per lane.
// The x86-64-v3 code runs only on a host with AVX2 (every x86 server of the last decade);
// elsewhere the test says which target it left out.
#include <dlfcn.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include "correctness/reference.h"

using namespace tensorir;
using namespace tensorir::testing;

namespace {

// `n` floats between unmapped pages: their last element is a page's last (at_end) or
// their first is a page's first (both, when they fill whole pages). n * 4 must be a
// multiple of 64 (buffers are passed 64-byte aligned).
class EdgeBuffer {
 public:
  EdgeBuffer(size_t n, bool at_end) : n_(n) {
    const size_t page = size_t(sysconf(_SC_PAGESIZE));
    const size_t body = (n * sizeof(float) + page - 1) / page * page;
    size_ = body + 2 * page;
    base_ = mmap(nullptr, size_, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    REQUIRE(base_ != MAP_FAILED);
    char *mid = static_cast<char *>(base_) + page;
    REQUIRE(mprotect(mid, body, PROT_READ | PROT_WRITE) == 0);
    data_ = reinterpret_cast<float *>(at_end ? mid + body - n * sizeof(float) : mid);
  }
  ~EdgeBuffer() { munmap(base_, size_); }
  EdgeBuffer(const EdgeBuffer &) = delete;
  EdgeBuffer &operator=(const EdgeBuffer &) = delete;
  float *data() { return data_; }
  void fill(const std::vector<float> &v) { std::memcpy(data_, v.data(), n_ * sizeof(float)); }
  std::vector<float> values() const { return std::vector<float>(data_, data_ + n_); }

 private:
  size_t n_, size_;
  void *base_;
  float *data_;
};

// A module saved as a shared library and opened again, so that the test chooses where
// its buffers lie (a Module call takes NDArrays, which place themselves).
class SharedKernel {
 public:
  SharedKernel(const Module &m, const std::string &name) {
    std::string tmpl = (std::filesystem::temp_directory_path() / "tensorir-guarded-XXXXXX").string();
    REQUIRE(mkdtemp(tmpl.data()) != nullptr);
    dir_ = tmpl;
    const std::string path = dir_ + "/" + name + ".so";
    m.node()->save(path, "so");
    handle_ = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
    REQUIRE(handle_ != nullptr);
    fn_ = reinterpret_cast<RawFunction>(dlsym(handle_, name.c_str()));
    REQUIRE(fn_ != nullptr);
  }
  ~SharedKernel() {
    if (handle_) dlclose(handle_);
    std::filesystem::remove_all(dir_);
  }
  SharedKernel(const SharedKernel &) = delete;
  SharedKernel &operator=(const SharedKernel &) = delete;
  void operator()(const std::vector<ArgValue> &args) const { REQUIRE(fn_(args.data()) == 0); }

 private:
  std::string dir_;
  void *handle_ = nullptr;
  RawFunction fn_ = nullptr;
};

enum class Loops { scalar, vector, parallel_vector };

// The targets this host runs: the x86-64-v3 kernels are called without the JIT's CPU check.
std::vector<std::string> targets() {
  std::vector<std::string> t = {"llvm", "llvm -mcpu=x86-64-v2"};
  if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) t.push_back("llvm -mcpu=x86-64-v3");
  else WARN("this CPU lacks AVX2: the llvm -mcpu=x86-64-v3 cases are left out");
  return t;
}

const char *loops_name(Loops l) {
  return l == Loops::scalar ? "scalar" : l == Loops::vector ? "vectorized" : "parallel + vectorized";
}

// Splits the innermost axis by 16 and vectorizes it; parallel_vector also runs the outer
// part on the thread pool.
void schedule_loops(Schedule &s, const Tensor &out, Loops loops) {
  if (loops == Loops::scalar) return;
  Stage st = s[out];
  const std::vector<IterVar> axes = st->leaf_iter_vars;
  auto [outer, inner] = st.split(axes.back(), 16);
  st.vectorize(inner);
  if (loops == Loops::parallel_vector) st.parallel(axes.size() > 1 ? axes.front() : outer);
}

ArgValue pointer(void *p) {
  ArgValue v;
  v.ptr = p;
  return v;
}

ArgValue integer(int64_t i) {
  ArgValue v;
  v.i64 = i;
  return v;
}

}  // namespace

TEST_CASE("reads a condition rules out stay off memory past a buffer's ends", "[codegen][guarded]") {
  const std::string target = GENERATE(from_range(targets()));
  const Loops loops = GENERATE(Loops::scalar, Loops::vector, Loops::parallel_vector);
  INFO(target << ", " << loops_name(loops));
  const int n = 4096;  // whole pages: both ends of the input touch unmapped memory
  Tensor A = placeholder({n}, Float(32), "A");
  // The bounds come at run time (called with 0 and n), so no pass can decide the
  // conditions at compile time and peel the edges off the loop.
  Var lo("lo"), hi("hi");
  Tensor O = compute(
      {n},
      [&](Var i) {
        Expr zero = make_zero(Float(32));
        return if_then_else(i - 1 >= lo, A(i - 1), zero) + A(i) * 2.0f + select(i + 1 < hi, A(i + 1), zero) +
               // Nested: the inner select reads only where both conditions hold.
               if_then_else(i % 3 == 0, select(i + 2 < hi, A(i + 2), A(i)), zero);
      },
      "O");
  Schedule s = create_schedule({O});
  schedule_loops(s, O, loops);
  SharedKernel k(build(s, {A, O, lo, hi}, target, "neighbors"), "neighbors");

  const std::vector<float> a = random_array<float>({n}, 11).to_vector<float>();
  EdgeBuffer in(n, true), out(n, true);
  in.fill(a);
  k({pointer(in.data()), pointer(out.data()), integer(0), integer(n)});
  std::vector<double> ref(n);
  for (int i = 0; i < n; ++i) {
    double v = (i >= 1 ? a[i - 1] : 0.0) + a[i] * 2.0 + (i + 1 < n ? a[i + 1] : 0.0);
    if (i % 3 == 0) v += i + 2 < n ? a[i + 2] : a[i];
    ref[i] = v;
  }
  check_close(out.values(), ref);
}

TEST_CASE("a zero-padded 3x3 window written with if_then_else reads inside the image only", "[codegen][guarded]") {
  const std::string target = GENERATE(from_range(targets()));
  const Loops loops = GENERATE(Loops::scalar, Loops::vector, Loops::parallel_vector);
  const bool at_end = GENERATE(false, true);
  INFO(target << ", " << loops_name(loops) << ", image against the unmapped page at its " << (at_end ? "end" : "start"));
  const int h = 24, w = 64;
  Tensor I = placeholder({h, w}, Float(32), "I");
  Tensor O = compute(
      {h, w},
      [&](Var y, Var x) {
        Expr acc = make_zero(Float(32));
        for (int dy = -1; dy <= 1; ++dy)
          for (int dx = -1; dx <= 1; ++dx) {
            Expr yy = y + dy, xx = x + dx;
            Expr inside = yy >= 0 && yy < h && xx >= 0 && xx < w;
            acc = acc + if_then_else(inside, I(yy, xx), make_zero(Float(32))) * float(3 * dy + dx + 5);
          }
        return acc;
      },
      "O");
  Schedule s = create_schedule({O});
  schedule_loops(s, O, loops);
  SharedKernel k(build(s, {I, O}, target, "window"), "window");

  const std::vector<float> img = random_array<float>({h, w}, 12).to_vector<float>();
  EdgeBuffer in(size_t(h) * w, at_end), out(size_t(h) * w, !at_end);
  in.fill(img);
  k({pointer(in.data()), pointer(out.data())});
  std::vector<double> ref(size_t(h) * w, 0.0);
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x)
      for (int dy = -1; dy <= 1; ++dy)
        for (int dx = -1; dx <= 1; ++dx) {
          const int yy = y + dy, xx = x + dx;
          if (yy >= 0 && yy < h && xx >= 0 && xx < w) ref[size_t(y) * w + x] += double(img[size_t(yy) * w + xx]) * (3 * dy + dx + 5);
        }
  check_close(out.values(), ref);
}

TEST_CASE("a gather guarded by if_then_else skips indices gigabytes outside the table", "[codegen][guarded]") {
  const std::string target = GENERATE(from_range(targets()));
  const Loops loops = GENERATE(Loops::scalar, Loops::vector, Loops::parallel_vector);
  INFO(target << ", " << loops_name(loops));
  const int n = 2048, m = 100;
  Tensor T = placeholder({m}, Float(32), "T");
  Tensor J = placeholder({n}, Int(32), "J");
  Tensor O = compute(
      {n},
      [&](Var i) {
        Expr j = J(i);
        return if_then_else(j >= 0 && j < m, T(j), make_const(Float(32), -1.0));
      },
      "O");
  // The right side of && and || reads only where the left side does not decide.
  Tensor P = compute(
      {n},
      [&](Var i) {
        Expr j = J(i);
        return cast(Int(32), (j >= 0 && j < m && T(j) > 0.0f) || (j < 0 || j >= m || T(j) < -0.5f));
      },
      "P");
  Schedule s = create_schedule({O, P});
  schedule_loops(s, O, loops);
  schedule_loops(s, P, loops);
  Module mod = build(s, {T, J, O, P}, target, "lookup");

  std::vector<int32_t> idx(n);
  std::mt19937 rng(13);
  for (int i = 0; i < n; ++i) {
    switch (i % 4) {
      case 0: idx[i] = int32_t(rng() % m); break;
      case 1: idx[i] = (1 << 30) + int32_t(rng() % 1000); break;
      case 2: idx[i] = -(1 << 30) - int32_t(rng() % 1000); break;
      default: idx[i] = i % 8 == 3 ? m : -1; break;
    }
  }
  const NDArray t = random_array<float>({m}, 14);
  const std::vector<float> tv = t.to_vector<float>();
  NDArray out = NDArray::empty({n}, Float(32)), flags = NDArray::empty({n}, Int(32));
  mod("lookup")(t, NDArray::from_vector(idx, {n}), out, flags);
  std::vector<float> ref(n);
  std::vector<int32_t> ref_flags(n);
  for (int i = 0; i < n; ++i) {
    const bool inside = idx[i] >= 0 && idx[i] < m;
    ref[i] = inside ? tv[size_t(idx[i])] : -1.0f;
    ref_flags[i] = !inside || tv[size_t(idx[i])] > 0 || tv[size_t(idx[i])] < -0.5f;
  }
  check_close(out.to_vector<float>(), ref);
  check_close(flags.to_vector<int32_t>(), ref_flags);
}

TEST_CASE("a read shared by a vector's lanes runs only when a lane picks it", "[codegen][guarded]") {
  // Row i of the output takes lanes j < len[i] from table entry J[i], one element for
  // all lanes of the vector; rows whose entry is far outside pick no lane.
  const std::string target = GENERATE(from_range(targets()));
  INFO(target);
  const int rows = 64, width = 16, m = 50;
  Tensor T = placeholder({m}, Float(32), "T");
  Tensor J = placeholder({rows}, Int(32), "J");
  Tensor L = placeholder({rows}, Int(32), "L");
  Tensor O = compute(
      {rows, width},
      [&](Var i, Var j) {
        Expr e = J(i);
        return if_then_else(j < L(i) && e >= 0 && e < m, T(e) * cast(Float(32), j + 1), make_zero(Float(32)));
      },
      "O");
  Schedule s = create_schedule({O});
  s[O].vectorize(O.axis(1));
  Module mod = build(s, {T, J, L, O}, target, "rows");

  std::mt19937 rng(15);
  std::vector<int32_t> idx(rows), len(rows);
  for (int i = 0; i < rows; ++i) {
    idx[i] = i % 3 == 0 ? (1 << 30) + int32_t(rng() % 1000) : int32_t(rng() % m);
    len[i] = int32_t(rng() % (width + 1));
  }
  const NDArray t = random_array<float>({m}, 16);
  const std::vector<float> tv = t.to_vector<float>();
  NDArray out = NDArray::empty({rows, width}, Float(32));
  mod("rows")(t, NDArray::from_vector(idx, {rows}), NDArray::from_vector(len, {rows}), out);
  std::vector<float> ref(size_t(rows) * width, 0.0f);
  for (int i = 0; i < rows; ++i)
    for (int j = 0; j < width; ++j)
      if (j < len[i] && idx[i] >= 0 && idx[i] < m) ref[size_t(i) * width + j] = tv[size_t(idx[i])] * float(j + 1);
  check_close(out.to_vector<float>(), ref);
}

TEST_CASE("reads proven inside their buffer stay plain vector loads under a select", "[codegen][guarded]") {
  // A clamped index is inside whatever the condition says, so it needs no mask: the
  // library's padding relies on this for full-speed vector loads.
  const int n = 1024;
  Tensor A = placeholder({n}, Float(32), "A");
  auto build_shift = [&](bool clamp) {
    Tensor O = compute(
        {n},
        [&](Var i) {
          Expr at = clamp ? min(i + 1, n - 1) : i + 1;
          return select(i + 1 < n, A(at), make_zero(Float(32)));
        },
        "O");
    Schedule s = create_schedule({O});
    schedule_loops(s, O, Loops::vector);
    return build(s, {A, O}, "llvm", clamp ? "clamped" : "unclamped").source("ll");
  };
  const std::string clamped = build_shift(true), unclamped = build_shift(false);
  CHECK(unclamped.find("llvm.masked.load") != std::string::npos);
  CHECK(clamped.find("llvm.masked.load") == std::string::npos);
}
