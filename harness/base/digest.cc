#include "harness/base/digest.h"

#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <memory>
#include <vector>

#include <fmt/format.h>
#include <openssl/evp.h>

#include "harness/base/files.h"

namespace harness {
namespace {

struct Sha256 {
  std::unique_ptr<EVP_MD_CTX, decltype(&EVP_MD_CTX_free)> ctx{EVP_MD_CTX_new(), &EVP_MD_CTX_free};
  Sha256() { EVP_DigestInit_ex(ctx.get(), EVP_sha256(), nullptr); }
  void update(const void* p, std::size_t n) { EVP_DigestUpdate(ctx.get(), p, n); }
  std::string hex() {
    unsigned char md[EVP_MAX_MD_SIZE];
    unsigned int len = 0;
    EVP_DigestFinal_ex(ctx.get(), md, &len);
    std::string out;
    for (unsigned int i = 0; i < len; ++i) out += fmt::format("{:02x}", md[i]);
    return out;
  }
};

}  // namespace

std::string sha256_hex(std::string_view bytes) {
  Sha256 h;
  h.update(bytes.data(), bytes.size());
  return h.hex();
}

Result<std::string> sha256_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return Error::input(fmt::format("{}: {}", path, std::strerror(errno)));
  Sha256 h;
  std::vector<char> buffer(1 << 20);
  while (in) {
    in.read(buffer.data(), static_cast<std::streamsize>(buffer.size()));
    h.update(buffer.data(), static_cast<std::size_t>(in.gcount()));
  }
  if (in.bad()) return Error::input(fmt::format("{}: read error", path));
  return h.hex();
}

Result<std::string> sha256_fd(int fd, const std::string& path) {
  Sha256 h;
  std::vector<char> buffer(1 << 20);
  for (;;) {
    ssize_t n = ::read(fd, buffer.data(), buffer.size());
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return Error::input(fmt::format("{}: {}", path, std::strerror(errno)));
    if (n == 0) break;
    h.update(buffer.data(), static_cast<std::size_t>(n));
  }
  return h.hex();
}

Result<std::string> sha256_regular_file(const std::string& path) {
  Result<RegularFile> file = open_regular_file(path);
  if (!file) return file.error();
  return sha256_fd(file->fd(), path);
}

}  // namespace harness
