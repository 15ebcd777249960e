#include "probes/capture/srzip_reader.h"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <condition_variable>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <thread>
#include <vector>

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fmt/format.h>
#include <isa-l/crc.h>
#include <isa-l/igzip_lib.h>

#include "probes/capture/readers.h"

namespace harness {

Result<std::size_t> MemoryByteSource::read_at(std::uint64_t offset, void* out, std::size_t n) {
  if (offset >= bytes_.size()) return std::size_t{0};
  std::size_t take = static_cast<std::size_t>(std::min<std::uint64_t>(n, bytes_.size() - offset));
  if (take > 0) std::memcpy(out, bytes_.data() + offset, take);  // an empty read may come with no buffer
  return take;
}

Result<std::unique_ptr<FileByteSource>> FileByteSource::open(const std::string& path) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return Error::input(fmt::format("{}: {}", path, std::strerror(errno)));
  struct stat st {};
  if (::fstat(fd, &st) != 0) {
    int e = errno;
    ::close(fd);
    return Error::input(fmt::format("{}: {}", path, std::strerror(e)));
  }
  if (!S_ISREG(st.st_mode)) {
    ::close(fd);
    return Error::input(path + ": not a regular file");
  }
  ::posix_fadvise(fd, 0, 0, POSIX_FADV_SEQUENTIAL);
  return std::unique_ptr<FileByteSource>(new FileByteSource(path, fd, static_cast<std::uint64_t>(st.st_size)));
}

FileByteSource::~FileByteSource() { ::close(fd_); }

Result<std::size_t> FileByteSource::read_at(std::uint64_t offset, void* out, std::size_t n) {
  std::size_t done = 0;
  auto* p = static_cast<std::uint8_t*>(out);
  while (done < n) {
    ssize_t got = ::pread(fd_, p + done, n - done, static_cast<off_t>(offset + done));
    if (got < 0) {
      if (errno == EINTR) continue;
      return Error::input(fmt::format("{}: read at byte offset {}: {}", path_, offset + done, std::strerror(errno)));
    }
    if (got == 0) break;
    done += static_cast<std::size_t>(got);
  }
  return done;
}

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
// srzip directories hold a few hundred entries; more means a corrupt file.
constexpr std::uint64_t kMaxDirectoryBytes = std::uint64_t{16} << 20;
// version and metadata are a few hundred bytes.
constexpr std::uint64_t kMaxMetadataBytes = std::uint64_t{1} << 20;

struct ZipEntry {
  std::string name;
  std::uint16_t flags = 0, method = 0;
  std::uint32_t crc = 0;
  std::uint64_t compressed = 0, uncompressed = 0, header_offset = 0;
};

std::string trim(std::string_view s) {
  std::size_t b = s.find_first_not_of(" \t\r\n");
  if (b == std::string_view::npos) return {};
  std::size_t e = s.find_last_not_of(" \t\r\n");
  return std::string(s.substr(b, e - b + 1));
}

std::optional<std::uint64_t> parse_uint(std::string_view s) {
  std::uint64_t v = 0;
  if (s.empty()) return std::nullopt;
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || end != s.data() + s.size()) return std::nullopt;
  return v;
}

// "500 MHz", "1.5 kHz", "200000", "1G": what sigrok writes and accepts.
std::optional<double> parse_samplerate(std::string_view text) {
  std::string s = trim(text);
  std::size_t i = 0;
  while (i < s.size() && (std::isdigit(static_cast<unsigned char>(s[i])) || s[i] == '.')) ++i;
  if (i == 0) return std::nullopt;
  double value = 0;
  auto [end, ec] = std::from_chars(s.data(), s.data() + i, value);
  if (ec != std::errc() || end != s.data() + i || !std::isfinite(value)) return std::nullopt;
  while (i < s.size() && s[i] == ' ') ++i;
  double scale = 1;
  if (i < s.size()) {
    switch (s[i]) {
      case 'k': case 'K': scale = 1e3; ++i; break;
      case 'm': case 'M': scale = 1e6; ++i; break;
      case 'g': case 'G': scale = 1e9; ++i; break;
      default: break;
    }
  }
  std::string rest = s.substr(i);
  if (!rest.empty() && rest != "Hz" && rest != "hz" && rest != "HZ") return std::nullopt;
  return std::round(value * scale);
}

const char* inflate_error(int code) {
  switch (code) {
    case ISAL_INVALID_BLOCK: return "invalid deflate block";
    case ISAL_INVALID_SYMBOL: return "invalid deflate symbol";
    case ISAL_INVALID_LOOKBACK: return "invalid back-reference distance";
    default: return "inflate error";
  }
}

