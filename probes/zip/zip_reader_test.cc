#include "probes/zip/zip_reader.h"

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <zlib.h>

#include "tests/support/zip_builder.h"

namespace harness::zip {
namespace {

using namespace testing_support;

template <class T>
std::string error_of(const Result<T>& r) {
  return r.ok() ? std::string("no error") : r.error().message;
}

// Every entry of `bytes` located and read through, as both users do.
Result<std::vector<std::string>> read_all(const std::string& bytes, const InflateLimits& limits = {}) {
  MemoryByteSource src(bytes);
  Result<Archive> a = Archive::open(src, "t.zip", "a test archive");
  if (!a) return a.error();
  std::vector<const Entry*> wanted;
  for (const Entry& e : a->entries()) wanted.push_back(&e);
  Result<std::vector<Entry>> located = a->locate_all(wanted);
  if (!located) return located.error();
  HARNESS_TRY(a->check_inflated(*located, limits));
  std::vector<std::string> out;
  InflateScratch scratch;
  for (const Entry& e : *located) {
    EntryReader r(src, e, "t.zip: " + e.name, scratch, 4096);
    std::string text(static_cast<std::size_t>(e.uncompressed) + 7, '\0');
    bool ended = false;
    Result<std::size_t> n = r.fill(reinterpret_cast<std::uint8_t*>(text.data()), text.size(), ended);
    if (!n) return n.error();
    if (!ended) return Error::input("did not end");
    text.resize(*n);
    out.push_back(text);
  }
  return out;
}

const std::string kPlain = std::string(5000, 'a') + "the end";

TEST(ZipReader, ReadsStoredAndDeflatedEntriesPlainAndZip64) {
  for (bool zip64 : {false, true}) {
    SCOPED_TRACE(zip64);
    std::string zip = raw_zip({{"one", "first"}, {"two", deflated(kPlain), 8, kPlain}, {"empty", ""}}, zip64);
    Result<std::vector<std::string>> got = read_all(zip);
    ASSERT_TRUE(got) << got.error().message;
    EXPECT_EQ(*got, (std::vector<std::string>{"first", kPlain, ""}));
    MemoryByteSource src(zip);
    Result<Archive> a = Archive::open(src, "t.zip", "a test archive");
    ASSERT_TRUE(a);
    ASSERT_NE(a->find("two"), nullptr);
    EXPECT_TRUE(a->find("two")->deflated());
    EXPECT_EQ(a->find("two")->uncompressed, kPlain.size());
    EXPECT_EQ(a->find("three"), nullptr);
  }
}

TEST(ZipReader, EveryCutIsRefusedNamingWhatIsMissing) {
  std::string zip = raw_zip({{"one", "first"}, {"two", deflated(kPlain), 8, kPlain}}, false);
  ASSERT_TRUE(read_all(zip));
  for (std::size_t cut = 0; cut < zip.size(); ++cut) EXPECT_FALSE(read_all(zip.substr(0, cut))) << cut;
  EXPECT_EQ(error_of(read_all(zip.substr(0, 10))),
            "t.zip: 10 bytes: no ZIP end of central directory record: not a test archive, or truncated");
  EXPECT_EQ(error_of(read_all("PK\x05\x06" + std::string(100, 'x'))),
            "t.zip: no ZIP end of central directory record: not a test archive, or truncated");
}

// The bomb both users met: a directory whose entries all point at one
// deflate stream, inflated once per entry. Found from the directory alone.
TEST(ZipReader, RefusesEntriesThatShareTheirBytes) {
  std::string zip = raw_zip({{"a", deflated(kPlain), 8, kPlain}, {"b", deflated(kPlain), 8, kPlain}}, false);
  const std::uint32_t first = read32(zip, central_record(zip, "a") + 42);
  patch32(zip, central_record(zip, "b") + 42, first);
  auto [data, size] = locate(zip, "a");
  EXPECT_EQ(error_of(read_all(zip)), fmt::format("t.zip: entries 'a' and 'b' overlap (bytes {}-{} and {}-{}): corrupt "
                                                 "file",
                                                 first, data + size, first, data + size));
  // Overlapping in part: the first entry declared 10 bytes longer, into the
  // second's local header.
  std::string part = raw_zip({{"a", std::string(100, 'x')}, {"b", "tail"}}, false);
  const std::size_t rec = central_record(part, "a");
  patch32(part, rec + 20, 110);
  patch32(part, rec + 24, 110);
  auto [pdata, psize] = locate(part, "a");
  EXPECT_EQ(error_of(read_all(part)),
            fmt::format("t.zip: entries 'a' and 'b' overlap (bytes 0-{} and {}-{}): corrupt file", pdata + 110,
                        pdata + psize, locate(part, "b").first + 4));
}

TEST(ZipReader, RefusesAnEntryRunningIntoTheCentralDirectory) {
  std::string zip = raw_zip({{"a", "0123456789"}}, false);
  const std::size_t rec = central_record(zip, "a");
  patch32(zip, rec + 20, 30);
  patch32(zip, rec + 24, 30);
  auto [data, size] = locate(zip, "a");
  (void)size;
  EXPECT_EQ(error_of(read_all(zip)),
            fmt::format("t.zip: entry 'a' (bytes 0-{}) runs into the central directory at byte offset {}: corrupt file",
                        data + 30, rec));
}

TEST(ZipReader, RefusesDeclaredSizesBeyondDeflateAndTheLimits) {
  const std::string packed = deflated(kPlain);
  std::string zip = raw_zip({{"a", packed, 8, kPlain}}, false);
  patch32(zip, central_record(zip, "a") + 24, 2000000000u);
  EXPECT_EQ(error_of(read_all(zip)),
            fmt::format("t.zip: entry 'a' declares 2000000000 inflated bytes, more than deflate can make of its {} "
                        "bytes (at most 1032x): corrupt file",
                        packed.size()));
  const std::string two = raw_zip({{"a", std::string(200, 'x')}, {"b", std::string(200, 'y')}}, false);
  InflateLimits l;
  l.entry_bytes = 100;
  l.entry_name = "test limit per entry";
  EXPECT_EQ(error_of(read_all(two, l)),
            "t.zip: entry 'a' declares 200 inflated bytes, more than the test limit per entry = 100 bytes");
  l = {};
  l.total_bytes = 300;
  l.total_name = "test limit in all";
  l.group = "the test entries";
  EXPECT_EQ(error_of(read_all(two, l)),
            "t.zip: the test entries up to 'b' declare 400 inflated bytes, more than the test limit in all = 300 bytes");
  l.total_bytes = 400;
  EXPECT_TRUE(read_all(two, l));
}

TEST(ZipReader, RefusesWhatItDoesNotRead) {
  EXPECT_EQ(error_of(read_all(raw_zip({{"a", "x"}, {"a", "y"}}, false))), "t.zip: entry 'a' appears twice");
  EXPECT_EQ(error_of(read_all(raw_zip({{"a", "x", 12}}, false))),
            "t.zip: entry 'a': compression method 12 is not supported (only 0, stored, and 8, deflate)");
  std::string encrypted = raw_zip({{"a", "x"}}, false);
  encrypted[central_record(encrypted, "a") + 8] = 1;
  EXPECT_EQ(error_of(read_all(encrypted)), "t.zip: entry 'a' is encrypted");
  std::string far = raw_zip({{"a", "x"}}, false);
  patch32(far, central_record(far, "a") + 42, 1u << 30);
  EXPECT_EQ(error_of(read_all(far)),
            fmt::format("t.zip: entry 'a': local header at byte offset 1073741824 lies outside the file (size {})",
                        far.size()));
}

TEST(ZipReader, EntryReaderChecksTheStreamAgainstTheDirectory) {
  // A flipped byte in a stored entry: only the CRC-32 can tell.
  std::string stored = raw_zip({{"a", std::string(100, 'x')}}, false);
  auto [sdata, ssize] = locate(stored, "a");
  (void)ssize;
  stored[sdata + 50] = 'y';
  EXPECT_EQ(error_of(read_all(stored)).rfind("t.zip: a: CRC-32 ", 0), 0u) << error_of(read_all(stored));
  // A deflate stream cut short, its directory agreeing.
  const std::string packed = deflated(kPlain);
  EXPECT_EQ(error_of(read_all(raw_zip({{"a", packed.substr(0, packed.size() / 2), 8, kPlain}}, false)))
                .rfind("t.zip: a: the deflate stream ends early at byte offset ", 0),
            0u);
  // A stream inflating to more than its entry states.
  std::string more = raw_zip({{"a", packed, 8, kPlain}}, false);
  patch32(more, central_record(more, "a") + 24, 100);
  EXPECT_EQ(error_of(read_all(more)),
            fmt::format("t.zip: a: the data at byte offset {} inflates to more than the 100 bytes the directory states: "
                        "corrupt file",
                        locate(more, "a").first));
}

TEST(ZipReader, ReadWholeRefusesWhatIsTooLargeForItsPurpose) {
  std::string zip = raw_zip({{"small", "ok"}, {"big", std::string(2000, 'b')}}, false);
  MemoryByteSource src(zip);
  Result<Archive> a = Archive::open(src, "t.zip", "a test archive");
  ASSERT_TRUE(a);
  Result<Entry> small = a->locate(*a->find("small"));
  ASSERT_TRUE(small);
  EXPECT_EQ(*a->read_whole(*small, 1000), "ok");
  Result<Entry> big = a->locate(*a->find("big"));
  ASSERT_TRUE(big);
  EXPECT_EQ(error_of(a->read_whole(*big, 1000)), "t.zip: entry 'big' of 2000 bytes is too large for what it should hold");
}

}  // namespace
}  // namespace harness::zip
