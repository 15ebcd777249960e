// What the .npz and the ZIP fuzz targets do with an .npz archive: list its
// entries, then stream every one that opens to its end or its error.
#pragma once

#include <cstdint>
#include <memory>
#include <string_view>
#include <vector>

#include "probes/tensor/npz.h"
#include "probes/tensor/tensor_stream.h"

namespace harness {

inline void read_npz_through(std::string_view bytes) {
  using namespace harness::tensor;
  Result<std::vector<TensorInfo>> list = list_npz_bytes(bytes, "fuzz.npz");
  if (!list) return;
  std::vector<double> out(1024);
  for (const TensorInfo& t : *list) {
    Result<std::unique_ptr<TensorStream>> s = open_tensor_bytes(t, bytes);
    if (!s) continue;
    // A deflated entry can claim far more than the input inflates to; stop
    // after a bounded amount (the inflater reports the short stream anyway).
    std::uint64_t total = 0;
    while (total < (std::uint64_t{1} << 22)) {
      Result<std::size_t> n = (*s)->read(out.data(), out.size());
      if (!n || *n == 0) break;
      total += *n;
    }
  }
}

}  // namespace harness