// What one thread needs to inflate entries: ISA-L's state (~90 KB) and a
// block of compressed input, reused across the entries it inflates.
struct InflateScratch {
  std::unique_ptr<inflate_state> state;
  std::vector<std::uint8_t> in;
};

class SrzipReader {
 public:
  SrzipReader(ByteSource& source, const std::string& name, const SrzipOptions& options)
      : src_(source), name_(name), options_(options) {
    options_.read_block = std::max<std::size_t>(options_.read_block, 4096);
    options_.sink_block = std::max<std::size_t>(options_.sink_block, 64);
  }

  Status read(CaptureSink& sink);

 private:
  Error fail(const std::string& message) const { return Error::input(name_ + ": " + message); }
  Status read_exact(std::uint64_t offset, void* out, std::size_t n, const std::string& what);
  Result<std::vector<ZipEntry>> directory();
  Status parse_directory(const std::vector<std::uint8_t>& cd, std::uint64_t cd_offset, std::uint64_t count,
                         std::vector<ZipEntry>& entries);
  Result<std::uint64_t> data_offset(const ZipEntry& e);
  Result<std::string> small_entry(const ZipEntry& e);

  // Pulls the uncompressed bytes of one entry, verifying its size and CRC-32
  // when the end is reached.
  class EntryStream;

  ByteSource& src_;
  const std::string& name_;
  SrzipOptions options_;
  // The samples: the chunk entries inflated in order (on options_.jobs
  // threads) into blocks, handed to `deliver` in order.
  struct Chunk {
    const ZipEntry* entry;
    std::uint64_t data;
  };
  using BlockSink = std::function<Status(const std::uint8_t*, std::size_t)>;
  Status inflate_in_order(const std::vector<Chunk>& chunks, const BlockSink& deliver);
  Status inflate_on_threads(const std::vector<Chunk>& chunks, unsigned threads, std::size_t pool_blocks,
                            const BlockSink& deliver);
  // Fills `out` with the next `cap` bytes of an entry (fewer only at its
  // end); `ended` once the entry is complete and verified.
  Result<std::size_t> fill(EntryStream& s, std::uint8_t* out, std::size_t cap, bool& ended);
  std::size_t block_ = 0;  // bytes of an inflated block (read())

  InflateScratch scratch_;                      // for the calling thread
  std::uint64_t cd_offset_ = 0;                 // where the central directory starts
};

// Deflate codes a match of 258 bytes in 2 bits at best: no stream inflates
// to more than 1032 times its size (plus one match).
constexpr std::uint64_t kMaxDeflateRatio = 1032;

Status SrzipReader::read_exact(std::uint64_t offset, void* out, std::size_t n, const std::string& what) {
  Result<std::size_t> got = src_.read_at(offset, out, n);
  if (!got) return got.error();
  if (*got != n)
    return fail(fmt::format("{}: the file ends at byte offset {} ({} bytes expected at {}): truncated?", what,
                            offset + *got, n, offset));
  return ok();
}

Result<std::vector<ZipEntry>> SrzipReader::directory() {
  const std::uint64_t size = src_.size();
  const std::string not_zip = "no ZIP end of central directory record: not a sigrok session file, or truncated";
  if (size < kEocdSize) return fail(fmt::format("{} bytes: {}", size, not_zip));
  const std::size_t tail_len = static_cast<std::size_t>(std::min<std::uint64_t>(size, 0xffff + kEocdSize));
  const std::uint64_t tail_offset = size - tail_len;
  std::vector<std::uint8_t> tail(tail_len);
  HARNESS_TRY(read_exact(tail_offset, tail.data(), tail_len, "end of central directory"));
  // Backwards: the record is followed by its comment up to the end of file.
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
  std::uint64_t disk = le16(e + 4), cd_disk = le16(e + 6), disk_entries = le16(e + 8), entries = le16(e + 10);
  std::uint64_t cd_size = le32(e + 12), cd_offset = le32(e + 16);
  std::uint64_t cd_limit = eocd;  // the central directory ends before this
  if (eocd >= kZip64LocatorSize && *at >= kZip64LocatorSize && le32(e - kZip64LocatorSize) == kZip64Locator) {
    const std::uint8_t* loc = e - kZip64LocatorSize;
    std::uint64_t z64 = le64(loc + 8);
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
    entries = le64(r + 32);
    cd_size = le64(r + 40);
    cd_offset = le64(r + 48);
    cd_limit = z64;
  }
  if (disk != 0 || cd_disk != 0 || disk_entries != entries) return fail("multi-disk ZIP archives are not supported");
  if (cd_offset > cd_limit || cd_size > cd_limit - cd_offset)
    return fail(fmt::format("central directory ({} bytes at byte offset {}) lies outside the file (size {})", cd_size,
                            cd_offset, size));
  if (cd_size > kMaxDirectoryBytes)
    return fail(fmt::format("central directory of {} bytes (more than {}): corrupt file?", cd_size,
                            kMaxDirectoryBytes));
  if (entries > cd_size / kCentralSize)
    return fail(fmt::format("central directory at byte offset {}: {} entries cannot fit in {} bytes", cd_offset,
                            entries, cd_size));
  std::vector<std::uint8_t> cd(static_cast<std::size_t>(cd_size));
  HARNESS_TRY(read_exact(cd_offset, cd.data(), cd.size(), "central directory"));
  std::vector<ZipEntry> list;
  HARNESS_TRY(parse_directory(cd, cd_offset, entries, list));
  cd_offset_ = cd_offset;
  return list;
}

