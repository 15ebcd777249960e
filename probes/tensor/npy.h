// The .npy codec: NumPy's own file format (format versions 1.0 to 3.0), the
// header a dict literal naming dtype, order and shape, the values after it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "harness/base/result.h"
#include "probes/tensor/tensor.h"

namespace harness::tensor {

// The parsed header of an .npy stream: what np.save writes before the data.
struct NpyHeader {
  DType dtype = DType::float32;
  bool big_endian = false;
  std::vector<std::uint64_t> shape;
  std::uint64_t count = 1;
  std::uint64_t header_bytes = 0;  // magic + version + length + dict
};

// Largest .npy header accepted (np.save writes < 100 bytes of dict; format 2
// allows 4 GiB, which would be an allocation a hostile file controls).
constexpr std::size_t kMaxNpyHeaderBytes = 64 * 1024;
// Bytes to read for a header: the largest dict and the longest prefix.
constexpr std::size_t kNpyHeadBytes = kMaxNpyHeaderBytes + 12;

// Parses an .npy header from the first bytes of a file or entry (`bytes` may
// hold more than the header). `origin` starts every message. A header that
// needs more bytes than given is an error naming how many.
Result<NpyHeader> parse_npy_header(std::string_view bytes, const std::string& origin);

// An .npy file as a tensor named after its stem: opened by the rule for every
// file the harness reads (harness/base/files.h), its header checked against
// its size.
Result<TensorInfo> read_npy_file(const std::string& path);

}  // namespace harness::tensor
