// File edges that a hostile folder must not bend: atomic writes through an
// unpredictable O_EXCL temporary in the target folder, reads that open only
// regular files (no symlinks, devices or FIFOs) and stop at a stated limit,
// and copies that never share an inode with their source.
#pragma once

#include <cstdint>
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

// syncfs(2) of the filesystem that holds `path`: everything written there
// reaches the disk. The error names `path` and the OS error.
Status sync_filesystem(const std::string& path);

// Opens `path` for reading only if it is a regular file (O_NOFOLLOW and
// O_NONBLOCK, then fstat), so a symlink, a FIFO or a device is refused
// without blocking. Returns the descriptor, to be closed by the caller.
// With `what` ("scenario"), a failed open reads "<path>: cannot open
// scenario: <OS error>", else "<path>: <OS error>".
Result<int> open_regular_file(const std::string& path, std::string_view what = {});

// The whole of a regular file no larger than `max_bytes`, refused by its
// size before anything is read: "<path>: <size> bytes is more than the
// <max_bytes> allowed".
Result<std::string> read_regular_file(const std::string& path, std::uint64_t max_bytes, std::string_view what = {});

// sha256 of a regular file opened as open_regular_file does.
Result<std::string> sha256_regular_file(const std::string& path);

// Copies `source` (a regular file) to a new file `target`: a reflink
// (FICLONE) where the filesystem shares blocks copy-on-write, else a byte
// copy; never a hard link, so later writes to `source` do not reach `target`.
// `target` must not exist.
Status copy_file_private(const std::string& source, const std::string& target);

}  // namespace harness
