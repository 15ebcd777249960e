#include "probes/capture/srzip_reader.h"

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <unistd.h>
#include <zip.h>
#include <zlib.h>

#include "probes/capture/readers.h"
#include "probes/capture/sigrok.h"
#include "tests/support/file_bytes.h"
#include "tests/support/zip_builder.h"

namespace harness {
namespace {

using namespace testing_support;

std::string temp_path(const std::string& name) {
  return (std::filesystem::temp_directory_path() / fmt::format("harness_srzip_{}_{}", getpid(), name)).string();
}

using testing_support::file_bytes;

void spit(const std::string& path, const std::string& bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

Result<Capture> read_with(Status (*reader)(const std::string&, CaptureSink&), const std::string& path) {
  CaptureCollector c;
  Status s = reader(path, c);
  if (!s) return s.error();
  return c.capture();
}

Result<Capture> read_bytes(const std::string& bytes, SrzipOptions options = {}) {
  MemoryByteSource source(bytes);
  CaptureCollector c;
  Status s = read_srzip(source, "mem.sr", c, options);
  if (!s) return s.error();
  return c.capture();
}

void expect_same(const Capture& got, const Capture& want) {
  EXPECT_EQ(got.header.channels, want.header.channels);
  EXPECT_EQ(got.header.samplerate, want.header.samplerate);
  EXPECT_EQ(got.header.unitsize, want.header.unitsize);
  EXPECT_EQ(got.header.format, want.header.format);
  EXPECT_EQ(got.data.size(), want.data.size());
  EXPECT_TRUE(got.data == want.data);
}

// Reads `path` with both readers; they must agree exactly.
Capture expect_readers_agree(const std::string& path) {
  Result<Capture> direct = read_with(read_sr, path);
  Result<Capture> lib = read_with(read_sr_libsigrok, path);
  EXPECT_TRUE(direct.ok()) << direct.error().message;
  EXPECT_TRUE(lib.ok()) << lib.error().message;
  if (!direct || !lib) return {};
  expect_same(*direct, *lib);
  return *direct;
}

Capture pattern_capture(std::size_t channels, std::size_t samples, double rate = 25e6) {
  Capture cap;
  for (std::size_t i = 0; i < channels; ++i) cap.header.channels.push_back(fmt::format("ch{}", i));
  cap.header.samplerate = rate;
  cap.header.unitsize = CaptureHeader::unitsize_for(channels);
  cap.header.format = "sr";
  std::uint64_t x = 12345;
  for (std::size_t i = 0; i < samples; ++i) {
    // Mostly slow square waves (compressible) with some noise.
    x = x * 6364136223846793005ULL + 1442695040888963407ULL;
    std::uint64_t v = (i / 3) ^ ((i / 17) << 5) ^ ((x >> 60) << 2);
    if (channels < 64) v &= (std::uint64_t{1} << channels) - 1;
    for (unsigned b = 0; b < cap.header.unitsize; ++b) cap.data.push_back(static_cast<std::uint8_t>(v >> (8 * b)));
  }
  return cap;
}

std::string write_sr(const Capture& cap, const std::string& name, std::size_t chunk_bytes) {
  std::string path = temp_path(name);
  SrWriter w(path, chunk_bytes);
  Status s = cap.replay(w, 5000);
  EXPECT_TRUE(s.ok()) << s.error().message;
  return path;
}

// An archive made with libzip, every entry stored (method 0), in the order given.
std::string libzip_archive(const std::string& name, const std::vector<std::pair<std::string, std::string>>& entries) {
  std::string path = temp_path(name);
  std::filesystem::remove(path);
  int err = 0;
  zip_t* z = zip_open(path.c_str(), ZIP_CREATE | ZIP_TRUNCATE, &err);
  EXPECT_NE(z, nullptr);
  for (const auto& [entry, bytes] : entries) {
    zip_source_t* src = zip_source_buffer(z, bytes.data(), bytes.size(), 0);
    zip_int64_t index = zip_file_add(z, entry.c_str(), src, ZIP_FL_OVERWRITE);
    EXPECT_GE(index, 0) << entry;
    zip_set_file_compression(z, static_cast<zip_uint64_t>(index), ZIP_CM_STORE, 0);
  }
  EXPECT_EQ(zip_close(z), 0);
  return path;
}

std::string metadata(unsigned probes, unsigned unitsize, const std::string& samplerate = "25 MHz",
                     const std::string& extra = "") {
  std::string m = fmt::format("[global]\nsigrok version=0.5.2\n\n[device 1]\ncapturefile=logic-1\ntotal probes={}\n"
                              "samplerate={}\ntotal analog=0\n",
                              probes, samplerate);
  for (unsigned i = 1; i <= probes; ++i) m += fmt::format("probe{}=ch{}\n", i, i - 1);
  m += extra;
  return m + fmt::format("unitsize={}\n", unitsize);
}

// A session of two channels whose `chunks` chunk entries each hold their own
// copy of one deflate stream of 4000 bytes.
std::string deflated_session(int chunks) {
  const std::string plain(4000, '\x05');
  const std::string packed = deflated(plain);
  std::vector<RawEntry> entries = {{"version", "2"}, {"metadata", metadata(2, 1)}};
  for (int i = 1; i <= chunks; ++i) entries.push_back({"logic-1-" + std::to_string(i), packed, 8, plain});
  return raw_zip(entries, false);
}

SrzipOptions small_blocks(std::size_t read, std::size_t sink) {
  SrzipOptions o;
  o.read_block = read;
  o.sink_block = sink;
  return o;
}

TEST(SrzipReader, AgreesWithLibsigrokOnTheSrWriterOutput) {
  for (std::size_t channels : {3, 12, 20, 40}) {
    SCOPED_TRACE(channels);
    Capture cap = pattern_capture(channels, 60000);
    std::string path = write_sr(cap, "writer.sr", 32768);  // several deflated chunks
    Capture got = expect_readers_agree(path);
    std::filesystem::remove(path);
    expect_same(got, cap);
  }
}

TEST(SrzipReader, AgreesWithLibsigrokOnASigrokCliDemoCapture) {
  if (std::system("command -v sigrok-cli >/dev/null 2>&1") != 0) GTEST_SKIP() << "sigrok-cli is not installed";
  std::string path = temp_path("demo.sr");
  std::string cmd = fmt::format("sigrok-cli -d demo --samples 20000 -o '{}' >/dev/null 2>&1", path);
  ASSERT_EQ(std::system(cmd.c_str()), 0) << cmd;
  // 8 logic channels and analog ones, whose analog-1-K-N entries are skipped.
  Capture got = expect_readers_agree(path);
  std::filesystem::remove(path);
  EXPECT_EQ(got.header.channels, (std::vector<std::string>{"D0", "D1", "D2", "D3", "D4", "D5", "D6", "D7"}));
  EXPECT_EQ(got.header.samplerate, 200e3);
  EXPECT_EQ(got.sample_count(), 20000u);
}

TEST(SrzipReader, OrdersStoredChunksNumericallyAndCarriesPartialSamples) {
  // 16 channels, 2 bytes per sample; 12 chunks of odd byte counts, added
  // to the archive out of order.
  Capture cap = pattern_capture(16, 30000);
  std::vector<std::pair<std::string, std::string>> chunks;
  std::size_t at = 0;
  for (int i = 1; i <= 12; ++i) {
    std::size_t n = i == 12 ? cap.data.size() - at : 4001 + 2 * static_cast<std::size_t>(i);
    chunks.emplace_back(fmt::format("logic-1-{}", i), std::string(cap.data.begin() + at, cap.data.begin() + at + n));
    at += n;
  }
  std::vector<std::pair<std::string, std::string>> entries = {{"metadata", metadata(16, 2)}};
  for (int i : {12, 3, 10, 1, 11, 2, 9, 4, 8, 5, 7, 6}) entries.push_back(chunks[i - 1]);
  entries.emplace_back("version", "2");
  std::string path = libzip_archive("stored.sr", entries);
  Result<Capture> got = read_with(read_sr, path);
  std::filesystem::remove(path);
  ASSERT_TRUE(got.ok()) << got.error().message;
  expect_same(*got, cap);
  // Small blocks: chunk ends and buffer ends fall everywhere.
  Result<Capture> small = read_bytes(raw_zip({{"version", "2"}, {"metadata", metadata(16, 2)}, {"logic-1-2", chunks[1].second},
                                              {"logic-1-1", chunks[0].second}},
                                             false),
                                     small_blocks(4096, 64));
  ASSERT_TRUE(small.ok()) << small.error().message;
  EXPECT_EQ(small->data, std::vector<std::uint8_t>(cap.data.begin(), cap.data.begin() + small->data.size()));
  EXPECT_EQ(small->data.size(), (chunks[0].second.size() + chunks[1].second.size()) / 2 * 2);
}

TEST(SrzipReader, AgreesWithLibsigrokOnStoredChunksOfWholeSamples) {
  // 20 channels in 3 bytes per sample (widened to 4 for the sink), chunks
  // out of order, a missing probe name, a sample rate in plain Hz.
  Capture cap = pattern_capture(20, 9000);
  std::string packed;
  for (std::size_t i = 0; i < cap.sample_count(); ++i) packed.append(reinterpret_cast<const char*>(&cap.data[i * 4]), 3);
  std::string meta = metadata(20, 3, "1000000");
  meta.erase(meta.find("probe3=ch2\n"), 11);
  std::vector<std::pair<std::string, std::string>> entries = {{"version", "2"}, {"metadata", meta}};
  for (int i = 11; i >= 1; --i)
    entries.emplace_back(fmt::format("logic-1-{}", i), packed.substr((i - 1) * 2454, i == 11 ? std::string::npos : 2454));
  std::string path = libzip_archive("stored3.sr", entries);
  Capture got = expect_readers_agree(path);
  std::filesystem::remove(path);
  EXPECT_EQ(got.header.channels[2], "2");  // what libsigrok calls a channel without probeN
  EXPECT_EQ(got.header.samplerate, 1e6);
  EXPECT_EQ(got.header.unitsize, 4u);
  EXPECT_EQ(got.data, cap.data);
}

TEST(SrzipReader, ReadsZip64Records) {
  Capture cap = pattern_capture(8, 5000);
  std::string data(cap.data.begin(), cap.data.end());
  std::string zip = raw_zip({{"version", "2"},
                             {"metadata", metadata(8, 1, "500 MHz")},
                             {"logic-1-2", data.substr(2000)},
                             {"logic-1-1", data.substr(0, 2000)}},
                            true);
  Result<Capture> got = read_bytes(zip);
  ASSERT_TRUE(got.ok()) << got.error().message;
  cap.header.samplerate = 500e6;
  expect_same(*got, cap);
  // libzip (inside libsigrok) reads the hand-made archive the same way.
  std::string path = temp_path("zip64.sr");
  spit(path, zip);
  expect_readers_agree(path);
  std::filesystem::remove(path);
}

TEST(SrzipReader, ReadsAnOldStyleSingleCaptureFile) {
  Capture cap = pattern_capture(4, 1000, 1e3);
  std::string meta = metadata(4, 1, "1 kHz");
  Result<Capture> got = read_bytes(raw_zip({{"version", "2"}, {"metadata", meta}, {"logic-1", std::string(cap.data.begin(), cap.data.end())}}, false));
  ASSERT_TRUE(got.ok()) << got.error().message;
  expect_same(*got, cap);
}

std::string error_of(const Result<Capture>& r) { return r.ok() ? std::string("no error") : r.error().message; }

TEST(SrzipReader, RefusesTruncatedFiles) {
  Capture cap = pattern_capture(16, 50000);
  std::string path = write_sr(cap, "cut.sr", 32768);
  const std::string whole = file_bytes(path);
  for (std::size_t cut : {std::size_t{0}, std::size_t{10}, std::size_t{100}, whole.size() / 3, whole.size() / 2,
                          whole.size() - 23, whole.size() - 1}) {
    SCOPED_TRACE(cut);
    spit(path, whole.substr(0, cut));
    std::string message = error_of(read_with(read_sr, path));
    if (cut < 22)
      EXPECT_EQ(message, fmt::format("{}: {} bytes: no ZIP end of central directory record: not a sigrok session "
                                     "file, or truncated",
                                     path, cut));
    else
      EXPECT_EQ(message, path + ": no ZIP end of central directory record: not a sigrok session file, or truncated");
  }
  std::filesystem::remove(path);
  // A deflated chunk whose stream is cut short (the directory agrees).
  std::string plain(cap.data.begin(), cap.data.end());
  std::string packed = deflated(plain);
  std::string message = error_of(read_bytes(raw_zip(
      {{"version", "2"}, {"metadata", metadata(16, 2)}, {"logic-1-1", packed.substr(0, packed.size() / 2), 8, plain}},
      false)));
  EXPECT_EQ(message.rfind("mem.sr: logic-1-1: the deflate stream ends early at byte offset ", 0), 0u) << message;
  EXPECT_NE(message.find("truncated or corrupt"), std::string::npos) << message;
  // The whole stream reads.
  Result<Capture> whole_stream = read_bytes(
      raw_zip({{"version", "2"}, {"metadata", metadata(16, 2)}, {"logic-1-1", packed, 8, plain}}, false));
  ASSERT_TRUE(whole_stream.ok()) << whole_stream.error().message;
  EXPECT_EQ(whole_stream->data, cap.data);
}

TEST(SrzipReader, EveryCutOfASmallArchiveIsRefused) {
  std::string zip = raw_zip({{"version", "2"}, {"metadata", metadata(2, 1)}, {"logic-1-1", std::string(100, '\x03')}}, true);
  ASSERT_TRUE(read_bytes(zip).ok());
  for (std::size_t cut = 0; cut < zip.size(); ++cut) EXPECT_FALSE(read_bytes(zip.substr(0, cut)).ok()) << cut;
}

TEST(SrzipReader, RefusesAFlippedByteInADeflatedChunk) {
  Capture cap = pattern_capture(16, 50000);
  std::string path = write_sr(cap, "flip.sr", 32768);
  std::string zip = file_bytes(path);
  std::filesystem::remove(path);
  auto [data, size] = locate(zip, "logic-1-2");
  ASSERT_GT(size, 100u);
  for (std::size_t at : {data + 3, data + size / 2, data + size - 5}) {
    std::string bad = zip;
    bad[at] = static_cast<char>(bad[at] ^ 0x10);
    std::string message = error_of(read_bytes(bad));
    // Either the deflate stream breaks or the CRC-32 differs: the entry and
    // an offset are named either way.
    EXPECT_EQ(message.rfind("mem.sr: logic-1-2: ", 0), 0u) << message;
    EXPECT_NE(message.find("byte offset"), std::string::npos) << message;
    EXPECT_NE(message.find("corrupt file"), std::string::npos) << message;
  }
  // A flipped byte in a stored chunk: only the CRC-32 can tell.
  std::string stored = raw_zip({{"version", "2"}, {"metadata", metadata(2, 1)}, {"logic-1-1", std::string(100, '\x03')}}, false);
  auto [sdata, ssize] = locate(stored, "logic-1-1");
  stored[sdata + 50] = '\x01';
  EXPECT_EQ(error_of(read_bytes(stored)),
            fmt::format("mem.sr: logic-1-1: CRC-32 {:08x} of the data at byte offset {} differs from {:08x} in the "
                        "directory: corrupt file",
                        static_cast<std::uint32_t>(crc32(0, reinterpret_cast<const Bytef*>(stored.data() + sdata), 100)),
                        sdata, static_cast<std::uint32_t>(crc32(0, reinterpret_cast<const Bytef*>(std::string(100, '\x03').data()), 100))));
  (void)ssize;
}

TEST(SrzipReader, RefusesMalformedSessions) {
  const std::string chunk(64, '\x01');
  auto read = [&](std::vector<RawEntry> entries) { return error_of(read_bytes(raw_zip(entries, false))); };
  EXPECT_EQ(read({{"version", "2"}, {"logic-1-1", chunk}}), "mem.sr: no 'metadata' entry: not a sigrok session file");
  EXPECT_EQ(read({{"metadata", metadata(2, 1)}, {"logic-1-1", chunk}}),
            "mem.sr: no 'version' entry: not a sigrok session file");
  EXPECT_EQ(read({{"version", "3"}, {"metadata", metadata(2, 1)}}),
            "mem.sr: session file version '3' is not supported (only 2)");
  EXPECT_EQ(read({{"version", "2"}, {"metadata", metadata(16, 1)}, {"logic-1-1", chunk}}),
            "mem.sr: metadata: unitsize=1 holds 8 channels, but total probes=16");
  EXPECT_EQ(read({{"version", "2"}, {"metadata", metadata(65, 8)}, {"logic-1-1", chunk}}),
            "mem.sr: more than 64 logic channels");
  EXPECT_EQ(read({{"version", "2"}, {"metadata", metadata(2, 1, "fast")}, {"logic-1-1", chunk}}),
            "mem.sr: metadata:7: samplerate 'fast': expected Hz, with an optional k, M or G (\"500 MHz\")");
  EXPECT_EQ(read({{"version", "2"}, {"metadata", metadata(2, 1)}, {"logic-1-1", chunk, 12}}),
            "mem.sr: entry 'logic-1-1': compression method 12 is not supported (only 0, stored, and 8, deflate)");
  EXPECT_EQ(read({{"version", "2"}, {"metadata", metadata(2, 1)}, {"logic-1-1", chunk}, {"logic-1-3", chunk}}),
            "mem.sr: logic-1-2 is missing (the archive has 2 chunks up to logic-1-3)");
  std::string no_unitsize = metadata(2, 1);
  no_unitsize.erase(no_unitsize.find("unitsize=1\n"));
  EXPECT_EQ(read({{"version", "2"}, {"metadata", no_unitsize}, {"logic-1-1", chunk}}),
            "mem.sr: metadata: [device 1] has no unitsize");
  // An unknown method in an entry that is not read does not matter.
  EXPECT_EQ(read({{"version", "2"}, {"metadata", metadata(2, 1)}, {"logic-1-1", chunk}, {"analog-1-3-1", chunk, 14}}),
            "no error");
}

TEST(SrzipReader, NamesAMissingFile) {
  CaptureCollector c;
  Status s = read_sr("/nonexistent/x.sr", c);
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.error().message, "/nonexistent/x.sr: No such file or directory");
  s = read_sr("/tmp", c);
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.error().message, "/tmp: is a directory, not a regular file");
}

TEST(SrzipReader, ReadCaptureChoosesTheReader) {
  Capture cap = pattern_capture(5, 3000);
  std::string path = write_sr(cap, "choose.sr", 1 << 20);
  for (const char* reader : {"", "direct", "libsigrok"}) {
    ReadOptions o;
    o.sr_reader = reader;
    CaptureCollector c;
    Status s = read_capture(path, o, c);
    ASSERT_TRUE(s.ok()) << reader << ": " << s.error().message;
    expect_same(c.capture(), cap);
  }
  // Both readers hold the capture to the samples limit, from the chunks'
  // declared sizes before a sample is inflated (the libsigrok path checks the
  // archive as the direct reader does before libsigrok opens it; its count of
  // delivered samples stays as a second guard).
  for (const char* reader : {"direct", "libsigrok"}) {
    ReadOptions bounded;
    bounded.sr_reader = reader;
    bounded.limits.samples = 2999;
    CaptureSummary sink;
    Status s = read_capture(path, bounded, sink);
    ASSERT_FALSE(s.ok()) << reader;
    EXPECT_EQ(s.error().message,
              path + ": the chunk entries hold 3000 samples, more than the reader limit samples = 2999 samples");
  }
  ReadOptions o;
  o.sr_reader = "zip";
  CaptureSummary sink;
  Status s = read_capture(path, o, sink);
  std::filesystem::remove(path);
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.error().message, "unknown .sr reader 'zip' (direct, libsigrok)");
}

