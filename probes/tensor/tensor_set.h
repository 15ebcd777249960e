// The folder view: what `harness accuracy REF DEV` and level 5 compare, a
// set of tensors by layer name, from a folder of .npy files and raw files
// with sidecars, an .npz archive, an .npy file or a sidecar.
#pragma once

#include <string>
#include <vector>

#include "harness/base/result.h"
#include "probes/tensor/tensor.h"

namespace harness::tensor {

// A tensor set: sorted by layer name for a folder, archive order for an .npz.
// In a folder a sidecar claims its data file and an .npy file not claimed
// stands alone. Two tensors with one name, and a folder with none, are
// errors.
Result<std::vector<TensorInfo>> list_tensor_set(const std::string& path);

// The regular files of a tensor folder, sorted (subfolders are not read). A
// symlink, FIFO, device or socket in it is refused, naming it: a dump folder
// holds the dumps themselves.
Result<std::vector<std::string>> tensor_folder_files(const std::string& dir);

}  // namespace harness::tensor