Status SrzipReader::parse_directory(const std::vector<std::uint8_t>& cd, std::uint64_t cd_offset,
                                    std::uint64_t count, std::vector<ZipEntry>& entries) {
  std::size_t p = 0;
  entries.reserve(static_cast<std::size_t>(count));
  for (std::uint64_t n = 0; n < count; ++n) {
    const std::uint64_t where = cd_offset + p;
    if (cd.size() - p < kCentralSize || le32(&cd[p]) != kCentralHeader)
      return fail(fmt::format("byte offset {}: central directory entry {} is not there", where, n + 1));
    const std::uint8_t* h = &cd[p];
    const std::size_t name_len = le16(h + 28), extra_len = le16(h + 30), comment_len = le16(h + 32);
    if (cd.size() - p - kCentralSize < name_len + extra_len + comment_len)
      return fail(fmt::format("byte offset {}: central directory entry {} runs past the directory", where, n + 1));
    ZipEntry e;
    e.flags = le16(h + 8);
    e.method = le16(h + 10);
    e.crc = le32(h + 16);
    e.compressed = le32(h + 20);
    e.uncompressed = le32(h + 24);
    e.header_offset = le32(h + 42);
    const std::uint16_t start_disk = le16(h + 34);
    e.name.assign(reinterpret_cast<const char*>(h + kCentralSize), name_len);
    // ZIP64 extended information: the 64-bit values of the fields set to
    // all ones, in this order.
    const bool need_u = e.uncompressed == 0xffffffff, need_c = e.compressed == 0xffffffff,
               need_o = e.header_offset == 0xffffffff;
    bool got_zip64 = false;
    const std::uint8_t* x = h + kCentralSize + name_len;
    for (std::size_t q = 0; extra_len - q >= 4;) {
      const std::uint16_t id = le16(x + q), len = le16(x + q + 2);
      if (extra_len - q - 4 < len) break;  // a malformed tail is ignored, as unzip does
      if (id == 0x0001) {
        const std::uint8_t* f = x + q + 4;
        std::size_t need = 8 * (need_u + need_c + need_o);
        if (len < need)
          return fail(fmt::format("byte offset {}: entry '{}': ZIP64 extra field of {} bytes, {} needed", where,
                                  e.name, len, need));
        if (need_u) e.uncompressed = le64(f), f += 8;
        if (need_c) e.compressed = le64(f), f += 8;
        if (need_o) e.header_offset = le64(f), f += 8;
        got_zip64 = true;
      }
      q += 4 + len;
    }
    if ((need_u || need_c || need_o) && !got_zip64)
      return fail(fmt::format("byte offset {}: entry '{}': 32-bit size or offset set to 0xffffffff without a ZIP64 "
                              "extra field",
                              where, e.name));
    if (start_disk != 0 && start_disk != 0xffff) return fail("multi-disk ZIP archives are not supported");
    entries.push_back(std::move(e));
    p += kCentralSize + name_len + extra_len + comment_len;
  }
  return ok();
}

Result<std::uint64_t> SrzipReader::data_offset(const ZipEntry& e) {
  const std::uint64_t size = src_.size();
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
  return data;
}

class SrzipReader::EntryStream {
 public:
  // Reads through `scratch`, which no other stream may use meanwhile; the
  // reader's source is shared (ByteSource reads are safe from any thread).
  EntryStream(SrzipReader& r, InflateScratch& scratch, const ZipEntry& e, std::uint64_t data)
      : r_(r), x_(scratch), e_(e), data_(data) {
    if (e.method == 8) {
      if (!x_.state) x_.state = std::make_unique<inflate_state>();
      isal_inflate_init(x_.state.get());
      x_.state->crc_flag = ISAL_GZIP_NO_HDR;  // keeps the CRC-32 of the output in ->crc
      std::size_t block = static_cast<std::size_t>(std::min<std::uint64_t>(r.options_.read_block, e.compressed));
      if (x_.in.size() < block) x_.in.resize(block);
    }
  }