// Issue 14: a directory whose chunk entries all point at one deflate stream
// inflated it once per entry, without limit. Entries must not overlap.
TEST(SrzipLimits, RefusesChunkEntriesThatShareTheirBytes) {
  std::string zip = deflated_session(3);
  ASSERT_TRUE(read_bytes(zip).ok());
  const std::uint32_t first = read32(zip, central_record(zip, "logic-1-1") + 42);
  for (const char* e : {"logic-1-2", "logic-1-3"}) patch32(zip, central_record(zip, e) + 42, first);
  auto [data, size] = locate(zip, "logic-1-1");
  EXPECT_EQ(error_of(read_bytes(zip)),
            fmt::format("mem.sr: entries 'logic-1-1' and 'logic-1-2' overlap (bytes {}-{} and {}-{}): corrupt file",
                        first, data + size, first, data + size));
  // An entry whose data runs into the central directory.
  std::string into =
      raw_zip({{"version", "2"}, {"metadata", metadata(2, 1)}, {"logic-1-1", std::string(4000, '\x05')}}, false);
  const std::size_t cd = central_record(into, "version");
  const std::size_t rec = central_record(into, "logic-1-1");
  auto [sdata, ssize] = locate(into, "logic-1-1");
  // Claim the stored entry is 10 bytes longer: it then ends inside the directory.
  patch32(into, rec + 20, static_cast<std::uint32_t>(ssize + 10));
  patch32(into, rec + 24, static_cast<std::uint32_t>(ssize + 10));
  EXPECT_EQ(error_of(read_bytes(into)),
            fmt::format("mem.sr: entry 'logic-1-1' (bytes {}-{}) runs into the central directory at byte offset {}: "
                        "corrupt file",
                        read32(into, rec + 42), sdata + ssize + 10, cd));
}

