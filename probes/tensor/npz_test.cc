#include "probes/tensor/npz.h"

#include <sys/stat.h>

#include <algorithm>
#include <fstream>
#include <vector>

#include <gtest/gtest.h>

#include "probes/tensor/tensor_set.h"
#include "probes/tensor/tensor_stream.h"
#include "tests/support/tensor_bytes.h"

namespace harness::tensor {
namespace {

using namespace testing_support;

// Every value of `s`, read `chunk` at a time to its end (where the CRC-32 and
// size are checked).
Result<std::vector<double>> drain(TensorStream& s, std::size_t chunk) {
  std::vector<double> values, buf(chunk);
  for (;;) {
    Result<std::size_t> n = s.read(buf.data(), buf.size());
    if (!n) return n.error();
    if (*n == 0) return values;
    values.insert(values.end(), buf.begin(), buf.begin() + static_cast<std::ptrdiff_t>(*n));
  }
}

TEST(NpzArchives, NpzStoredAndDeflatedListTheirEntries) {
  const std::string dir = std::string(HARNESS_SOURCE_DIR) + "/tests/data/accuracy/";
  for (const char* name : {"ref.npz", "dev.npz"}) {
    Result<std::vector<TensorInfo>> set = list_tensor_set(dir + name);
    ASSERT_TRUE(set) << set.error().message;
    ASSERT_EQ(set->size(), 2u);
    EXPECT_EQ((*set)[0].name, "layer_a");
    EXPECT_EQ((*set)[0].shape_text(), "(8, 32)");
    EXPECT_EQ((*set)[0].origin, dir + name + ":layer_a.npy");
    EXPECT_EQ((*set)[1].shape_text(), "(777,)");
    ASSERT_TRUE((*set)[0].entry);
    EXPECT_EQ((*set)[0].entry->deflated(), std::string(name) == "dev.npz");
    // Every value streams out and the CRC verifies.
    for (const TensorInfo& t : *set) {
      Result<std::unique_ptr<TensorStream>> s = open_tensor(t);
      ASSERT_TRUE(s) << s.error().message;
      Result<std::vector<double>> values = drain(**s, 100);
      ASSERT_TRUE(values) << values.error().message;
      EXPECT_EQ(values->size(), t.count);
    }
  }
}

TEST(NpzArchives, CorruptNpzEntryFailsItsCrc) {
  const std::string src = std::string(HARNESS_SOURCE_DIR) + "/tests/data/accuracy/ref.npz";
  std::ifstream in(src, std::ios::binary);
  std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  Result<std::vector<TensorInfo>> set = list_npz_bytes(bytes, "m.npz");
  ASSERT_TRUE(set) << set.error().message;
  const TensorInfo& t = (*set)[0];
  ASSERT_TRUE(t.entry);
  bytes[t.entry->data + t.entry_header_bytes + 5] ^= 0x40;
  Result<std::unique_ptr<TensorStream>> s = open_tensor_bytes(t, bytes);
  ASSERT_TRUE(s);
  std::vector<double> buf(4096);
  Result<std::size_t> n = (*s)->read(buf.data(), buf.size());
  ASSERT_TRUE(n);
  Result<std::size_t> end = (*s)->read(buf.data(), buf.size());
  ASSERT_FALSE(end);
  EXPECT_NE(end.error().message.find("m.npz:layer_a.npy: CRC-32 "), std::string::npos) << end.error().message;
  EXPECT_EQ(list_npz_bytes(bytes.substr(0, 200), "m.npz").error().message,
            "m.npz: no ZIP end of central directory record: not an .npz archive, or truncated");
}

// Issue 29: a 1.3 MB archive whose 4000 entries share one deflate stream of
// 1 GiB would be inflated once per entry, 4 TiB in all (about 100 minutes);
// the ZIP reader refuses it from the directory, before inflating a byte.
TEST(NpzArchives, EntriesSharingOneDeflateStreamAreRefusedFromTheDirectory) {
  const std::string bomb = npz_sharing_one_stream(4000, std::uint64_t{1} << 30);
  EXPECT_LT(bomb.size(), 1400000u);
  EXPECT_GT(bomb.size(), 1200000u);
  const std::size_t end = bomb.find("PK\x01\x02");  // the stream ends where the central directory begins
  EXPECT_EQ(list_npz_bytes(bomb, "bomb.npz").error().message,
            "bomb.npz: entries 't0.npy' and 't1.npy' overlap (bytes 0-" + std::to_string(end) + " and 0-" +
                std::to_string(end) + "): corrupt file");
  // The stream is real: one entry of the same making streams its values to
  // the end, size and CRC-32 checked.
  const std::string one = npz_sharing_one_stream(1, 100000);
  Result<std::vector<TensorInfo>> set = list_npz_bytes(one, "one.npz");
  ASSERT_TRUE(set) << set.error().message;
  ASSERT_EQ(set->size(), 1u);
  Result<std::unique_ptr<TensorStream>> s = open_tensor_bytes((*set)[0], one);
  ASSERT_TRUE(s) << s.error().message;
  Result<std::vector<double>> values = drain(**s, 4096);
  ASSERT_TRUE(values) << values.error().message;
  EXPECT_EQ(std::count(values->begin(), values->end(), 0.0), static_cast<std::ptrdiff_t>(values->size()));
  const std::uint64_t total = values->size();
  EXPECT_EQ(total, (*set)[0].count);
  EXPECT_GT(total * 4, 100000u * 99 / 100);  // "about" the bytes asked for: whole deflate matches
}

TEST(NpzArchives, TheQuantizationCompanionIsARegularFile) {
  TestFolder d;
  const std::string src = std::string(HARNESS_SOURCE_DIR) + "/tests/data/accuracy/ref.npz";
  std::ifstream in(src, std::ios::binary);
  const std::string npz = d.write("m.npz", std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>()));
  ASSERT_TRUE(list_npz(npz));
  ASSERT_EQ(::mkfifo((npz + ".json").c_str(), 0644), 0);
  EXPECT_EQ(list_npz(npz).error().message, npz + ".json: is a FIFO, not a regular file");
}

}  // namespace
}  // namespace harness::tensor