  // Up to `cap` bytes into `out`; 0 once the entry is complete and verified.
  Result<std::size_t> read(std::uint8_t* out, std::size_t cap) {
    if (done_) return std::size_t{0};
    cap = std::min<std::size_t>(cap, 0x7fffffff);
    return e_.method == 0 ? read_stored(out, cap) : read_deflated(out, cap);
  }

 private:
  Error fail(const std::string& what) const { return r_.fail(fmt::format("{}: {}", e_.name, what)); }

  Result<std::size_t> read_stored(std::uint8_t* out, std::size_t cap) {
    std::size_t n = static_cast<std::size_t>(std::min<std::uint64_t>(cap, e_.uncompressed - produced_));
    if (n == 0) {
      HARNESS_TRY(finish(crc_));
      return std::size_t{0};
    }
    HARNESS_TRY(r_.read_exact(data_ + produced_, out, n, e_.name));
    crc_ = crc32_gzip_refl(crc_, out, n);
    produced_ += n;
    return n;
  }

  Result<std::size_t> read_deflated(std::uint8_t* out, std::size_t cap) {
    inflate_state& st = *x_.state;
    for (;;) {
      if (st.block_state == ISAL_BLOCK_FINISH) {
        HARNESS_TRY(finish(st.crc));
        return std::size_t{0};
      }
      if (st.avail_in == 0 && consumed_ < e_.compressed) {
        std::size_t n = static_cast<std::size_t>(std::min<std::uint64_t>(x_.in.size(), e_.compressed - consumed_));
        HARNESS_TRY(r_.read_exact(data_ + consumed_, x_.in.data(), n, e_.name));
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
                                data_ + consumed_ - st.avail_in));
      produced_ += n;
      if (produced_ > e_.uncompressed)
        return fail(fmt::format("the data at byte offset {} inflates to more than the {} bytes the directory "
                                "states: corrupt file",
                                data_, e_.uncompressed));
      if (n > 0) return n;
      if (st.block_state != ISAL_BLOCK_FINISH && st.avail_in == in_before && cap > 0) {
        if (st.avail_in == 0 && consumed_ == e_.compressed)
          return fail(fmt::format("the deflate stream ends early at byte offset {} ({} of {} bytes inflated): "
                                  "truncated or corrupt",
                                  data_ + e_.compressed, produced_, e_.uncompressed));
        if (st.avail_in != 0) return fail("inflate makes no progress: corrupt file");
      }
    }
  }

  Status finish(std::uint32_t crc) {
    if (produced_ != e_.uncompressed)
      return fail(fmt::format("{} bytes of data at byte offset {}, the directory states {}: corrupt file", produced_,
                              data_, e_.uncompressed));
    if (crc != e_.crc)
      return fail(fmt::format("CRC-32 {:08x} of the data at byte offset {} differs from {:08x} in the directory: "
                              "corrupt file",
                              crc, data_, e_.crc));
    done_ = true;
    return ok();
  }

  SrzipReader& r_;
  InflateScratch& x_;
  const ZipEntry& e_;
  std::uint64_t data_;
  std::uint64_t consumed_ = 0, produced_ = 0;
  std::uint32_t crc_ = 0;
  bool done_ = false;
};

Result<std::string> SrzipReader::small_entry(const ZipEntry& e) {
  if (e.uncompressed > kMaxMetadataBytes)
    return fail(fmt::format("entry '{}' of {} bytes is too large for what it should hold", e.name, e.uncompressed));
  Result<std::uint64_t> data = data_offset(e);
  if (!data) return data.error();
  std::string text(static_cast<std::size_t>(e.uncompressed) + 1, '\0');
  EntryStream s(*this, scratch_, e, *data);
  std::size_t fill = 0;
  for (;;) {
    // One spare byte: a stream inflating to more than it states is caught.
    Result<std::size_t> n = s.read(reinterpret_cast<std::uint8_t*>(text.data()) + fill, text.size() - fill);
    if (!n) return n.error();
    if (*n == 0) break;
    fill += *n;
  }
  text.resize(fill);
  return text;
}

struct Metadata {
  std::string capturefile;
  std::optional<std::uint64_t> total_probes, unitsize;
  double samplerate = 0;
  std::map<std::uint64_t, std::string> probes;
};