TEST(SrzipLimits, RefusesDeclaredSizesBeyondDeflateAndTheLimits) {
  // A deflate stream cannot inflate to more than 1032 times its size.
  std::string zip = deflated_session(1);
  const std::size_t packed = locate(zip, "logic-1-1").second;
  patch32(zip, central_record(zip, "logic-1-1") + 24, 1000000000u);
  EXPECT_EQ(error_of(read_bytes(zip)),
            fmt::format("mem.sr: entry 'logic-1-1' declares 1000000000 inflated bytes, more than deflate can make of "
                        "its {} bytes (at most 1032x): corrupt file",
                        packed));
  const std::string stored = raw_zip(
      {{"version", "2"}, {"metadata", metadata(2, 1)}, {"logic-1-1", std::string(200, '\x01')}, {"logic-1-2", std::string(200, '\x02')}},
      false);
  SrzipOptions o;
  o.limits.entry_bytes = 100;
  EXPECT_EQ(error_of(read_bytes(stored, o)),
            "mem.sr: entry 'logic-1-1' declares 200 inflated bytes, more than the reader limit entry_bytes = 100 "
            "bytes");
  o = {};
  o.limits.inflated_bytes = 300;
  EXPECT_EQ(error_of(read_bytes(stored, o)),
            "mem.sr: the chunk entries up to 'logic-1-2' declare 400 inflated bytes, more than the reader limit "
            "inflated_bytes = 300 bytes");
  o = {};
  o.limits.samples = 399;
  EXPECT_EQ(error_of(read_bytes(stored, o)),
            "mem.sr: the chunk entries hold 400 samples, more than the reader limit samples = 399 samples");
  o.limits.samples = 400;
  Result<Capture> at_limit = read_bytes(stored, o);
  ASSERT_TRUE(at_limit.ok()) << at_limit.error().message;
  EXPECT_EQ(at_limit->sample_count(), 400u);
  EXPECT_EQ(at_limit->header.declared_samples, std::optional<std::uint64_t>(400));
}

