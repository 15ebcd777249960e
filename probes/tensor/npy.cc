#include "probes/tensor/npy.h"

#include <algorithm>
#include <bit>
#include <charconv>
#include <filesystem>
#include <optional>

#include <fmt/format.h>

#include "harness/base/input_limits.h"
#include "probes/zip/byte_source.h"

namespace harness::tensor {
namespace {

std::uint16_t le16(const std::uint8_t* p) { return static_cast<std::uint16_t>(p[0] | p[1] << 8); }
std::uint32_t le32(const std::uint8_t* p) { return le16(p) | static_cast<std::uint32_t>(le16(p + 2)) << 16; }

// A tiny reader of the Python dict literal in an .npy header:
// {'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }
class DictParser {
 public:
  DictParser(std::string_view s, const std::string& origin) : s_(s), origin_(origin) {}

  Error fail(const std::string& what) const {
    return Error::input(fmt::format("{}: .npy header: {} at character {} of {}", origin_, what, p_ + 1,
                                    quote(s_)));
  }
  static std::string quote(std::string_view s) {
    std::string t(s.substr(0, 120));
    while (!t.empty() && (t.back() == '\n' || t.back() == ' ')) t.pop_back();
    return "\"" + t + (s.size() > 120 ? "...\"" : "\"");
  }
  void skip() {
    while (p_ < s_.size() && (s_[p_] == ' ' || s_[p_] == '\t' || s_[p_] == '\n' || s_[p_] == '\r')) ++p_;
  }
  bool eat(char c) {
    skip();
    if (p_ < s_.size() && s_[p_] == c) {
      ++p_;
      return true;
    }
    return false;
  }
  Result<std::string> string() {
    skip();
    if (p_ >= s_.size() || (s_[p_] != '\'' && s_[p_] != '"')) return fail("expected a quoted string");
    char q = s_[p_++];
    std::size_t b = p_;
    while (p_ < s_.size() && s_[p_] != q) {
      if (s_[p_] == '\\') return fail("escapes in strings are not supported");
      ++p_;
    }
    if (p_ >= s_.size()) return fail("unterminated string");
    return std::string(s_.substr(b, p_++ - b));
  }
  Result<bool> boolean() {
    skip();
    for (auto [word, value] : {std::pair{std::string_view("True"), true}, std::pair{std::string_view("False"), false}})
      if (s_.substr(p_, word.size()) == word) {
        p_ += word.size();
        return value;
      }
    return fail("expected True or False");
  }
  Result<std::vector<std::uint64_t>> tuple() {
    if (!eat('(')) return fail("expected a shape tuple '('");
    std::vector<std::uint64_t> dims;
    for (;;) {
      if (eat(')')) return dims;
      skip();
      std::uint64_t v = 0;
      auto [end, ec] = std::from_chars(s_.data() + p_, s_.data() + s_.size(), v);
      if (ec == std::errc::result_out_of_range) return fail("dimension does not fit in 64 bits");
      if (ec != std::errc()) return fail("expected a dimension (a non-negative integer)");
      p_ = static_cast<std::size_t>(end - s_.data());
      if (dims.size() >= 32) return fail("more than 32 dimensions");
      dims.push_back(v);
      if (eat(',')) continue;
      if (eat(')')) return dims;
      return fail("expected ',' or ')' in the shape");
    }
  }
  bool at_end() {
    skip();
    return p_ == s_.size();
  }

