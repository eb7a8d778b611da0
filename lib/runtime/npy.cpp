// NumPy .npy files: writes version 1.0 (2.0 when the header needs it), reads 1.0, 2.0 and 3.0.
// Only little-endian, C-order arrays of the dtypes NDArray holds, read from regular files.
#include <algorithm>
#include <cctype>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "tensorir/runtime/ndarray.h"

namespace tensorir {

namespace {

namespace fs = std::filesystem;

const char kMagic[] = "\x93NUMPY";
constexpr size_t kMagicLen = 6;

// The NumPy descr of `t`, or "" when NumPy has no such type.
std::string descr_of(Type t) {
  if (t.is_bool()) return "|b1";
  std::string kind;
  switch (t.code()) {
    case Type::Int: kind = "i"; break;
    case Type::UInt: kind = "u"; break;
    case Type::Float: kind = "f"; break;
    default: return "";
  }
  return std::string(t.bytes() == 1 ? "|" : "<") + kind + std::to_string(t.bytes());
}

// Reads the Python dict literal NumPy writes as the header.
class HeaderParser {
 public:
  HeaderParser(const std::string &text, const std::string &path) : s_(text), path_(path) {}

  void parse(std::string &descr, bool &fortran, std::vector<int64_t> &shape) {
    bool have_descr = false, have_fortran = false, have_shape = false;
    expect('{');
    while (true) {
      skip_space();
      if (peek() == '}') break;
      std::string key = read_string();
      expect(':');
      if (key == "descr") {
        skip_space();
        if (peek() != '\'' && peek() != '"')
          fail("field 'descr' is not a plain dtype string (structured dtypes are not supported)");
        descr = read_string();
        have_descr = true;
      } else if (key == "fortran_order") {
        fortran = read_bool();
        have_fortran = true;
      } else if (key == "shape") {
        shape = read_shape();
        have_shape = true;
      } else {
        fail("unexpected key '" + key + "'");
      }
      skip_space();
      if (peek() == ',') {
        ++pos_;
        continue;
      }
      skip_space();
      if (peek() != '}') fail("expected ',' or '}' after the value of '" + key + "'");
    }
    if (!have_descr || !have_fortran || !have_shape)
      fail("the header must give 'descr', 'fortran_order' and 'shape'");
  }

 private:
  [[noreturn]] void fail(const std::string &what) const {
    TIR_THROW() << "cannot read .npy file '" << path_ << "': malformed header (" << what
                << "): " << s_.substr(0, 200);
  }
  char peek() const { return pos_ < s_.size() ? s_[pos_] : '\0'; }
  void skip_space() {
    while (pos_ < s_.size() && std::isspace(static_cast<unsigned char>(s_[pos_]))) ++pos_;
  }
  void expect(char c) {
    skip_space();
    if (peek() != c) fail(std::string("expected '") + c + "'");
    ++pos_;
  }
  std::string read_string() {
    skip_space();
    char q = peek();
    if (q != '\'' && q != '"') fail("expected a quoted string");
    size_t end = s_.find(q, pos_ + 1);
    if (end == std::string::npos) fail("unterminated string");
    std::string v = s_.substr(pos_ + 1, end - pos_ - 1);
    pos_ = end + 1;
    return v;
  }
  bool read_bool() {
    skip_space();
    if (s_.compare(pos_, 4, "True") == 0) {
      pos_ += 4;
      return true;
    }
    if (s_.compare(pos_, 5, "False") == 0) {
      pos_ += 5;
      return false;
    }
    fail("'fortran_order' must be True or False");
  }
  std::vector<int64_t> read_shape() {
    std::vector<int64_t> shape;
    expect('(');
    while (true) {
      skip_space();
      if (peek() == ')') break;
      if (!std::isdigit(static_cast<unsigned char>(peek()))) fail("shape entries must be integers");
      int64_t v = 0;
      while (std::isdigit(static_cast<unsigned char>(peek()))) {
        if (v > (INT64_MAX - 9) / 10) fail("a shape entry is too large");
        v = v * 10 + (s_[pos_++] - '0');
      }
      // Python 2 era files may write 3L.
      if (peek() == 'L') ++pos_;
      shape.push_back(v);
      skip_space();
      if (peek() == ',') ++pos_;
      else if (peek() != ')') fail("expected ',' or ')' in the shape");
    }
    ++pos_;
    return shape;
  }

