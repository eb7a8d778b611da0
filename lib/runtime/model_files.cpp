// Writing and reading a saved model's plan (model.json) and constants (params.bin).
//
// model.json, written and read with runtime/json.h:
//   {"format": "tensorir-saved-model", "version": 6,
//    "target": <target string>,
//    "cpu": {"name": <LLVM CPU>, "features": ["+avx2", ...]}   (what the machine code may use)
//    "library": {"file": "model.so", "bytes": n, "fnv1a32": "0x1234abcd"}   (null without kernels)
//    "params": {"file": "params.bin", "bytes": n, "fnv1a32": "0x..."},
//    "buffers": [bytes, ...],
//    "values": [{"name", "kind": "input" | "constant" | "buffer", "dtype", "shape",
//                "param": i (constant) | "buffer": b, "offset": bytes (buffer)}, ...],
//    "kernels": [{"name": symbol, "node", "op", "fused": [names], "args": [value indices],
//                 "in_place": index into args (optional: the result takes that argument's storage)}, ...],
//    "outputs": [{"name", "value": value index}, ...]}
//
// params.bin (little-endian, as the machines the kernels run on):
//   "TIRPARAM", u32 version, u32 count,
//   per array: u32 length + dtype name, u32 ndim, i64 dims[ndim], u64 nbytes, data,
//   u64 checksum of every byte before it (FNV-1a over 8-byte words, then single bytes).
#include "runtime/model_files.h"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <new>
#include <sstream>

#include "tensorir/error.h"

