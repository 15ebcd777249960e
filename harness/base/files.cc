#include "harness/base/files.h"

#include <fcntl.h>
#include <linux/fs.h>
#include <sys/ioctl.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <algorithm>
#include <filesystem>
#include <vector>

#include <fmt/format.h>


namespace harness {
namespace {

namespace fs = std::filesystem;

std::string os_error(int e) { return std::strerror(e); }

// Sixteen random hex digits: a name no other process can predict.
std::string random_suffix() {
  unsigned char bytes[8] = {};
  std::size_t got = 0;
  while (got < sizeof bytes) {
    ssize_t n = ::getrandom(bytes + got, sizeof bytes - got, 0);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    got += static_cast<std::size_t>(n);
  }
  std::string out;
  for (unsigned char b : bytes) out += fmt::format("{:02x}", b);
  return out;
}

Status write_all(int fd, std::string_view text, const std::string& path) {
  while (!text.empty()) {
    ssize_t n = ::write(fd, text.data(), text.size());
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return Error::infra(fmt::format("{}: write failed: {}", path, os_error(errno)));
    text.remove_prefix(static_cast<std::size_t>(n));
  }
  return ok();
}

struct Fd {
  int fd = -1;
  ~Fd() {
    if (fd >= 0) ::close(fd);
  }
};

}  // namespace

Status write_file_atomically_at(int dir_fd, const std::string& name, std::string_view text, Flush flush,
                                const std::string& path) {
  const std::string dir = std::filesystem::path(path).parent_path().empty()
                              ? std::string(".")
                              : std::filesystem::path(path).parent_path().string();
  if (name.empty() || name.find('/') != std::string::npos || name == "." || name == "..") {
    return Error::infra(fmt::format("{}: not a file name in {}", path, dir));
  }
  Fd tmp;
  std::string tmp_name;
  for (int attempt = 0; attempt < 16 && tmp.fd < 0; ++attempt) {
    tmp_name = fmt::format(".{}.{}.tmp", name, random_suffix());
    tmp.fd = ::openat(dir_fd, tmp_name.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
    if (tmp.fd < 0 && errno != EEXIST) {
      return Error::infra(fmt::format("{}: cannot create a temporary file in {}: {}", path, dir, os_error(errno)));
    }
  }
  if (tmp.fd < 0) {
    return Error::infra(fmt::format("{}: cannot create a temporary file in {}: {} (16 random names all taken)", path,
                                    dir, os_error(EEXIST)));
  }
  Status written = write_all(tmp.fd, text, path);
  if (written && flush == Flush::each && ::fsync(tmp.fd) != 0) written = Error::infra(fmt::format("{}: fsync failed: {}", path, os_error(errno)));
  if (!written) {
    ::unlinkat(dir_fd, tmp_name.c_str(), 0);
    return written;
  }
  ::close(tmp.fd);
  tmp.fd = -1;
  if (::renameat(dir_fd, tmp_name.c_str(), dir_fd, name.c_str()) != 0) {
    int e = errno;
    ::unlinkat(dir_fd, tmp_name.c_str(), 0);
    return Error::infra(fmt::format("{}: cannot write: {}", path, os_error(e)));
  }
  return ok();
}

Status write_file_atomically(const std::string& path, std::string_view text, Flush flush) {
  std::filesystem::path target(path);
  const std::string dir = target.parent_path().empty() ? std::string(".") : target.parent_path().string();
  Fd folder{::open(dir.c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC)};
  if (folder.fd < 0) {
    return Error::infra(fmt::format("{}: cannot create a temporary file in {}: {}", path, dir, os_error(errno)));
  }
  return write_file_atomically_at(folder.fd, target.filename().string(), text, flush, path);
}

Status sync_filesystem(const std::string& path) {
  int fd = ::open(path.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return Error::infra(fmt::format("{}: cannot open to sync: {}", path, os_error(errno)));
  int rc = ::syncfs(fd);
  int e = errno;
  ::close(fd);
  if (rc != 0) return Error::infra(fmt::format("{}: syncfs failed: {}", path, os_error(e)));
  return ok();
}

RegularFile& RegularFile::operator=(RegularFile&& o) noexcept {
  if (this != &o) {
    if (fd_ >= 0) ::close(fd_);
    fd_ = o.fd_;
    size_ = o.size_;
    o.fd_ = -1;
  }
  return *this;
}

RegularFile::~RegularFile() {
  if (fd_ >= 0) ::close(fd_);
}

Error not_a_regular_file(const std::string& path, fs::file_type type) {
  const char* kind = type == fs::file_type::symlink                                     ? "a symbolic link"
                     : type == fs::file_type::directory                                 ? "a directory"
                     : type == fs::file_type::fifo                                      ? "a FIFO"
                     : type == fs::file_type::character || type == fs::file_type::block ? "a device"
                     : type == fs::file_type::socket                                    ? "a socket"
                                                                                        : nullptr;
  if (!kind) return Error::input(fmt::format("{}: not a regular file", path));
  return Error::input(fmt::format("{}: is {}, not a regular file", path, kind));
}

Result<RegularFile> open_regular_file(const std::string& path, std::uint64_t max_bytes, std::string_view what) {
  int opened = ::open(path.c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
  if (opened < 0) {
    int e = errno;
    if (e == ELOOP) return not_a_regular_file(path, fs::file_type::symlink);
    if (!what.empty()) return Error::input(fmt::format("{}: cannot open {}: {}", path, what, os_error(e)));
    return Error::input(fmt::format("{}: {}", path, os_error(e)));
  }
  RegularFile file(opened, 0);
  struct stat st {};
  if (::fstat(opened, &st) != 0) return Error::input(fmt::format("{}: {}", path, os_error(errno)));
  if (!S_ISREG(st.st_mode)) {
    const fs::file_type type = S_ISDIR(st.st_mode)    ? fs::file_type::directory
                               : S_ISFIFO(st.st_mode) ? fs::file_type::fifo
                               : S_ISCHR(st.st_mode)  ? fs::file_type::character
                               : S_ISBLK(st.st_mode)  ? fs::file_type::block
                               : S_ISSOCK(st.st_mode) ? fs::file_type::socket
                                                      : fs::file_type::unknown;
    return not_a_regular_file(path, type);
  }
  const auto size = static_cast<std::uint64_t>(st.st_size);
  if (size > max_bytes) return Error::input(fmt::format("{}: {} bytes is more than the {} allowed", path, size, max_bytes));
  // Reads block from here on: O_NONBLOCK only kept the open from waiting.
  int flags = ::fcntl(opened, F_GETFL);
  if (flags >= 0) ::fcntl(opened, F_SETFL, flags & ~O_NONBLOCK);
  return RegularFile(file.release(), size);
}

Result<std::string> read_regular_file(const std::string& path, std::uint64_t max_bytes, std::string_view what) {
  Result<RegularFile> file = open_regular_file(path, max_bytes, what);
  if (!file) return file.error();
  std::string out;
  out.resize(static_cast<std::size_t>(file->size()));
  std::size_t got = 0;
  while (got < out.size()) {
    ssize_t n = ::read(file->fd(), out.data() + got, out.size() - got);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return Error::input(fmt::format("{}: {}", path, os_error(errno)));
    if (n == 0) break;  // shrank while read: what is there
    got += static_cast<std::size_t>(n);
  }
  out.resize(got);
  // Grown while read: the limit still holds.
  char extra = 0;
  if (::read(file->fd(), &extra, 1) > 0) {
    return Error::input(fmt::format("{}: grew while being read, beyond the {} bytes allowed", path, max_bytes));
  }
  return out;
}

Result<std::string> path_inside(const std::string& root, const std::string& name, const std::string& where,
                                std::string_view root_what) {
  const fs::path p(name);
  if (name.empty() || p.is_absolute())
    return Error::input(fmt::format("{}: file path \"{}\" must be relative to {}", where, name, root_what));
  for (const fs::path& part : p)
    if (part == "..") return Error::input(fmt::format("{}: file path \"{}\" points outside {}", where, name, root_what));
  std::error_code ec;
  const fs::path real_root = fs::weakly_canonical(root, ec);
  if (ec) return Error::input(fmt::format("{}: {}", root, ec.message()));
  const fs::path full = fs::path(root) / p;
  const fs::path real = fs::weakly_canonical(full, ec);
  if (ec) return Error::input(fmt::format("{}: file path \"{}\": {}", where, name, ec.message()));
  auto [root_end, ignored] = std::mismatch(real_root.begin(), real_root.end(), real.begin(), real.end());
  if (root_end != real_root.end())
    return Error::input(fmt::format("{}: file path \"{}\" points outside {}", where, name, root_what));
  return full.string();
}

Status copy_file_private(const std::string& source, const std::string& target) {
  Result<RegularFile> in = open_regular_file(source);
  if (!in) return in.error();
  const int src = in->fd();
  Fd dst;
  dst.fd = ::open(target.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0444);
  if (dst.fd < 0) return Error::infra(fmt::format("{}: cannot create: {}", target, os_error(errno)));
  if (::ioctl(dst.fd, FICLONE, src) == 0) return ok();
  std::vector<char> buffer(1 << 20);
  for (;;) {
    ssize_t n = ::read(src, buffer.data(), buffer.size());
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      int e = errno;
      ::unlink(target.c_str());
      return Error::infra(fmt::format("{}: read failed: {}", source, os_error(e)));
    }
    if (n == 0) break;
    Status w = write_all(dst.fd, std::string_view(buffer.data(), static_cast<std::size_t>(n)), target);
    if (!w) {
      ::unlink(target.c_str());
      return w;
    }
  }
  if (::fsync(dst.fd) != 0) return Error::infra(fmt::format("{}: fsync failed: {}", target, os_error(errno)));
  return ok();
}

}  // namespace harness
