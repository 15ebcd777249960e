#include "harness/ddr/metrics.h"

#include <map>
#include <random>

#include <gtest/gtest.h>

namespace harness::ddr {
namespace {

// RecentCounts hands its counts over only on eviction and at flush: whatever
// the order of the values (repeats, alternations, more values than slots,
// slots shared by several values, zero and negatives), the histogram must
// end as a plain map count would.
TEST(RecentCounts, CountsExactlyAsAMapWhateverTheValuesEvictEachOther) {
  std::mt19937_64 random(7);
  Histogram histogram;
  RecentCounts recent;
  std::map<std::int64_t, std::uint64_t> want;
  std::uniform_int_distribution<int> kind(0, 9);
  std::int64_t last = 0;
  for (int i = 0; i < 200000; ++i) {
    std::int64_t v = last;  // kind 0-4: a repeat
    switch (kind(random)) {
      case 5: v = static_cast<std::int64_t>(random() % 8) * 5000; break;   // a few values, spaced like ps
      case 6: v = static_cast<std::int64_t>(random() % 5000); break;       // more values than slots
      case 7: v = 0; break;                                                // the empty slots' value
      case 8: v = -static_cast<std::int64_t>(random() % 3); break;
      case 9: v = static_cast<std::int64_t>(random()); break;             // anywhere
      default: break;
    }
    last = v;
    recent.add(v, histogram);
    ++want[v];
  }
  recent.flush(histogram);
  EXPECT_EQ(histogram.counts, want);
  EXPECT_EQ(histogram.total, 200000u);
  // Flushed means empty: a second flush adds nothing.
  recent.flush(histogram);
  EXPECT_EQ(histogram.total, 200000u);
}

}  // namespace
}  // namespace harness::ddr