namespace tensorir::runtime {

namespace {

constexpr char kParamsMagic[8] = {'T', 'I', 'R', 'P', 'A', 'R', 'A', 'M'};

// params.bin's own checksum: FNV-1a 64 taken 8 bytes at a time (then the last bytes one
// by one), cheap next to reading the file.
uint64_t checksum(const unsigned char *p, size_t n) {
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

uint32_t fnv1a32(const void *data, size_t n) {
  const auto *p = static_cast<const unsigned char *>(data);
  uint32_t h = 0x811c9dc5u;
  for (size_t i = 0; i < n; ++i) h = (h ^ p[i]) * 0x01000193u;
  return h;
}

std::string hex32(uint32_t v) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "0x%08x", v);
  return buf;
}

json::Value file_json(const std::string &file, const void *data, size_t n) {
  json::Value f = json::Value::object();
  f.set("file", file);
  f.set("bytes", uint64_t(n));
  f.set("fnv1a32", hex32(fnv1a32(data, n)));
  return f;
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

namespace {

const char *kKindNames[] = {"input", "constant", "buffer"};

// Reads model.json's members with errors that name the file and the member's path
// ("model.json: values[3].shape[1]: ...").
class PlanReader {
 public:
  explicit PlanReader(std::string path) : path_(std::move(path)) {}

  [[noreturn]] void fail(const std::string &where, const std::string &what) const {
    TIR_THROW() << path_ << ": " << where << ": " << what;
  }
  const json::Value &member(const json::Value &obj, const std::string &where, const std::string &key) const {
    if (obj.kind() != json::Value::Object) fail(where, "expected an object");
    const json::Value *v = obj.find(key);
    if (!v) fail(where, "the member \"" + key + "\" is missing");
    return *v;
  }
  const std::vector<json::Value> &array(const json::Value &v, const std::string &where, size_t max_size) const {
    if (v.kind() != json::Value::Array) fail(where, "expected an array");
    if (v.size() > max_size) fail(where, "has " + std::to_string(v.size()) + " items, more than " + std::to_string(max_size));
    return v.items();
  }
  std::string string(const json::Value &v, const std::string &where) const {
    if (v.kind() != json::Value::String) fail(where, "expected a string");
    return v.as_string();
  }
  int64_t integer(const json::Value &v, const std::string &where, int64_t lo, int64_t hi) const {
    int64_t x = 0;
    bool ok = v.is_number();
    if (ok) {
      try {
        x = v.as_int();
      } catch (const Error &) {
        ok = false;
      }
    }
    if (!ok || x < lo || x > hi)
      fail(where, "'" + v.dump() + "' is not an integer in [" + std::to_string(lo) + ", " + std::to_string(hi) + "]");
    return x;
  }
  Type dtype(const json::Value &v, const std::string &where) const {
    const std::string t = string(v, where);
    Type parsed;
    try {
      parsed = Type::parse(t);
    } catch (const Error &e) {
      fail(where, e.what());
    }
    if (!NDArray::can_hold(parsed)) fail(where, "no array holds elements of type " + t);
    return parsed;
  }
  SavedFile file(const json::Value &v, const std::string &where, const char *name) const {
    const std::string f = string(member(v, where, "file"), where + ".file");
    if (f != name) fail(where + ".file", "expected \"" + std::string(name) + "\", found \"" + f + "\"");
    SavedFile out;
    out.bytes = uint64_t(integer(member(v, where, "bytes"), where + ".bytes", 0, int64_t(kMaxBytes)));
    const std::string h = string(member(v, where, "fnv1a32"), where + ".fnv1a32");
    bool ok = h.size() == 10 && h[0] == '0' && h[1] == 'x';
    for (size_t i = 2; ok && i < h.size(); ++i) ok = std::isxdigit(static_cast<unsigned char>(h[i])) != 0;
    if (!ok) fail(where + ".fnv1a32", "\"" + h + "\" is not a checksum like \"0x1234abcd\"");
    out.fnv1a32 = uint32_t(std::stoul(h.substr(2), nullptr, 16));
    return out;
  }

 private:
  std::string path_;
};

std::string at(const std::string &list, size_t i) { return list + "[" + std::to_string(i) + "]"; }

json::Value saved_file_json(const char *file, const SavedFile &f) {
  json::Value v = json::Value::object();
  v.set("file", file);
  v.set("bytes", f.bytes);
  v.set("fnv1a32", hex32(f.fnv1a32));
  return v;
}

// The version of an older tensorir's line format ("tensorir-model 3"), or -1.
int64_t old_format_version(const std::string &text) {
  static const std::string kMagic = "tensorir-model ";
  if (text.compare(0, kMagic.size(), kMagic) != 0) return -1;
  return std::strtoll(text.c_str() + kMagic.size(), nullptr, 10);
}

}  // namespace

namespace {

json::Value plan_json(const SavedModel &m) {
  using json::Value;
  Value doc = Value::object();
  doc.set("format", kModelFormat);
  doc.set("version", kModelFormatVersion);
  doc.set("target", m.target);
  Value cpu = Value::object();
  cpu.set("name", m.cpu);
  cpu.set("features", Value::array_of(m.cpu_features));
  doc.set("cpu", std::move(cpu));
  doc.set("library", m.kernels.empty() ? Value() : saved_file_json(kModelLibrary, m.library));
  doc.set("params", saved_file_json(kModelParams, m.params));
  Value buffers = Value::array();
  for (size_t b : m.buffers) buffers.push(uint64_t(b));
  doc.set("buffers", std::move(buffers));
  Value values = Value::array();
  for (const SavedValue &v : m.values) {
    Value jv = Value::object();
    jv.set("name", v.name);
    jv.set("kind", kKindNames[v.role]);
    jv.set("dtype", v.dtype.str());
    jv.set("shape", Value::array_of(v.shape));
    if (v.is_constant()) jv.set("param", v.param);
    if (v.is_buffer()) {
      jv.set("buffer", v.buffer);
      jv.set("offset", uint64_t(v.offset));
    }
    values.push(std::move(jv));
  }
  doc.set("values", std::move(values));
  Value kernels = Value::array();
  for (const SavedKernel &k : m.kernels) {
    Value jk = Value::object();
    jk.set("name", k.fname);
    jk.set("node", k.node);
    jk.set("op", k.op);
    jk.set("fused", Value::array_of(k.fused));
    jk.set("args", Value::array_of(k.args));
    if (k.in_place >= 0) jk.set("in_place", k.in_place);
    kernels.push(std::move(jk));
  }
  doc.set("kernels", std::move(kernels));
  Value outputs = Value::array();
  for (int o : m.outputs) {
    Value jo = Value::object();
    jo.set("name", m.values[size_t(o)].name);
    jo.set("value", o);
    outputs.push(std::move(jo));
  }
  doc.set("outputs", std::move(outputs));
  return doc;
}

}  // namespace

uint32_t plan_fingerprint(const SavedModel &m) {
  SavedModel without_library = m;
  without_library.library = SavedFile{};
  return fnv1a32(plan_json(without_library).dump(-1));
}

void write_model_plan(const SavedModel &m, const std::string &path) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  TIR_USER_CHECK(out.good()) << "cannot write the model plan " << path;
  const std::string text = plan_json(m).dump(1) + "\n";
  out.write(text.data(), std::streamsize(text.size()));
  out.close();
  TIR_USER_CHECK(out.good()) << "cannot write the model plan " << path << " (disk full?)";
}

SavedModel read_model_plan(const std::string &path) {
  const std::vector<unsigned char> bytes = read_file_bytes(path, "model plan");
  const std::string text(bytes.begin(), bytes.end());
  const int64_t old = old_format_version(text);
  TIR_USER_CHECK(old < 0) << path << " was saved by an older tensorir (format " << old
                          << "); save the model again";
  json::Value doc;
  try {
    doc = json::parse(text);
  } catch (const Error &e) {
    TIR_THROW() << path << " is not a valid model plan (truncated or edited?): " << e.what();
  }
  const PlanReader r(path);
  const std::string format = r.string(r.member(doc, "the document", "format"), "format");
  TIR_USER_CHECK(format == kModelFormat) << path << " is not a tensorir saved model: its format is \"" << format
                                         << "\", expected \"" << kModelFormat << "\"";
  const int64_t version = r.integer(r.member(doc, "the document", "version"), "version", 0, kMaxCount);
  TIR_USER_CHECK(version >= kModelFormatVersion)
      << path << " was saved by an older tensorir (format " << version << "); save the model again";
  TIR_USER_CHECK(version == kModelFormatVersion)
      << path << " is a saved model of format version " << version << "; this runtime reads version "
      << kModelFormatVersion << ": save the model again with a matching tensorir";

  SavedModel m;
  m.target = r.string(r.member(doc, "the document", "target"), "target");
  const json::Value &cpu = r.member(doc, "the document", "cpu");
  m.cpu = r.string(r.member(cpu, "cpu", "name"), "cpu.name");
  const auto &features = r.array(r.member(cpu, "cpu", "features"), "cpu.features", size_t(kMaxCount));
  for (size_t i = 0; i < features.size(); ++i) m.cpu_features.push_back(r.string(features[i], at("cpu.features", i)));
  m.params = r.file(r.member(doc, "the document", "params"), "params", kModelParams);

  const auto &buffers = r.array(r.member(doc, "the document", "buffers"), "buffers", size_t(kMaxCount));
  for (size_t i = 0; i < buffers.size(); ++i)
    m.buffers.push_back(size_t(r.integer(buffers[i], at("buffers", i), 0, int64_t(kMaxBytes))));

  const auto &values = r.array(r.member(doc, "the document", "values"), "values", size_t(kMaxCount));
  for (size_t i = 0; i < values.size(); ++i) {
    const std::string w = at("values", i);
    const json::Value &jv = values[i];
    SavedValue v;
    v.name = r.string(r.member(jv, w, "name"), w + ".name");
    const std::string role = r.string(r.member(jv, w, "kind"), w + ".kind");
    if (role == "input") v.role = SavedValue::Input;
    else if (role == "constant") v.role = SavedValue::Constant;
    else if (role == "buffer") v.role = SavedValue::Buffer;
    else r.fail(w + ".kind", "unknown kind \"" + role + "\" (input, constant or buffer)");
    v.dtype = r.dtype(r.member(jv, w, "dtype"), w + ".dtype");
    const auto &shape = r.array(r.member(jv, w, "shape"), w + ".shape", 64);
    for (size_t d = 0; d < shape.size(); ++d)
      v.shape.push_back(r.integer(shape[d], at(w + ".shape", d), 0, int64_t(1) << 40));
    if (v.is_constant()) v.param = int(r.integer(r.member(jv, w, "param"), w + ".param", 0, kMaxCount));
    size_t need = 0;
    if (!value_bytes(v, need))
      r.fail(w, "'" + v.name + "' " + shape_str(v.shape) + " " + v.dtype.str() + " is too large (over " +
                    std::to_string(kMaxBytes) + " bytes)");
    if (v.is_buffer()) {
      if (m.buffers.empty()) r.fail(w + ".buffer", "the plan has no buffers");
      v.buffer = int(r.integer(r.member(jv, w, "buffer"), w + ".buffer", 0, int64_t(m.buffers.size()) - 1));
      const size_t size = m.buffers[size_t(v.buffer)];
      v.offset = size_t(r.integer(r.member(jv, w, "offset"), w + ".offset", 0, int64_t(size)));
      if (v.offset % 64) r.fail(w + ".offset", std::to_string(v.offset) + " is not 64-byte aligned");
      if (need > size - v.offset)
        r.fail(w, "'" + v.name + "' (" + std::to_string(need) + " bytes at offset " + std::to_string(v.offset) +
                      ") does not fit in buffer " + std::to_string(v.buffer) + " of " + std::to_string(size) + " bytes");
    }
    m.values.push_back(std::move(v));
  }
  // No buffer larger than the values placed in it need (the saver writes them so): the
  // loader allocates no more than the plan's values, which check_plan holds to the shapes
  // model.so's kernels were compiled for.
  std::vector<size_t> used(m.buffers.size(), 0);
  for (const SavedValue &v : m.values) {
    size_t need = 0;
    if (v.is_buffer() && value_bytes(v, need)) used[size_t(v.buffer)] = std::max(used[size_t(v.buffer)], v.offset + need);
  }
  for (size_t b = 0; b < m.buffers.size(); ++b)
    if (m.buffers[b] > (used[b] + 63) / 64 * 64)
      r.fail(at("buffers", b), std::to_string(m.buffers[b]) + " bytes, but the values placed in it need " +
                                   std::to_string(used[b]));

  const int64_t last_value = int64_t(m.values.size()) - 1;
  const auto &kernels = r.array(r.member(doc, "the document", "kernels"), "kernels", size_t(kMaxCount));
  for (size_t i = 0; i < kernels.size(); ++i) {
    const std::string w = at("kernels", i);
    const json::Value &jk = kernels[i];
    SavedKernel k;
    k.fname = r.string(r.member(jk, w, "name"), w + ".name");
    k.node = r.string(r.member(jk, w, "node"), w + ".node");
    k.op = r.string(r.member(jk, w, "op"), w + ".op");
    const auto &fused = r.array(r.member(jk, w, "fused"), w + ".fused", 1 << 20);
    for (size_t f = 0; f < fused.size(); ++f) k.fused.push_back(r.string(fused[f], at(w + ".fused", f)));
    const auto &args = r.array(r.member(jk, w, "args"), w + ".args", 1 << 20);
    if (args.empty()) r.fail(w + ".args", "a kernel has at least its result as an argument");
    for (size_t a = 0; a < args.size(); ++a) k.args.push_back(int(r.integer(args[a], at(w + ".args", a), 0, last_value)));
    if (const json::Value *in_place = jk.find("in_place"))
      k.in_place = int(r.integer(*in_place, w + ".in_place", 0, int64_t(k.args.size()) - 2));
    if (!m.values[size_t(k.args.back())].is_buffer())
      r.fail(w + ".args", "kernel " + k.fname + " writes '" + m.values[size_t(k.args.back())].name +
                              "', which is not a buffer");
    m.kernels.push_back(std::move(k));
  }
  const json::Value &library = r.member(doc, "the document", "library");
  if (!m.kernels.empty() || !library.is_null()) m.library = r.file(library, "library", kModelLibrary);

  const auto &outputs = r.array(r.member(doc, "the document", "outputs"), "outputs", size_t(kMaxCount));
  if (outputs.empty()) r.fail("outputs", "a model has at least one output");
  for (size_t i = 0; i < outputs.size(); ++i) {
    const std::string w = at("outputs", i);
    const std::string name = r.string(r.member(outputs[i], w, "name"), w + ".name");
    const int value = int(r.integer(r.member(outputs[i], w, "value"), w + ".value", 0, last_value));
    if (m.values[size_t(value)].name != name)
      r.fail(w, "output '" + name + "' names value " + std::to_string(value) + ", which is '" +
                    m.values[size_t(value)].name + "'");
    for (int o : m.outputs)
      if (m.values[size_t(o)].name == name) r.fail(w, "output '" + name + "' is listed twice");
    m.outputs.push_back(value);
  }
  return m;
}

SavedFile write_params(const std::vector<NDArray> &params, const std::string &path) {
  std::string out(kParamsMagic, sizeof kParamsMagic);
  put<uint32_t>(out, uint32_t(kParamsFormatVersion));
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
  return SavedFile{out.size(), fnv1a32(out.data(), out.size())};
}

std::vector<NDArray> read_params(const std::string &path, SavedFile *file, const SavedFile *expected) {
  const std::vector<unsigned char> bytes = read_file_bytes(path, "parameter file");
  const SavedFile got = file || expected ? SavedFile{bytes.size(), fnv1a32(bytes.data(), bytes.size())} : SavedFile{};
  ByteReader r(path, bytes);
  TIR_USER_CHECK(bytes.size() >= sizeof kParamsMagic && std::memcmp(bytes.data(), kParamsMagic, sizeof kParamsMagic) == 0)
      << path << " is not a tensorir parameter file (it does not start with TIRPARAM)";
  r.take(sizeof kParamsMagic, "the header");
  const uint32_t version = r.get<uint32_t>("the format version");
  TIR_USER_CHECK(version == uint32_t(kParamsFormatVersion))
      << "the parameter file " << path << " has format version " << version << "; this runtime reads version "
      << kParamsFormatVersion << ": save the model again with a matching tensorir";
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
  // The file the plan lists is intact; any other is checked, so that a damaged file is
  // told apart from one of another save.
  TIR_USER_CHECK((expected && got == *expected) || stored == checksum(bytes.data(), hashed))
      << "the parameter file " << path << " is corrupt: its checksum does not match its contents";
  if (file) *file = got;
  return params;
}

}  // namespace tensorir::runtime
