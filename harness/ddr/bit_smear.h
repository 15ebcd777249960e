// Masks of 64 samples: the bits below a position, and (BitSmear) each set
// bit of a mask spread over the bits above it: the sampler
// finds clock stops with it (an edge covers the samples up to the longest
// interval allowed) and the strobe estimate finds burst starts (a toggle
// covers one strobe period).
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>

namespace harness::ddr {

// The bits below bit j (all 64 from j = 64 on).
inline std::uint64_t bits_below(unsigned j) { return j >= 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << j) - 1; }

class BitSmear {
 public:
  BitSmear() = default;
  // A bit at j also covers j+1 .. j+reach (within the word; reach < 64):
  // each step doubles the covered run, so 6 steps reach 63.
  explicit BitSmear(unsigned reach) {
    reach = std::min(reach, 63u);
    for (unsigned done = 1; done <= reach;) {
      const unsigned shift = std::min(done, reach + 1 - done);
      shifts_[steps_++] = static_cast<std::uint8_t>(shift);
      done += shift;
    }
  }
  // Only the steps in use: a fixed loop of six (unused ones shifting by 0)
  // cost a tenth of the strobe estimate.
  std::uint64_t operator()(std::uint64_t x) const {
    switch (steps_) {  // the order of the steps does not change the result
      case 6: x |= x << shifts_[5]; [[fallthrough]];
      case 5: x |= x << shifts_[4]; [[fallthrough]];
      case 4: x |= x << shifts_[3]; [[fallthrough]];
      case 3: x |= x << shifts_[2]; [[fallthrough]];
      case 2: x |= x << shifts_[1]; [[fallthrough]];
      case 1: x |= x << shifts_[0]; [[fallthrough]];
      default: return x;
    }
  }

 private:
  std::array<std::uint8_t, 6> shifts_{};
  unsigned steps_ = 0;
};

}  // namespace harness::ddr
