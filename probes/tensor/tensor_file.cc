#include "probes/tensor/tensor_file.h"

#include <algorithm>
#include <bit>
#include <charconv>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <map>
#include <set>
#include <sstream>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "harness/base/bounded_json.h"
#include "harness/base/input_limits.h"
#include "probes/zip/byte_source.h"
#include "probes/zip/zip_reader.h"

namespace harness::tensor {

namespace fs = std::filesystem;

namespace {

struct DTypeRow {
  DType dtype;
  std::string_view name;
  std::size_t size;
  bool integer;
  char npy_kind;  // 'f', 'i', 'u'; 0: no .npy code (bfloat16)
};
constexpr DTypeRow kDTypes[] = {
    {DType::float32, "float32", 4, false, 'f'}, {DType::float16, "float16", 2, false, 'f'},
    {DType::bfloat16, "bfloat16", 2, false, 0}, {DType::float64, "float64", 8, false, 'f'},
    {DType::int8, "int8", 1, true, 'i'},        {DType::uint8, "uint8", 1, true, 'u'},
    {DType::int16, "int16", 2, true, 'i'},      {DType::int32, "int32", 4, true, 'i'},
};
const DTypeRow& row(DType d) {
  for (const DTypeRow& r : kDTypes)
    if (r.dtype == d) return r;
  return kDTypes[0];
}
constexpr std::string_view kSupported = "float32, float16, bfloat16, float64, int8, uint8, int16, int32";

std::uint16_t le16(const std::uint8_t* p) { return static_cast<std::uint16_t>(p[0] | p[1] << 8); }
std::uint32_t le32(const std::uint8_t* p) { return le16(p) | static_cast<std::uint32_t>(le16(p + 2)) << 16; }
std::uint64_t le64(const std::uint8_t* p) { return le32(p) | static_cast<std::uint64_t>(le32(p + 4)) << 32; }

// Element count of a shape, or nullopt when it does not fit in 64 bits.
std::optional<std::uint64_t> element_count(const std::vector<std::uint64_t>& shape) {
  std::uint64_t n = 1;
  for (std::uint64_t d : shape) {
    if (d != 0 && n > UINT64_MAX / d) return std::nullopt;
    n *= d;
  }
  return n;
}

std::string shape_string(const std::vector<std::uint64_t>& shape) {
  if (shape.size() == 1) return fmt::format("({},)", shape[0]);
  return fmt::format("({})", fmt::join(shape, ", "));
}

// Checks that `available` bytes hold exactly the tensor's data.
Status check_data_size(const std::vector<std::uint64_t>& shape, DType dtype, std::uint64_t available,
                       const std::string& origin) {
  std::optional<std::uint64_t> n = element_count(shape);
  const std::uint64_t size = dtype_size(dtype);
  if (!n || *n > UINT64_MAX / size)
    return Error::input(fmt::format("{}: shape {} has more elements than 2^64 bytes can hold", origin,
                                    shape_string(shape)));
  const std::uint64_t need = *n * size;
  if (need > available)
    return Error::input(fmt::format("{}: shape {} of {} needs {} bytes of data, the file holds {}: truncated, or the "
                                    "header does not match the data",
                                    origin, shape_string(shape), dtype_name(dtype), need, available));
  if (need < available)
    return Error::input(fmt::format("{}: shape {} of {} needs {} bytes of data, the file holds {} ({} bytes too "
                                    "many): the header does not match the data",
                                    origin, shape_string(shape), dtype_name(dtype), need, available,
                                    available - need));
  return ok();
}

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

}  // namespace

std::string_view dtype_name(DType d) { return row(d).name; }
std::optional<DType> dtype_from_name(std::string_view name) {
  for (const DTypeRow& r : kDTypes)
    if (r.name == name) return r.dtype;
  return std::nullopt;
}
std::size_t dtype_size(DType d) { return row(d).size; }
bool dtype_is_integer(DType d) { return row(d).integer; }

std::string TensorInfo::shape_text() const { return shape_string(shape); }

double half_to_double(std::uint16_t h) {
  const int sign = h >> 15, exp = (h >> 10) & 0x1f, frac = h & 0x3ff;
  double v;
  if (exp == 0) v = std::ldexp(static_cast<double>(frac), -24);
  else if (exp == 31) v = frac ? std::numeric_limits<double>::quiet_NaN() : std::numeric_limits<double>::infinity();
  else v = std::ldexp(static_cast<double>(frac | 0x400), exp - 25);
  return sign ? -v : v;
}

double bfloat16_to_double(std::uint16_t b) {
  return static_cast<double>(std::bit_cast<float>(static_cast<std::uint32_t>(b) << 16));
}

Result<NpyHeader> parse_npy_header(std::string_view bytes, const std::string& origin) {
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
  std::string_view dict = bytes.substr(prefix, len);
  DictParser p(dict, origin);
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
      for (const DTypeRow& r : kDTypes)
        if (r.npy_kind == d[1] && r.size == size) {
          h.dtype = r.dtype;
          known = true;
        }
    }
    h.big_endian = d[0] == '>' || (d[0] == '=' && std::endian::native == std::endian::big);
  }
  if (!known)
    return Error::input(fmt::format("{}: dtype '{}' is not supported ({})", origin, d, kSupported));
  h.shape = *shape;
  std::optional<std::uint64_t> n = element_count(h.shape);
  if (!n)
    return Error::input(fmt::format("{}: shape {} has more elements than 2^64 bytes can hold", origin,
                                    shape_string(h.shape)));
  h.count = *n;
  h.header_bytes = prefix + len;
  return h;
}

