// A tensor's values streamed as doubles, converted from its dtype and byte
// order and dequantized on the way, a chunk at a time: memory stays the
// chunk whatever the tensor's size.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string_view>

#include "harness/base/result.h"
#include "probes/tensor/tensor.h"

namespace harness::tensor {

class TensorStream {
 public:
  virtual ~TensorStream() = default;
  // Up to `cap` values into `out`; 0 at the end (after verifying the entry's
  // size and CRC-32 for an .npz tensor). Errors name the origin.
  virtual Result<std::size_t> read(double* out, std::size_t cap) = 0;
};
// Opens info.file by the rule for every file the harness reads.
Result<std::unique_ptr<TensorStream>> open_tensor(const TensorInfo& info);
// Same, over bytes in memory standing for info.file (tests and fuzzing).
Result<std::unique_ptr<TensorStream>> open_tensor_bytes(const TensorInfo& info, std::string_view file_bytes);

// Conversions, exposed for tests.
double half_to_double(std::uint16_t h);
double bfloat16_to_double(std::uint16_t b);

}  // namespace harness::tensor
