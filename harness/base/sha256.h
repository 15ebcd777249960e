// SHA-256 in plain C++, as FIPS 180-4 defines it, for the static device
// agent (cmake/agent.cmake), which links no crypto library. The host hashes
// with OpenSSL (digest.h), several times faster on large captures; the
// tests check that both give the same digests.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace harness {

class Sha256 {
 public:
  void update(const void* p, std::size_t n);
  // The digest as lowercase hex; the object is spent afterwards.
  std::string finish_hex();

 private:
  void compress(const unsigned char* block);

  std::array<std::uint32_t, 8> h_ = {0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
                                     0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19};
  std::array<unsigned char, 64> block_{};
  std::size_t used_ = 0;
  std::uint64_t length_ = 0;
};

inline std::string sha256_portable_hex(std::string_view bytes) {
  Sha256 h;
  h.update(bytes.data(), bytes.size());
  return h.finish_hex();
}

}  // namespace harness