// ---- quantization and sidecars ---------------------------------------------

namespace {

Result<std::vector<double>> number_list(const nlohmann::json& v, const std::string& where, const char* key) {
  std::vector<double> out;
  if (v.is_number()) {
    out.push_back(v.get<double>());
  } else if (v.is_array() && !v.empty()) {
    for (const nlohmann::json& x : v) {
      if (!x.is_number()) return Error::input(fmt::format("{}: '{}' must hold numbers", where, key));
      out.push_back(x.get<double>());
    }
  } else {
    return Error::input(fmt::format("{}: '{}' must be a number or a non-empty array of numbers", where, key));
  }
  for (double d : out)
    if (!std::isfinite(d)) return Error::input(fmt::format("{}: '{}' must be finite", where, key));
  return out;
}

Result<std::optional<Quantization>> quantization_of(const nlohmann::json& j, const std::string& where) {
  const bool has_scale = j.contains("scale"), has_zp = j.contains("zero_point"), has_axis = j.contains("axis");
  if (!has_scale) {
    if (has_zp || has_axis) return Error::input(where + ": 'zero_point' and 'axis' need a 'scale'");
    return std::optional<Quantization>{};
  }
  Quantization q;
  Result<std::vector<double>> s = number_list(j["scale"], where, "scale");
  if (!s) return s.error();
  q.scale = *s;
  if (has_zp) {
    Result<std::vector<double>> z = number_list(j["zero_point"], where, "zero_point");
    if (!z) return z.error();
    q.zero_point = *z;
  } else {
    q.zero_point.assign(q.scale.size(), 0.0);
  }
  if (q.zero_point.size() == 1 && q.scale.size() > 1) q.zero_point.assign(q.scale.size(), q.zero_point[0]);
  if (q.zero_point.size() != q.scale.size())
    return Error::input(fmt::format("{}: {} scales but {} zero points", where, q.scale.size(), q.zero_point.size()));
  if (has_axis) {
    const nlohmann::json& axis = j["axis"];
    if (!axis.is_number_integer()) return Error::input(where + ": 'axis' must be an integer");
    // A tensor has far fewer dimensions than an int counts; a larger axis is
    // an error of the file, not a number to wrap.
    const bool fits = axis.is_number_unsigned()
                          ? axis.get<std::uint64_t>() <= static_cast<std::uint64_t>(std::numeric_limits<int>::max())
                          : axis.get<std::int64_t>() >= std::numeric_limits<int>::min() &&
                                axis.get<std::int64_t>() <= std::numeric_limits<int>::max();
    if (!fits) return Error::input(fmt::format("{}: 'axis' {} is out of range", where, axis.dump()));
    q.axis = json_integer<int>(axis);
  } else if (q.scale.size() > 1) {
    return Error::input(fmt::format("{}: {} scales (per channel) need an 'axis'", where, q.scale.size()));
  }
  return std::optional<Quantization>{std::move(q)};
}

}  // namespace

