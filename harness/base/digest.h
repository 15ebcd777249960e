// SHA-256 of bytes and of files, as lowercase hex.
#pragma once

#include <string>
#include <string_view>

#include "harness/base/result.h"

namespace harness {

std::string sha256_hex(std::string_view bytes);
// Streams the file; an unreadable file names the OS error.
Result<std::string> sha256_file(const std::string& path);
// Streams an open descriptor from its current offset to the end; `path`
// names it in errors.
Result<std::string> sha256_fd(int fd, const std::string& path);
// sha256 of a regular file opened as open_regular_file (files.h) does.
Result<std::string> sha256_regular_file(const std::string& path);

}  // namespace harness