  const std::string &s_;
  const std::string &path_;
  size_t pos_ = 0;
};

Type type_of_descr(const std::string &descr, const std::string &path) {
  TIR_USER_CHECK(descr.size() >= 3) << "cannot read .npy file '" << path << "': unknown dtype '"
                                    << descr << "'";
  char order = descr[0];
  TIR_USER_CHECK(order != '>') << "cannot read .npy file '" << path << "': dtype '" << descr
                               << "' is big-endian; save it little-endian (e.g. "
                                  "arr.astype(arr.dtype.newbyteorder('<')))";
  std::string rest = descr.substr(order == '<' || order == '|' || order == '=' ? 1 : 0);
  static const struct {
    const char *name;
    Type type;
  } known[] = {{"b1", Bool()},     {"i1", Int(8)},    {"i2", Int(16)},   {"i4", Int(32)},
               {"i8", Int(64)},    {"u1", UInt(8)},   {"u2", UInt(16)},  {"u4", UInt(32)},
               {"u8", UInt(64)},   {"f2", Float(16)}, {"f4", Float(32)}, {"f8", Float(64)}};
  for (const auto &k : known)
    if (rest == k.name) return k.type;
  TIR_THROW() << "cannot read .npy file '" << path << "': dtype '" << descr
              << "' is not supported (supported: bool, int8-64, uint8-64, float16/32/64)";
}

const char *what_file_type(fs::file_type t) {
  switch (t) {
    case fs::file_type::directory: return "is a directory";
    case fs::file_type::fifo: return "is not a regular file (a FIFO)";
    case fs::file_type::character: return "is not a regular file (a character device)";
    case fs::file_type::block: return "is not a regular file (a block device)";
    case fs::file_type::socket: return "is not a regular file (a socket)";
    default: return "is not a regular file";
  }
}

// The whole of the regular file `path`. Anything else is refused before it is opened:
// a FIFO would block the open, /dev/zero never ends, a directory fails inside the
// stream library. What is read is bounded by the size the file had when looked at.
std::string read_regular_file(const std::string &path) {
  std::error_code ec;
  const fs::file_status st = fs::status(path, ec);
  TIR_USER_CHECK(st.type() != fs::file_type::not_found)
      << "cannot read .npy file '" << path << "': no such file";
  TIR_USER_CHECK(!ec) << "cannot read .npy file '" << path << "': " << ec.message();
  TIR_USER_CHECK(st.type() == fs::file_type::regular)
      << "cannot read .npy file '" << path << "': it " << what_file_type(st.type())
      << "; give the path of a file written by numpy.save or NDArray::save_npy";
  const std::uintmax_t size = fs::file_size(path, ec);
  TIR_USER_CHECK(!ec) << "cannot read .npy file '" << path << "': " << ec.message();

  std::ifstream in(path, std::ios::binary);
  TIR_USER_CHECK(in.good()) << "cannot open .npy file '" << path << "' for reading";
  std::string bytes(static_cast<size_t>(size), '\0');
  try {
    in.read(bytes.data(), static_cast<std::streamsize>(size));
  } catch (const std::exception &e) {  // libstdc++ throws on a failed read(2)
    TIR_THROW() << "cannot read .npy file '" << path << "': " << e.what();
  }
  TIR_USER_CHECK(!in.bad()) << "cannot read .npy file '" << path << "': the read failed";
  bytes.resize(static_cast<size_t>(in.gcount()));  // shorter if it shrank meanwhile
  return bytes;
}

}  // namespace

void NDArray::save_npy(const std::string &path) const {
  NDArray host = device().is_cpu() ? *this : to(Device::cpu());
  std::string descr = descr_of(dtype());
  TIR_USER_CHECK(!descr.empty()) << "cannot save " << dtype() << " array to '" << path
                                 << "': NumPy has no " << dtype() << " type";
  std::ostringstream dict;
  dict << "{'descr': '" << descr << "', 'fortran_order': False, 'shape': (";
  for (size_t i = 0; i < shape().size(); ++i) dict << (i ? ", " : "") << shape()[i];
  if (shape().size() == 1) dict << ",";
  dict << "), }";
  std::string header = dict.str();
  // Pad with spaces and a final newline so that the data starts on a 64-byte boundary.
  size_t prefix = kMagicLen + 2 + 2;
  size_t total = (prefix + header.size() + 1 + 63) / 64 * 64;
  int major = 1;
  if (total - prefix > 65535) {
    major = 2;
    prefix += 2;
    total = (prefix + header.size() + 1 + 63) / 64 * 64;
  }
  header.append(total - prefix - header.size() - 1, ' ');
  header += '\n';

  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  TIR_USER_CHECK(out.good()) << "cannot open '" << path << "' for writing";
  out.write(kMagic, kMagicLen);
  out.put(static_cast<char>(major));
  out.put(0);
  size_t len = header.size();
  for (int i = 0; i < (major == 1 ? 2 : 4); ++i) out.put(static_cast<char>((len >> (8 * i)) & 0xff));
  out.write(header.data(), static_cast<std::streamsize>(header.size()));
  out.write(static_cast<const char *>(host.data()), static_cast<std::streamsize>(nbytes()));
  out.close();
  TIR_USER_CHECK(!out.fail()) << "writing '" << path << "' failed (disk full?)";
}

NDArray NDArray::load_npy(const std::string &path) {
  std::string bytes = read_regular_file(path);
  TIR_USER_CHECK(bytes.size() >= kMagicLen + 2 && bytes.compare(0, kMagicLen, kMagic) == 0)
      << "cannot read .npy file '" << path << "': it does not start with the NumPy magic string";
  int major = static_cast<unsigned char>(bytes[kMagicLen]);
  TIR_USER_CHECK(major >= 1 && major <= 3)
      << "cannot read .npy file '" << path << "': format version " << major
      << " is not supported (1.0, 2.0 and 3.0 are)";
  size_t len_bytes = major == 1 ? 2 : 4;
  size_t prefix = kMagicLen + 2 + len_bytes;
  TIR_USER_CHECK(bytes.size() >= prefix)
      << "cannot read .npy file '" << path << "': truncated before the header length";
  size_t header_len = 0;
  for (size_t i = 0; i < len_bytes; ++i)
    header_len |= static_cast<size_t>(static_cast<unsigned char>(bytes[kMagicLen + 2 + i])) << (8 * i);
  TIR_USER_CHECK(bytes.size() >= prefix + header_len)
      << "cannot read .npy file '" << path << "': truncated header (" << header_len
      << " bytes announced, " << bytes.size() - prefix << " present)";
  std::string header = bytes.substr(prefix, header_len);

  std::string descr;
  bool fortran = false;
  std::vector<int64_t> shape;
  HeaderParser(header, path).parse(descr, fortran, shape);
  TIR_USER_CHECK(!fortran) << "cannot read .npy file '" << path
                           << "': it is in Fortran order; save it with "
                              "np.save(path, np.ascontiguousarray(arr))";
  Type dtype = type_of_descr(descr, path);
  // Check the data is all there before allocating, so a corrupt shape cannot ask for
  // more memory than the file holds.
  size_t have = bytes.size() - prefix - header_len;
  bool has_zero = std::find(shape.begin(), shape.end(), 0) != shape.end();
  size_t need = has_zero ? 0 : static_cast<size_t>(dtype.bytes());
  bool fits = true;
  for (int64_t d : shape) {
    if (has_zero) break;
    if (need > have / static_cast<size_t>(d)) {
      fits = false;
      break;
    }
    need *= static_cast<size_t>(d);
  }
  TIR_USER_CHECK(fits) << "cannot read .npy file '" << path << "': truncated data (shape "
                       << shape_str(shape) << " of " << dtype << " needs more than the " << have
                       << " bytes present)";
  TIR_USER_CHECK(have >= need) << "cannot read .npy file '" << path << "': truncated data ("
                               << need << " bytes expected for shape " << shape_str(shape)
                               << " of " << dtype << ", " << have << " present)";
  NDArray a = empty(shape, dtype, Device::cpu());
  if (a.nbytes() > 0) std::memcpy(a.data(), bytes.data() + prefix + header_len, a.nbytes());
  return a;
}

}  // namespace tensorir
