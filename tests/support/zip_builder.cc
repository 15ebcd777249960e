#include "tests/support/zip_builder.h"

#include <gtest/gtest.h>
#include <zlib.h>

namespace harness::testing_support {
namespace {

template <class T>
void put(std::string& s, T v) {
  for (unsigned i = 0; i < sizeof v; ++i) s.push_back(static_cast<char>((static_cast<std::uint64_t>(v) >> (8 * i)) & 0xff));
}

// Deflate's bits, least significant first; Huffman codes go most
// significant bit first (RFC 1951, 3.1.1).
class BitWriter {
 public:
  void bits(std::uint32_t v, int count) {
    acc_ |= static_cast<std::uint64_t>(v) << n_;
    n_ += count;
    for (; n_ >= 8; n_ -= 8, acc_ >>= 8) out_.push_back(static_cast<char>(acc_ & 0xff));
  }
  void code(std::uint32_t c, int len) {
    std::uint32_t reversed = 0;
    for (int i = 0; i < len; ++i) reversed |= ((c >> i) & 1u) << (len - 1 - i);
    bits(reversed, len);
  }
  void align() {
    if (n_ % 8) bits(0, 8 - n_ % 8);
  }
  std::string finish() {
    align();
    return std::move(out_);
  }

 private:
  std::string out_;
  std::uint64_t acc_ = 0;
  int n_ = 0;
};

}  // namespace

std::string zero_bomb_deflate(const std::string& prefix, std::uint64_t matches) {
  BitWriter w;
  w.bits(0, 1);  // a stored block, not the last
  w.bits(0, 2);
  w.align();
  w.bits(static_cast<std::uint32_t>(prefix.size()), 16);
  w.bits(static_cast<std::uint32_t>(prefix.size()) ^ 0xffffu, 16);
  for (char c : prefix) w.bits(static_cast<std::uint8_t>(c), 8);
  w.bits(1, 1);  // the last block, dynamic codes
  w.bits(2, 2);
  w.bits(29, 5);  // 286 literal/length codes
  w.bits(1, 5);   // 2 distance codes
  w.bits(14, 4);  // 18 code length codes, in the order 16 17 18 0 8 7 9 6 10 5 11 4 12 3 13 2 14 1
  for (std::uint32_t len : {0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2, 0, 2}) w.bits(len, 3);
  // Code length codes: 18 -> 0, 1 -> 10, 2 -> 11. Literal/length lengths:
  // 0 -> 2, 1..255 none, 256 -> 2, 257..284 none, 285 -> 1; distances 0, 1 -> 1.
  w.code(3, 2);
  w.code(0, 1), w.bits(127, 7);  // 138 zeros
  w.code(0, 1), w.bits(106, 7);  // 117 zeros
  w.code(3, 2);
  w.code(0, 1), w.bits(17, 7);  // 28 zeros
  w.code(2, 2);
  w.code(2, 2);
  w.code(2, 2);
  // Literals: 0 -> 10, 256 (end) -> 11, 285 (length 258) -> 0; distance 1 -> 0.
  w.code(2, 2);
  w.code(2, 2);
  for (std::uint64_t i = 0; i < matches; ++i) w.bits(0, 2);  // length code 0 and distance code 0, both 1 bit
  w.code(3, 2);
  return w.finish();
}

// Raw deflate (no zlib header), as ZIP method 8 stores it.
std::string deflated(const std::string& plain) {
  z_stream z{};
  if (deflateInit2(&z, 6, Z_DEFLATED, -15, 8, Z_DEFAULT_STRATEGY) != Z_OK) ADD_FAILURE() << "deflateInit2";
  std::string out(deflateBound(&z, plain.size()), '\0');
  z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(plain.data()));
  z.avail_in = static_cast<uInt>(plain.size());
  z.next_out = reinterpret_cast<Bytef*>(out.data());
  z.avail_out = static_cast<uInt>(out.size());
  if (deflate(&z, Z_FINISH) != Z_STREAM_END) ADD_FAILURE() << "deflate";
  out.resize(z.total_out);
  deflateEnd(&z);
  return out;
}

