// Random-access bytes for the ZIP reader and the tensor streams: a file read
// with pread, or a buffer in memory (tests and fuzz targets).
#pragma once

#include <cstddef>
#include <cstdint>
#include <limits>
#include <memory>
#include <string>
#include <string_view>
#include <utility>

#include "harness/base/files.h"
#include "harness/base/result.h"

namespace harness {

class ByteSource {
 public:
  virtual ~ByteSource() = default;
  virtual std::uint64_t size() const = 0;
  // Reads up to `n` bytes at `offset` into `out`; returns how many were read
  // (fewer only at the end of the source), or the OS error. Safe to call from
  // several threads at once.
  virtual Result<std::size_t> read_at(std::uint64_t offset, void* out, std::size_t n) = 0;
};

class MemoryByteSource : public ByteSource {
 public:
  explicit MemoryByteSource(std::string_view bytes) : bytes_(bytes) {}
  std::uint64_t size() const override { return bytes_.size(); }
  Result<std::size_t> read_at(std::uint64_t offset, void* out, std::size_t n) override;

 private:
  std::string_view bytes_;
};

class FileByteSource : public ByteSource {
 public:
  // Opens `path` by the rule for every file the harness reads
  // (open_regular_file: a regular file, no symlink, FIFO or device, at most
  // `max_bytes`); errors are Error::input naming the path.
  static Result<std::unique_ptr<FileByteSource>> open(const std::string& path,
                                                      std::uint64_t max_bytes = kAnySize);
  std::uint64_t size() const override { return file_.size(); }
  Result<std::size_t> read_at(std::uint64_t offset, void* out, std::size_t n) override;

 private:
  FileByteSource(std::string path, RegularFile file) : path_(std::move(path)), file_(std::move(file)) {}
  std::string path_;
  RegularFile file_;
};

}  // namespace harness
