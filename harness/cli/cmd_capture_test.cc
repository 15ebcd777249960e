// End-to-end tests of `harness capture` through the built executable.
#include <unistd.h>

#include <array>
#include <cstdio>
#include <filesystem>
#include <string>

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <zlib.h>

#include "tests/support/zip_builder.h"

namespace {

using ::testing::HasSubstr;
using ::testing::Not;

struct Output {
  int code;
  std::string out;
};

// A shell command's exit code and output (stdout and stderr).
Output run_command(const std::string& command) {
  std::string cmd = command + " 2>&1";
  std::FILE* p = popen(cmd.c_str(), "r");
  Output o{-1, {}};
  std::array<char, 4096> buf;
  while (std::size_t n = std::fread(buf.data(), 1, buf.size(), p)) o.out.append(buf.data(), n);
  int status = pclose(p);
  o.code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return o;
}

Output run(const std::string& args) { return run_command(std::string(HARNESS_BINARY) + " " + args); }

// What `harness args` says when it refuses them as bad input (exit 2).
std::string refusal(const std::string& args) {
  Output o = run(args);
  EXPECT_EQ(o.code, 2) << o.out;
  return o.out;
}

const std::string kFixture = std::string(HARNESS_SOURCE_DIR) + "/fixtures/captures/lpddr4-stream.sr";

TEST(CaptureCli, InfoPrintsChannelsRateAndDuration) {
  Output o = run("capture info " + kFixture);
  EXPECT_EQ(o.code, 0);
  EXPECT_EQ(o.out, "file:        " + kFixture +
                       "\nformat:      sr\nchannels:    9 (CK, CS, CA0, CA1, CA2, CA3, CA4, CA5, DQS0)\n"
                       "sample rate: 800 MHz\nsamples:     49836\nduration:    62.3 us\n");
}

TEST(CaptureCli, WrongStandardNamesTheMissingChannelAndExits2) {
  EXPECT_EQ(refusal("capture decode " + kFixture + " --standard lpddr5"),
            "harness: error: " + kFixture +
                ": the capture has no channel 'CA6' for lpddr5 CA6 (did you mean 'CA0'?) (channels: CK, CS, "
                "CA0, CA1, CA2, CA3, CA4, CA5, DQS0); map roles to channels in [ddr.channels] (capture decode: "
                "--map CA6=CHANNEL); if CA6 was not probed, list the roles that were with --probed (scenario: "
                "probed = [...]): fields on the others are reported unknown\n");
}

// Issue 32: a DDR4 x16 capture (no BG1) decoded as x4/x8 is told about
// --probed and --organisation.
TEST(CaptureCli, AMissingPinSuggestsProbedAndOrganisation) {
  const std::string sr = (std::filesystem::temp_directory_path() / "harness_capture_cli_x16.sr").string();
  Output s = run("capture synth --standard ddr4 --organisation x16 --pattern random --cycles 2000 -o " + sr);
  ASSERT_EQ(s.code, 0) << s.out;
  Output o = run("capture decode --standard ddr4 " + sr);
  EXPECT_EQ(o.code, 2);
  EXPECT_THAT(o.out, HasSubstr(": the capture has no channel 'BG1' for ddr4 BG1 (did you mean 'BG0'?) (channels: "));
  EXPECT_THAT(o.out,
              HasSubstr("map roles to channels in [ddr.channels] (capture decode: --map BG1=CHANNEL); if BG1 was not "
                        "probed, list the roles that were with --probed (scenario: probed = [...]): fields on the "
                        "others are reported unknown; an x16 part has no BG1: --organisation x16 (scenario: "
                        "organisation = \"x16\")\n"));
  EXPECT_EQ(run("capture decode --standard ddr4 --organisation x16 " + sr).code, 0);
  std::filesystem::remove(sr);
}

// Issue 32: channels named after their roles map themselves, and the output
// says so; a streaming decode reports no load or decoder-alone time it did
// not measure (no 0.0 that reads like a figure).
TEST(CaptureCli, RolesFromChannelNamesArePrintedAndUnmeasuredTimesAbsent) {
  Output o = run("capture decode " + kFixture);
  ASSERT_EQ(o.code, 0) << o.out;
  EXPECT_THAT(o.out, HasSubstr("\nroles:        channels named by their role: CK, CS, CA0-CA5; strobes: DQS0\n"));
  o = run("--json capture decode " + kFixture);
  ASSERT_EQ(o.code, 0) << o.out;
  EXPECT_THAT(o.out, Not(HasSubstr("read_seconds")));
  EXPECT_THAT(o.out, Not(HasSubstr("decode_cpu_seconds")));
  EXPECT_THAT(o.out, HasSubstr("\"decode_seconds\": "));
  EXPECT_THAT(o.out, HasSubstr("\"roles\": {\n    \"CA0\": \"CA0\","));
  EXPECT_THAT(o.out, HasSubstr("\"strobes\": [\n    \"DQS0\"\n  ]"));
  o = run("--json capture decode --in-memory " + kFixture);
  ASSERT_EQ(o.code, 0) << o.out;
  for (const char* key : {"read_seconds", "decode_seconds", "decode_cpu_seconds", "decode_and_statistics_cpu_seconds",
                          "two_threads", "sampling_cpu_seconds", "commands_and_statistics_cpu_seconds"})
    EXPECT_NE(o.out.find(std::string("\"") + key + "\": "), std::string::npos) << key;
}

// Decoding on two threads prints what one thread prints; 0, 1 and 2 are the
// choices.
TEST(CaptureCli, TwoDecodingThreadsReportTheSame) {
  const Output one = run("capture decode " + kFixture + " --decode-threads 1");
  ASSERT_EQ(one.code, 0) << one.out;
  const Output two = run("capture decode " + kFixture + " --decode-threads 2");
  ASSERT_EQ(two.code, 0) << two.out;
  EXPECT_EQ(one.out, two.out);
  EXPECT_THAT(one.out, HasSubstr("commands:"));
  const Output three = run("capture decode " + kFixture + " --decode-threads 3");
  EXPECT_EQ(three.code, 2) << three.out;
  EXPECT_THAT(three.out, HasSubstr("--decode-threads"));
}

// The capture formats come from one table (probes/capture/formats.cc).
TEST(CaptureCli, InfoListsTheFormats) {
  Output o = run("capture info --formats");
  ASSERT_EQ(o.code, 0) << o.out;
  EXPECT_EQ(o.out.rfind("sr\n  sigrok session (srzip): PulseView's and sigrok-cli's format\n  recognised: name ends "
                        "'.sr'; starts with 'PK'\n  written by: capture convert, capture synth\n",
                        0),
            0u)
      << o.out;
  EXPECT_THAT(o.out, HasSubstr("\nstate-listing\n"));
  EXPECT_EQ(refusal("capture info"),
            "harness: error: capture info: name a capture file (or --formats for the formats known)\n");
  EXPECT_EQ(refusal("capture convert " + kFixture + " -o /tmp/harness_capture_cli_out.vcd"),
            "harness: error: /tmp/harness_capture_cli_out.vcd: the harness reads vcd but does not write it (it "
            "writes: sr)\n");
}

// Issue 32: the generator renders the strobe's impairments and states its
// ground truth; the decoder's strobe estimate lands within 2 % of it.
TEST(CaptureCli, SynthImpairsTheStrobeAndWritesTheTruth) {
  const auto dir = std::filesystem::temp_directory_path() / "harness_capture_cli_truth";
  std::filesystem::create_directories(dir);
  const std::string sr = (dir / "t.sr").string(), truth = (dir / "truth.json").string();
  Output s = run("capture synth --standard lpddr4 --pattern random --cycles 8000 --dqs-jitter 1 --dqs-skew 0.5 "
                 "--dqs-duty 40 --dqs-glitches 0.05 --dqs-park-high -o " + sr + " --truth-out " + truth);
  ASSERT_EQ(s.code, 0) << s.out;
  EXPECT_THAT(s.out, HasSubstr("; ground truth: DQ active "));
  std::FILE* f = std::fopen(truth.c_str(), "r");
  ASSERT_TRUE(f);
  char buf[4096] = {};
  std::fread(buf, 1, sizeof buf - 1, f);
  std::fclose(f);
  const std::string text(buf);
  const std::size_t at = text.find("\"dq_active_ratio\": ");
  ASSERT_NE(at, std::string::npos) << text;
  const double expected = std::stod(text.substr(at + 19));
  Output d = run("--json capture decode --standard lpddr4 " + sr);
  ASSERT_EQ(d.code, 0) << d.out;
  const std::size_t got_at = d.out.find("\"dq_active_ratio_dqs\": ");
  ASSERT_NE(got_at, std::string::npos) << d.out;
  EXPECT_NEAR(std::stod(d.out.substr(got_at + 23)), expected, 0.02);
  EXPECT_THAT(d.out, HasSubstr("\"glitches_removed\": "));
  Output bad = run("capture synth --dqs-jitter 2 --dqs-duty 40 -o " + sr);
  EXPECT_EQ(bad.code, 2);
  EXPECT_EQ(bad.out, "harness: error: strobe jitter 2 samples could swap edges of a 3-sample phase (at most 1)\n");
  std::filesystem::remove_all(dir);
}

TEST(CaptureCli, SynthThenDecodeReproducesTheTraceCsv) {
  auto dir = std::filesystem::temp_directory_path() / "harness_capture_cli";
  std::filesystem::create_directories(dir);
  std::string sr = (dir / "t.sr").string(), trace = (dir / "trace.csv").string(),
              decoded = (dir / "decoded.csv").string(), dp = (dir / "dp.csv").string();
  Output s = run("capture synth --standard ddr4 --pattern mixed --cke --cycles 3000 --spc 4 -o " + sr +
                 " --trace-out " + trace);
  ASSERT_EQ(s.code, 0) << s.out;
  Output d = run("capture decode " + sr + " --standard ddr4 --csv " + decoded + " --drampower " + dp);
  ASSERT_EQ(d.code, 0) << d.out;
  // Times differ (the trace has none); everything else must match.
  auto strip_time = [](const std::string& path) {
    std::FILE* f = std::fopen(path.c_str(), "r");
    std::string out;
    char line[512];
    while (std::fgets(line, sizeof line, f)) {
      std::string l(line);
      std::size_t a = l.find(','), b = l.find(',', a + 1);
      out += l.substr(0, a) + l.substr(b);
    }
    std::fclose(f);
    return out;
  };
  EXPECT_EQ(strip_time(trace), strip_time(decoded));
  std::FILE* f = std::fopen(dp.c_str(), "r");
  ASSERT_TRUE(f);
  std::string all;
  char line[512];
  while (std::fgets(line, sizeof line, f)) all += line;
  std::fclose(f);
  EXPECT_THAT(all, HasSubstr(",ACT,0,"));
  // Power-down after PREA is precharged power-down; self refresh is there too.
  EXPECT_THAT(all, HasSubstr(",PDEP,0,"));
  EXPECT_THAT(all, HasSubstr(",PDXP,0,"));
  EXPECT_THAT(all, HasSubstr(",SREFEN,0,"));
  EXPECT_NE(all.rfind(",END,0,0,0,0,0\n"), std::string::npos);
  std::filesystem::remove_all(dir);
}

// Issue 14: an 80-byte VCD declaring a 2e9-bit wire aborted with
// std::bad_alloc (exit 134); it is bad input, exit 2, naming the limit.
TEST(CaptureCli, AHostileVcdIsBadInputNamingTheLimit) {
  const std::string path = (std::filesystem::temp_directory_path() / "harness_capture_cli_wide.vcd").string();
  std::FILE* f = std::fopen(path.c_str(), "w");
  std::fputs("$timescale 1ns $end $var wire 2000000000 ! w $end $enddefinitions $end #0 0! #1\n", f);
  std::fclose(f);
  EXPECT_EQ(refusal("capture info " + path),
            "harness: error: " + path + ":1: $var 'w' is 2000000000 bits wide, more than the reader limit signal_bits = 65536 bits\n");
  std::filesystem::remove(path);
  EXPECT_EQ(refusal("capture info --reader-limit sample=5 " + kFixture),
            "harness: error: --reader-limit: unknown reader limit 'sample' (known: samples, file_bytes, signal_bits, "
            "declared_bits, changes, entry_bytes, inflated_bytes, in_memory_bytes)\n");
}

TEST(CaptureCli, InMemoryDecodingIsBounded) {
  EXPECT_EQ(refusal("capture decode --in-memory --reader-limit in_memory_bytes=1000 " + kFixture),
            "harness: error: " + kFixture +
                ": 49836 samples of 2 bytes to load into memory, more than the reader limit in_memory_bytes = "
                "1000 bytes; without --in-memory the capture is decoded as it streams, in bounded memory\n");
}

// A raw deflate stream of `n` zero bytes in one dynamic-Huffman block whose
// only codes are a 1-bit length 258 at a 1-bit distance 1: 2 bits per 258
// bytes, the most deflate packs (a 4 GiB entry in 4 MiB).
std::string zeros_deflated(std::uint64_t n) {
  const std::uint64_t matches = (n - 1) / 258, literals = n - 1 - matches * 258;
  std::string out((27 + 2 * (1 + matches + literals) + 7) / 8 + 16, '\0');
  std::uint64_t bit = 0;
  auto bits = [&](std::uint64_t v, unsigned count) {  // LSB first: header fields, extra bits
    for (unsigned i = 0; i < count; ++i, ++bit)
      if ((v >> i) & 1) out[bit / 8] = static_cast<char>(out[bit / 8] | (1 << (bit % 8)));
  };
  auto code = [&](std::uint64_t v, unsigned count) {  // Huffman codes: most significant bit first
    for (unsigned i = count; i-- > 0;) bits((v >> i) & 1, 1);
  };
  bits(1, 1);  // final block
  bits(2, 2);  // dynamic Huffman
  bits(286 - 257, 5);
  bits(1 - 1, 5);
  bits(18 - 4, 4);
  // Code-length code lengths, in the order 16 17 18 0 8 7 9 6 10 5 11 4 12 3 13 2 14 1: 18 has
  // 1 bit (code 0), 1 and 2 have 2 bits (codes 10, 11).
  for (unsigned len : {0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2, 0, 2}) bits(len, 3);
  // Literal/length lengths: 0 -> 2, 1..255 -> 0, 256 -> 2, 257..284 -> 0, 285 -> 1; distance 0 -> 1.
  code(3, 2);                // 2
  code(0, 1), bits(127, 7);  // 138 zeros
  code(0, 1), bits(106, 7);  // 117 zeros
  code(3, 2);                // 2 (end of block)
  code(0, 1), bits(17, 7);   // 28 zeros
  code(2, 2);                // 1 (length 258)
  code(2, 2);                // distance code 0: 1 bit
  // Canonical codes: 285 -> 0, literal 0 -> 10, end of block -> 11; distance 0 -> 0.
  code(2, 2);                // literal 0
  for (std::uint64_t i = 0; i < literals; ++i) code(2, 2);
  bit += 2 * matches;        // 285 + distance 0: "00" each, zero bits already
  code(3, 2);                // end of block
  out.resize((bit + 7) / 8);
  return out;
}

// CRC-32 of n zero bytes, by doubling (zlib combines CRCs of concatenations).
std::uint32_t zeros_crc(std::uint64_t n) {
  std::uint32_t crc = 0;
  std::uint64_t have = 0;
  for (int b = 63; b >= 0; --b) {
    crc = static_cast<std::uint32_t>(crc32_combine(crc, crc, static_cast<z_off_t>(have)));
    have *= 2;
    if ((n >> b) & 1) {
      const unsigned char zero = 0;
      crc = static_cast<std::uint32_t>(crc32_combine(crc, crc32(0, &zero, 1), 1));
      ++have;
    }
  }
  return crc;
}

// A sigrok session of `channels` channels whose chunk entries inflate to
// `entry_bytes` of zeros each (ZIP64 records: the sizes pass 4 GiB).
std::string zeros_session(unsigned entries, std::uint64_t entry_bytes) {
  const std::string meta =
      "[global]\nsigrok version=0.5.2\n\n[device 1]\ncapturefile=logic-1\ntotal probes=16\nsamplerate=100 MHz\n"
      "total analog=0\nprobe1=CK\nprobe2=CS\nunitsize=2\n";
  std::vector<harness::testing_support::RawEntry> list = {{"version", "2"}, {"metadata", meta}};
  const std::string stream = zeros_deflated(entry_bytes);
  const std::uint32_t crc = zeros_crc(entry_bytes);
  for (unsigned i = 1; i <= entries; ++i) {
    harness::testing_support::RawEntry& e = list.emplace_back("logic-1-" + std::to_string(i), stream, 8);
    e.inflated_size = entry_bytes;
    e.crc = crc;
  }
  return harness::testing_support::raw_zip(list, true);
}

TEST(CaptureCli, TheZerosStreamInflatesToZeros) {
  for (std::uint64_t n : {1ull, 2ull, 258ull, 259ull, 1000000ull}) {
    const std::string z = zeros_deflated(n);
    std::string plain(n + 1, 'x');
    z_stream s{};
    ASSERT_EQ(inflateInit2(&s, -15), Z_OK);
    s.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(z.data()));
    s.avail_in = static_cast<uInt>(z.size());
    s.next_out = reinterpret_cast<Bytef*>(plain.data());
    s.avail_out = static_cast<uInt>(plain.size());
    EXPECT_EQ(inflate(&s, Z_FINISH), Z_STREAM_END) << n;
    EXPECT_EQ(s.total_out, n);
    EXPECT_EQ(plain.find_first_not_of('\0'), n);
    inflateEnd(&s);
    EXPECT_EQ(zeros_crc(n), crc32(0, reinterpret_cast<const Bytef*>(plain.data()), static_cast<uInt>(n)));
  }
  // A small session of these inflates and decodes like any other.
  const std::string path = (std::filesystem::temp_directory_path() / "harness_capture_cli_zeros_small.sr").string();
  std::FILE* f = std::fopen(path.c_str(), "wb");
  const std::string small = zeros_session(2, 1 << 20);
  std::fwrite(small.data(), 1, small.size(), f);
  std::fclose(f);
  Output o = run("capture info " + path);
  EXPECT_EQ(o.code, 0) << o.out;
  EXPECT_THAT(o.out, HasSubstr("samples:     1048576\n"));
  std::filesystem::remove(path);
}

