// Raw tensors with a JSON sidecar: a toolchain's dump of bare values (no
// header) described by "<name>.json", or an .npy file the sidecar adds a
// name or quantization to.
//   {"name": "conv1", "data": "conv1.bin", "shape": [1, 64, 56, 56],
//    "dtype": "int8", "byte_order": "little",
//    "scale": [..], "zero_point": [..], "axis": 1}
// The data file is named by the sidecar, so it is held to the rule for files
// named by data (harness/base/files.h): inside the sidecar's folder, a
// regular file.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "harness/base/result.h"
#include "probes/tensor/tensor.h"

namespace harness::tensor {

// Keys: name, data, shape, dtype, byte_order ("little" | "big"), scale,
// zero_point (numbers or arrays), axis. `path` is the sidecar's path, used in
// messages and for the defaults (data "<stem>.bin", name the data's stem).
struct Sidecar {
  std::string name;
  std::string data;  // the data file as the sidecar names it, relative to its folder
  std::optional<std::vector<std::uint64_t>> shape;
  std::optional<DType> dtype;
  bool big_endian = false;
  std::optional<Quantization> quant;
};
Result<Sidecar> parse_sidecar(std::string_view text, const std::string& path);

// A sidecar file and its data as a tensor: a raw file needs shape and dtype;
// an .npy file takes them from its header (the sidecar's, if given, must
// agree).
Result<TensorInfo> read_sidecar_tensor(const std::string& sidecar_path);

}  // namespace harness::tensor
