// Tensor files written byte by byte for the tests of level 5: an .npy file as
// np.save writes it, float32 values, and the hostile .npz archive of issue 29
// (thousands of entries sharing one deflate stream).
#pragma once

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "tests/support/scratch_dir.h"

namespace harness::testing_support {

// An .npy file as np.save writes it: magic, version 1.0, the dict padded with
// spaces to a multiple of 64 bytes and ended by '\n', then `data`.
std::string npy(const std::string& descr, const std::string& shape, const std::string& data);
// The same header without the padding (readers must not need it), no data:
// the smallest file that can claim a shape.
std::string npy_unpadded_header(const std::string& descr, const std::string& shape);

// The bytes of float32 values, in the machine's (little-endian) order.
std::string floats(const std::vector<float>& v);

// An .npz archive of `entries` .npy entries t0.npy, t1.npy, ... that all
// point at one deflate stream: an .npy header of float32 values and about
// `inflated_bytes` of zeros, the stream ~1/1000 of that. Each entry is a
// valid tensor; read one per entry, the archive inflates entries x
// inflated_bytes.
std::string npz_sharing_one_stream(unsigned entries, std::uint64_t inflated_bytes);

// A fresh folder for one test (scratch_dir.h), removed at its end, and files
// written into it.
class TestFolder {
 public:
  TestFolder() : path_(fresh_test_dir("harness-tensor")) {}
  ~TestFolder() { std::filesystem::remove_all(path_); }
  std::string write(const std::string& name, const std::string& bytes) const {
    std::ofstream(path_ / name, std::ios::binary) << bytes;
    return (path_ / name).string();
  }
  std::string str() const { return path_.string(); }
  std::string operator/(const std::string& name) const { return (path_ / name).string(); }

 private:
  std::filesystem::path path_;
};

}  // namespace harness::testing_support
