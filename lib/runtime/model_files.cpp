// Writing and reading a saved model's plan (model.txt) and constants (params.bin).
//
// model.txt: whitespace-separated tokens, one record per line; names are percent-encoded
// so that any node name is one token.
//   tensorir-model <version>
//   target <target string>
//   cpu <LLVM CPU name> <n> <features...>  ("+avx2" ...: what the machine code may use)
//   library <hash of model.so, 16 hex digits; 0 without kernels>
//   params <params.bin's checksum, 16 hex digits>
//   buffers <n>                          then n lines: buffer <bytes>
//   values <n>                           then n lines, one of:
//     value input <name> <dtype> <ndim> <dims...>
//     value constant <name> <dtype> <ndim> <dims...> <param index>
//     value buffer <name> <dtype> <ndim> <dims...> <buffer index> <byte offset>
//   kernels <n>                          then n lines:
//     kernel <fname> <node> <op> <nargs> <value indices...> <nfused> <names...>
//   output <value index>
//   end
//
// params.bin (little-endian, as the machines the kernels run on):
//   "TIRPARAM", u32 version, u32 count,
//   per array: u32 length + dtype name, u32 ndim, i64 dims[ndim], u64 nbytes, data,
//   u64 checksum of every byte before it (FNV-1a over 8-byte words, then single bytes).
#include "runtime/model_files.h"

#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <new>
#include <sstream>

#include "tensorir/error.h"

namespace tensorir::runtime {

namespace {

constexpr char kParamsMagic[8] = {'T', 'I', 'R', 'P', 'A', 'R', 'A', 'M'};

std::string encode(const std::string &s) {
  static const char *hex = "0123456789ABCDEF";
  std::string out;
  for (unsigned char c : s) {
    if (c <= ' ' || c == '%' || c >= 0x7f) {
      out += '%';
      out += hex[c >> 4];
      out += hex[c & 15];
    } else {
      out += char(c);
    }
  }
  return out.empty() ? "%" : out;  // a lone % is the empty string
}

int hex_digit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  return -1;
}

uint64_t checksum(const unsigned char *p, size_t n) { return file_hash(p, n); }

// The largest buffer or array a plan may ask for: far above any model, far below sizes
// whose arithmetic could wrap.
constexpr uint64_t kMaxBytes = uint64_t(1) << 40;

// The bytes of a value, or false when they overflow or exceed kMaxBytes.
bool value_bytes(const SavedValue &v, size_t &bytes) {
  uint64_t n = uint64_t(v.dtype.bytes());
  for (int64_t d : v.shape)
    if (__builtin_mul_overflow(n, uint64_t(d), &n) || n > kMaxBytes) return false;
  bytes = size_t(n);
  return true;
}

std::string hex16(uint64_t v) {
  char buf[17];
  std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(v));
  return buf;
}

// Tokens of model.txt, line by line, with errors that name the file and line.
class PlanReader {
 public:
  explicit PlanReader(const std::string &path) : path_(path), in_(path) {
    TIR_USER_CHECK(in_.good()) << "cannot open the model plan " << path;
  }