// Issue 32: a capture that inflates to 4 GiB, loaded into memory under a
// 2 GB address-space limit, exited 3 "out of memory" after trying to
// allocate it; it is refused before, exit 2, naming the limit and the
// streaming alternative.
TEST(CaptureCli, InMemoryDecodingRefusesWhatTheAddressSpaceCannotHold) {
#if defined(__SANITIZE_ADDRESS__)
  GTEST_SKIP() << "AddressSanitizer reserves terabytes of shadow address space at start, which the test's "
                  "ulimit -v of 2 GB refuses before harness runs";
#endif
  const std::string path = (std::filesystem::temp_directory_path() / "harness_capture_cli_4gib.sr").string();
  std::FILE* f = std::fopen(path.c_str(), "wb");
  const std::string bomb = zeros_session(4, std::uint64_t{1} << 30);
  std::fwrite(bomb.data(), 1, bomb.size(), f);
  std::fclose(f);
  ASSERT_LT(bomb.size(), 5u << 20);
  Output o = run_command("sh -c 'ulimit -v 2000000 && exec " + std::string(HARNESS_BINARY) +
                         " capture decode --in-memory " + path + "'");
  EXPECT_EQ(o.code, 2) << o.out;
  EXPECT_THAT(o.out,
              HasSubstr("harness: error: " + path +
                        ": 2147483648 samples of 2 bytes to load into memory, more than this process may allocate "
                        "(address-space limit 2048000000 bytes (ulimit -v 2000000), "));
  EXPECT_THAT(o.out, HasSubstr(" bytes left for samples); without --in-memory the capture is decoded as it streams, in "
                               "bounded memory\n"));
  // Within a lower reader limit, that limit is named.
  o = run("capture decode --in-memory --reader-limit in_memory_bytes=1Gi " + path);
  EXPECT_EQ(o.code, 2) << o.out;
  EXPECT_EQ(o.out, "harness: error: " + path +
                       ": 2147483648 samples of 2 bytes to load into memory, more than the reader limit in_memory_bytes "
                       "= 1073741824 bytes; without --in-memory the capture is decoded as it streams, in bounded "
                       "memory\n");
  std::filesystem::remove(path);
}

