// ZIP archives written by hand for the tests of the ZIP reader and its users
// (.sr captures, .npz tensor sets): stored or deflated entries, optionally
// with every size and offset in ZIP64 records, and helpers to find and patch
// the records a hostile archive would alter.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace harness::testing_support {

struct RawEntry {
  RawEntry(std::string n, std::string d, std::uint16_t m = 0, std::string i = {})
      : name(std::move(n)), data(std::move(d)), method(m), inflated(std::move(i)) {}
  std::string name, data;  // data: the bytes as stored in the archive
  std::uint16_t method;    // 0 stored, 8 deflate
  std::string inflated;    // for method 8: what `data` inflates to
  // For data too large to hold inflated: its size and CRC-32, given.
  std::optional<std::uint64_t> inflated_size;
  std::optional<std::uint32_t> crc;
};

// Raw deflate (no zlib header), as ZIP method 8 stores it.
std::string deflated(const std::string& plain);

// The entries in the order given, then the central directory (ZIP64 records
// throughout when `zip64`).
std::string raw_zip(const std::vector<RawEntry>& entries, bool zip64);

// The data offset and compressed size of an entry, found through the local
// header that names it (test archives only: names are unique and short).
std::pair<std::size_t, std::size_t> locate(const std::string& zip, const std::string& entry);

// The byte offset of the central directory record of `entry`.
std::size_t central_record(const std::string& zip, const std::string& entry);

// A raw deflate stream that inflates to `prefix` (at most 65535 bytes, in a
// stored block) followed by 2 + 258 x `matches` zero bytes, in one dynamic
// block coding each 258-byte match in 2 bits: deflate's best ratio, 1 GiB of
// zeros in about 1 MB, written in a moment (zlib would take a minute).
std::string zero_bomb_deflate(const std::string& prefix, std::uint64_t matches);

// One local header and its data listed `names.size()` times in the central
// directory, every entry pointing at offset 0: the bomb a reader must refuse
// from the directory alone. `inflated` and `crc`: what the data inflates to.
std::string shared_entry_zip(const std::vector<std::string>& names, const std::string& data, std::uint16_t method,
                             std::uint32_t inflated, std::uint32_t crc);

// CRC-32 of `prefix` followed by `zeros` zero bytes, without making them.
std::uint32_t crc32_of_zeros_after(const std::string& prefix, std::uint64_t zeros);

void patch32(std::string& zip, std::size_t at, std::uint32_t v);
std::uint32_t read32(const std::string& zip, std::size_t at);

}  // namespace harness::testing_support
