// NDArray: allocation, seeded random fill, element access and .npy files.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <random>
#include <string>
#include <unistd.h>

#include "tensorir/runtime/ndarray.h"

using namespace tensorir;

namespace {
// A file under /tmp unique to this process, removed when the test ends.
struct TempFile {
  std::string path;
  explicit TempFile(const std::string &name)
      : path("/tmp/tensorir_test_" + std::to_string(getpid()) + "_" + name) {}
  ~TempFile() { std::remove(path.c_str()); }
};

std::string read_all(const std::string &path) {
  std::ifstream in(path, std::ios::binary);
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

void write_all(const std::string &path, const std::string &bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}
}  // namespace

TEST_CASE("ndarray: empty is zeroed, aligned and sized", "[ndarray]") {
  for (Type t : {Float(32), Float(64), Int(8), Int(64), UInt(16), Bool(), Float(16)}) {
    NDArray a = NDArray::empty({3, 5, 7}, t);
    REQUIRE(a.defined());
    REQUIRE(a.ndim() == 3);
    REQUIRE(a.numel() == 105);
    REQUIRE(a.nbytes() == size_t(105) * t.bytes());
    REQUIRE(reinterpret_cast<uintptr_t>(a.data()) % 64 == 0);
    REQUIRE(a.device() == Device::cpu());
    const auto *bytes = static_cast<const unsigned char *>(a.data());
    size_t nonzero = 0;
    for (size_t i = 0; i < a.nbytes(); ++i) nonzero += bytes[i] != 0;
    REQUIRE(nonzero == 0);
  }
  NDArray scalar = NDArray::empty({}, Float(32));
  REQUIRE(scalar.numel() == 1);
  NDArray zero = NDArray::empty({4, 0}, Float(32));
  REQUIRE(zero.numel() == 0);
  REQUIRE(zero.data() != nullptr);
}

TEST_CASE("ndarray: arrays of a huge page or more start on one, zeroed", "[ndarray]") {
  // 2 MiB, 2 MiB + 4 bytes and 16 MiB: each starts on a huge page.
  for (int64_t n : {int64_t(512) * 1024, int64_t(512) * 1024 + 1, int64_t(4096) * 1024}) {
    NDArray a = NDArray::empty({n}, Float(32));
    INFO(n << " floats");
    REQUIRE(a.nbytes() == size_t(n) * 4);
    CHECK(reinterpret_cast<uintptr_t>(a.data()) % (uintptr_t(2) << 20) == 0);
    const float *v = a.data_as<float>();
    CHECK(std::all_of(v, v + n, [](float x) { return x == 0.0f; }));
  }
  // Below a huge page: the usual 64-byte alignment only.
  NDArray small = NDArray::empty({512 * 1024 - 16}, Float(32));
  CHECK(reinterpret_cast<uintptr_t>(small.data()) % 64 == 0);
}

TEST_CASE("ndarray: bad shapes, dtypes and devices are errors", "[ndarray]") {
  REQUIRE_THROWS_AS(NDArray::empty({2, -1}, Float(32)), Error);
  REQUIRE_THROWS_WITH(NDArray::empty({2, -1}, Float(32)), Catch::Contains("negative dimension -1"));
  REQUIRE_THROWS_WITH(NDArray::empty({2}, Float(32, 4)), Catch::Contains("float32x4"));
  REQUIRE_THROWS_WITH(NDArray::empty({2}, Handle()), Catch::Contains("handle"));
  REQUIRE_THROWS_WITH(NDArray::empty({int64_t(1) << 40, int64_t(1) << 40}, Float(32)),
                      Catch::Contains("too large"));
#ifndef TENSORIR_WITH_OPENGL  // (with OpenGL built in, the device exists)
  REQUIRE_THROWS_WITH(NDArray::empty({2}, Float(32), Device::opengl()),
                      Catch::Contains("no device API for opengl(0) in this build"));
#endif
  NDArray undefined;
  REQUIRE_FALSE(undefined.defined());
  REQUIRE_THROWS_WITH(undefined.shape(), Catch::Contains("undefined NDArray"));
}

TEST_CASE("ndarray: device names", "[ndarray]") {
  REQUIRE(Device::cpu().str() == "cpu(0)");
  REQUIRE(Device::opengl().str() == "opengl(0)");
  REQUIRE(Device::cpu(3).str() == "cpu(3)");
  REQUIRE(shape_str({2, 3}) == "[2, 3]");
  REQUIRE(shape_str({}) == "[]");
}

TEST_CASE("ndarray: random is deterministic per seed", "[ndarray]") {
  for (Type t : {Float(32), Float(64), Int(32), UInt(8), Float(16), BFloat(16), Bool()}) {
    NDArray a = NDArray::random({64, 33}, t, 42, -3.0, 5.0);
    NDArray b = NDArray::random({64, 33}, t, 42, -3.0, 5.0);
    NDArray c = NDArray::random({64, 33}, t, 43, -3.0, 5.0);
    INFO(t.str());
    REQUIRE(std::memcmp(a.data(), b.data(), a.nbytes()) == 0);
    REQUIRE(std::memcmp(a.data(), c.data(), a.nbytes()) != 0);
  }
  // Fixed values (splitmix64 of seed + (i + 1) * golden gamma, computed independently): the
  // generator must not change between machines or releases.
  REQUIRE(NDArray::random({8}, Int(32), 7, 0, 1000).to_vector<int32_t>() ==
          std::vector<int32_t>{389, 16, 900, 582, 452, 249, 467, 328});
  std::vector<double> d = NDArray::random({4}, Float(64), 7, -1, 1).to_vector<double>();
  std::vector<double> expected = {-0.22034050321745702, -0.9664234109436878, 0.8015213612137668,
                                  0.16586058605615617};
  REQUIRE(d == expected);
}

TEST_CASE("ndarray: random respects its range", "[ndarray]") {
  auto f = NDArray::random({10000}, Float(32), 1, -2.0, 3.0).to_vector<float>();
  float lo = 1e9f, hi = -1e9f;
  double mean = 0;
  for (float x : f) {
    lo = std::min(lo, x);
    hi = std::max(hi, x);
    mean += x;
  }
  mean /= f.size();
  REQUIRE(lo >= -2.0f);
  REQUIRE(hi < 3.0f);
  REQUIRE(lo < -1.9f);  // covers the range
  REQUIRE(hi > 2.9f);
  REQUIRE(std::abs(mean - 0.5) < 0.1);

  // A tiny float range: values rounded to float must still stay below `high`.
  for (float x : NDArray::random({1000}, Float(32), 2, 1.0, 1.0000001).to_vector<float>()) {
    REQUIRE(x >= 1.0f);
    REQUIRE(double(x) < 1.0000001);
  }

  auto ints = NDArray::random({10000}, Int(64), 3, -5, 5).to_vector<int64_t>();
  std::vector<int> seen(10, 0);
  for (int64_t x : ints) {
    REQUIRE(x >= -5);
    REQUIRE(x < 5);
    seen[x + 5]++;
  }
  for (int count : seen) REQUIRE(count > 800);  // about 1000 each

  // Integers in [floor(low), ceil(high)), clipped to the type.
  for (uint8_t x : NDArray::random({1000}, UInt(8), 4, -10, 2.5).to_vector<uint8_t>())
    REQUIRE(x <= 2);
  auto all_int8 = NDArray::random({20000}, Int(8), 4, -1000, 1000).to_vector<int8_t>();
  REQUIRE(*std::min_element(all_int8.begin(), all_int8.end()) == -128);  // all of int8
  REQUIRE(*std::max_element(all_int8.begin(), all_int8.end()) == 127);

  // Bool draws both values.
  auto b = NDArray::random({1000}, Bool(), 5).to_vector<uint8_t>();
  int ones = 0;
  for (uint8_t x : b) {
    REQUIRE(x <= 1);
    ones += x;
  }
  REQUIRE(ones > 400);
  REQUIRE(ones < 600);

  REQUIRE_THROWS_AS(NDArray::random({4}, Float(32), 1, 1.0, 1.0), Error);
  REQUIRE_THROWS_AS(NDArray::random({4}, Float(32), 1, NAN, 1.0), Error);
  REQUIRE_THROWS_WITH(NDArray::random({4}, UInt(8), 1, -5, -1), Catch::Contains("uint8"));
  // Bounds between two neighbouring values of the type, or beyond its range, hold none.
  REQUIRE_THROWS_WITH(NDArray::random({3}, Float(32), 1, 1.00000001, 1.00000002),
                      Catch::Contains("no float32 value lies in"));
  REQUIRE_THROWS_WITH(NDArray::random({3}, Float(32), 1, -1e300, -1e299), Catch::Contains("no float32 value"));
  REQUIRE_THROWS_WITH(NDArray::random({3}, Float(16), 1, 0.50001, 0.50002), Catch::Contains("no float16 value"));
  REQUIRE_THROWS_WITH(NDArray::random({3}, BFloat(16), 1, 1.001, 1.002), Catch::Contains("no bfloat16 value"));
  for (float x : NDArray::random({100}, Float(32), 1, -1e300, 1).to_vector<float>()) {
    REQUIRE(x >= -std::numeric_limits<float>::max());
    REQUIRE(x < 1);
  }
}

TEST_CASE("ndarray: from_vector and to_vector round-trip", "[ndarray]") {
  std::vector<float> f = {1.5f, -2.0f, 3.25f, 0.0f, 7.0f, -1e-3f};
  NDArray a = NDArray::from_vector(f, {2, 3});
  REQUIRE(a.dtype() == Float(32));
  REQUIRE(a.shape() == std::vector<int64_t>{2, 3});
  REQUIRE(a.to_vector<float>() == f);
  REQUIRE(a.data_as<float>()[2] == 3.25f);

  std::vector<int64_t> i = {1, -2, int64_t(1) << 40};
  REQUIRE(NDArray::from_vector(i, {3}).to_vector<int64_t>() == i);
  std::vector<uint16_t> u = {0, 65535};
  REQUIRE(NDArray::from_vector(u, {2, 1}).to_vector<uint16_t>() == u);
  std::vector<double> d = {3.141592653589793};
  REQUIRE(NDArray::from_vector(d, {}).to_vector<double>() == d);

  NDArray copy = a.to(Device::cpu());
  REQUIRE(copy.data() != a.data());
  REQUIRE(copy.to_vector<float>() == f);

  std::vector<float> out(6);
  a.copy_to_bytes(out.data(), 24);
  REQUIRE(out == f);
  std::vector<float> g = {9, 8, 7, 6, 5, 4};
  a.copy_from_bytes(g.data(), 24);
  REQUIRE(a.to_vector<float>() == g);
  REQUIRE(copy.to_vector<float>() == f);  // the copy is independent
}

TEST_CASE("ndarray: bool arrays from and to std::vector<bool>, one byte per element", "[ndarray]") {
  std::mt19937 rng(5);
  std::vector<bool> v(37);
  for (size_t i = 0; i < v.size(); ++i) v[i] = rng() % 2 == 0;
  NDArray a = NDArray::from_vector(v, {37});
  REQUIRE(a.dtype() == Bool());
  REQUIRE(a.nbytes() == 37);
  const uint8_t *bytes = a.data_as<uint8_t>();
  for (size_t i = 0; i < v.size(); ++i) CHECK(bytes[i] == (v[i] ? 1 : 0));
  REQUIRE(a.to_vector<bool>() == v);
  REQUIRE(NDArray::from_vector(std::vector<bool>{}, {0, 3}).to_vector<bool>().empty());
  CHECK_THROWS_WITH(NDArray::from_vector(v, {6, 6}), Catch::Contains("37 values do not fill shape"));
  CHECK_THROWS_WITH(NDArray::from_vector(std::vector<uint8_t>(3), {3}).to_vector<bool>(),
                    Catch::Contains("holds uint8 but was read as bool"));
}

TEST_CASE("ndarray: element type and size mismatches are errors", "[ndarray]") {
  NDArray a = NDArray::from_vector(std::vector<float>{1, 2, 3, 4}, {2, 2});
  REQUIRE_THROWS_AS(a.to_vector<int32_t>(), Error);
  REQUIRE_THROWS_WITH(a.to_vector<int32_t>(), Catch::Contains("float32") && Catch::Contains("int32"));
  REQUIRE_THROWS_WITH(a.to_vector<double>(), Catch::Contains("float64"));
  REQUIRE_THROWS_WITH(a.data_as<int8_t>(), Catch::Contains("int8"));
  REQUIRE_THROWS_WITH(NDArray::from_vector(std::vector<float>{1, 2, 3}, {2, 2}),
                      Catch::Contains("3 values") && Catch::Contains("[2, 2]"));
  REQUIRE_THROWS_AS(NDArray::from_vector(std::vector<int32_t>{1}, {-1}), Error);
  float buf[3];
  REQUIRE_THROWS_WITH(a.copy_to_bytes(buf, sizeof(buf)), Catch::Contains("16 bytes"));
  REQUIRE_THROWS_WITH(a.copy_from_bytes(buf, sizeof(buf)), Catch::Contains("12 bytes"));
#ifndef TENSORIR_WITH_OPENGL
  REQUIRE_THROWS_WITH(a.to(Device::opengl()), Catch::Contains("no device API for opengl(0)"));
#endif
}

template <typename T>
void check_npy_round_trip(Type t, const std::string &name, double low, double high) {
  TempFile file(name + ".npy");
  NDArray a = NDArray::random({3, 4, 5}, t, 11, low, high);
  a.save_npy(file.path);
  NDArray b = NDArray::load_npy(file.path);
  INFO(t.str());
  REQUIRE(b.dtype() == t);
  REQUIRE(b.shape() == a.shape());
  REQUIRE(b.to_vector<T>() == a.to_vector<T>());
  // NumPy aligns the data to 64 bytes.
  REQUIRE((read_all(file.path).size() - a.nbytes()) % 64 == 0);
}

TEST_CASE("ndarray: npy round-trip", "[ndarray][npy]") {
  check_npy_round_trip<float>(Float(32), "f4", -1, 1);
  check_npy_round_trip<double>(Float(64), "f8", -1, 1);
  check_npy_round_trip<int8_t>(Int(8), "i1", -100, 100);
  check_npy_round_trip<int16_t>(Int(16), "i2", -1000, 1000);
  check_npy_round_trip<int32_t>(Int(32), "i4", -1e6, 1e6);
  check_npy_round_trip<int64_t>(Int(64), "i8", -1e12, 1e12);
  check_npy_round_trip<uint8_t>(UInt(8), "u1", 0, 255);
  check_npy_round_trip<uint16_t>(UInt(16), "u2", 0, 65535);
  check_npy_round_trip<uint32_t>(UInt(32), "u4", 0, 1e9);
  check_npy_round_trip<uint64_t>(UInt(64), "u8", 0, 1e15);
  check_npy_round_trip<uint8_t>(Bool(), "b1", 0, 2);

  // Shapes of rank 0 and 1 use Python's tuple spelling.
  TempFile file("shapes.npy");
  for (std::vector<int64_t> shape : {std::vector<int64_t>{}, {7}, {0, 3}}) {
    NDArray a = NDArray::random(shape, Float(32), 1);
    a.save_npy(file.path);
    NDArray b = NDArray::load_npy(file.path);
    REQUIRE(b.shape() == shape);
    REQUIRE(b.to_vector<float>() == a.to_vector<float>());
  }
}

TEST_CASE("ndarray: npy header matches NumPy's layout", "[ndarray][npy]") {
  // Byte for byte what numpy.save writes for np.arange(6, dtype='<f4').reshape(2, 3).
  std::string header = "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }";
  header.append(128 - 10 - header.size() - 1, ' ');
  header += '\n';
  std::string numpy_file = std::string("\x93NUMPY\x01\x00", 8);
  numpy_file += char(header.size() & 0xff);
  numpy_file += char(header.size() >> 8);
  numpy_file += header;
  float values[6] = {0, 1, 2, 3, 4, 5};
  numpy_file.append(reinterpret_cast<const char *>(values), sizeof(values));

  TempFile file("layout.npy");
  write_all(file.path, numpy_file);
  NDArray a = NDArray::load_npy(file.path);
  REQUIRE(a.dtype() == Float(32));
  REQUIRE(a.shape() == std::vector<int64_t>{2, 3});
  REQUIRE(a.to_vector<float>() == std::vector<float>{0, 1, 2, 3, 4, 5});
  a.save_npy(file.path);
  REQUIRE(read_all(file.path) == numpy_file);

  // Version 2.0 (4-byte header length), '|' for one-byte types and no trailing comma.
  std::string h2 = "{'descr':'|u1','shape':(3,),'fortran_order':False}\n";
  std::string v2 = std::string("\x93NUMPY\x02\x00", 8);
  for (int i = 0; i < 4; ++i) v2 += char((h2.size() >> (8 * i)) & 0xff);
  v2 += h2 + "\x01\x02\x03";
  write_all(file.path, v2);
  REQUIRE(NDArray::load_npy(file.path).to_vector<uint8_t>() == std::vector<uint8_t>{1, 2, 3});
}

TEST_CASE("ndarray: malformed npy files are errors naming the file", "[ndarray][npy]") {
  TempFile file("bad.npy");
  NDArray::random({4, 4}, Float(64), 1).save_npy(file.path);
  std::string good = read_all(file.path);

  write_all(file.path, good.substr(0, good.size() - 8));
  REQUIRE_THROWS_AS(NDArray::load_npy(file.path), Error);
  REQUIRE_THROWS_WITH(NDArray::load_npy(file.path),
                      Catch::Contains(file.path) && Catch::Contains("truncated data"));

  write_all(file.path, good.substr(0, 40));
  REQUIRE_THROWS_WITH(NDArray::load_npy(file.path), Catch::Contains("truncated header"));

  write_all(file.path, "not a numpy file at all");
  REQUIRE_THROWS_WITH(NDArray::load_npy(file.path), Catch::Contains("magic"));

  std::string fortran = good;
  fortran.replace(fortran.find("False"), 5, "True ");
  write_all(file.path, fortran);
  REQUIRE_THROWS_WITH(NDArray::load_npy(file.path), Catch::Contains("Fortran order"));

  std::string big_endian = good;
  big_endian[big_endian.find("<f8")] = '>';
  write_all(file.path, big_endian);
  REQUIRE_THROWS_WITH(NDArray::load_npy(file.path), Catch::Contains("big-endian"));

  std::string complex = good;
  complex.replace(complex.find("<f8"), 3, "<c8");
  write_all(file.path, complex);
  REQUIRE_THROWS_WITH(NDArray::load_npy(file.path), Catch::Contains("'<c8' is not supported"));

  std::string huge = good;
  huge.replace(huge.find("(4, 4)"), 6, "(9999999999, 9999999999)");
  write_all(file.path, huge);
  REQUIRE_THROWS_WITH(NDArray::load_npy(file.path), Catch::Contains("truncated data"));

  std::string garbled = good;
  garbled.replace(garbled.find("'shape'"), 7, "'shapf'");
  write_all(file.path, garbled);
  REQUIRE_THROWS_WITH(NDArray::load_npy(file.path), Catch::Contains("malformed header"));

  REQUIRE_THROWS_WITH(NDArray::load_npy("/nonexistent/dir/x.npy"),
                      Catch::Contains("/nonexistent/dir/x.npy"));
  REQUIRE_THROWS_WITH(NDArray::random({2}, BFloat(16), 1).save_npy(file.path),
                      Catch::Contains("bfloat16"));
}