  // Reads the next line, which must start with `keyword`.
  void line(const std::string &keyword) {
    std::string text;
    TIR_USER_CHECK(std::getline(in_, text)) << path_ << ": the file ends early (truncated?): expected a '"
                                            << keyword << "' line after line " << line_no_;
    ++line_no_;
    tokens_.clear();
    std::istringstream ss(text);
    for (std::string t; ss >> t;) tokens_.push_back(t);
    pos_ = 0;
    const std::string got = word("a keyword");
    TIR_USER_CHECK(got == keyword) << where() << "expected '" << keyword << "', found '" << got << "'";
  }
  std::string word(const char *what) {
    TIR_USER_CHECK(pos_ < tokens_.size()) << where() << "the line ends before its " << what;
    return tokens_[pos_++];
  }
  std::string name(const char *what) {
    const std::string t = word(what);
    if (t == "%") return "";
    std::string out;
    for (size_t i = 0; i < t.size(); ++i) {
      if (t[i] != '%') {
        out += t[i];
        continue;
      }
      const int hi = i + 2 < t.size() ? hex_digit(t[i + 1]) : -1, lo = hi >= 0 ? hex_digit(t[i + 2]) : -1;
      TIR_USER_CHECK(hi >= 0 && lo >= 0) << where() << "bad escape in the " << what << " '" << t << "'";
      out += char(hi * 16 + lo);
      i += 2;
    }
    return out;
  }
  int64_t integer(const char *what, int64_t lo, int64_t hi) {
    const std::string t = word(what);
    size_t used = 0;
    long long v = 0;
    try {
      v = std::stoll(t, &used);
    } catch (const std::exception &) {
      used = 0;
    }
    TIR_USER_CHECK(used == t.size() && v >= lo && v <= hi)
        << where() << "the " << what << " '" << t << "' is not an integer in [" << lo << ", " << hi << "]";
    return v;
  }
  uint64_t hash(const char *what) {
    const std::string t = word(what);
    uint64_t v = 0;
    bool ok = t.size() == 16;
    for (char c : t) {
      const int d = hex_digit(c);
      ok = ok && d >= 0;
      v = v * 16 + uint64_t(d < 0 ? 0 : d);
    }
    TIR_USER_CHECK(ok) << where() << "the " << what << " '" << t << "' is not 16 hex digits";
    return v;
  }
  Type dtype() {
    const std::string t = word("dtype");
    try {
      return Type::parse(t);
    } catch (const Error &e) {
      TIR_THROW() << where() << e.what();
    }
  }
  void end_of_line() {
    TIR_USER_CHECK(pos_ == tokens_.size()) << where() << "unexpected '" << tokens_[pos_] << "' at the end of the line";
  }
  std::string where() const { return path_ + ":" + std::to_string(line_no_) + ": "; }

 private:
  std::string path_;
  std::ifstream in_;
  std::vector<std::string> tokens_;
  size_t pos_ = 0;
  int line_no_ = 0;
};

constexpr int64_t kMaxCount = int64_t(1) << 30;

// Bounds-checked reads from params.bin's bytes.
class ByteReader {
 public:
  ByteReader(const std::string &path, const std::vector<unsigned char> &bytes) : path_(path), b_(bytes) {}
  const unsigned char *take(size_t n, const char *what) {
    TIR_USER_CHECK(n <= b_.size() - pos_)
        << "the parameter file " << path_ << " is truncated: it has " << b_.size() << " bytes, but " << what
        << " needs " << n << " more at byte " << pos_;
    const unsigned char *p = b_.data() + pos_;
    pos_ += n;
    return p;
  }
  template <typename T>
  T get(const char *what) {
    T v;
    std::memcpy(&v, take(sizeof(T), what), sizeof(T));
    return v;
  }
  size_t pos() const { return pos_; }

 private:
  const std::string &path_;
  const std::vector<unsigned char> &b_;
  size_t pos_ = 0;
};

template <typename T>
void put(std::string &out, T v) {
  out.append(reinterpret_cast<const char *>(&v), sizeof(T));
}

}  // namespace

// FNV-1a taken 8 bytes at a time (then the last bytes one by one): a byte at a time
// costs more than reading the file.
uint64_t file_hash(const void *data, size_t n) {
  const auto *p = static_cast<const unsigned char *>(data);
  uint64_t h = 0xcbf29ce484222325ull;
  size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    uint64_t w;
    std::memcpy(&w, p + i, 8);
    h = (h ^ w) * 0x100000001b3ull;
  }
  for (; i < n; ++i) h = (h ^ p[i]) * 0x100000001b3ull;
  return h;
}