// Issue 18: --jobs changes how fast, never what is decoded.
TEST(CaptureCli, DecodingOnAnyNumberOfThreadsGivesTheSameResults) {
  auto results = [](const std::string& out) {
    std::string kept;
    std::size_t start = 0;
    for (std::size_t nl; (nl = out.find('\n', start)) != std::string::npos; start = nl + 1) {
      std::string line = out.substr(start, nl - start + 1);
      if (line.find("seconds") == std::string::npos) kept += line;
    }
    return kept;
  };
  Output one = run("--json capture decode --jobs 1 " + kFixture);
  Output four = run("--json capture decode --jobs 4 " + kFixture);
  ASSERT_EQ(one.code, 0) << one.out;
  ASSERT_EQ(four.code, 0) << four.out;
  EXPECT_THAT(results(one.out), HasSubstr("\"cycles\""));
  EXPECT_EQ(results(one.out), results(four.out));
}

}  // namespace

namespace {

TEST(CaptureCli, DecodeOfAReducedProbeSetSaysWhatIsUnknownAndWhy) {
  auto dir = std::filesystem::temp_directory_path() / "harness_capture_cli_probed";
  std::filesystem::create_directories(dir);
  const std::string sr = (dir / "t.sr").string();
  const std::string set = "CK,CS_n,ACT_n,RAS_n,CAS_n,WE_n,BG0,BA0,BA1,A10,A12,DQS0";
  Output s = run("capture synth --standard ddr4 --organisation x16 --probed " + set +
                 " --pattern random --cycles 3000 -o " + sr);
  ASSERT_EQ(s.code, 0) << s.out;
  Output d = run("capture decode " + sr + " --standard ddr4 --organisation x16 --probed " + set);
  ASSERT_EQ(d.code, 0) << d.out;
  EXPECT_THAT(d.out, HasSubstr("\nunknown:      row (A0-A9, A11, A13, A17 not probed)\n"
                               "unknown:      column (A0-A9 not probed)\n"
                               "unknown:      operand (A0-A9, A11, A13 not probed)\n"
                               "reads/writes: "));
  // Without WE_n reads and writes are not told apart; without A12 the burst length is unknown.
  d = run("capture decode " + sr + " --standard ddr4 --organisation x16 --probed CK,CS_n,ACT_n,RAS_n,CAS_n,BG0,BA0,BA1,A10");
  ASSERT_EQ(d.code, 0) << d.out;
  EXPECT_THAT(d.out, HasSubstr("not told apart: WR/RD (WE_n not probed): counted as UNKNOWN\n"));
  EXPECT_THAT(d.out,
              HasSubstr("reads/writes: unavailable: WE_n not probed / unavailable: WE_n not probed, unavailable: WE_n, "
                        "A12 not probed\n"));
  // Nothing to tell commands apart: refused, exit 2.
  d = run("capture decode " + sr + " --standard ddr4 --organisation x16 --probed CK,CS_n,BA0");
  EXPECT_EQ(d.code, 2);
  EXPECT_EQ(d.out, "harness: error: " + sr +
                       ": the probed pins tell no ddr4 command from another: decoding needs CK, CS_n and ACT_n, "
                       "RAS_n, CAS_n, WE_n (ACT_n, RAS_n, CAS_n, WE_n not probed)\n");
  std::filesystem::remove_all(dir);
}

}  // namespace

namespace {

// synth refuses a probed name the standard has no pin for, as decode does.
TEST(CaptureCli, SynthRefusesAnUnknownProbedNameAsDecodeDoes) {
  auto dir = std::filesystem::temp_directory_path() / ("harness_capture_cli_unknown_probed_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  const std::string sr = (dir / "t.sr").string();
  const std::string refusal = "probed: 'FOO' is no lpddr4 pin (pins: CK, CS, CA0-CA5, CKE, DQS0.., RDQS..)\n";
  Output s = run("capture synth --standard lpddr4 --probed CK,CS,FOO --cycles 100 -o " + sr);
  EXPECT_EQ(s.code, 2);
  EXPECT_EQ(s.out, "harness: error: " + refusal);
  EXPECT_FALSE(std::filesystem::exists(sr));
  ASSERT_EQ(run("capture synth --standard lpddr4 --cycles 100 -o " + sr).code, 0);
  Output d = run("capture decode " + sr + " --standard lpddr4 --probed CK,CS,FOO");
  EXPECT_EQ(d.code, 2);
  EXPECT_TRUE(d.out.ends_with(refusal)) << d.out;
  std::filesystem::remove_all(dir);
}

}  // namespace
