// The one ZIP reader: sigrok session files (.sr, probes/capture/srzip_reader)
// and NumPy archives (.npz, probes/tensor/npz) are both ZIP archives, read
// through this. It parses the central directory by hand (ZIP64 included,
// multi-disk archives and encryption refused) and streams an entry's stored
// or deflated bytes (inflated with ISA-L), checking its size and CRC-32.
//
// A hostile archive is refused before anything is inflated: every offset and
// size is checked against the file; the entries a caller reads together must
// not overlap (a directory whose thousands of entries all point at one
// deflate stream would inflate it once per entry) nor run into the central
// directory; no entry may declare more inflated bytes than deflate can make
// of its compressed bytes; and the declared sizes are held to the caller's
// limits, per entry and in total. Memory stays bounded: the directory (at
// most kMaxDirectoryBytes) and the caller's buffers.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "harness/base/result.h"
#include "probes/zip/byte_source.h"

struct inflate_state;  // ISA-L's

namespace harness::zip {

// A central directory larger than this is a corrupt file (an .sr archive
// lists a few hundred entries, an .npz one per tensor).
inline constexpr std::uint64_t kMaxDirectoryBytes = std::uint64_t{16} << 20;
// Deflate codes a match of 258 bytes in 2 bits at best: no stream inflates to
// more than 1032 times its size (plus one match).
inline constexpr std::uint64_t kMaxDeflateRatio = 1032;

struct Entry {
  std::string name;
  std::uint16_t flags = 0, method = 0;  // method 0: stored, 8: deflate
  std::uint32_t crc = 0;
  std::uint64_t compressed = 0, uncompressed = 0, header_offset = 0;
  // Where the entry's bytes begin, after its local header: set by locate().
  std::uint64_t data = 0;
  bool deflated() const { return method == 8; }
};

// Declared inflated bytes a caller accepts from the entries it reads
// together, and how its errors name the limits: "<archive>: entry 'x'
// declares N inflated bytes, more than the <entry_name> = <entry_bytes>
// bytes", "<archive>: <group> up to 'x' declare N inflated bytes, more than
// the <total_name> = <total_bytes> bytes".
struct InflateLimits {
  std::uint64_t entry_bytes = UINT64_MAX, total_bytes = UINT64_MAX;
  std::string entry_name, total_name;
  std::string group = "the entries";
};

class Archive {
 public:
  // Reads the end of central directory record (and the ZIP64 one) and the
  // central directory. `name` (the file's path) starts every error; `kind`
  // says what the file should have been: "<name>: no ZIP end of central
  // directory record: not <kind>, or truncated". Two entries with one name
  // are refused.
  static Result<Archive> open(ByteSource& source, const std::string& name, std::string_view kind);

  const std::vector<Entry>& entries() const { return entries_; }
  const Entry* find(std::string_view entry_name) const;
  const std::string& name() const { return name_; }
  ByteSource& source() const { return *source_; }

  // The entries a caller will read, with their data offsets: each encrypted
  // or of a method other than stored and deflate, stored with two sizes,
  // with a missing local header, data outside the file, or more inflated
  // bytes than deflate allows is refused; so are two that overlap (local
  // header to end of data) and one that runs into the central directory.
  Result<std::vector<Entry>> locate_all(std::span<const Entry* const> wanted) const;
  Result<Entry> locate(const Entry& e) const;

  // The declared inflated sizes of located entries against `limits`: each
  // entry, then the running total.
  Status check_inflated(std::span<const Entry> located, const InflateLimits& limits) const;

  // A small located entry whole (at most `max_bytes`: "entry 'x' of N bytes
  // is too large for what it should hold"), size and CRC-32 checked.
  Result<std::string> read_whole(const Entry& located, std::uint64_t max_bytes) const;

 private:
  Archive(ByteSource& source, std::string name) : source_(&source), name_(std::move(name)) {}
  Error fail(const std::string& what) const { return Error::input(name_ + ": " + what); }
  Status read_exact(std::uint64_t offset, void* out, std::size_t n, const std::string& what) const;
  Status read_end_records(std::string_view kind, std::uint64_t& count, std::uint64_t& cd_size);
  Status parse_directory(const std::vector<std::uint8_t>& cd, std::uint64_t count);

  ByteSource* source_;
  std::string name_;
  std::vector<Entry> entries_;
  std::map<std::string, std::size_t, std::less<>> by_name_;
  std::uint64_t cd_offset_ = 0;  // where the central directory starts
};

// What one thread needs to inflate entries: ISA-L's state (~90 KB) and a
// block of compressed input, reused across the entries it reads.
struct InflateScratch {
  InflateScratch();
  ~InflateScratch();
  std::unique_ptr<inflate_state> state;
  std::vector<std::uint8_t> in;
};

// The uncompressed bytes of one located entry, in order.
class EntryReader {
 public:
  // `where` starts every error ("capture.sr: logic-1-1"); the compressed
  // bytes are read `read_block` at a time through `scratch`, which no other
  // reader may use meanwhile (ByteSource reads are safe from any thread).
  EntryReader(ByteSource& source, const Entry& located, std::string where, InflateScratch& scratch,
              std::size_t read_block = std::size_t{1} << 20);

  // Up to `cap` bytes into `out`; 0 once the entry is complete and its size
  // and CRC-32 verified. A stream that ends early, inflates to more than the
  // directory states, is corrupt, or has another CRC-32 is an Error::input
  // naming the byte offset.
  Result<std::size_t> read(std::uint8_t* out, std::size_t cap);
  // Fills `out` with `cap` bytes, fewer only at the entry's verified end
  // (then `ended` is set).
  Result<std::size_t> fill(std::uint8_t* out, std::size_t cap, bool& ended);

 private:
  Error fail(const std::string& what) const { return Error::input(where_ + ": " + what); }
  Status read_exact(std::uint64_t offset, void* out, std::size_t n);
  Result<std::size_t> read_stored(std::uint8_t* out, std::size_t cap);
  Result<std::size_t> read_deflated(std::uint8_t* out, std::size_t cap);
  Status finish(std::uint32_t crc);

  ByteSource& src_;
  Entry e_;
  std::string where_;
  InflateScratch& x_;
  std::uint64_t consumed_ = 0, produced_ = 0;
  std::uint32_t crc_ = 0;
  bool done_ = false;
};

}  // namespace harness::zip
