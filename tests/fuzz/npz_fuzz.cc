// libFuzzer target: an .npz archive must list its entries or give an error,
// never crash or read out of bounds; every listed entry must stream (stored
// or inflated, CRC checked) or fail with an error.
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "probes/tensor/npz.h"
#include "probes/tensor/tensor_stream.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace harness::tensor;
  const std::string_view bytes(reinterpret_cast<const char*>(data), size);
  harness::Result<std::vector<TensorInfo>> list = list_npz_bytes(bytes, "fuzz.npz");
  if (!list) return 0;
  std::vector<double> out(1024);
  for (const TensorInfo& t : *list) {
    harness::Result<std::unique_ptr<TensorStream>> s = open_tensor_bytes(t, bytes);
    if (!s) continue;
    // A deflated entry can claim far more than the input inflates to; stop
    // after a bounded amount (the inflater reports the short stream anyway).
    std::uint64_t total = 0;
    while (total < (std::uint64_t{1} << 22)) {
      harness::Result<std::size_t> n = (*s)->read(out.data(), out.size());
      if (!n || *n == 0) break;
      total += *n;
    }
  }
  return 0;
}