Status check_quantization(const Quantization& q, const std::vector<std::uint64_t>& shape, const std::string& origin) {
  if (!q.axis) return ok();
  const int rank = static_cast<int>(shape.size());
  int axis = *q.axis < 0 ? *q.axis + rank : *q.axis;
  if (axis < 0 || axis >= rank)
    return Error::input(fmt::format("{}: quantization axis {} is outside shape {}", origin, *q.axis,
                                    shape_string(shape)));
  if (shape[static_cast<std::size_t>(axis)] != q.scale.size())
    return Error::input(fmt::format("{}: {} per-channel scales, but axis {} of shape {} has {} channels", origin,
                                    q.scale.size(), *q.axis, shape_string(shape),
                                    shape[static_cast<std::size_t>(axis)]));
  return ok();
}

Result<std::optional<Quantization>> parse_quantization_json(std::string_view text, const std::string& where) {
  Result<nlohmann::json> j = parse_bounded_json(text, where, {.bytes = kMaxSidecarBytes});
  if (!j) return j.error();
  if (!j->is_object()) return Error::input(where + ": not a JSON object");
  return quantization_of(*j, where);
}

Result<Sidecar> parse_sidecar(std::string_view text, const std::string& path) {
  Result<nlohmann::json> parsed = parse_bounded_json(text, path, {.bytes = kMaxSidecarBytes});
  if (!parsed) return parsed.error();
  nlohmann::json& j = *parsed;
  if (!j.is_object()) return Error::input(path + ": a tensor sidecar must be a JSON object");
  static const std::set<std::string> kKeys = {"name", "data", "shape", "dtype", "byte_order", "scale", "zero_point",
                                              "axis"};
  for (auto it = j.begin(); it != j.end(); ++it)
    if (!kKeys.contains(it.key()))
      return Error::input(fmt::format("{}: unknown key '{}' (name, data, shape, dtype, byte_order, scale, "
                                      "zero_point, axis)",
                                      path, it.key()));
  Sidecar s;
  const fs::path p(path);
  std::string stem = p.stem().string();
  if (j.contains("name")) {
    if (!j["name"].is_string() || j["name"].get<std::string>().empty())
      return Error::input(path + ": 'name' must be a non-empty string");
    s.name = j["name"].get<std::string>();
  }
  std::string data = stem + ".bin";
  if (j.contains("data")) {
    if (!j["data"].is_string() || j["data"].get<std::string>().empty())
      return Error::input(path + ": 'data' must be a file name");
    data = j["data"].get<std::string>();
  }
  s.data = (p.parent_path() / data).string();
  if (s.name.empty()) s.name = fs::path(data).stem().string();
  if (j.contains("shape")) {
    if (!j["shape"].is_array()) return Error::input(path + ": 'shape' must be an array of non-negative integers");
    std::vector<std::uint64_t> shape;
    for (const nlohmann::json& d : j["shape"]) {
      if (!d.is_number_unsigned()) return Error::input(path + ": 'shape' must be an array of non-negative integers");
      shape.push_back(json_integer<std::uint64_t>(d));
    }
    if (shape.size() > 32) return Error::input(path + ": 'shape' has more than 32 dimensions");
    s.shape = shape;
  }
  if (j.contains("dtype")) {
    std::optional<DType> d = j["dtype"].is_string() ? dtype_from_name(j["dtype"].get<std::string>()) : std::nullopt;
    if (!d)
      return Error::input(fmt::format("{}: dtype {} is not supported ({})", path, j["dtype"].dump(), kSupported));
    s.dtype = *d;
  }
  if (j.contains("byte_order")) {
    std::string bo = j["byte_order"].is_string() ? j["byte_order"].get<std::string>() : "";
    if (bo != "little" && bo != "big")
      return Error::input(fmt::format("{}: byte_order {} must be \"little\" or \"big\"", path,
                                      j["byte_order"].dump()));
    s.big_endian = bo == "big";
  }
  Result<std::optional<Quantization>> q = quantization_of(j, path);
  if (!q) return q.error();
  s.quant = *q;
  return s;
}