// Issue 29: `--sr-reader libsigrok` handed libsigrok archives the direct
// reader refuses (chunks sharing one deflate stream, a missing chunk, sizes
// deflate cannot make); the path now checks a capture as the direct reader
// does first, so both refuse the same archives with the same message.
TEST(SrzipLimits, TheLibsigrokPathRefusesWhatTheDirectReaderRefuses) {
  const std::string plain(4000, '\x05');
  std::string shared = deflated_session(2);
  patch32(shared, central_record(shared, "logic-1-2") + 42, read32(shared, central_record(shared, "logic-1-1") + 42));
  std::string lying = deflated_session(1);
  patch32(lying, central_record(lying, "logic-1-1") + 24, 1000000000u);
  const std::vector<std::string> hostile = {
      shared, lying,
      raw_zip({{"version", "2"}, {"metadata", metadata(2, 1)}, {"logic-1-1", plain}, {"logic-1-3", plain}}, false),
      raw_zip({{"version", "2"}, {"metadata", metadata(65, 8)}, {"logic-1-1", plain}}, false),
      raw_zip({{"version", "2"}, {"metadata", metadata(2, 1)}, {"logic-1-1", plain}, {"logic-1-1", plain}}, false)};
  const std::string path = temp_path("hostile.sr");
  for (std::size_t i = 0; i < hostile.size(); ++i) {
    SCOPED_TRACE(i);
    spit(path, hostile[i]);
    std::string direct_error;
    for (const char* reader : {"direct", "libsigrok"}) {
      ReadOptions o;
      o.sr_reader = reader;
      CaptureSummary sink;
      Status s = read_capture(path, o, sink);
      ASSERT_FALSE(s.ok()) << reader << " accepted it";
      if (direct_error.empty()) direct_error = s.error().message;
      EXPECT_EQ(s.error().message, direct_error) << reader;
    }
  }
  std::filesystem::remove(path);
}

