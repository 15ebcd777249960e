// File edges that a hostile folder must not bend: atomic writes through an
// unpredictable O_EXCL temporary in the target folder, reads that open only
// regular files (no symlinks, devices or FIFOs) and stop at a stated limit,
// and copies that never share an inode with their source.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>

#include "harness/base/result.h"

namespace harness {

// Writes `text` to `path` through a temporary created with O_EXCL beside it
// under a random name, then renames it over `path`: a reader sees the old
// file or the new one, and a symlink planted at a guessable name is never
// followed. Errors name `path` and the OS error.
// With Flush::each the temporary is fsynced before the rename, so after a
// crash the file is the old one or the new one, complete. Flush::deferred
// leaves that to the caller, who writes a batch (a site of thousands of
// pages: one fsync each costs tens of ms on some disks) and then calls
// sync_filesystem once; readers still see only whole files.
enum class Flush { each, deferred };
Status write_file_atomically(const std::string& path, std::string_view text, Flush flush = Flush::each);

// write_file_atomically of the file `name` (no '/') in the folder open as
// `dir_fd`: a caller that holds its folders open (publish) writes inside
// them whatever their paths have been replaced with since. `path` names the
// file in errors.
Status write_file_atomically_at(int dir_fd, const std::string& name, std::string_view text, Flush flush,
                                const std::string& path);

// syncfs(2) of the filesystem that holds `path`: everything written there
// reaches the disk. The error names `path` and the OS error.
Status sync_filesystem(const std::string& path);

// A file opened for reading by the rule below; the descriptor closes with it.
class RegularFile {
 public:
  RegularFile() = default;
  RegularFile(int fd, std::uint64_t size) : fd_(fd), size_(size) {}
  RegularFile(RegularFile&& o) noexcept : fd_(o.fd_), size_(o.size_) { o.fd_ = -1; }
  RegularFile& operator=(RegularFile&& o) noexcept;
  RegularFile(const RegularFile&) = delete;
  RegularFile& operator=(const RegularFile&) = delete;
  ~RegularFile();
  int fd() const { return fd_; }
  std::uint64_t size() const { return size_; }  // when opened
  int release() {  // the descriptor, now the caller's to close
    int fd = fd_;
    fd_ = -1;
    return fd;
  }

 private:
  int fd_ = -1;
  std::uint64_t size_ = 0;
};

// No size limit: for a file streamed in bounded pieces (a capture, a tensor)
// rather than read whole; its readers bound what its contents declare.
inline constexpr std::uint64_t kAnySize = UINT64_MAX;

// The one rule for opening a file the harness reads, whoever named it (a
// command line, a scenario, a recording, a manifest, a sidecar, a layer map):
// `path` is opened with O_NOFOLLOW and O_NONBLOCK and checked with fstat, so a
// symlink, a FIFO, a device or a socket is refused without blocking, and a
// file of more than `max_bytes` is refused by its size before a byte is read.
// Errors are Error::input naming the path: "<path>: is a FIFO, not a regular
// file", "<path>: is a symbolic link, not a regular file", "<path>: <size>
// bytes is more than the <max_bytes> allowed"; a failed open reads
// "<path>: cannot open <what>: <OS error>" with `what` ("scenario"), else
// "<path>: <OS error>".
Result<RegularFile> open_regular_file(const std::string& path, std::uint64_t max_bytes = kAnySize,
                                      std::string_view what = {});

// The rule's refusal of what is not a regular file, for a folder's entry
// found without opening it (lstat): "<path>: is a symbolic link, not a
// regular file".
Error not_a_regular_file(const std::string& path, std::filesystem::file_type type);

// The whole of a regular file no larger than `max_bytes` (open_regular_file).
Result<std::string> read_regular_file(const std::string& path, std::uint64_t max_bytes, std::string_view what = {});

// A file named by data (a manifest, a recording, a sidecar) resolved inside
// `root`, the folder the data belongs to: `name` must be relative, without a
// ".." part, and stay below `root` once symlinks are resolved. Errors
// (Error::input) start with `where` and end with `root_what` ("the bundle"):
// "<where>: file path "<name>" must be relative to <root_what>" (absolute or
// empty), "<where>: file path "<name>" points outside <root_what>" (".." or a
// symlink leading out), "<where>: file path "<name>": <OS error>" (a symlink
// loop on the way). Returns root/name; open it with open_regular_file.
Result<std::string> path_inside(const std::string& root, const std::string& name, const std::string& where,
                                std::string_view root_what);

// Copies `source` (a regular file) to a new file `target`: a reflink
// (FICLONE) where the filesystem shares blocks copy-on-write, else a byte
// copy; never a hard link, so later writes to `source` do not reach `target`.
// `target` must not exist.
Status copy_file_private(const std::string& source, const std::string& target);

}  // namespace harness