// ---- npz -------------------------------------------------------------------

namespace {

Status read_exact(ByteSource& src, std::uint64_t offset, void* out, std::size_t n, const std::string& origin,
                  const char* what) {
  Result<std::size_t> got = src.read_at(offset, out, n);
  if (!got) return got.error();
  if (*got != n)
    return Error::input(fmt::format("{}: {}: the file ends at byte offset {} ({} bytes expected at {}): truncated",
                                    origin, what, offset + *got, n, offset));
  return ok();
}

// What an archive's .npy entries may declare: each, and all together, at
// most a tensor file's limit (input_limits.h). Entries sharing their bytes
// are refused by the ZIP reader before this.
zip::InflateLimits npz_limits() {
  zip::InflateLimits l;
  l.entry_bytes = kMaxTensorFileBytes;
  l.entry_name = "limit for one tensor";
  l.total_bytes = kMaxTensorArchiveInflatedBytes;
  l.total_name = "limit for an archive's tensors";
  l.group = "the .npy entries";
  return l;
}

// One located .npy entry of an archive: its header read from its first
// bytes, inflated if need be.
Result<TensorInfo> npz_tensor(ByteSource& src, const std::string& archive, zip::Entry e,
                              zip::InflateScratch& scratch) {
  TensorInfo t;
  t.origin = archive + ":" + e.name;
  t.file = archive;
  t.name = e.name.substr(0, e.name.size() - 4);
  std::string head(static_cast<std::size_t>(std::min<std::uint64_t>(e.uncompressed, kMaxNpyHeaderBytes + 12)), '\0');
  zip::EntryReader reader(src, e, t.origin, scratch);
  bool ended = false;
  Result<std::size_t> got = reader.fill(reinterpret_cast<std::uint8_t*>(head.data()), head.size(), ended);
  if (!got) return got.error();
  head.resize(*got);
  Result<NpyHeader> h = parse_npy_header(head, t.origin);
  if (!h) return h.error();
  t.dtype = h->dtype;
  t.big_endian = h->big_endian;
  t.shape = h->shape;
  t.count = h->count;
  t.entry_header_bytes = h->header_bytes;
  HARNESS_TRY(check_data_size(t.shape, t.dtype, e.uncompressed - h->header_bytes, t.origin));
  t.entry = std::move(e);
  return t;
}

Result<std::vector<TensorInfo>> list_npz_source(ByteSource& src, const std::string& name) {
  Result<zip::Archive> archive = zip::Archive::open(src, name, "an .npz archive");
  if (!archive) return archive.error();
  std::vector<const zip::Entry*> tensors;
  for (const zip::Entry& e : archive->entries())
    if (e.name.size() > 4 && e.name.ends_with(".npy")) tensors.push_back(&e);
  Result<std::vector<zip::Entry>> located = archive->locate_all(tensors);
  if (!located) return located.error();
  HARNESS_TRY(archive->check_inflated(*located, npz_limits()));
  std::vector<TensorInfo> out;
  zip::InflateScratch scratch;
  for (zip::Entry& e : *located) {
    Result<TensorInfo> t = npz_tensor(src, name, std::move(e), scratch);
    if (!t) return t.error();
    out.push_back(std::move(*t));
  }
  return out;
}

Result<std::string> slurp(const std::string& path, std::size_t limit) {
  std::error_code ec;
  std::uintmax_t size = fs::file_size(path, ec);
  if (ec) return Error::input(fmt::format("{}: {}", path, ec.message()));
  if (size > limit) return Error::input(fmt::format("{}: {} bytes (more than {}): not a sidecar", path, size, limit));
  std::ifstream in(path, std::ios::binary);
  if (!in) return Error::input(path + ": cannot be opened");
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

Result<TensorInfo> npy_file(const std::string& path) {
  Result<std::unique_ptr<FileByteSource>> src = FileByteSource::open(path);
  if (!src) return src.error();
  std::string head(static_cast<std::size_t>(std::min<std::uint64_t>((*src)->size(), kMaxNpyHeaderBytes + 12)), '\0');
  HARNESS_TRY(read_exact(**src, 0, head.data(), head.size(), path, "header"));
  Result<NpyHeader> h = parse_npy_header(head, path);
  if (!h) return h.error();
  TensorInfo t;
  t.name = fs::path(path).stem().string();
  t.origin = path;
  t.file = path;
  t.dtype = h->dtype;
  t.big_endian = h->big_endian;
  t.shape = h->shape;
  t.count = h->count;
  t.data_offset = h->header_bytes;
  t.stored_bytes = (*src)->size() - h->header_bytes;
  HARNESS_TRY(check_data_size(t.shape, t.dtype, t.stored_bytes, path));
  return t;
}

// A sidecar and its data file: a raw file needs shape and dtype; an .npy
// file takes them from its header (the sidecar's, if given, must agree).
Result<TensorInfo> sidecar_tensor(const std::string& sidecar_path) {
  Result<std::string> text = slurp(sidecar_path, kMaxSidecarBytes);
  if (!text) return text.error();
  Result<Sidecar> sc = parse_sidecar(*text, sidecar_path);
  if (!sc) return sc.error();
  TensorInfo t;
  if (sc->data.size() > 4 && sc->data.substr(sc->data.size() - 4) == ".npy") {
    Result<TensorInfo> n = npy_file(sc->data);
    if (!n) return n.error();
    t = *n;
    if ((sc->shape && *sc->shape != t.shape) || (sc->dtype && *sc->dtype != t.dtype))
      return Error::input(fmt::format("{}: shape/dtype disagree with {} ({} {})", sidecar_path, sc->data,
                                      t.shape_text(), dtype_name(t.dtype)));
  } else {
    if (!sc->shape || !sc->dtype)
      return Error::input(sidecar_path + ": a raw tensor's sidecar needs 'shape' and 'dtype'");
    t.origin = sc->data;
    t.file = sc->data;
    t.dtype = *sc->dtype;
    t.big_endian = sc->big_endian;
    t.shape = *sc->shape;
    std::optional<std::uint64_t> n = element_count(t.shape);
    if (!n) return Error::input(fmt::format("{}: shape {} is too large", sidecar_path, t.shape_text()));
    t.count = *n;
    std::error_code ec;
    std::uintmax_t size = fs::file_size(sc->data, ec);
    if (ec) return Error::input(fmt::format("{} (named by {}): {}", sc->data, sidecar_path, ec.message()));
    t.stored_bytes = size;
    HARNESS_TRY(check_data_size(t.shape, t.dtype, size, sc->data));
  }
  t.name = sc->name;
  t.quant = sc->quant;
  if (t.quant) HARNESS_TRY(check_quantization(*t.quant, t.shape, sidecar_path));
  return t;
}

bool ends_with(const std::string& s, std::string_view suffix) {
  return s.size() >= suffix.size() && std::string_view(s).substr(s.size() - suffix.size()) == suffix;
}

}  // namespace

Result<std::vector<TensorInfo>> list_npz(const std::string& path) {
  Result<std::unique_ptr<FileByteSource>> src = FileByteSource::open(path);
  if (!src) return src.error();
  Result<std::vector<TensorInfo>> list = list_npz_source(**src, path);
  if (!list) return list.error();
  // Quantization of an archive's entries: an optional "<archive>.json".
  const std::string companion = path + ".json";
  if (fs::exists(companion)) {
    Result<std::string> text = slurp(companion, kMaxSidecarBytes);
    if (!text) return text.error();
    Result<nlohmann::json> parsed = parse_bounded_json(*text, companion, {.bytes = kMaxSidecarBytes});
    if (!parsed) return parsed.error();
    const nlohmann::json& j = *parsed;
    if (!j.is_object())
      return Error::input(companion + ": expected a JSON object {\"layer\": {\"scale\": ..}, ...}");
    for (auto it = j.begin(); it != j.end(); ++it) {
      auto t = std::find_if(list->begin(), list->end(), [&](const TensorInfo& x) { return x.name == it.key(); });
      if (t == list->end()) return Error::input(fmt::format("{}: '{}' is not an entry of {}", companion, it.key(), path));
      if (!it.value().is_object()) return Error::input(fmt::format("{}: '{}' must be an object", companion, it.key()));
      Result<std::optional<Quantization>> q = quantization_of(it.value(), companion + ": " + it.key());
      if (!q) return q.error();
      t->quant = *q;
      if (t->quant) HARNESS_TRY(check_quantization(*t->quant, t->shape, companion + ": " + it.key()));
    }
  }
  return list;
}

Result<std::vector<TensorInfo>> list_npz_bytes(std::string_view bytes, const std::string& name) {
  MemoryByteSource src(bytes);
  return list_npz_source(src, name);
}

Result<std::vector<TensorInfo>> list_tensor_set(const std::string& path) {
  std::error_code ec;
  fs::file_status st = fs::status(path, ec);
  if (ec || !fs::exists(st)) return Error::input(path + ": no such file or directory");
  std::vector<TensorInfo> out;
  if (fs::is_regular_file(st)) {
    if (ends_with(path, ".npz")) return list_npz(path);
    if (ends_with(path, ".npy")) {
      Result<TensorInfo> t = npy_file(path);
      if (!t) return t.error();
      out.push_back(std::move(*t));
      return out;
    }
    if (ends_with(path, ".json")) {
      Result<TensorInfo> t = sidecar_tensor(path);
      if (!t) return t.error();
      out.push_back(std::move(*t));
      return out;
    }
    return Error::input(path + ": not a tensor set (a directory, an .npz archive, an .npy file or a .json sidecar)");
  }
  if (!fs::is_directory(st)) return Error::input(path + ": not a regular file or directory");
  std::vector<std::string> files;
  for (const fs::directory_entry& e : fs::directory_iterator(path, ec))
    if (e.is_regular_file()) files.push_back(e.path().string());
  if (ec) return Error::input(fmt::format("{}: {}", path, ec.message()));
  std::sort(files.begin(), files.end());
  // A sidecar claims its data file; an .npy not claimed stands alone.
  std::set<std::string> claimed;
  for (const std::string& f : files) {
    if (!ends_with(f, ".json")) continue;
    Result<TensorInfo> t = sidecar_tensor(f);
    if (!t) return t.error();
    claimed.insert(fs::weakly_canonical(t->file).string());
    out.push_back(std::move(*t));
  }
  for (const std::string& f : files) {
    if (!ends_with(f, ".npy") || claimed.contains(fs::weakly_canonical(f).string())) continue;
    Result<TensorInfo> t = npy_file(f);
    if (!t) return t.error();
    out.push_back(std::move(*t));
  }
  std::sort(out.begin(), out.end(), [](const TensorInfo& a, const TensorInfo& b) { return a.name < b.name; });
  for (std::size_t i = 1; i < out.size(); ++i)
    if (out[i].name == out[i - 1].name)
      return Error::input(fmt::format("{}: two tensors named '{}' ({} and {})", path, out[i].name, out[i - 1].origin,
                                      out[i].origin));
  if (out.empty()) return Error::input(path + ": no tensors (.npy files or .json sidecars) in this directory");
  return out;
}

// ---- streaming ---------------------------------------------------------------

namespace {

// std::byteswap is C++23; GCC 12 has the builtins.
std::uint16_t swap_bytes(std::uint16_t v) { return __builtin_bswap16(v); }
std::uint32_t swap_bytes(std::uint32_t v) { return __builtin_bswap32(v); }
std::uint64_t swap_bytes(std::uint64_t v) { return __builtin_bswap64(v); }

// The bytes of a tensor's values, in order: a plain file's from its data
// offset, or an .npz entry's after the entry's own .npy header (the entry's
// size and CRC-32 checked at its end).
class ValueBytes {
 public:
  ValueBytes(ByteSource& src, const TensorInfo& info) : src_(src), info_(info) {
    if (info.entry) entry_.emplace(src, *info.entry, info.origin, scratch_);
  }