// Records every call a reader makes: the sizes and a hash of the bytes.
class CallRecorder : public CaptureSink {
 public:
  Status begin(const CaptureHeader& h) override {
    unit_ = h.unitsize;
    calls.push_back("begin");
    return ok();
  }
  Status samples(const std::uint8_t* data, std::size_t count) override {
    std::uint64_t hash = 1469598103934665603ULL;
    for (std::size_t i = 0; i < count * unit_; ++i) hash = (hash ^ data[i]) * 1099511628211ULL;
    calls.push_back(fmt::format("{}:{:x}", count, hash));
    if (fail_after && calls.size() > fail_after) return Error::input("sink: enough");
    return ok();
  }
  Status end() override {
    calls.push_back("end");
    return ok();
  }
  std::vector<std::string> calls;
  std::size_t fail_after = 0;

 private:
  unsigned unit_ = 1;
};

// Issue 18: the chunk entries are inflated on several threads and handed on
// in order; the sink sees exactly the same calls for any number of threads,
// including a sample cut by entry and block borders (unitsize 3: 20 channels).
TEST(SrzipThreads, TheSinkSeesTheSameCallsForAnyNumberOfThreads) {
  for (unsigned channels : {16u, 20u}) {
    SCOPED_TRACE(channels);
    Capture cap = pattern_capture(channels, 300000);
    std::string plain(cap.data.begin(), cap.data.end());
    const unsigned unit = channels == 20 ? 3 : 2;
    if (unit == 3) {  // stored in 3 bytes per sample, as sigrok does for 17-24 channels
      plain.clear();
      for (std::size_t i = 0; i < cap.sample_count(); ++i) plain.append(reinterpret_cast<const char*>(&cap.data[i * 4]), 3);
    }
    // Seven entries of uneven sizes, none a whole number of samples or blocks.
    std::vector<RawEntry> entries = {{"version", "2"}, {"metadata", metadata(channels, unit)}};
    std::size_t at = 0;
    for (int i = 1; i <= 7; ++i) {
      const std::size_t n = i == 7 ? plain.size() - at : plain.size() / 9 + 1001 * static_cast<std::size_t>(i);
      const std::string part = plain.substr(at, n);
      at += n;
      entries.push_back({fmt::format("logic-1-{}", i), i % 3 ? deflated(part) : part,
                         static_cast<std::uint16_t>(i % 3 ? 8 : 0), i % 3 ? part : std::string()});
    }
    const std::string zip = raw_zip(entries, false);
    std::vector<std::string> reference;
    for (unsigned jobs : {1u, 2u, 3u, 8u}) {
      for (std::size_t inflight : {std::size_t{1} << 20, std::size_t{1}}) {
        SCOPED_TRACE(fmt::format("jobs {} inflight {}", jobs, inflight));
        SrzipOptions o;
        o.jobs = jobs;
        o.sink_block = 40000;
        o.read_block = 5000;
        o.inflight_bytes = inflight;
        MemoryByteSource source(zip);
        CallRecorder rec;
        Status s = read_srzip(source, "mem.sr", rec, o);
        ASSERT_TRUE(s.ok()) << s.error().message;
        if (reference.empty()) reference = rec.calls;
        EXPECT_EQ(rec.calls, reference);
        Result<Capture> got = read_bytes(zip, o);
        ASSERT_TRUE(got.ok());
        EXPECT_TRUE(got->data == cap.data);
      }
    }
  }
}

