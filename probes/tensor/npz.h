// .npz archives (np.savez, np.savez_compressed): a ZIP archive, read by the
// one ZIP reader (probes/zip), of one .npy entry per tensor, stored or
// deflated. Quantization, which .npy cannot hold, comes from an optional
// companion "<archive>.json": {"layer": {"scale": .., "zero_point": ..,
// "axis": ..}, ...}.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "harness/base/result.h"
#include "probes/tensor/tensor.h"

namespace harness::tensor {

// Lists the tensors of an .npz archive (entries ending in .npy), reading only
// the ZIP directory, the local headers and each entry's .npy header: entries
// that share their bytes, or declare more than the tensor limits
// (input_limits.h), are refused before any is inflated.
Result<std::vector<TensorInfo>> list_npz(const std::string& path);

// Same, from bytes in memory (the fuzz targets): `name` stands for the file;
// no companion.
Result<std::vector<TensorInfo>> list_npz_bytes(std::string_view bytes, const std::string& name);

}  // namespace harness::tensor