std::vector<unsigned char> read_file_bytes(const std::string &path, const char *what) {
  std::error_code ec;
  TIR_USER_CHECK(std::filesystem::exists(path, ec)) << "cannot open the " << what << " " << path
                                                    << ": there is no such file";
  TIR_USER_CHECK(std::filesystem::is_regular_file(path, ec))
      << "cannot open the " << what << " " << path << ": it is not a regular file";
  std::ifstream f(path, std::ios::binary | std::ios::ate);
  TIR_USER_CHECK(f.good()) << "cannot open the " << what << " " << path;
  const std::streamoff size = f.tellg();
  TIR_USER_CHECK(size >= 0) << "cannot read the " << what << " " << path << ": its size is unknown";
  std::vector<unsigned char> bytes;
  try {
    bytes.resize(size_t(size));
  } catch (const std::bad_alloc &) {
    TIR_THROW() << "out of memory reading the " << what << " " << path << " (" << size << " bytes)";
  }
  f.seekg(0);
  f.read(reinterpret_cast<char *>(bytes.data()), std::streamsize(bytes.size()));
  TIR_USER_CHECK(f.good()) << "cannot read the " << what << " " << path;
  return bytes;
}

void write_model_plan(const SavedModel &m, const std::string &path) {
  std::ostringstream os;
  os << "tensorir-model " << kModelFormatVersion << "\n";
  os << "target " << encode(m.target) << "\n";
  os << "cpu " << encode(m.cpu) << " " << m.cpu_features.size();
  for (const std::string &f : m.cpu_features) os << " " << encode(f);
  os << "\n";
  os << "library " << hex16(m.library_hash) << "\n";
  os << "params " << hex16(m.params_hash) << "\n";
  os << "buffers " << m.buffers.size() << "\n";
  for (size_t b : m.buffers) os << "buffer " << b << "\n";
  os << "values " << m.values.size() << "\n";
  for (const SavedValue &v : m.values) {
    static const char *kinds[] = {"input", "constant", "buffer"};
    os << "value " << kinds[v.role] << " " << encode(v.name) << " " << v.dtype.str() << " " << v.shape.size();
    for (int64_t d : v.shape) os << " " << d;
    if (v.is_constant()) os << " " << v.param;
    if (v.is_buffer()) os << " " << v.buffer << " " << v.offset;
    os << "\n";
  }
  os << "kernels " << m.kernels.size() << "\n";
  for (const SavedKernel &k : m.kernels) {
    os << "kernel " << encode(k.fname) << " " << encode(k.node) << " " << encode(k.op) << " " << k.args.size();
    for (int a : k.args) os << " " << a;
    os << " " << k.fused.size();
    for (const std::string &f : k.fused) os << " " << encode(f);
    os << "\n";
  }
  os << "output " << m.output << "\nend\n";
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  TIR_USER_CHECK(out.good()) << "cannot write the model plan " << path;
  const std::string text = os.str();
  out.write(text.data(), std::streamsize(text.size()));
  out.close();
  TIR_USER_CHECK(out.good()) << "cannot write the model plan " << path << " (disk full?)";
}