// The INI dialect of GLib's key files, as libsigrok writes and reads it:
// [group] lines, key=value lines (spaces around '=' ignored), # comments.
Result<Metadata> parse_metadata(std::string_view text, const std::string& name) {
  Metadata m;
  std::string group;
  bool found_device = false;
  std::size_t line_no = 0;
  auto fail = [&](const std::string& what) {
    return Error::input(fmt::format("{}: metadata:{}: {}", name, line_no, what));
  };
  for (std::size_t start = 0; start < text.size();) {
    std::size_t nl = text.find('\n', start);
    std::string line = trim(text.substr(start, nl == std::string_view::npos ? std::string_view::npos : nl - start));
    start = nl == std::string_view::npos ? text.size() : nl + 1;
    ++line_no;
    if (line.empty() || line[0] == '#') continue;
    if (line[0] == '[') {
      if (line.back() != ']') return fail(fmt::format("'{}': a group line must end with ']'", line));
      group = line.substr(1, line.size() - 2);
      found_device = found_device || group == "device 1";
      continue;
    }
    std::size_t eq = line.find('=');
    if (eq == std::string::npos) return fail(fmt::format("'{}': expected key=value", line));
    if (group.empty()) return fail("key=value before any [group]");
    if (group != "device 1") continue;
    std::string key = trim(std::string_view(line).substr(0, eq));
    std::string value = trim(std::string_view(line).substr(eq + 1));
    if (key == "capturefile") {
      m.capturefile = value;
    } else if (key == "samplerate") {
      std::optional<double> hz = parse_samplerate(value);
      if (!hz) return fail(fmt::format("samplerate '{}': expected Hz, with an optional k, M or G (\"500 MHz\")", value));
      m.samplerate = *hz;
    } else if (key == "unitsize") {
      m.unitsize = parse_uint(value);
      if (!m.unitsize || *m.unitsize == 0 || *m.unitsize > 8)
        return fail(fmt::format("unitsize '{}': expected 1 to 8 bytes per sample", value));
    } else if (key == "total probes") {
      m.total_probes = parse_uint(value);
      if (!m.total_probes) return fail(fmt::format("total probes '{}': expected a number", value));
    } else if (key.rfind("probe", 0) == 0) {
      std::optional<std::uint64_t> n = parse_uint(std::string_view(key).substr(5));
      if (!n || *n == 0) return fail(fmt::format("'{}': expected probe<N>, N from 1", key));
      m.probes[*n] = value;
    }
    // total analog, analogN and anything newer: not part of a logic capture.
  }
  if (!found_device) return Error::input(name + ": metadata has no [device 1] group");
  if (m.capturefile.empty()) return Error::input(name + ": metadata: [device 1] has no capturefile");
  if (!m.total_probes) return Error::input(name + ": metadata: [device 1] has no 'total probes'");
  return m;
}

// The chunk number of `entry` if it is `<capturefile>-<n>` (n >= 1, written
// without leading zeros, as libsigrok names them).
std::optional<std::uint64_t> chunk_number(const std::string& entry, const std::string& capturefile) {
  if (entry.size() <= capturefile.size() + 1 || entry.compare(0, capturefile.size(), capturefile) != 0 ||
      entry[capturefile.size()] != '-')
    return std::nullopt;
  std::string_view digits = std::string_view(entry).substr(capturefile.size() + 1);
  if (digits.size() > 9 || digits[0] == '0') return std::nullopt;
  return parse_uint(digits);
}

