#include "probes/tensor/npz.h"

#include <algorithm>
#include <filesystem>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "harness/base/bounded_json.h"
#include "harness/base/files.h"
#include "harness/base/input_limits.h"
#include "probes/tensor/npy.h"
#include "probes/tensor/quantization.h"
#include "probes/zip/byte_source.h"
#include "probes/zip/zip_reader.h"

namespace harness::tensor {
namespace {

// What an archive's .npy entries may declare: each, and all together, at
// most the tensor limits (input_limits.h). Entries sharing their bytes are
// refused by the ZIP reader before this.
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
  std::string head(static_cast<std::size_t>(std::min<std::uint64_t>(e.uncompressed, kNpyHeadBytes)), '\0');
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

// The quantization of an archive's entries from its companion, when it has one.
Status add_companion_quantization(const std::string& archive, std::vector<TensorInfo>& list) {
  const std::string companion = archive + ".json";
  std::error_code ec;
  if (!std::filesystem::exists(std::filesystem::symlink_status(companion, ec))) return ok();
  Result<std::string> text = read_regular_file(companion, kMaxCompanionBytes, "quantization companion");
  if (!text) return text.error();
  Result<nlohmann::json> j = parse_bounded_json(*text, companion, {.bytes = kMaxCompanionBytes});
  if (!j) return j.error();
  if (!j->is_object()) return Error::input(companion + ": expected a JSON object {\"layer\": {\"scale\": ..}, ...}");
  for (auto it = j->begin(); it != j->end(); ++it) {
    auto t = std::find_if(list.begin(), list.end(), [&](const TensorInfo& x) { return x.name == it.key(); });
    if (t == list.end()) return Error::input(fmt::format("{}: '{}' is not an entry of {}", companion, it.key(), archive));
    if (!it.value().is_object()) return Error::input(fmt::format("{}: '{}' must be an object", companion, it.key()));
    Result<std::optional<Quantization>> q = quantization_from_json(it.value(), companion + ": " + it.key());
    if (!q) return q.error();
    t->quant = *q;
    if (t->quant) HARNESS_TRY(check_quantization(*t->quant, t->shape, companion + ": " + it.key()));
  }
  return ok();
}

}  // namespace

Result<std::vector<TensorInfo>> list_npz(const std::string& path) {
  Result<std::unique_ptr<FileByteSource>> src = FileByteSource::open(path, kMaxTensorFileBytes);
  if (!src) return src.error();
  Result<std::vector<TensorInfo>> list = list_npz_source(**src, path);
  if (!list) return list.error();
  HARNESS_TRY(add_companion_quantization(path, *list));
  return list;
}

Result<std::vector<TensorInfo>> list_npz_bytes(std::string_view bytes, const std::string& name) {
  MemoryByteSource src(bytes);
  return list_npz_source(src, name);
}

}  // namespace harness::tensor