SavedModel read_model_plan(const std::string &path) {
  PlanReader r(path);
  SavedModel m;
  r.line("tensorir-model");
  const int64_t version = r.integer("format version", 0, kMaxCount);
  TIR_USER_CHECK(version == kModelFormatVersion)
      << path << " is a saved model of format version " << version << "; this runtime reads version "
      << kModelFormatVersion << ": save the model again with a matching tensorir";
  r.end_of_line();
  r.line("target");
  m.target = r.name("target");
  r.end_of_line();
  r.line("cpu");
  m.cpu = r.name("CPU name");
  m.cpu_features.resize(size_t(r.integer("CPU feature count", 0, kMaxCount)));
  for (std::string &f : m.cpu_features) f = r.name("CPU feature");
  r.end_of_line();
  r.line("library");
  m.library_hash = r.hash("library hash");
  r.end_of_line();
  r.line("params");
  m.params_hash = r.hash("parameter checksum");
  r.end_of_line();

  r.line("buffers");
  m.buffers.resize(size_t(r.integer("buffer count", 0, kMaxCount)));
  r.end_of_line();
  for (size_t &b : m.buffers) {
    r.line("buffer");
    b = size_t(r.integer("buffer size", 0, int64_t(kMaxBytes)));
    r.end_of_line();
  }

  r.line("values");
  m.values.resize(size_t(r.integer("value count", 0, kMaxCount)));
  r.end_of_line();
  for (SavedValue &v : m.values) {
    r.line("value");
    const std::string role = r.word("value kind");
    TIR_USER_CHECK(role == "input" || role == "constant" || role == "buffer")
        << r.where() << "unknown value kind '" << role << "' (input, constant or buffer)";
    v.role = role == "input" ? SavedValue::Input : role == "constant" ? SavedValue::Constant : SavedValue::Buffer;
    v.name = r.name("value name");
    v.dtype = r.dtype();
    v.shape.resize(size_t(r.integer("rank", 0, 64)));
    for (int64_t &d : v.shape) d = r.integer("dimension", 0, int64_t(1) << 40);
    if (v.is_constant()) v.param = int(r.integer("parameter index", 0, kMaxCount));
    if (v.is_buffer()) {
      v.buffer = int(r.integer("buffer index", 0, int64_t(m.buffers.size()) - 1));
      v.offset = size_t(r.integer("buffer offset", 0, int64_t(m.buffers[size_t(v.buffer)])));
      TIR_USER_CHECK(v.offset % 64 == 0) << r.where() << "the offset " << v.offset << " is not 64-byte aligned";
    }
    size_t bytes = 0;
    TIR_USER_CHECK(value_bytes(v, bytes)) << r.where() << "'" << v.name << "' " << shape_str(v.shape) << " "
                                          << v.dtype << " is too large (over " << kMaxBytes << " bytes)";
    if (v.is_buffer()) {
      TIR_USER_CHECK(bytes <= m.buffers[size_t(v.buffer)] - v.offset)
          << r.where() << "'" << v.name << "' does not fit in buffer " << v.buffer;
    }
    r.end_of_line();
  }

  r.line("kernels");
  m.kernels.resize(size_t(r.integer("kernel count", 0, kMaxCount)));
  r.end_of_line();
  const int64_t last_value = int64_t(m.values.size()) - 1;
  for (SavedKernel &k : m.kernels) {
    r.line("kernel");
    k.fname = r.name("function name");
    k.node = r.name("node name");
    k.op = r.name("operator");
    k.args.resize(size_t(r.integer("argument count", 1, 1 << 20)));
    for (int &a : k.args) a = int(r.integer("argument", 0, last_value));
    TIR_USER_CHECK(m.values[size_t(k.args.back())].is_buffer())
        << r.where() << "kernel " << k.fname << " writes a value that is not a buffer";
    k.fused.resize(size_t(r.integer("fused node count", 0, 1 << 20)));
    for (std::string &f : k.fused) f = r.name("fused node name");
    r.end_of_line();
  }
  r.line("output");
  m.output = int(r.integer("output value", 0, last_value));
  r.end_of_line();
  r.line("end");
  return m;
}

