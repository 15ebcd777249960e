// End-to-end tests of `harness capture` through the built executable.
#include <unistd.h>

#include <array>
#include <cstdio>
#include <filesystem>
#include <string>

#include <gtest/gtest.h>

namespace {

struct Output {
  int code;
  std::string out;
};

Output run(const std::string& args) {
  std::string cmd = std::string(HARNESS_BINARY) + " " + args + " 2>&1";
  std::FILE* p = popen(cmd.c_str(), "r");
  Output o{-1, {}};
  std::array<char, 4096> buf;
  while (std::size_t n = std::fread(buf.data(), 1, buf.size(), p)) o.out.append(buf.data(), n);
  int status = pclose(p);
  o.code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return o;
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
  Output o = run("capture decode " + kFixture + " --standard lpddr5");
  EXPECT_EQ(o.code, 2);
  EXPECT_EQ(o.out, "harness: error: " + kFixture +
                       ": the capture has no channel 'CA6' for lpddr5 CA6 (did you mean 'CA0'?) (channels: CK, CS, "
                       "CA0, CA1, CA2, CA3, CA4, CA5, DQS0); map roles to channels in [ddr.channels]\n");
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
  EXPECT_NE(all.find(",ACT,0,"), std::string::npos);
  // Power-down after PREA is precharged power-down; self refresh is there too.
  EXPECT_NE(all.find(",PDEP,0,"), std::string::npos);
  EXPECT_NE(all.find(",PDXP,0,"), std::string::npos);
  EXPECT_NE(all.find(",SREFEN,0,"), std::string::npos);
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
  Output o = run("capture info " + path);
  EXPECT_EQ(o.code, 2);
  EXPECT_EQ(o.out, "harness: error: " + path +
                       ":1: $var 'w' is 2000000000 bits wide, more than the reader limit signal_bits = 65536 bits\n");
  std::filesystem::remove(path);
  o = run("capture info --reader-limit sample=5 " + kFixture);
  EXPECT_EQ(o.code, 2);
  EXPECT_EQ(o.out,
            "harness: error: --reader-limit: unknown reader limit 'sample' (known: samples, file_bytes, signal_bits, "
            "declared_bits, changes, entry_bytes, inflated_bytes, in_memory_bytes)\n");
}

TEST(CaptureCli, InMemoryDecodingIsBounded) {
  Output o = run("capture decode --in-memory --reader-limit in_memory_bytes=1000 " + kFixture);
  EXPECT_EQ(o.code, 2);
  EXPECT_EQ(o.out, "harness: error: " + kFixture +
                       ": 49836 samples of 2 bytes to load into memory, more than the reader limit in_memory_bytes = "
                       "1000 bytes\n");
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
  EXPECT_NE(results(one.out).find("\"cycles\""), std::string::npos);
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
  EXPECT_NE(d.out.find("\nunknown:      row (A0-A9, A11, A13, A17 not probed)\n"
                       "unknown:      column (A0-A9 not probed)\n"
                       "unknown:      operand (A0-A9, A11, A13 not probed)\n"
                       "reads/writes: "),
            std::string::npos)
      << d.out;
  // Without WE_n reads and writes are not told apart; without A12 the burst length is unknown.
  d = run("capture decode " + sr + " --standard ddr4 --organisation x16 --probed CK,CS_n,ACT_n,RAS_n,CAS_n,BG0,BA0,BA1,A10");
  ASSERT_EQ(d.code, 0) << d.out;
  EXPECT_NE(d.out.find("not told apart: WR/RD (WE_n not probed): counted as UNKNOWN\n"), std::string::npos) << d.out;
  EXPECT_NE(d.out.find("reads/writes: unavailable: WE_n not probed / unavailable: WE_n not probed, unavailable: WE_n, "
                       "A12 not probed\n"),
            std::string::npos)
      << d.out;
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
