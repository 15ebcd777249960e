#include "probes/membw.h"

#include <bit>
#include <filesystem>
#include <fstream>

#include <gtest/gtest.h>

namespace harness {
namespace {

// The loads must really happen: each measurement's checksum is the XOR of
// every word read, compared with a scalar loop.
TEST(Membw, SequentialReadReadsEveryWordOnAnyThreadCount) {
  Result<BandwidthBuffer> b = BandwidthBuffer::allocate(4 << 20);
  ASSERT_TRUE(b) << b.error().message;
  const std::uint64_t expected = reference_checksum(b->data(), b->size());
  ASSERT_NE(expected, 0u);
  MonotonicClock clock;
  for (int threads : {1, 2, 3}) {
    BandwidthSample s = sequential_read(*b, clock, threads);
    EXPECT_EQ(s.checksum, expected) << threads << " threads";
    EXPECT_EQ(s.bytes, 4 << 20);
  }
}

TEST(Membw, PassesAreNotMergedEachOneIsRead) {
  Result<BandwidthBuffer> b = BandwidthBuffer::allocate(1 << 20);
  ASSERT_TRUE(b);
  const std::uint64_t one = reference_checksum(b->data(), b->size());
  MonotonicClock clock;
  BandwidthSample s = sequential_read(*b, clock, 1, 3);
  EXPECT_EQ(s.checksum, one ^ std::rotl(one, 1) ^ std::rotl(one, 2));
  EXPECT_EQ(s.bytes, 3.0 * (1 << 20));
}

TEST(Membw, BandwidthIsBytesOverTheClocksInterval) {
  Result<BandwidthBuffer> b = BandwidthBuffer::allocate(8 << 20);
  ASSERT_TRUE(b);
  FakeClock clock(1'000'000);  // each reading 1 ms later: the read "took" 1 ms
  BandwidthSample s = sequential_read(*b, clock, 1);
  EXPECT_DOUBLE_EQ(s.seconds, 1e-3);
  EXPECT_DOUBLE_EQ(s.bytes_per_second(), (8 << 20) / 1e-3);
  s = sequential_read(*b, clock, 2);
  EXPECT_DOUBLE_EQ(s.bytes_per_second(), (8 << 20) / 1e-3);
}

TEST(Membw, RandomBlocksReadTheBlocksTheyDraw) {
  Result<BandwidthBuffer> b = BandwidthBuffer::allocate(1 << 20);
  ASSERT_TRUE(b);
  FakeClock clock(2'000'000);
  // A block as large as the buffer can only be the whole buffer: the
  // checksum of an odd count of reads equals one read of it.
  BandwidthSample whole = random_block_read(*b, clock, b->size(), 3);
  EXPECT_EQ(whole.checksum, reference_checksum(b->data(), b->size()));
  EXPECT_DOUBLE_EQ(whole.bytes, 3.0 * b->size());
  EXPECT_DOUBLE_EQ(whole.bytes_per_second(), 3.0 * b->size() / 2e-3);
  for (std::size_t block : {64u, 128u, 256u, 512u, 1024u, 2048u, 4096u}) {
    BandwidthSample s = random_block_read(*b, clock, block, 1000, 7);
    EXPECT_EQ(s.bytes, 1000.0 * block);
    EXPECT_NE(s.checksum, 0u) << block;
  }
}

TEST(Membw, CacheSizeComesFromSysfsOrSaysWhyNot) {
  std::filesystem::path root = std::filesystem::temp_directory_path() / "harness_membw_cache_test";
  std::filesystem::remove_all(root);
  auto index = [&](const char* name, const char* level, const char* type, const char* size) {
    std::filesystem::create_directories(root / name);
    std::ofstream(root / name / "level") << level << "\n";
    std::ofstream(root / name / "type") << type << "\n";
    std::ofstream(root / name / "size") << size << "\n";
  };
  index("index0", "1", "Data", "48K");
  index("index1", "1", "Instruction", "32K");
  index("index2", "2", "Unified", "2048K");
  EXPECT_EQ(*cache_bytes(1, root.string()), 48u << 10);
  EXPECT_EQ(*cache_bytes(2, root.string()), 2048u << 10);
  EXPECT_EQ(cache_bytes(3, root.string()).error().message,
            "membw: " + root.string() + " describes no level-3 data cache with a size");
  std::filesystem::remove_all(root);
  EXPECT_EQ(cache_bytes(2, root.string()).error().message,
            "membw: cannot read " + root.string() + ": No such file or directory");
}

TEST(Membw, HugePageBytesAreReadForTheBuffersOwnMapping) {
  Result<BandwidthBuffer> b = BandwidthBuffer::allocate(8 << 20);
  ASSERT_TRUE(b);
  Result<std::size_t> huge = b->huge_page_bytes();
  ASSERT_TRUE(huge) << huge.error().message;
  EXPECT_LE(*huge, b->size());  // 0 where transparent huge pages are off
  EXPECT_EQ(*huge % (2 << 20), 0u);
}

TEST(Membw, RefusesBlocksThatAreNotWholeCacheLines) {
  Result<BandwidthBuffer> b = BandwidthBuffer::allocate(1 << 20);
  ASSERT_TRUE(b);
  FakeClock clock;
  EXPECT_EQ(random_block_read(*b, clock, 96, 10).bytes, 0);
  EXPECT_EQ(random_block_read(*b, clock, 32, 10).bytes, 0);
}

}  // namespace
}  // namespace harness