uint64_t write_params(const std::vector<NDArray> &params, const std::string &path) {
  std::string out(kParamsMagic, sizeof kParamsMagic);
  put<uint32_t>(out, uint32_t(kModelFormatVersion));
  put<uint32_t>(out, uint32_t(params.size()));
  for (const NDArray &p : params) {
    TIR_ASSERT(p.defined() && p.device() == Device::cpu()) << "parameters are saved from CPU arrays";
    const std::string dtype = p.dtype().str();
    put<uint32_t>(out, uint32_t(dtype.size()));
    out += dtype;
    put<uint32_t>(out, uint32_t(p.ndim()));
    for (int64_t d : p.shape()) put<int64_t>(out, d);
    put<uint64_t>(out, uint64_t(p.nbytes()));
    out.append(static_cast<const char *>(p.data()), p.nbytes());
  }
  const uint64_t sum = checksum(reinterpret_cast<const unsigned char *>(out.data()), out.size());
  put<uint64_t>(out, sum);
  std::ofstream f(path, std::ios::binary | std::ios::trunc);
  TIR_USER_CHECK(f.good()) << "cannot write the parameter file " << path;
  f.write(out.data(), std::streamsize(out.size()));
  f.close();
  TIR_USER_CHECK(f.good()) << "cannot write the parameter file " << path << " (disk full?)";
  return sum;
}

std::vector<NDArray> read_params(const std::string &path, uint64_t *hash) {
  const std::vector<unsigned char> bytes = read_file_bytes(path, "parameter file");
  ByteReader r(path, bytes);
  TIR_USER_CHECK(bytes.size() >= sizeof kParamsMagic && std::memcmp(bytes.data(), kParamsMagic, sizeof kParamsMagic) == 0)
      << path << " is not a tensorir parameter file (it does not start with TIRPARAM)";
  r.take(sizeof kParamsMagic, "the header");
  const uint32_t version = r.get<uint32_t>("the format version");
  TIR_USER_CHECK(version == uint32_t(kModelFormatVersion))
      << "the parameter file " << path << " has format version " << version << "; this runtime reads version "
      << kModelFormatVersion << ": save the model again with a matching tensorir";
  const uint32_t count = r.get<uint32_t>("the array count");
  std::vector<NDArray> params;
  for (uint32_t i = 0; i < count; ++i) {
    const uint32_t len = r.get<uint32_t>("a dtype name");
    TIR_USER_CHECK(len < 64) << "the parameter file " << path << " is corrupt: array " << i << " has a dtype name of "
                             << len << " bytes";
    const std::string name(reinterpret_cast<const char *>(r.take(len, "a dtype name")), len);
    Type dtype;
    try {
      dtype = Type::parse(name);
    } catch (const Error &) {
      TIR_THROW() << "the parameter file " << path << " is corrupt: array " << i << " has dtype '" << name << "'";
    }
    const uint32_t ndim = r.get<uint32_t>("a rank");
    TIR_USER_CHECK(ndim <= 64) << "the parameter file " << path << " is corrupt: array " << i << " has rank " << ndim;
    std::vector<int64_t> shape(ndim);
    for (int64_t &d : shape) {
      d = r.get<int64_t>("a dimension");
      TIR_USER_CHECK(d >= 0 && d <= (int64_t(1) << 40))
          << "the parameter file " << path << " is corrupt: array " << i << " has dimension " << d;
    }
    const uint64_t nbytes = r.get<uint64_t>("a byte count");
    const unsigned char *data = r.take(size_t(nbytes), "an array's data");
    SavedValue v;
    v.dtype = dtype;
    v.shape = shape;
    size_t want = 0;
    TIR_USER_CHECK(value_bytes(v, want) && want == nbytes)
        << "the parameter file " << path << " is corrupt: array " << i << " " << shape_str(shape) << " " << dtype
        << " holds " << nbytes << " bytes";
    NDArray a = NDArray::empty(shape, dtype);
    a.copy_from_bytes(data, size_t(nbytes));
    params.push_back(std::move(a));
  }
  const size_t hashed = r.pos();
  const uint64_t stored = r.get<uint64_t>("the checksum");
  TIR_USER_CHECK(r.pos() == bytes.size()) << "the parameter file " << path << " is corrupt: " << bytes.size() - r.pos()
                                          << " bytes follow its checksum";
  TIR_USER_CHECK(stored == checksum(bytes.data(), hashed))
      << "the parameter file " << path << " is corrupt: its checksum does not match its contents";
  if (hash) *hash = stored;
  return params;
}

}  // namespace tensorir::runtime