std::string raw_zip(const std::vector<RawEntry>& entries, bool zip64) {
  std::string out, cd;
  for (const RawEntry& e : entries) {
    const std::uint64_t offset = out.size();
    const std::string& plain = e.method == 8 ? e.inflated : e.data;
    const std::uint64_t size = e.inflated_size.value_or(plain.size());
    const std::uint32_t crc = e.crc.value_or(static_cast<std::uint32_t>(
        crc32(0, reinterpret_cast<const Bytef*>(plain.data()), static_cast<uInt>(plain.size()))));
    const std::uint32_t csize32 = zip64 ? 0xffffffffu : static_cast<std::uint32_t>(e.data.size());
    const std::uint32_t usize32 = zip64 ? 0xffffffffu : static_cast<std::uint32_t>(size);
    put<std::uint32_t>(out, 0x04034b50);
    put<std::uint16_t>(out, zip64 ? 45 : 20);
    put<std::uint16_t>(out, 0);
    put<std::uint16_t>(out, e.method);
    put<std::uint32_t>(out, 0x00210000);  // time, date
    put<std::uint32_t>(out, crc);
    put<std::uint32_t>(out, csize32);
    put<std::uint32_t>(out, usize32);
    put<std::uint16_t>(out, static_cast<std::uint16_t>(e.name.size()));
    put<std::uint16_t>(out, zip64 ? 20 : 0);
    out += e.name;
    if (zip64) {
      put<std::uint16_t>(out, 1);
      put<std::uint16_t>(out, 16);
      put<std::uint64_t>(out, size);
      put<std::uint64_t>(out, e.data.size());
    }
    out += e.data;
    put<std::uint32_t>(cd, 0x02014b50);
    put<std::uint16_t>(cd, 45);
    put<std::uint16_t>(cd, zip64 ? 45 : 20);
    put<std::uint16_t>(cd, 0);
    put<std::uint16_t>(cd, e.method);
    put<std::uint32_t>(cd, 0x00210000);
    put<std::uint32_t>(cd, crc);
    put<std::uint32_t>(cd, csize32);
    put<std::uint32_t>(cd, usize32);
    put<std::uint16_t>(cd, static_cast<std::uint16_t>(e.name.size()));
    put<std::uint16_t>(cd, zip64 ? 28 : 0);
    put<std::uint16_t>(cd, 0);  // comment
    put<std::uint16_t>(cd, 0);  // disk
    put<std::uint16_t>(cd, 0);
    put<std::uint32_t>(cd, 0);
    put<std::uint32_t>(cd, zip64 ? 0xffffffffu : static_cast<std::uint32_t>(offset));
    cd += e.name;
    if (zip64) {
      put<std::uint16_t>(cd, 1);
      put<std::uint16_t>(cd, 24);
      put<std::uint64_t>(cd, size);
      put<std::uint64_t>(cd, e.data.size());
      put<std::uint64_t>(cd, offset);
    }
  }
  const std::uint64_t cd_offset = out.size();
  out += cd;
  if (zip64) {
    const std::uint64_t eocd64 = out.size();
    put<std::uint32_t>(out, 0x06064b50);
    put<std::uint64_t>(out, 44);
    put<std::uint16_t>(out, 45);
    put<std::uint16_t>(out, 45);
    put<std::uint32_t>(out, 0);
    put<std::uint32_t>(out, 0);
    put<std::uint64_t>(out, entries.size());
    put<std::uint64_t>(out, entries.size());
    put<std::uint64_t>(out, cd.size());
    put<std::uint64_t>(out, cd_offset);
    put<std::uint32_t>(out, 0x07064b50);
    put<std::uint32_t>(out, 0);
    put<std::uint64_t>(out, eocd64);
    put<std::uint32_t>(out, 1);
  }
  put<std::uint32_t>(out, 0x06054b50);
  put<std::uint16_t>(out, 0);
  put<std::uint16_t>(out, 0);
  put<std::uint16_t>(out, zip64 ? 0xffff : static_cast<std::uint16_t>(entries.size()));
  put<std::uint16_t>(out, zip64 ? 0xffff : static_cast<std::uint16_t>(entries.size()));
  put<std::uint32_t>(out, zip64 ? 0xffffffffu : static_cast<std::uint32_t>(cd.size()));
  put<std::uint32_t>(out, zip64 ? 0xffffffffu : static_cast<std::uint32_t>(cd_offset));
  put<std::uint16_t>(out, 0);
  return out;
}

