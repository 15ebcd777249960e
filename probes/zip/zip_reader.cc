#include "probes/zip/zip_reader.h"

#include <algorithm>
#include <optional>

#include <fmt/format.h>
#include <isa-l/crc.h>
#include <isa-l/igzip_lib.h>

namespace harness::zip {
namespace {

std::uint16_t le16(const std::uint8_t* p) { return static_cast<std::uint16_t>(p[0] | p[1] << 8); }
std::uint32_t le32(const std::uint8_t* p) { return le16(p) | static_cast<std::uint32_t>(le16(p + 2)) << 16; }
std::uint64_t le64(const std::uint8_t* p) { return le32(p) | static_cast<std::uint64_t>(le32(p + 4)) << 32; }

constexpr std::uint32_t kLocalHeader = 0x04034b50;
constexpr std::uint32_t kCentralHeader = 0x02014b50;
constexpr std::uint32_t kEndOfDirectory = 0x06054b50;
constexpr std::uint32_t kZip64EndOfDirectory = 0x06064b50;
constexpr std::uint32_t kZip64Locator = 0x07064b50;
constexpr std::size_t kEocdSize = 22, kZip64EocdSize = 56, kZip64LocatorSize = 20;
constexpr std::size_t kCentralSize = 46, kLocalSize = 30;

const char* inflate_error(int code) {
  switch (code) {
    case ISAL_INVALID_BLOCK: return "invalid deflate block";
    case ISAL_INVALID_SYMBOL: return "invalid deflate symbol";
    case ISAL_INVALID_LOOKBACK: return "invalid back-reference distance";
    default: return "inflate error";
  }
}

// The 64-bit values of the fields a central directory entry set to all ones,
// from its ZIP64 extended information field, in this order.
Status read_zip64_extra(const std::uint8_t* x, std::size_t extra_len, Entry& e, const std::string& at,
                        const std::string& archive) {
  const bool need_u = e.uncompressed == 0xffffffff, need_c = e.compressed == 0xffffffff,
             need_o = e.header_offset == 0xffffffff;
  bool got_zip64 = false;
  for (std::size_t q = 0; extra_len - q >= 4;) {
    const std::uint16_t id = le16(x + q), len = le16(x + q + 2);
    if (extra_len - q - 4 < len) break;  // a malformed tail is ignored, as unzip does
    if (id == 0x0001) {
      const std::uint8_t* f = x + q + 4;
      std::size_t need = 8 * (need_u + need_c + need_o);
      if (len < need)
        return Error::input(fmt::format("{}: {}: entry '{}': ZIP64 extra field of {} bytes, {} needed", archive, at,
                                        e.name, len, need));
      if (need_u) e.uncompressed = le64(f), f += 8;
      if (need_c) e.compressed = le64(f), f += 8;
      if (need_o) e.header_offset = le64(f), f += 8;
      got_zip64 = true;
    }
    q += 4 + len;
  }
  if ((need_u || need_c || need_o) && !got_zip64)
    return Error::input(fmt::format("{}: {}: entry '{}': 32-bit size or offset set to 0xffffffff without a ZIP64 "
                                    "extra field",
                                    archive, at, e.name));
  return ok();
}

}  // namespace

Status Archive::read_exact(std::uint64_t offset, void* out, std::size_t n, const std::string& what) const {
  Result<std::size_t> got = source_->read_at(offset, out, n);
  if (!got) return got.error();
  if (*got != n)
    return fail(fmt::format("{}: the file ends at byte offset {} ({} bytes expected at {}): truncated?", what,
                            offset + *got, n, offset));
  return ok();
}

// The end of central directory record (searched backwards: it is followed by
// its comment up to the end of the file) and, when there is one, the ZIP64
// record it points to: the number of entries and where the directory is.
Status Archive::read_end_records(std::string_view kind, std::uint64_t& count, std::uint64_t& cd_size) {
  const std::uint64_t size = source_->size();
  const std::string not_zip =
      fmt::format("no ZIP end of central directory record: not {}, or truncated", kind);
  if (size < kEocdSize) return fail(fmt::format("{} bytes: {}", size, not_zip));
  const std::size_t tail_len = static_cast<std::size_t>(std::min<std::uint64_t>(size, 0xffff + kEocdSize));
  const std::uint64_t tail_offset = size - tail_len;
  std::vector<std::uint8_t> tail(tail_len);
  HARNESS_TRY(read_exact(tail_offset, tail.data(), tail_len, "end of central directory"));
  std::optional<std::size_t> at;
  for (std::size_t i = tail_len - kEocdSize + 1; i-- > 0;) {
    if (le32(&tail[i]) == kEndOfDirectory && i + kEocdSize + le16(&tail[i + 20]) == tail_len) {
      at = i;
      break;
    }
  }
  if (!at) return fail(not_zip);
  const std::uint8_t* e = &tail[*at];
  const std::uint64_t eocd = tail_offset + *at;
  std::uint64_t disk = le16(e + 4), cd_disk = le16(e + 6), disk_entries = le16(e + 8);
  count = le16(e + 10);
  cd_size = le32(e + 12);
  cd_offset_ = le32(e + 16);
  std::uint64_t cd_limit = eocd;  // the central directory ends before this
  if (*at >= kZip64LocatorSize && le32(e - kZip64LocatorSize) == kZip64Locator) {
    const std::uint8_t* loc = e - kZip64LocatorSize;
    const std::uint64_t z64 = le64(loc + 8);
    if (le32(loc + 4) != 0 || le32(loc + 16) > 1) return fail("multi-disk ZIP archives are not supported");
    const std::uint64_t loc_offset = eocd - kZip64LocatorSize;
    if (z64 > loc_offset || loc_offset - z64 < kZip64EocdSize)
      return fail(fmt::format("ZIP64 end of central directory at byte offset {} lies outside the file (size {})",
                              z64, size));
    std::uint8_t r[kZip64EocdSize];
    HARNESS_TRY(read_exact(z64, r, sizeof r, "ZIP64 end of central directory"));
    if (le32(r) != kZip64EndOfDirectory)
      return fail(fmt::format("byte offset {}: no ZIP64 end of central directory record there", z64));
    disk = le32(r + 16);
    cd_disk = le32(r + 20);
    disk_entries = le64(r + 24);
    count = le64(r + 32);
    cd_size = le64(r + 40);
    cd_offset_ = le64(r + 48);
    cd_limit = z64;
  }
  if (disk != 0 || cd_disk != 0 || disk_entries != count) return fail("multi-disk ZIP archives are not supported");
  if (cd_offset_ > cd_limit || cd_size > cd_limit - cd_offset_)
    return fail(fmt::format("central directory ({} bytes at byte offset {}) lies outside the file (size {})", cd_size,
                            cd_offset_, size));
  if (cd_size > kMaxDirectoryBytes)
    return fail(fmt::format("central directory of {} bytes (more than {}): corrupt file?", cd_size,
                            kMaxDirectoryBytes));
  if (count > cd_size / kCentralSize)
    return fail(fmt::format("central directory at byte offset {}: {} entries cannot fit in {} bytes", cd_offset_,
                            count, cd_size));
  return ok();
}

Status Archive::parse_directory(const std::vector<std::uint8_t>& cd, std::uint64_t count) {
  std::size_t p = 0;
  entries_.reserve(static_cast<std::size_t>(count));
  for (std::uint64_t n = 0; n < count; ++n) {
    const std::string at = fmt::format("byte offset {}", cd_offset_ + p);
    if (cd.size() - p < kCentralSize || le32(&cd[p]) != kCentralHeader)
      return fail(fmt::format("{}: central directory entry {} is not there", at, n + 1));
    const std::uint8_t* h = &cd[p];
    const std::size_t name_len = le16(h + 28), extra_len = le16(h + 30), comment_len = le16(h + 32);
    if (cd.size() - p - kCentralSize < name_len + extra_len + comment_len)
      return fail(fmt::format("{}: central directory entry {} runs past the directory", at, n + 1));
    Entry e;
    e.flags = le16(h + 8);
    e.method = le16(h + 10);
    e.crc = le32(h + 16);
    e.compressed = le32(h + 20);
    e.uncompressed = le32(h + 24);
    e.header_offset = le32(h + 42);
    const std::uint16_t start_disk = le16(h + 34);
    e.name.assign(reinterpret_cast<const char*>(h + kCentralSize), name_len);
    HARNESS_TRY(read_zip64_extra(h + kCentralSize + name_len, extra_len, e, at, name_));
    if (start_disk != 0 && start_disk != 0xffff) return fail("multi-disk ZIP archives are not supported");
    if (!by_name_.emplace(e.name, entries_.size()).second) return fail(fmt::format("entry '{}' appears twice", e.name));
    entries_.push_back(std::move(e));
    p += kCentralSize + name_len + extra_len + comment_len;
  }
  return ok();
}

Result<Archive> Archive::open(ByteSource& source, const std::string& name, std::string_view kind) {
  Archive a(source, name);
  std::uint64_t count = 0, cd_size = 0;
  HARNESS_TRY(a.read_end_records(kind, count, cd_size));
  std::vector<std::uint8_t> cd(static_cast<std::size_t>(cd_size));
  HARNESS_TRY(a.read_exact(a.cd_offset_, cd.data(), cd.size(), "central directory"));
  HARNESS_TRY(a.parse_directory(cd, count));
  return a;
}

const Entry* Archive::find(std::string_view entry_name) const {
  auto it = by_name_.find(entry_name);
  return it == by_name_.end() ? nullptr : &entries_[it->second];
}

Result<Entry> Archive::locate(const Entry& e) const {
  const std::uint64_t size = source_->size();
  if (e.flags & 1) return fail(fmt::format("entry '{}' is encrypted", e.name));
  if (e.method != 0 && e.method != 8)
    return fail(fmt::format("entry '{}': compression method {} is not supported (only 0, stored, and 8, deflate)",
                            e.name, e.method));
  if (e.method == 0 && e.compressed != e.uncompressed)
    return fail(fmt::format("entry '{}' is stored but its sizes differ ({} and {} bytes)", e.name, e.compressed,
                            e.uncompressed));
  if (e.header_offset > size || size - e.header_offset < kLocalSize)
    return fail(fmt::format("entry '{}': local header at byte offset {} lies outside the file (size {})", e.name,
                            e.header_offset, size));
  std::uint8_t h[kLocalSize];
  HARNESS_TRY(read_exact(e.header_offset, h, sizeof h, "entry '" + e.name + "'"));
  if (le32(h) != kLocalHeader)
    return fail(fmt::format("entry '{}': no local header at byte offset {}", e.name, e.header_offset));
  const std::uint64_t data = e.header_offset + kLocalSize + le16(h + 26) + le16(h + 28);
  if (data > size || size - data < e.compressed)
    return fail(fmt::format("entry '{}': {} bytes of data at byte offset {} run past the end of the file (size {}): "
                            "truncated?",
                            e.name, e.compressed, data, size));
  if (e.deflated() && e.uncompressed > e.compressed * kMaxDeflateRatio + 258)
    return fail(fmt::format("entry '{}' declares {} inflated bytes, more than deflate can make of its {} bytes "
                            "(at most {}x): corrupt file",
                            e.name, e.uncompressed, e.compressed, kMaxDeflateRatio));
  Entry out = e;
  out.data = data;
  return out;
}

Result<std::vector<Entry>> Archive::locate_all(std::span<const Entry* const> wanted) const {
  std::vector<Entry> out;
  out.reserve(wanted.size());
  for (const Entry* e : wanted) {
    Result<Entry> located = locate(*e);
    if (!located) return located.error();
    out.push_back(std::move(*located));
  }
  // The bytes each entry occupies, local header to the end of its data.
  std::vector<const Entry*> spans;
  for (const Entry& e : out) spans.push_back(&e);
  std::stable_sort(spans.begin(), spans.end(),
                   [](const Entry* a, const Entry* b) { return a->header_offset < b->header_offset; });
  auto end = [](const Entry* e) { return e->data + e->compressed; };
  for (std::size_t i = 0; i < spans.size(); ++i) {
    if (i > 0 && spans[i]->header_offset < end(spans[i - 1]))
      return fail(fmt::format("entries '{}' and '{}' overlap (bytes {}-{} and {}-{}): corrupt file",
                              spans[i - 1]->name, spans[i]->name, spans[i - 1]->header_offset, end(spans[i - 1]),
                              spans[i]->header_offset, end(spans[i])));
    if (end(spans[i]) > cd_offset_)
      return fail(fmt::format("entry '{}' (bytes {}-{}) runs into the central directory at byte offset {}: corrupt "
                              "file",
                              spans[i]->name, spans[i]->header_offset, end(spans[i]), cd_offset_));
  }
  return out;
}

Status Archive::check_inflated(std::span<const Entry> located, const InflateLimits& limits) const {
  std::uint64_t total = 0;
  for (const Entry& e : located) {
    if (e.uncompressed > limits.entry_bytes)
      return fail(fmt::format("entry '{}' declares {} inflated bytes, more than the {} = {} bytes", e.name,
                              e.uncompressed, limits.entry_name, limits.entry_bytes));
    total += e.uncompressed;  // each at most entry_bytes, or 1032 times a size within the file: no overflow
    if (total > limits.total_bytes)
      return fail(fmt::format("{} up to '{}' declare {} inflated bytes, more than the {} = {} bytes", limits.group,
                              e.name, total, limits.total_name, limits.total_bytes));
  }
  return ok();
}

Result<std::string> Archive::read_whole(const Entry& e, std::uint64_t max_bytes) const {
  if (e.uncompressed > max_bytes)
    return fail(fmt::format("entry '{}' of {} bytes is too large for what it should hold", e.name, e.uncompressed));
  InflateScratch scratch;
  EntryReader reader(*source_, e, name_ + ": " + e.name, scratch);
  // One spare byte: a stream inflating to more than it states is caught.
  std::string text(static_cast<std::size_t>(e.uncompressed) + 1, '\0');
  bool ended = false;
  Result<std::size_t> n = reader.fill(reinterpret_cast<std::uint8_t*>(text.data()), text.size(), ended);
  if (!n) return n.error();
  text.resize(*n);
  return text;
}

InflateScratch::InflateScratch() = default;
InflateScratch::~InflateScratch() = default;

EntryReader::EntryReader(ByteSource& source, const Entry& located, std::string where, InflateScratch& scratch,
                         std::size_t read_block)
    : src_(source), e_(located), where_(std::move(where)), x_(scratch) {
  if (!e_.deflated()) return;
  if (!x_.state) x_.state = std::make_unique<inflate_state>();
  isal_inflate_init(x_.state.get());
  x_.state->crc_flag = ISAL_GZIP_NO_HDR;  // keeps the CRC-32 of the output in ->crc
  const std::size_t block = static_cast<std::size_t>(
      std::min<std::uint64_t>(std::max<std::size_t>(read_block, 4096), std::max<std::uint64_t>(e_.compressed, 1)));
  if (x_.in.size() < block) x_.in.resize(block);
}

Status EntryReader::read_exact(std::uint64_t offset, void* out, std::size_t n) {
  Result<std::size_t> got = src_.read_at(offset, out, n);
  if (!got) return got.error();
  if (*got != n)
    return fail(fmt::format("the file ends at byte offset {} ({} bytes expected at {}): truncated?", offset + *got, n,
                            offset));
  return ok();
}

Result<std::size_t> EntryReader::read(std::uint8_t* out, std::size_t cap) {
  if (done_) return std::size_t{0};
  cap = std::min<std::size_t>(cap, 0x7fffffff);
  return e_.deflated() ? read_deflated(out, cap) : read_stored(out, cap);
}

Result<std::size_t> EntryReader::fill(std::uint8_t* out, std::size_t cap, bool& ended) {
  std::size_t got = 0;
  ended = false;
  while (got < cap) {
    Result<std::size_t> n = read(out + got, cap - got);
    if (!n) return n.error();
    if (*n == 0) {
      ended = true;
      break;
    }
    got += *n;
  }
  return got;
}

Result<std::size_t> EntryReader::read_stored(std::uint8_t* out, std::size_t cap) {
  std::size_t n = static_cast<std::size_t>(std::min<std::uint64_t>(cap, e_.uncompressed - produced_));
  if (n == 0) {
    HARNESS_TRY(finish(crc_));
    return std::size_t{0};
  }
  HARNESS_TRY(read_exact(e_.data + produced_, out, n));
  crc_ = crc32_gzip_refl(crc_, out, n);
  produced_ += n;
  return n;
}

Result<std::size_t> EntryReader::read_deflated(std::uint8_t* out, std::size_t cap) {
  inflate_state& st = *x_.state;
  for (;;) {
    if (st.block_state == ISAL_BLOCK_FINISH) {
      HARNESS_TRY(finish(st.crc));
      return std::size_t{0};
    }
    if (st.avail_in == 0 && consumed_ < e_.compressed) {
      std::size_t n = static_cast<std::size_t>(std::min<std::uint64_t>(x_.in.size(), e_.compressed - consumed_));
      HARNESS_TRY(read_exact(e_.data + consumed_, x_.in.data(), n));
      consumed_ += n;
      st.next_in = x_.in.data();
      st.avail_in = static_cast<std::uint32_t>(n);
    }
    const std::uint32_t in_before = st.avail_in;
    st.next_out = out;
    st.avail_out = static_cast<std::uint32_t>(cap);
    int rc = isal_inflate(&st);
    const std::size_t n = cap - st.avail_out;
    if (rc < 0)
      return fail(fmt::format("{} near byte offset {}: corrupt file", inflate_error(rc),
                              e_.data + consumed_ - st.avail_in));
    produced_ += n;
    if (produced_ > e_.uncompressed)
      return fail(fmt::format("the data at byte offset {} inflates to more than the {} bytes the directory "
                              "states: corrupt file",
                              e_.data, e_.uncompressed));
    if (n > 0) return n;
    if (st.block_state != ISAL_BLOCK_FINISH && st.avail_in == in_before && cap > 0) {
      if (st.avail_in == 0 && consumed_ == e_.compressed)
        return fail(fmt::format("the deflate stream ends early at byte offset {} ({} of {} bytes inflated): "
                                "truncated or corrupt",
                                e_.data + e_.compressed, produced_, e_.uncompressed));
      if (st.avail_in != 0) return fail("inflate makes no progress: corrupt file");
    }
  }
}

Status EntryReader::finish(std::uint32_t crc) {
  if (produced_ != e_.uncompressed)
    return fail(fmt::format("{} bytes of data at byte offset {}, the directory states {}: corrupt file", produced_,
                            e_.data, e_.uncompressed));
  if (crc != e_.crc)
    return fail(fmt::format("CRC-32 {:08x} of the data at byte offset {} differs from {:08x} in the directory: "
                            "corrupt file",
                            crc, e_.data, e_.crc));
  done_ = true;
  return ok();
}

}  // namespace harness::zip