  // Exactly `n` bytes: the caller asks for no more than the tensor holds.
  Status read(std::uint8_t* out, std::size_t n) {
    if (!entry_) {
      Result<std::size_t> got = src_.read_at(info_.data_offset + position_, out, n);
      if (!got) return got.error();
      if (*got != n)
        return Error::input(fmt::format("{}: the file ends at byte offset {}, {} bytes of data expected: truncated",
                                        info_.origin, info_.data_offset + position_ + *got,
                                        info_.count * dtype_size(info_.dtype)));
      position_ += n;
      return ok();
    }
    if (position_ == 0 && info_.entry_header_bytes > 0) {
      std::vector<std::uint8_t> header(static_cast<std::size_t>(info_.entry_header_bytes));
      HARNESS_TRY(fill(header.data(), header.size()));
    }
    HARNESS_TRY(fill(out, n));
    position_ += n;
    return ok();
  }

  // After the last value: an entry must end here, its size and CRC-32 right.
  Status finish() {
    if (!entry_) return ok();
    std::uint8_t extra = 0;
    Result<std::size_t> n = entry_->read(&extra, 1);
    if (!n) return n.error();
    if (*n != 0) return Error::input(info_.origin + ": the entry holds more bytes than its shape: corrupt file");
    return ok();
  }

