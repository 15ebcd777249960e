#include "probes/zip/byte_source.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include <fmt/format.h>

namespace harness {

Result<std::size_t> MemoryByteSource::read_at(std::uint64_t offset, void* out, std::size_t n) {
  if (offset >= bytes_.size()) return std::size_t{0};
  std::size_t take = static_cast<std::size_t>(std::min<std::uint64_t>(n, bytes_.size() - offset));
  if (take > 0) std::memcpy(out, bytes_.data() + offset, take);  // an empty read may come with no buffer
  return take;
}

Result<std::unique_ptr<FileByteSource>> FileByteSource::open(const std::string& path, std::uint64_t max_bytes) {
  Result<RegularFile> file = open_regular_file(path, max_bytes);
  if (!file) return file.error();
  ::posix_fadvise(file->fd(), 0, 0, POSIX_FADV_SEQUENTIAL);
  return std::unique_ptr<FileByteSource>(new FileByteSource(path, std::move(*file)));
}

Result<std::size_t> FileByteSource::read_at(std::uint64_t offset, void* out, std::size_t n) {
  std::size_t done = 0;
  auto* p = static_cast<std::uint8_t*>(out);
  while (done < n) {
    ssize_t got = ::pread(file_.fd(), p + done, n - done, static_cast<off_t>(offset + done));
    if (got < 0) {
      if (errno == EINTR) continue;
      return Error::input(fmt::format("{}: read at byte offset {}: {}", path_, offset + done, std::strerror(errno)));
    }
    if (got == 0) break;
    done += static_cast<std::size_t>(got);
  }
  return done;
}

}  // namespace harness