Status SrzipReader::read(CaptureSink& sink) {
  Result<std::vector<ZipEntry>> listed = directory();
  if (!listed) return listed.error();
  const std::vector<ZipEntry>& entries = *listed;
  std::map<std::string_view, const ZipEntry*> by_name;
  for (const ZipEntry& e : entries)
    if (!by_name.emplace(e.name, &e).second) return fail(fmt::format("entry '{}' appears twice", e.name));
  auto find = [&](std::string_view n) -> const ZipEntry* {
    auto it = by_name.find(n);
    return it == by_name.end() ? nullptr : it->second;
  };

  const ZipEntry* version = find("version");
  if (!version) return fail("no 'version' entry: not a sigrok session file");
  Result<std::string> version_text = small_entry(*version);
  if (!version_text) return version_text.error();
  if (trim(*version_text) != "2")
    return fail(fmt::format("session file version '{}' is not supported (only 2)", trim(*version_text)));
  const ZipEntry* meta_entry = find("metadata");
  if (!meta_entry) return fail("no 'metadata' entry: not a sigrok session file");
  Result<std::string> meta_text = small_entry(*meta_entry);
  if (!meta_text) return meta_text.error();
  Result<Metadata> meta = parse_metadata(*meta_text, name_);
  if (!meta) return meta.error();

  const std::uint64_t total = *meta->total_probes;
  if (total == 0) return fail("the session has no logic channels");
  if (total > 64) return fail("more than 64 logic channels");
  if (!meta->probes.empty() && meta->probes.rbegin()->first > total)
    return fail(fmt::format("metadata: probe{} but total probes={}", meta->probes.rbegin()->first, total));
  CaptureHeader header;
  header.format = "sr";
  header.samplerate = meta->samplerate;
  for (std::uint64_t i = 0; i < total; ++i) {
    auto it = meta->probes.find(i + 1);
    // libsigrok names the channels it creates for "total probes" by their
    // index and renames those listed as probeN.
    header.channels.push_back(it != meta->probes.end() ? it->second : std::to_string(i));
  }
  header.unitsize = CaptureHeader::unitsize_for(total);

  // Logic chunks in numeric order: logic-1-1, logic-1-2, ..., logic-1-10.
  std::vector<std::pair<std::uint64_t, const ZipEntry*>> chunks;
  const ZipEntry* single = find(meta->capturefile);
  for (const ZipEntry& e : entries)
    if (std::optional<std::uint64_t> n = chunk_number(e.name, meta->capturefile)) chunks.emplace_back(*n, &e);
  std::sort(chunks.begin(), chunks.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  for (std::size_t i = 0; i < chunks.size(); ++i)
    if (chunks[i].first != i + 1)
      return fail(fmt::format("{}-{} is missing (the archive has {} chunks up to {})", meta->capturefile, i + 1,
                              chunks.size(), chunks.back().second->name));
  if (single && !chunks.empty())
    return fail(fmt::format("both '{}' and chunks '{}-N': corrupt file", meta->capturefile, meta->capturefile));
  if (single) chunks.emplace_back(1, single);

  const unsigned file_unit = meta->unitsize ? static_cast<unsigned>(*meta->unitsize) : header.unitsize;
  if (!chunks.empty() && !meta->unitsize) return fail("metadata: [device 1] has no unitsize");
  if (file_unit * 8 < total)
    return fail(fmt::format("metadata: unitsize={} holds {} channels, but total probes={}", file_unit, file_unit * 8,
                            total));
  // Resolve every chunk before the first sample: a structural error or a
  // size beyond the limits is found before the sink has seen anything.
  const ReaderLimits& limits = options_.limits;
  std::vector<std::uint64_t> offsets;
  std::uint64_t bytes = 0;
  // The bytes each entry read occupies, local header to the end of its data:
  // they must not overlap (a directory whose entries all point at one
  // deflate stream would inflate it once per entry).
  struct Span {
    std::uint64_t from, to;
    const ZipEntry* entry;
  };
  std::vector<Span> spans;
  for (const ZipEntry* e : {version, meta_entry}) {
    Result<std::uint64_t> data = data_offset(*e);
    if (!data) return data.error();
    spans.push_back({e->header_offset, *data + e->compressed, e});
  }
  for (const auto& [n, e] : chunks) {
    Result<std::uint64_t> data = data_offset(*e);
    if (!data) return data.error();
    if (e->uncompressed > limits.entry_bytes)
      return limit_exceeded(name_, fmt::format("entry '{}' declares {} inflated bytes", e->name, e->uncompressed),
                            &ReaderLimits::entry_bytes, limits);
    if (e->method == 8 && e->uncompressed > e->compressed * kMaxDeflateRatio + 258)
      return fail(fmt::format("entry '{}' declares {} inflated bytes, more than deflate can make of its {} bytes "
                              "(at most {}x): corrupt file",
                              e->name, e->uncompressed, e->compressed, kMaxDeflateRatio));
    offsets.push_back(*data);
    spans.push_back({e->header_offset, *data + e->compressed, e});
    bytes += e->uncompressed;
    if (bytes > limits.inflated_bytes)
      return limit_exceeded(name_, fmt::format("the chunk entries up to '{}' declare {} inflated bytes", e->name, bytes),
                            &ReaderLimits::inflated_bytes, limits);
  }
  std::stable_sort(spans.begin(), spans.end(), [](const Span& a, const Span& b) { return a.from < b.from; });
  for (std::size_t i = 0; i < spans.size(); ++i) {
    if (i > 0 && spans[i].from < spans[i - 1].to)
      return fail(fmt::format("entries '{}' and '{}' overlap (bytes {}-{} and {}-{}): corrupt file",
                              spans[i - 1].entry->name, spans[i].entry->name, spans[i - 1].from, spans[i - 1].to,
                              spans[i].from, spans[i].to));
    if (spans[i].to > cd_offset_)
      return fail(fmt::format("entry '{}' (bytes {}-{}) runs into the central directory at byte offset {}: corrupt "
                              "file",
                              spans[i].entry->name, spans[i].from, spans[i].to, cd_offset_));
  }
  header.declared_samples = bytes / file_unit;
  if (*header.declared_samples > limits.samples)
    return limit_exceeded(name_, fmt::format("the chunk entries hold {} samples", *header.declared_samples),
                          &ReaderLimits::samples, limits);

  HARNESS_TRY(sink.begin(header));
  std::vector<Chunk> work;
  for (std::size_t i = 0; i < chunks.size(); ++i) work.push_back({chunks[i].second, offsets[i]});
  // The inflated bytes arrive in blocks that need not end on a sample (nor
  // do the entries): the samples of each block go to the sink as they are,
  // a sample cut by a block border is completed from the next block.
  std::vector<std::uint8_t> wide, carry;
  auto hand_on = [&](const std::uint8_t* p, std::size_t count) -> Status {
    if (count == 0) return ok();
    if (file_unit == header.unitsize) return sink.samples(p, count);
    // 17-24 channels are stored in 3 bytes, delivered in 4 (and a unitsize
    // wider than the channels need is narrowed), as the libsigrok path does.
    wide.assign(count * header.unitsize, 0);
    const unsigned keep = std::min(file_unit, header.unitsize);
    for (std::size_t i = 0; i < count; ++i) std::memcpy(&wide[i * header.unitsize], &p[i * file_unit], keep);
    return sink.samples(wide.data(), count);
  };
  auto deliver = [&](const std::uint8_t* p, std::size_t n) -> Status {
    if (!carry.empty()) {
      const std::size_t take = std::min<std::size_t>(file_unit - carry.size(), n);
      carry.insert(carry.end(), p, p + take);
      p += take;
      n -= take;
      if (carry.size() < file_unit) return ok();
      HARNESS_TRY(hand_on(carry.data(), 1));
      carry.clear();
    }
    const std::size_t whole = n / file_unit;
    HARNESS_TRY(hand_on(p, whole));
    carry.assign(p + whole * file_unit, p + n);
    return ok();
  };
  // Blocks of sink_block bytes, smaller for a small capture.
  std::uint64_t largest = 0, blocks_needed = 0;
  for (const Chunk& c : work) largest = std::max(largest, c.entry->uncompressed);
  block_ = static_cast<std::size_t>(std::max<std::uint64_t>(64, std::min<std::uint64_t>(options_.sink_block, largest)));
  for (const Chunk& c : work) blocks_needed += (c.entry->uncompressed + block_ - 1) / block_ + 1;
  const unsigned jobs = options_.jobs ? options_.jobs : std::max(1u, std::thread::hardware_concurrency());
  if (jobs > 1 && !work.empty()) {
    // One worker already overlaps inflating with the sink's work.
    const unsigned threads = static_cast<unsigned>(std::min<std::size_t>(jobs, work.size()));
    const std::size_t pool = static_cast<std::size_t>(std::min<std::uint64_t>(
        blocks_needed + threads, std::max<std::size_t>(threads + 2, options_.inflight_bytes / block_)));
    HARNESS_TRY(inflate_on_threads(work, threads, pool, deliver));
  } else {
    HARNESS_TRY(inflate_in_order(work, deliver));
  }
  // A partial sample at the very end is dropped, as libsigrok does.
  return sink.end();
}

Result<std::size_t> SrzipReader::fill(EntryStream& s, std::uint8_t* out, std::size_t cap, bool& ended) {
  std::size_t got = 0;
  ended = false;
  while (got < cap) {
    Result<std::size_t> n = s.read(out + got, cap - got);
    if (!n) return n.error();
    if (*n == 0) {
      ended = true;
      break;
    }
    got += *n;
  }
  return got;
}

Status SrzipReader::inflate_in_order(const std::vector<Chunk>& chunks, const BlockSink& deliver) {
  std::vector<std::uint8_t> block(block_);
  for (const Chunk& c : chunks) {
    EntryStream stream(*this, scratch_, *c.entry, c.data);
    for (bool ended = false; !ended;) {
      Result<std::size_t> n = fill(stream, block.data(), block.size(), ended);
      if (!n) return n.error();
      if (*n) HARNESS_TRY(deliver(block.data(), *n));
    }
  }
  return ok();
}

// Workers take the entries in order and inflate each into blocks from a
// fixed pool; the calling thread hands the blocks of the entry at the head
// to the sink and returns them to the pool. Memory is the pool, whatever the
// size or number of entries. A worker on an entry behind the head may take
// a block only while more than one is free, so the head's worker always
// finds one: the consumer frees the head's blocks, and nothing else waits
// on an entry behind it. Errors are kept with their entry and returned when
// the consumer reaches it, so the first error in file order is the one
// reported, as on one thread.
Status SrzipReader::inflate_on_threads(const std::vector<Chunk>& chunks, unsigned threads, std::size_t pool_blocks,
                                       const BlockSink& deliver) {
  struct Ready {
    std::uint8_t* block;
    std::size_t bytes;
  };
  struct Slot {
    std::deque<Ready> ready;
    bool done = false;
    std::optional<Error> error;
  };
  const std::size_t block = block_;
  // One region in 2 MiB pages where the kernel allows (madvise): 4 KiB pages
  // cost a page fault each on first touch, some 30000 for the pool, which
  // on a small capture ate what the second thread saved.
  constexpr std::size_t kHugePage = std::size_t{2} << 20;
  const std::size_t region = (pool_blocks * block + kHugePage - 1) / kHugePage * kHugePage;
  std::unique_ptr<void, decltype(&std::free)> storage(std::aligned_alloc(kHugePage, region), &std::free);
  if (!storage) return Error::infra(fmt::format("{}: no memory for {} bytes of inflate blocks", name_, region));
  ::madvise(storage.get(), region, MADV_HUGEPAGE);
  std::vector<std::uint8_t*> free_blocks;
  for (std::size_t i = 0; i < pool_blocks; ++i) free_blocks.push_back(static_cast<std::uint8_t*>(storage.get()) + i * block);
  std::vector<Slot> slots(chunks.size());
  std::mutex m;
  std::condition_variable wake_workers, wake_consumer;
  std::size_t next = 0, head = 0, last_wanted = chunks.size();
  bool stop = false;

  auto worker = [&]() {
    InflateScratch scratch;
    for (;;) {
      std::size_t i;
      {
        std::lock_guard<std::mutex> lock(m);
        if (stop || next >= last_wanted) return;
        i = next++;
      }
      EntryStream stream(*this, scratch, *chunks[i].entry, chunks[i].data);
      for (bool ended = false; !ended;) {
        std::uint8_t* b = nullptr;
        {
          std::unique_lock<std::mutex> lock(m);
          wake_workers.wait(lock, [&] { return stop || (!free_blocks.empty() && (i == head || free_blocks.size() > 1)); });
          if (stop) return;
          b = free_blocks.back();
          free_blocks.pop_back();
        }
        Result<std::size_t> n = fill(stream, b, block, ended);
        std::lock_guard<std::mutex> lock(m);
        if (!n) {
          free_blocks.push_back(b);
          slots[i].error = n.error();
          slots[i].done = true;
          last_wanted = std::min(last_wanted, i + 1);  // nothing after a broken entry is needed
          wake_workers.notify_all();
          wake_consumer.notify_all();
          break;
        }
        if (*n) slots[i].ready.push_back({b, *n});
        else free_blocks.push_back(b);
        if (ended) slots[i].done = true;
        wake_consumer.notify_all();
        if (!*n) wake_workers.notify_all();
      }
    }
  };
  std::vector<std::thread> pool;
  auto stop_all = [&]() {
    {
      std::lock_guard<std::mutex> lock(m);
      stop = true;
    }
    wake_workers.notify_all();
    for (std::thread& t : pool) t.join();
  };
  for (unsigned t = 0; t < threads; ++t) pool.emplace_back(worker);
  for (std::size_t i = 0; i < chunks.size(); ++i) {
    {
      std::lock_guard<std::mutex> lock(m);
      head = i;
    }
    wake_workers.notify_all();
    for (;;) {
      Ready r{};
      {
        std::unique_lock<std::mutex> lock(m);
        wake_consumer.wait(lock, [&] { return !slots[i].ready.empty() || slots[i].done; });
        if (slots[i].ready.empty()) {
          if (slots[i].error) {
            Error e = *slots[i].error;
            lock.unlock();
            stop_all();
            return e;
          }
          break;  // the entry is complete
        }
        r = slots[i].ready.front();
        slots[i].ready.pop_front();
      }
      Status s = deliver(r.block, r.bytes);
      {
        std::lock_guard<std::mutex> lock(m);
        free_blocks.push_back(r.block);
      }
      wake_workers.notify_all();
      if (!s) {
        stop_all();
        return s.error();
      }
    }
  }
  stop_all();
  return ok();
}

}  // namespace

Status read_srzip(ByteSource& source, const std::string& name, CaptureSink& sink, const SrzipOptions& options) {
  SrzipReader reader(source, name, options);
  return reader.read(sink);
}

Status read_sr(const std::string& path, CaptureSink& sink) { return read_sr(path, ReadOptions{}, sink); }

Status read_sr(const std::string& path, const ReadOptions& options, CaptureSink& sink) {
  Result<std::unique_ptr<FileByteSource>> file = FileByteSource::open(path);
  if (!file) return file.error();
  SrzipOptions o;
  o.limits = options.limits;
  o.jobs = options.jobs;
  return read_srzip(**file, path, sink, o);
}

}  // namespace harness