 private:
  Status fill(std::uint8_t* out, std::size_t n) {
    bool ended = false;
    Result<std::size_t> got = entry_->fill(out, n, ended);
    if (!got) return got.error();
    if (*got != n)
      return Error::input(fmt::format("{}: the entry ends {} bytes early: corrupt file", info_.origin, n - *got));
    return ok();
  }

  ByteSource& src_;
  const TensorInfo& info_;
  zip::InflateScratch scratch_;
  std::optional<zip::EntryReader> entry_;
  std::uint64_t position_ = 0;  // bytes of values read
};

class Stream final : public TensorStream {
 public:
  Stream(std::unique_ptr<ByteSource> owned, ByteSource& src, const TensorInfo& info)
      : owned_(std::move(owned)), info_(info), bytes_(src, info_) {
    size_ = dtype_size(info.dtype);
    if (info_.quant) {
      const Quantization& q = *info_.quant;
      if (q.axis) {
        const int rank = static_cast<int>(info_.shape.size());
        const std::size_t axis = static_cast<std::size_t>(*q.axis < 0 ? *q.axis + rank : *q.axis);
        inner_ = 1;
        for (std::size_t i = axis + 1; i < info_.shape.size(); ++i) inner_ *= info_.shape[i];
        channels_ = info_.shape[axis];
      }
    }
  }