TEST(SrzipThreads, TheFirstBrokenEntryInFileOrderIsReportedForAnyNumberOfThreads) {
  Capture cap = pattern_capture(16, 200000);
  const std::string plain(cap.data.begin(), cap.data.end());
  std::vector<RawEntry> entries = {{"version", "2"}, {"metadata", metadata(16, 2)}};
  const std::size_t part = plain.size() / 5;
  for (int i = 1; i <= 5; ++i) {
    const std::string p = plain.substr((i - 1) * part, i == 5 ? std::string::npos : part);
    entries.push_back({fmt::format("logic-1-{}", i), deflated(p), 8, p});
  }
  std::string zip = raw_zip(entries, false);
  // Entries 2 and 4 broken: a flipped byte in the middle of their streams.
  for (const char* e : {"logic-1-2", "logic-1-4"}) {
    auto [data, size] = locate(zip, e);
    zip[data + size / 2] = static_cast<char>(zip[data + size / 2] ^ 0x55);
  }
  std::string reference;
  for (unsigned jobs : {1u, 2u, 5u}) {
    SrzipOptions o;
    o.jobs = jobs;
    o.sink_block = 10000;
    std::string message = error_of(read_bytes(zip, o));
    EXPECT_EQ(message.rfind("mem.sr: logic-1-2: ", 0), 0u) << message;
    if (reference.empty()) reference = message;
    EXPECT_EQ(message, reference) << jobs;
  }
  // A sink that stops the read: the threads are stopped, its error returned.
  std::vector<RawEntry> good = {{"version", "2"}, {"metadata", metadata(16, 2)}};
  for (int i = 1; i <= 5; ++i) {
    const std::string p = plain.substr((i - 1) * part, i == 5 ? std::string::npos : part);
    good.push_back({fmt::format("logic-1-{}", i), deflated(p), 8, p});
  }
  const std::string ok_zip = raw_zip(good, false);
  for (unsigned jobs : {1u, 4u}) {
    SrzipOptions o;
    o.jobs = jobs;
    o.sink_block = 10000;
    MemoryByteSource source(ok_zip);
    CallRecorder rec;
    rec.fail_after = 3;
    Status s = read_srzip(source, "mem.sr", rec, o);
    ASSERT_FALSE(s.ok());
    EXPECT_EQ(s.error().message, "sink: enough");
    EXPECT_EQ(rec.calls.size(), 4u);
  }
}

// Found by sr_fuzz: an empty read may come with no buffer at all.
TEST(MemoryByteSource, AnEmptyReadNeedsNoBuffer) {
  MemoryByteSource source("PK\x03\x04");
  Result<std::size_t> n = source.read_at(1, nullptr, 0);
  ASSERT_TRUE(n);
  EXPECT_EQ(*n, 0u);
}

}  // namespace
}  // namespace harness