 private:
  std::string_view s_;
  const std::string& origin_;
  std::size_t p_ = 0;
};

// The magic, version and dict length: the dict's bytes, and the header's
// whole length in `header_bytes`.
Result<std::string_view> npy_dict(std::string_view bytes, const std::string& origin, std::uint64_t& header_bytes) {
  static constexpr std::string_view kMagic = "\x93NUMPY";
  if (bytes.size() < 10) {
    if (bytes.substr(0, std::min(bytes.size(), kMagic.size())) != kMagic.substr(0, std::min(bytes.size(), kMagic.size())))
      return Error::input(origin + ": not an .npy file (no \\x93NUMPY magic)");
    return Error::input(fmt::format("{}: {} bytes: the .npy header is cut short: truncated", origin, bytes.size()));
  }
  if (bytes.substr(0, 6) != kMagic) return Error::input(origin + ": not an .npy file (no \\x93NUMPY magic)");
  const auto* u = reinterpret_cast<const std::uint8_t*>(bytes.data());
  const int major = u[6];
  std::uint64_t len = 0, prefix = 0;
  if (major == 1) {
    len = le16(u + 8);
    prefix = 10;
  } else if (major == 2 || major == 3) {
    if (bytes.size() < 12)
      return Error::input(fmt::format("{}: {} bytes: the .npy header is cut short: truncated", origin, bytes.size()));
    len = le32(u + 8);
    prefix = 12;
  } else {
    return Error::input(fmt::format("{}: .npy format version {}.{} is not supported (1.0, 2.0, 3.0)", origin, major,
                                    static_cast<int>(u[7])));
  }
  if (len > kMaxNpyHeaderBytes)
    return Error::input(fmt::format("{}: .npy header of {} bytes (more than {}): corrupt file?", origin, len,
                                    kMaxNpyHeaderBytes));
  if (bytes.size() < prefix + len)
    return Error::input(fmt::format("{}: the .npy header needs {} bytes, the file has {}: truncated", origin,
                                    prefix + len, bytes.size()));
  header_bytes = prefix + len;
  return bytes.substr(prefix, len);
}

}  // namespace

Result<NpyHeader> parse_npy_header(std::string_view bytes, const std::string& origin) {
  std::uint64_t header_bytes = 0;
  Result<std::string_view> dict = npy_dict(bytes, origin, header_bytes);
  if (!dict) return dict.error();
  DictParser p(*dict, origin);
  std::optional<std::string> descr;
  std::optional<bool> fortran;
  std::optional<std::vector<std::uint64_t>> shape;
  if (!p.eat('{')) return p.fail("expected '{'");
  while (!p.eat('}')) {
    Result<std::string> key = p.string();
    if (!key) return key.error();
    if (!p.eat(':')) return p.fail("expected ':'");
    if (*key == "descr") {
      Result<std::string> v = p.string();
      if (!v) return p.fail("'descr' is not a simple type string (structured dtypes are not supported)");
      descr = *v;
    } else if (*key == "fortran_order") {
      Result<bool> v = p.boolean();
      if (!v) return v.error();
      fortran = *v;
    } else if (*key == "shape") {
      Result<std::vector<std::uint64_t>> v = p.tuple();
      if (!v) return v.error();
      shape = *v;
    } else {
      return p.fail(fmt::format("unknown key '{}'", *key));
    }
    if (!p.eat(',')) {
      if (p.eat('}')) break;
      return p.fail("expected ',' or '}'");
    }
  }
  if (!descr || !fortran || !shape) return p.fail("'descr', 'fortran_order' and 'shape' are all needed");
  if (*fortran)
    return Error::input(origin + ": fortran_order True is not supported (save the tensor in C order)");
  NpyHeader h;
  const std::string& d = *descr;
  bool known = false;
  if (d.size() >= 3 && (d[0] == '<' || d[0] == '>' || d[0] == '|' || d[0] == '=')) {
    std::uint64_t size = 0;
    auto [end, ec] = std::from_chars(d.data() + 2, d.data() + d.size(), size);
    if (ec == std::errc() && end == d.data() + d.size()) {
      if (std::optional<DType> t = dtype_from_npy(d[1], size)) {
        h.dtype = *t;
        known = true;
      }
    }
    h.big_endian = d[0] == '>' || (d[0] == '=' && std::endian::native == std::endian::big);
  }
  if (!known)
    return Error::input(fmt::format("{}: dtype '{}' is not supported ({})", origin, d, supported_dtypes()));
  h.shape = *shape;
  std::optional<std::uint64_t> n = element_count(h.shape);
  if (!n)
    return Error::input(fmt::format("{}: shape {} has more elements than 2^64 bytes can hold", origin,
                                    shape_text(h.shape)));
  h.count = *n;
  h.header_bytes = header_bytes;
  return h;
}

Result<TensorInfo> read_npy_file(const std::string& path) {
  Result<std::unique_ptr<FileByteSource>> src = FileByteSource::open(path, kMaxTensorFileBytes);
  if (!src) return src.error();
  std::string head(static_cast<std::size_t>(std::min<std::uint64_t>((*src)->size(), kNpyHeadBytes)), '\0');
  Result<std::size_t> got = (*src)->read_at(0, head.data(), head.size());
  if (!got) return got.error();
  head.resize(*got);  // shorter only if the file shrank: the header parser names what is missing
  Result<NpyHeader> h = parse_npy_header(head, path);
  if (!h) return h.error();
  TensorInfo t;
  t.name = std::filesystem::path(path).stem().string();
  t.origin = path;
  t.file = path;
  t.dtype = h->dtype;
  t.big_endian = h->big_endian;
  t.shape = h->shape;
  t.count = h->count;
  t.data_offset = h->header_bytes;
  HARNESS_TRY(check_data_size(t.shape, t.dtype, (*src)->size() - h->header_bytes, path));
  return t;
}

}  // namespace harness::tensor