  Result<std::size_t> read(double* out, std::size_t cap) override {
    const std::uint64_t left = info_.count - index_;
    const std::size_t n = static_cast<std::size_t>(std::min<std::uint64_t>(cap, left));
    if (n == 0) {
      if (!verified_) {
        HARNESS_TRY(bytes_.finish());
        verified_ = true;
      }
      return std::size_t{0};
    }
    if (raw_.size() < n * size_) raw_.resize(n * size_);
    HARNESS_TRY(bytes_.read(raw_.data(), n * size_));
    convert(raw_.data(), out, n);
    index_ += n;
    return n;
  }

 private:
  template <class U>
  U load(const std::uint8_t* p) const {
    U v;
    std::memcpy(&v, p, sizeof v);
    if (info_.big_endian != (std::endian::native == std::endian::big)) v = swap_bytes(v);
    return v;
  }

  void convert(const std::uint8_t* p, double* out, std::size_t n) {
    const bool swap = info_.big_endian != (std::endian::native == std::endian::big);
    if (!swap && info_.dtype == DType::float32 && !info_.quant) {
      // The common case, kept a plain loop the compiler vectorises.
      for (std::size_t i = 0; i < n; ++i) {
        float f;
        std::memcpy(&f, p + 4 * i, 4);
        out[i] = f;
      }
      return;
    }
    switch (info_.dtype) {
      case DType::float32:
        for (std::size_t i = 0; i < n; ++i) out[i] = std::bit_cast<float>(load<std::uint32_t>(p + 4 * i));
        break;
      case DType::float64:
        for (std::size_t i = 0; i < n; ++i) out[i] = std::bit_cast<double>(load<std::uint64_t>(p + 8 * i));
        break;
      case DType::float16:
        for (std::size_t i = 0; i < n; ++i) out[i] = half_to_double(load<std::uint16_t>(p + 2 * i));
        break;
      case DType::bfloat16:
        for (std::size_t i = 0; i < n; ++i) out[i] = bfloat16_to_double(load<std::uint16_t>(p + 2 * i));
        break;
      case DType::int8:
        for (std::size_t i = 0; i < n; ++i) out[i] = static_cast<std::int8_t>(p[i]);
        break;
      case DType::uint8:
        for (std::size_t i = 0; i < n; ++i) out[i] = p[i];
        break;
      case DType::int16:
        for (std::size_t i = 0; i < n; ++i) out[i] = static_cast<std::int16_t>(load<std::uint16_t>(p + 2 * i));
        break;
      case DType::int32:
        for (std::size_t i = 0; i < n; ++i) out[i] = static_cast<std::int32_t>(load<std::uint32_t>(p + 4 * i));
        break;
    }
    if (!info_.quant) return;
    const Quantization& q = *info_.quant;
    if (!q.axis) {
      const double s = q.scale[0], z = q.zero_point[0];
      for (std::size_t i = 0; i < n; ++i) out[i] = s * (out[i] - z);
      return;
    }
    for (std::size_t i = 0; i < n; ++i) {
      const std::size_t c = static_cast<std::size_t>(((index_ + i) / inner_) % channels_);
      out[i] = q.scale[c] * (out[i] - q.zero_point[c]);
    }
  }

  std::unique_ptr<ByteSource> owned_;
  TensorInfo info_;
  ValueBytes bytes_;
  std::size_t size_ = 4;
  std::uint64_t index_ = 0, inner_ = 1, channels_ = 1;
  std::vector<std::uint8_t> raw_;
  bool verified_ = false;
};

}  // namespace

Result<std::unique_ptr<TensorStream>> open_tensor(const TensorInfo& info) {
  Result<std::unique_ptr<FileByteSource>> src = FileByteSource::open(info.file, kMaxTensorFileBytes);
  if (!src) return src.error();
  ByteSource& ref = **src;
  return std::unique_ptr<TensorStream>(new Stream(std::move(*src), ref, info));
}

Result<std::unique_ptr<TensorStream>> open_tensor_bytes(const TensorInfo& info, std::string_view file_bytes) {
  auto src = std::make_unique<MemoryByteSource>(file_bytes);
  ByteSource& ref = *src;
  return std::unique_ptr<TensorStream>(new Stream(std::move(src), ref, info));
}

}  // namespace harness::tensor