// The data offset and compressed size of an entry, found through the local
// header that names it (test archives only: names are unique and short).
std::string shared_entry_zip(const std::vector<std::string>& names, const std::string& data, std::uint16_t method,
                             std::uint32_t inflated, std::uint32_t crc) {
  std::string out, cd;
  auto header = [&](std::string& s, std::uint32_t signature, const std::string& name, bool central) {
    put<std::uint32_t>(s, signature);
    if (central) put<std::uint16_t>(s, 20);
    put<std::uint16_t>(s, 20);
    put<std::uint16_t>(s, 0);
    put<std::uint16_t>(s, method);
    put<std::uint32_t>(s, 0x00210000);
    put<std::uint32_t>(s, crc);
    put<std::uint32_t>(s, static_cast<std::uint32_t>(data.size()));
    put<std::uint32_t>(s, inflated);
    put<std::uint16_t>(s, static_cast<std::uint16_t>(name.size()));
    put<std::uint16_t>(s, 0);
    if (central) {
      put<std::uint16_t>(s, 0);  // comment
      put<std::uint16_t>(s, 0);  // disk
      put<std::uint16_t>(s, 0);
      put<std::uint32_t>(s, 0);
      put<std::uint32_t>(s, 0);  // every entry's local header: the one at offset 0
    }
    s += name;
  };
  header(out, 0x04034b50, names.at(0), false);
  out += data;
  for (const std::string& name : names) header(cd, 0x02014b50, name, true);
  const std::uint64_t cd_offset = out.size();
  out += cd;
  put<std::uint32_t>(out, 0x06054b50);
  put<std::uint16_t>(out, 0);
  put<std::uint16_t>(out, 0);
  put<std::uint16_t>(out, static_cast<std::uint16_t>(names.size()));
  put<std::uint16_t>(out, static_cast<std::uint16_t>(names.size()));
  put<std::uint32_t>(out, static_cast<std::uint32_t>(cd.size()));
  put<std::uint32_t>(out, static_cast<std::uint32_t>(cd_offset));
  put<std::uint16_t>(out, 0);
  return out;
}

std::uint32_t crc32_of_zeros_after(const std::string& prefix, std::uint64_t zeros) {
  uLong crc = crc32(0, reinterpret_cast<const Bytef*>(prefix.data()), static_cast<uInt>(prefix.size()));
  const Bytef zero = 0;
  uLong block = crc32(0, &zero, 1);  // the CRC of 2^i zeros, i = 0, 1, ...
  z_off_t block_len = 1;
  for (std::uint64_t n = zeros; n != 0; n >>= 1) {
    if (n & 1) crc = crc32_combine(crc, block, block_len);
    block = crc32_combine(block, block, block_len);
    block_len *= 2;
  }
  return static_cast<std::uint32_t>(crc);
}

std::pair<std::size_t, std::size_t> locate(const std::string& zip, const std::string& entry) {
  std::string header("PK\x03\x04", 4);
  for (std::size_t at = zip.find(header); at != std::string::npos; at = zip.find(header, at + 1)) {
    auto u16 = [&](std::size_t p) { return static_cast<std::uint8_t>(zip[p]) | static_cast<std::uint8_t>(zip[p + 1]) << 8; };
    std::size_t n = u16(at + 26), x = u16(at + 28);
    if (zip.compare(at + 30, n, entry) != 0 || n != entry.size()) continue;
    std::size_t size = u16(at + 18) | static_cast<std::size_t>(u16(at + 20)) << 16;
    return {at + 30 + n + x, size};
  }
  ADD_FAILURE() << "no entry " << entry;
  return {0, 0};
}

// The central directory record of `entry` (test archives only).
std::size_t central_record(const std::string& zip, const std::string& entry) {
  std::string header("PK\x01\x02", 4);
  for (std::size_t at = zip.find(header); at != std::string::npos; at = zip.find(header, at + 1)) {
    auto u16 = [&](std::size_t p) { return static_cast<std::uint8_t>(zip[p]) | static_cast<std::uint8_t>(zip[p + 1]) << 8; };
    if (static_cast<std::size_t>(u16(at + 28)) == entry.size() && zip.compare(at + 46, entry.size(), entry) == 0) return at;
  }
  ADD_FAILURE() << "no central record " << entry;
  return 0;
}

void patch32(std::string& zip, std::size_t at, std::uint32_t v) {
  for (unsigned i = 0; i < 4; ++i) zip[at + i] = static_cast<char>((v >> (8 * i)) & 0xff);
}

std::uint32_t read32(const std::string& zip, std::size_t at) {
  std::uint32_t v = 0;
  for (unsigned i = 0; i < 4; ++i) v |= static_cast<std::uint32_t>(static_cast<std::uint8_t>(zip[at + i])) << (8 * i);
  return v;
}

}  // namespace harness::testing_support
