// Captures as other generators write them: simulators' VCD (scopes, vectors,
// ranges, x/z, dump sections), sigrok-cli's VCD, Saleae Logic 2's binary
// (v0 and v1) and CSV exports. The files are written here from the format
// descriptions (IEEE 1364-2005 section 18; Saleae's "Binary Export Format"
// articles, docs/parts/ddr.md), not by the harness's own writers.
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>

#include <unistd.h>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "harness/ddr/decoder.h"
#include "harness/ddr/synth.h"
#include "probes/capture/readers.h"
#include "probes/capture/state_listing.h"
#include "probes/capture/test_support.h"

namespace harness {
namespace {

Result<Capture> vcd(const std::string& text, ReadOptions o = {}) { return capture_test::read_vcd_text(text, "f.vcd", o); }

// Level of the channel called `name` at sample `i`.
int level(const Capture& c, const std::string& name, std::uint64_t i) {
  std::optional<unsigned> ch = c.header.find(name);
  EXPECT_TRUE(ch) << "no channel " << name;
  return ch ? static_cast<int>(c.sample(i) >> *ch & 1) : -1;
}

TEST(ForeignVcd, NamesVectorBitsByTheirDeclaredRange) {
  Result<Capture> c = vcd(
      "$timescale 1ns $end\n"
      "$scope module top $end\n"
      "$var wire 6 ! CA [5:0] $end\n"
      "$var logic 6 \" CB [0:5] $end\n"
      "$var reg 4 # D [7:4] $end\n"
      "$var wire 1 $ E [3] $end\n"
      "$var wire 3 % F $end\n"
      "$upscope $end\n$enddefinitions $end\n"
      "#0 b000001 ! b100000 \" b0001 # 1$ b100 %\n#1\n");
  ASSERT_TRUE(c.ok()) << c.error().message;
  EXPECT_EQ(c->header.channels,
            (std::vector<std::string>{"CA[0]", "CA[1]", "CA[2]", "CA[3]", "CA[4]", "CA[5]", "CB[0]", "CB[1]", "CB[2]",
                                      "CB[3]", "CB[4]", "CB[5]", "D[4]", "D[5]", "D[6]", "D[7]", "E[3]", "F[0]",
                                      "F[1]", "F[2]"}));
  // The rightmost value bit is the range's right index.
  EXPECT_EQ(level(*c, "CA[0]", 0), 1);
  EXPECT_EQ(level(*c, "CA[5]", 0), 0);
  EXPECT_EQ(level(*c, "CB[0]", 0), 1);  // [0:5]: the leftmost bit is CB[0]
  EXPECT_EQ(level(*c, "CB[5]", 0), 0);
  EXPECT_EQ(level(*c, "D[4]", 0), 1);
  EXPECT_EQ(level(*c, "E[3]", 0), 1);
  EXPECT_EQ(level(*c, "F[2]", 0), 1);
}

TEST(ForeignVcd, LeftExtendsShortVectorValuesAndHoldsXzAtTheLastKnownLevel) {
  Result<Capture> c = vcd(
      "$timescale 1 ns $end\n$var wire 4 ! V [3:0] $end\n$var wire 1 \" S $end\n$enddefinitions $end\n"
      "#0 b1111 ! 1\"\n#1 b1 ! x\"\n#2 b11 ! 1\"\n#3 bx1 ! z\"\n#4 bz ! 1\"\n#5 b0 !\n");
  ASSERT_TRUE(c.ok()) << c.error().message;
  auto v = [&](std::uint64_t i) { return c->sample(i) & 0xF; };
  EXPECT_EQ(v(0), 0b1111u);
  EXPECT_EQ(v(1), 0b0001u);  // 0-extended
  EXPECT_EQ(v(2), 0b0011u);
  EXPECT_EQ(v(3), 0b0011u);  // x-extended: bits 1-3 unknown, holding 0011
  EXPECT_EQ(v(4), 0b0011u);  // z-extended: all unknown
  EXPECT_EQ(v(5), 0b0000u);
  EXPECT_EQ(level(*c, "S", 1), 1);  // x holds the 1 before it
  EXPECT_EQ(level(*c, "S", 3), 1);
  // Counted per channel: V[0] at #4; V[1..3] at #3 and #4; S at #1 and #3.
  EXPECT_EQ(c->header.unknown_samples, (std::vector<std::uint64_t>{1, 2, 2, 2, 2}));
  // A file without x/z says nothing.
  Result<Capture> clean = vcd("$var wire 1 ! a $end $enddefinitions $end #0 0! #1 1!\n");
  ASSERT_TRUE(clean.ok());
  EXPECT_TRUE(clean->header.unknown_samples.empty());
}

// An unknown value before any known one reads as the channel's idle level:
// DDR4's active-low CS_n starts deselected (high), LPDDR4's CS low.
TEST(ForeignVcd, UnknownChipSelectsStartDeselected) {
  const std::string text =
      "$timescale 1 ns $end\n$var wire 1 ! CS_n $end\n$var wire 1 \" CK $end\n$var wire 1 # RAS_n $end\n"
      "$enddefinitions $end\n#0 x! x\" x#\n#4 0! 1\" 0#\n#5 1!\n";
  for (ddr::Standard st : {ddr::Standard::ddr4, ddr::Standard::lpddr4}) {
    ReadOptions o;
    o.plan_channels = [st](const std::vector<std::string>& names) -> Result<ChannelPlan> {
      return ddr::plan_bus_channels(st, {}, names);
    };
    Result<Capture> c = vcd(text, o);
    ASSERT_TRUE(c.ok()) << c.error().message;
    const int idle = st == ddr::Standard::ddr4 ? 1 : 0;
    for (std::uint64_t i = 0; i < 4; ++i) EXPECT_EQ(level(*c, "CS_n", i), idle) << i;
    EXPECT_EQ(level(*c, "CK", 0), 0);  // not a chip select: low
    EXPECT_EQ(level(*c, "CS_n", 4), 0);
    EXPECT_EQ(level(*c, "CS_n", 5), 1);
    EXPECT_EQ(c->header.unknown_samples, (std::vector<std::uint64_t>{4, 4, 4}));
  }
}

TEST(ForeignVcd, UsesScopePathsOnlyWhereLeafNamesCollide) {
  Result<Capture> c = vcd(
      "$timescale 1ps $end\n"
      "$scope module tb $end\n$var wire 1 ! CK $end\n"
      "$scope module dut $end\n$var wire 1 ! CK $end\n$var wire 1 \" CS $end\n"  // ! again: an alias
      "$scope module phy $end\n$var wire 1 # CS $end\n$var wire 1 $ CA0 $end\n$upscope $end\n"
      "$upscope $end\n$upscope $end\n$enddefinitions $end\n"
      "#0 0! 1\" 0# 0$\n#10 1! 1$\n#20\n");
  ASSERT_TRUE(c.ok()) << c.error().message;
  EXPECT_EQ(c->header.channels, (std::vector<std::string>{"CK", "tb.dut.CS", "tb.dut.phy.CS", "CA0"}));
  EXPECT_EQ(c->sample_count(), 2u);
  EXPECT_EQ(c->sample(1), 0b1011u);
}

TEST(ForeignVcd, SkipsRealAndStringVariablesAndDumpSections) {
  Result<Capture> c = vcd(
      "$comment written by hand $end\n$timescale 10us $end\n"
      "$var real 64 r temperature $end\n$var string 1 s state $end\n$var event 1 e tick $end\n"
      "$var wire 1 ! CK $end\n$enddefinitions $end\n"
      "$comment before the dump $end\n"
      "#0\n$dumpvars 0! r1.5 r sIDLE s 0e $end\n"
      "#1 1! R2.25e3 r\n#2\n$dumpoff x! $end\n#3\n$dumpon 1! $end\n$dumpall 1! $end\n#4 0!\n");
  ASSERT_TRUE(c.ok()) << c.error().message;
  EXPECT_EQ(c->header.channels, (std::vector<std::string>{"tick", "CK"}));
  EXPECT_DOUBLE_EQ(c->header.samplerate, 1e5);  // 10 us ticks, a change every tick
  ASSERT_EQ(c->sample_count(), 5u);             // #4 changes CK: it is a sample
  EXPECT_EQ(level(*c, "CK", 0), 0);
  EXPECT_EQ(level(*c, "CK", 1), 1);
  EXPECT_EQ(level(*c, "CK", 2), 1);  // x while dumping is off: unknown, holding the last level
  EXPECT_EQ(level(*c, "CK", 3), 1);
  EXPECT_EQ(level(*c, "CK", 4), 0);
  EXPECT_EQ(c->header.unknown_samples, (std::vector<std::uint64_t>{0, 1}));
}

TEST(ForeignVcd, InfersTheSamplePeriodFromTheChangeGridInAnyTimescaleSpelling) {
  for (const auto& [ts, k] : {std::pair{"1ns", 1}, std::pair{"1 ns", 1}, std::pair{"100 ps", 10},
                              std::pair{"10ps", 100}, std::pair{"1 ps", 1000}}) {
    // Changes every 2 ns (k ticks a nanosecond): 500 MHz, whatever the tick.
    Result<Capture> c = vcd(fmt::format("$timescale {} $end\n$var wire 1 ! CK $end\n$enddefinitions $end\n"
                                        "#{} 0!\n#{} 1!\n#{} 0!\n#{} 1!\n",
                                        ts, 0, 2 * k, 4 * k, 6 * k));
    ASSERT_TRUE(c.ok()) << ts << ": " << c.error().message;
    EXPECT_DOUBLE_EQ(c->header.samplerate, 500e6) << ts;
    EXPECT_EQ(c->sample_count(), 4u) << ts;
  }
  // A given rate resamples: 2 GHz gives 4 samples per 2 ns change.
  ReadOptions o;
  o.samplerate = 2e9;
  Result<Capture> c = vcd("$timescale 1ns $end\n$var wire 1 ! CK $end\n$enddefinitions $end\n#0 0!\n#2 1!\n#4 0!\n", o);
  ASSERT_TRUE(c.ok()) << c.error().message;
  EXPECT_EQ(c->header.samplerate, 2e9);
  ASSERT_EQ(c->sample_count(), 9u);
  EXPECT_EQ(c->sample(3), 0u);
  EXPECT_EQ(c->sample(4), 1u);
  EXPECT_EQ(c->sample(8), 0u);
}

TEST(ForeignVcd, StartsAtTheFirstTimestampAndTakesEarlierValuesAsInitial) {
  Result<Capture> c = vcd(
      "$timescale 1ns $end\n$var wire 1 ! CK $end\n$var wire 1 \" CS $end\n$enddefinitions $end\n"
      "$dumpvars 1! 0\" $end\n#1000 0!\n#1005 1! 1\"\n#1010 0!\n");
  ASSERT_TRUE(c.ok()) << c.error().message;
  EXPECT_DOUBLE_EQ(c->header.samplerate, 200e6);
  ASSERT_EQ(c->sample_count(), 3u);  // #1010 changes CK: it is a sample
  EXPECT_EQ(c->sample(0), 0b00u);
  EXPECT_EQ(c->sample(1), 0b11u);
  EXPECT_EQ(c->sample(2), 0b10u);
}

TEST(ForeignVcd, ALastTimestampWithoutChangesEndsTheDump) {
  Result<Capture> c =
      vcd("$timescale 1us $end\n$var wire 1 ! D0 $end\n$enddefinitions $end\n#0 1!\n#5 0!\n#10 1!\n#25\n");
  ASSERT_TRUE(c.ok()) << c.error().message;
  ASSERT_EQ(c->sample_count(), 5u);  // samples at 0, 5, 10, 15, 20 us; 25 us is the end
  EXPECT_EQ(c->sample(4), 1u);
  // A simulation stopped off the change grid: the grid stays 5 us.
  c = vcd("$timescale 1us $end\n$var wire 1 ! D0 $end\n$enddefinitions $end\n#0 1!\n#5 0!\n#10 1!\n#12\n");
  ASSERT_TRUE(c.ok()) << c.error().message;
  EXPECT_DOUBLE_EQ(c->header.samplerate, 200e3);
  ASSERT_EQ(c->sample_count(), 3u);
  EXPECT_EQ(c->sample(2), 1u);
}

TEST(ForeignVcd, RefusesTimestampsBeyondSixtyFourBits) {
  Result<Capture> c = vcd("$timescale 1fs $end\n$var wire 1 ! CK $end\n$enddefinitions $end\n"
                          "#0 0!\n#18446744073709551616 1!\n");
  ASSERT_FALSE(c.ok());
  EXPECT_EQ(c.error().message, "f.vcd:5: time '#18446744073709551616' is too large");
  // Huge but representable: refused as a corrupt span, not rendered.
  c = vcd("$timescale 1fs $end\n$var wire 1 ! CK $end\n$enddefinitions $end\n#0 0!\n#1 1!\n#18446744073709551615 0!\n");
  ASSERT_FALSE(c.ok());
  EXPECT_EQ(c.error().message,
            "f.vcd: the timestamps span more than 2^62 samples at 1000000 GHz, more than the reader limit samples = "
            "4294967296 samples");
}

// sigrok-cli's VCD output ("$comment Acquisition with 8/13 channels at 200
// kHz", one id per channel, a final end timestamp, analog channels of the
// demo device as text lines in the same file).
TEST(ForeignVcd, ReadsSigrokCliOutputLikeTheSameCaptureAsSr) {
  Result<Capture> c = vcd(
      "$date Sun Nov 29 20:15:40 2026 $end\n$version libsigrok 0.5.2 $end\n"
      "$comment\n  Acquisition with 2/13 channels at 200 kHz\n$end\n$timescale 1 us $end\n"
      "$scope module libsigrok $end\n$var wire 1 ! D0 $end\n$var wire 1 \" D1 $end\n$upscope $end\n"
      "$enddefinitions $end\n#0 1! 0\"\nA2: 0.0 mV DC\nA2: 2.0000 V DC\n#10 0!\n#20 1\"\n#30\n");
  ASSERT_TRUE(c.ok()) << c.error().message;
  EXPECT_EQ(c->header.channels, (std::vector<std::string>{"D0", "D1"}));
  EXPECT_EQ(c->header.samplerate, 200e3);  // from the comment, not the 10 us change grid
  ASSERT_EQ(c->sample_count(), 6u);        // 0 .. 25 us; #30 is the end
  EXPECT_EQ(c->sample(0), 0b01u);
  EXPECT_EQ(c->sample(1), 0b01u);
  EXPECT_EQ(c->sample(2), 0b00u);
  EXPECT_EQ(c->sample(3), 0b00u);
  EXPECT_EQ(c->sample(4), 0b10u);
  EXPECT_EQ(c->sample(5), 0b10u);
}

// The real thing when sigrok-cli is installed: the demo device's output as
// VCD and as .sr, read by our two readers, gives the same samples.
TEST(ForeignVcd, MatchesTheSrOfTheSameSigrokCliAcquisition) {
  if (std::system("sigrok-cli --version >/dev/null 2>&1") != 0) GTEST_SKIP() << "sigrok-cli is not installed";
  namespace fs = std::filesystem;
  const fs::path dir = fs::temp_directory_path() / fmt::format("harness_sigrok_cli_{}", ::getpid());
  fs::create_directories(dir);
  for (const std::string channels : {"", "--channels D3,D1,D7,D0"}) {
    const std::string v = (dir / "x.vcd").string(), s = (dir / "x.sr").string();
    for (const auto& [format, path] : {std::pair{"-O vcd", v}, std::pair{"", s}}) {
      const std::string cmd =
          fmt::format("sigrok-cli -d demo {} --samples 5000 {} -o {} >/dev/null 2>&1", channels, format, path);
      ASSERT_EQ(std::system(cmd.c_str()), 0) << cmd;
    }
    CaptureCollector from_vcd, from_sr;
    Status a = read_capture(v, {}, from_vcd);
    ASSERT_TRUE(a.ok()) << a.error().message;
    Status b = read_capture(s, {}, from_sr);
    ASSERT_TRUE(b.ok()) << b.error().message;
    const Capture &x = from_vcd.capture(), &y = from_sr.capture();
    EXPECT_EQ(x.header.samplerate, y.header.samplerate) << channels;
    ASSERT_EQ(x.sample_count(), y.sample_count()) << channels;
    // The VCD holds the channels asked for, in channel order. The .sr packs
    // the same channels into its low bits but libsigrok 0.5.2's srzip
    // output labels them by channel index ("probe4=D3" for bit 3, which
    // holds D7; `sigrok-cli -i` reads it so too): with a subset, compare
    // bit k of the .sr with the VCD's k-th channel; else by name.
    EXPECT_EQ(x.header.channels.size(), channels.empty() ? 8u : 4u);
    if (!channels.empty()) {
      EXPECT_EQ(x.header.channels, (std::vector<std::string>{"D0", "D1", "D3", "D7"}));
    }
    for (unsigned i = 0; i < x.header.channels.size(); ++i) {
      std::optional<unsigned> j = channels.empty() ? y.header.find(x.header.channels[i]) : std::optional(i);
      ASSERT_TRUE(j) << x.header.channels[i];
      std::uint64_t differ = 0;
      for (std::uint64_t k = 0; k < y.sample_count(); ++k) differ += (x.sample(k) >> i & 1) != (y.sample(k) >> *j & 1);
      EXPECT_EQ(differ, 0u) << x.header.channels[i] << " " << channels;
    }
  }
  fs::remove_all(dir);
}

// sigrok-cli's VCD writer on a DDR capture (a fixture converted with
// `sigrok-cli -i X.sr -O vcd`, channels then renamed as a simulator would):
// the same commands as the .sr itself.
TEST(ForeignVcd, SigrokCliConversionOfADdrCaptureDecodesLikeTheSr) {
  if (std::system("sigrok-cli --version >/dev/null 2>&1") != 0) GTEST_SKIP() << "sigrok-cli is not installed";
  const std::string sr = std::string(HARNESS_SOURCE_DIR) + "/fixtures/captures/lpddr4-random.sr";
  const std::string vcd_path =
      (std::filesystem::temp_directory_path() / fmt::format("harness_l4_{}.vcd", ::getpid())).string();
  const std::string cmd = fmt::format("sigrok-cli -i {} -O vcd -o {} >/dev/null 2>&1", sr, vcd_path);
  ASSERT_EQ(std::system(cmd.c_str()), 0) << cmd;
  Result<std::string> text = read_file_bytes(vcd_path);
  std::filesystem::remove(vcd_path);
  ASSERT_TRUE(text.ok());
  std::string renamed = *text;
  for (auto [from, to] : {std::pair{" CK $end", " CK_t $end"}, std::pair{" CS $end", " CS_n $end"}})
    renamed.replace(renamed.find(from), std::strlen(from), to);
  for (int i = 0; i < 6; ++i) {
    const std::string from = fmt::format(" CA{} $end", i);
    renamed.replace(renamed.find(from), from.size(), fmt::format(" ca_{} $end", i));
  }
  ddr::CommandCollector from_sr, from_vcd, from_renamed;
  ddr::DecodeOptions o;
  o.standard = ddr::Standard::lpddr4;
  Result<ddr::BusTiming> a = ddr::decode_capture_file(sr, {}, o, from_sr);
  ASSERT_TRUE(a.ok()) << a.error().message;
  ddr::BusDecoder d1(o, from_vcd);
  Status s = read_vcd(*text, "sigrok.vcd", {}, d1);
  ASSERT_TRUE(s.ok()) << s.error().message;
  ddr::BusDecoder d2(o, from_renamed);
  s = read_vcd(renamed, "renamed.vcd", {}, d2);
  ASSERT_TRUE(s.ok()) << s.error().message;
  ASSERT_GT(from_sr.commands.size(), 100u);
  EXPECT_TRUE(from_vcd.commands == from_sr.commands);
  EXPECT_TRUE(from_renamed.commands == from_sr.commands);
}

// --- Saleae Logic 2 binary export, written from Saleae's format article ---

using capture_test::put;
using capture_test::saleae_v0;

struct Chunk {
  std::uint32_t initial;
  double rate, begin, end;
  std::vector<double> toggles;
};

std::string saleae_v1(const std::vector<Chunk>& chunks) {
  std::string b = "<SALEAE>";
  put<std::int32_t>(b, 1);
  put<std::int32_t>(b, 0);
  put<std::uint64_t>(b, chunks.size());
  for (const Chunk& c : chunks) {
    put<std::uint32_t>(b, c.initial);
    put<double>(b, c.rate);
    put<double>(b, c.begin);
    put<double>(b, c.end);
    put<std::uint64_t>(b, c.toggles.size());
    for (double t : c.toggles) put<double>(b, t);
  }
  return b;
}

TEST(ForeignSaleaeBinary, ReadsVersion1AsSaleaeDocumentsIt) {
  // 10 MS/s, two chunks with a gap (samples 0..9, then 20..29), begin < 0
  // (pre-trigger).
  const std::string ck = saleae_v1({{0, 1e7, -1e-6, 0.0, {-0.8e-6, -0.5e-6}}, {1, 1e7, 1e-6, 2e-6, {1.5e-6}}});
  CaptureCollector c;
  Status s = read_saleae_binary({{"digital_0", "digital_0.bin", ck}}, {}, c);
  ASSERT_TRUE(s.ok()) << s.error().message;
  const Capture& cap = c.capture();
  EXPECT_EQ(cap.header.samplerate, 1e7);
  EXPECT_EQ(cap.header.channels, std::vector<std::string>{"digital_0"});
  ASSERT_EQ(cap.sample_count(), 30u);
  EXPECT_EQ(cap.sample(0), 0u);
  EXPECT_EQ(cap.sample(2), 1u);   // -0.8 us
  EXPECT_EQ(cap.sample(5), 0u);   // -0.5 us
  EXPECT_EQ(cap.sample(15), 0u);  // the gap holds the last level
  EXPECT_EQ(cap.sample(20), 1u);  // second chunk's initial state
  EXPECT_EQ(cap.sample(25), 0u);
  EXPECT_EQ(cap.sample(29), 0u);
  EXPECT_EQ(cap.header.unknown_samples, std::vector<std::uint64_t>{10});  // the gap: samples 10..19
}

// Read literally, "v1: same header, then uint64 chunk_count" can also mean
// v0's whole header (initial_state, begin_time, end_time) before the count.
// Files written so are read too.
TEST(ForeignSaleaeBinary, AcceptsVersion1WithV0sHeaderFieldsRepeated) {
  const std::string official = saleae_v1({{1, 1e6, 0.0, 4e-6, {2e-6}}});
  std::string repeated = official.substr(0, 16);
  put<std::uint32_t>(repeated, 1);
  put<double>(repeated, 0.0);
  put<double>(repeated, 4e-6);
  repeated += official.substr(16);
  for (const std::string& bytes : {official, repeated}) {
    CaptureCollector c;
    Status s = read_saleae_binary({{"digital_0", "digital_0.bin", bytes}}, {}, c);
    ASSERT_TRUE(s.ok()) << s.error().message;
    EXPECT_EQ(c.capture().header.samplerate, 1e6);
    ASSERT_EQ(c.capture().sample_count(), 4u);
    EXPECT_EQ(c.capture().sample(1), 1u);
    EXPECT_EQ(c.capture().sample(2), 0u);
  }
  // Neither layout: the error is the official layout's.
  CaptureCollector c;
  Status s = read_saleae_binary({{"digital_0", "digital_0.bin", official + "junk"}}, {}, c);
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.error().message, "digital_0.bin: byte 68: 4 bytes after the last chunk");
}

TEST(ForeignSaleaeBinary, ReadsAFolderOfChannelFilesInAnyOrder) {
  namespace fs = std::filesystem;
  const fs::path dir = fs::temp_directory_path() / fmt::format("harness_saleae_{}", ::getpid());
  fs::create_directories(dir);
  // Written in a shuffled order, numbered past 9; an analog file beside them.
  const std::vector<std::pair<int, std::vector<double>>> files = {{10, {3e-8}}, {2, {1e-8}}, {0, {2e-8}}};
  for (const auto& [n, toggles] : files) {
    std::ofstream(dir / fmt::format("digital_{}.bin", n), std::ios::binary) << saleae_v0(0, 0, 5e-8, toggles);
  }
  std::ofstream(dir / "analog_0.bin", std::ios::binary) << "not digital";
  Result<std::string> format = detect_capture_format(dir.string());
  ASSERT_TRUE(format.ok());
  EXPECT_EQ(*format, "saleae-binary");
  CaptureCollector c;
  Status s = read_capture(dir.string(), {}, c);
  fs::remove_all(dir);
  ASSERT_TRUE(s.ok()) << s.error().message;
  const Capture& cap = c.capture();
  EXPECT_EQ(cap.header.channels, (std::vector<std::string>{"digital_0", "digital_2", "digital_10"}));
  EXPECT_DOUBLE_EQ(cap.header.samplerate, 1e8);  // v0 states none: from the 10 ns grid
  ASSERT_EQ(cap.sample_count(), 5u);
  EXPECT_EQ(cap.sample(1), 0b010u);
  EXPECT_EQ(cap.sample(2), 0b011u);
  EXPECT_EQ(cap.sample(3), 0b111u);
}

// --- Saleae Logic 2 CSV export ---

Result<Capture> csv(const std::string& text, ReadOptions o = {}) {
  CaptureCollector c;
  Status s = read_saleae_csv(text, "e.csv", o, c);
  if (!s) return s.error();
  return c.capture();
}

TEST(ForeignSaleaeCsv, ReadsBomCrlfQuotedNamesScientificAndNegativeTimes) {
  Result<Capture> c = csv(
      "\xEF\xBB\xBFTime [s],Channel 0,\"CK, main\",CS_n\r\n"
      "-2.0e-08,0,X,1\r\n"
      "-1e-08,1,0,1\r\n"
      "0.000000000,0,1,0\r\n"
      "1.5e-08,X,0,X\r\n"
      "2e-08,1,1,1\r\n");
  ASSERT_TRUE(c.ok()) << c.error().message;
  EXPECT_EQ(c->header.channels, (std::vector<std::string>{"Channel 0", "CK, main", "CS_n"}));
  EXPECT_DOUBLE_EQ(c->header.samplerate, 200e6);  // 5 ns grid (1.5e-8)
  ASSERT_EQ(c->sample_count(), 9u);               // -20 ns .. 20 ns
  EXPECT_EQ(c->sample(0), 0b100u);                // X before any data: low
  EXPECT_EQ(c->sample(2), 0b101u);
  EXPECT_EQ(c->sample(4), 0b010u);                // the trigger, t = 0
  EXPECT_EQ(c->sample(7), 0b000u);                // X holds the last level
  EXPECT_EQ(c->sample(8), 0b111u);
  // Detected by content despite the byte order mark.
  const std::string path = (std::filesystem::temp_directory_path() / "harness_bom.csv").string();
  std::ofstream(path, std::ios::binary) << "\xEF\xBB\xBFTime [s],Channel 0\r\n0,0\r\n1e-8,1\r\n";
  Result<std::string> format = detect_capture_format(path);
  ASSERT_TRUE(format.ok()) << format.error().message;
  EXPECT_EQ(*format, "saleae-csv");
  // ... and with a quoted header.
  std::ofstream(path, std::ios::binary) << "\"Time [s]\",\"Channel 0\"\n0,0\n1e-8,1\n";
  format = detect_capture_format(path);
  std::filesystem::remove(path);
  ASSERT_TRUE(format.ok()) << format.error().message;
  EXPECT_EQ(*format, "saleae-csv");
}

// Logic 2's CSV export with ISO-8601 timestamps: the same capture as with
// seconds, times taken relative to the first row (a double of seconds since
// 1970 would blur them by ~0.2 us).
TEST(ForeignSaleaeCsv, ReadsIso8601TimesLikeSeconds) {
  Result<Capture> seconds = csv("Time [s],A,B\n0,0,1\n2e-9,1,1\n6e-9,1,X\n1e-8,0,0\n");
  ASSERT_TRUE(seconds.ok()) << seconds.error().message;
  Result<Capture> iso = csv(
      "Time [s],A,B\n2024-03-01T12:00:00.000000000+00:00,0,1\n2024-03-01T12:00:00.000000002+00:00,1,1\n"
      "2024-03-01T13:00:00.000000006+01:00,1,X\n2024-03-01T12:00:00.00000001Z,0,0\n");
  ASSERT_TRUE(iso.ok()) << iso.error().message;
  EXPECT_EQ(iso->header.samplerate, 500e6);
  EXPECT_EQ(iso->header.samplerate, seconds->header.samplerate);
  EXPECT_TRUE(iso->data == seconds->data);
  EXPECT_EQ(iso->sample_count(), 6u);
  // X (no data) holds B's 1 and is counted: samples 3 and 4.
  EXPECT_EQ(iso->header.unknown_samples, (std::vector<std::uint64_t>{0, 2}));
  EXPECT_EQ(csv("Time [s],A\n2024-03-01T12:00:00Z,0\n0.5,1\n").error().message,
            "e.csv:3: bad time '0.5' (expected an ISO-8601 date-time like the first row's, "
            "2024-03-01T12:00:00.000000000+00:00)");
  EXPECT_EQ(csv("Time [s],A\n2024-13-01T12:00:00Z,0\n").error().message,
            "e.csv:2: bad time '2024-13-01T12:00:00Z' (expected seconds, or an ISO-8601 date-time)");
}

TEST(ForeignStateListing, ReadsAnotherToolsSpelling) {
  Result<StateListing> l = parse_state_listing(
      "\xEF\xBB\xBF# exported\r\nTime_s, Edge, CS, CA0\r\n1e-8, rise, H, L\r\n1.5e-8, fall, 0, 1\r\n", "l.csv");
  ASSERT_TRUE(l.ok()) << l.error().message;
  EXPECT_EQ(l->channels, (std::vector<std::string>{"CS", "CA0"}));
  ASSERT_EQ(l->rows.size(), 2u);
  EXPECT_TRUE(l->rows[0].rising);
  EXPECT_EQ(l->rows[0].bits, 0b01u);
  EXPECT_FALSE(l->rows[1].rising);
  EXPECT_EQ(l->rows[1].bits, 0b10u);
}

// --- A synthesized bus, renamed and reordered as another tool would ---

// A VCD variable of the test writer: its declaration and the capture
// channel behind each value bit, most significant (leftmost) first.
struct Var {
  std::string id, decl;
  std::vector<unsigned> bits;
};

// VCD as a simulator testbench would dump a bus: the variables given (names,
// vectors and order of the test's choosing) in nested scopes, a 1 ps
// timescale, $dumpvars at #0, an end timestamp.
std::string to_simulator_vcd(const Capture& cap, const std::vector<Var>& vars) {
  std::string out = "$version test bench $end\n$timescale 1 ps $end\n$scope module tb $end\n"
                    "$scope interface bus_if $end\n";
  for (const Var& v : vars) out += v.decl + "\n";
  out += "$upscope $end\n$upscope $end\n$enddefinitions $end\n";
  const double ps = 1e12 / cap.header.samplerate;
  std::uint64_t prev = 0;
  for (std::uint64_t i = 0; i < cap.sample_count(); ++i) {
    const std::uint64_t v = cap.sample(i);
    if (i && v == prev) continue;
    out += fmt::format("#{}\n", std::llround(i * ps));
    if (i == 0) out += "$dumpvars\n";
    for (const Var& var : vars) {
      bool changed = i == 0;
      for (unsigned b : var.bits) changed |= ((v ^ prev) >> b & 1) != 0;
      if (!changed) continue;
      std::string value;
      for (unsigned b : var.bits) value += (v >> b & 1) ? '1' : '0';
      out += var.bits.size() == 1 ? value + var.id + "\n" : "b" + value + " " + var.id + "\n";
    }
    if (i == 0) out += "$end\n";
    prev = v;
  }
  out += fmt::format("#{}\n", std::llround(cap.sample_count() * ps));
  return out;
}

struct Renaming {
  const char* name;
  ddr::Standard standard;
  unsigned spc;
  unsigned jitter;
};

class ForeignBusNames : public ::testing::TestWithParam<Renaming> {};

// The synthesized bus written with another tool's names and channel order,
// read back and decoded without any [ddr.channels] mapping.
TEST_P(ForeignBusNames, DecodeToTheSameCommands) {
  using namespace ddr;
  const Renaming& r = GetParam();
  Result<std::vector<Command>> trace = generate_traffic(r.standard, "mixed", 1500, 5);
  ASSERT_TRUE(trace.ok());
  SynthOptions o;
  o.standard = r.standard;
  o.samples_per_clock = r.spc;
  // Jittered CA transitions put changes on every sample, so the change grid
  // is the sample rate. Without jitter every change falls on a CK edge: the
  // grid is half a clock, too coarse to decode, and the rate must be given.
  o.jitter = r.jitter;
  CaptureCollector synth;
  ASSERT_TRUE(synthesize(*trace, o, synth).ok());
  const Capture& cap = synth.capture();
  auto bit = [&](const std::string& n) { return *cap.header.find(n); };
  std::vector<Var> vars;
  auto scalar = [&](const std::string& role, const std::string& name, const char* type = "wire") {
    std::string id = std::string(1, static_cast<char>('!' + vars.size()));
    vars.push_back({id, fmt::format("$var {} 1 {} {} $end", type, id, name), {bit(role)}});
  };
  auto vector = [&](const std::string& prefix, unsigned from, unsigned to, const std::string& name) {
    // Declared [from:to]: the leftmost value bit is index `from`.
    std::string id = std::string(1, static_cast<char>('!' + vars.size()));
    Var v{id, fmt::format("$var wire {} {} {} $end", from > to ? from - to + 1 : to - from + 1, id, name), {}};
    for (int i = static_cast<int>(from);; i += from > to ? -1 : 1) {
      v.bits.push_back(bit(prefix + std::to_string(i)));
      if (i == static_cast<int>(to)) break;
    }
    vars.push_back(v);
  };
  const std::string which = r.name;
  if (which == "lpddr4_vector") {  // CA as one vector, strobe and clock in _t style
    scalar("DQS0", "DQS0_t");
    vector("CA", 5, 0, "CA [5:0]");
    scalar("CK", "CK_t");
    scalar("CS", "CS", "logic");
  } else if (which == "lpddr4_ascending") {  // [0:5] vector, CLK, CS0
    vector("CA", 0, 5, "ca[0:5]");
    scalar("CS", "CS0");
    scalar("CK", "CLK");
    scalar("DQS0", "DQS[0]");
  } else if (which == "lpddr5_scalars") {  // every CA bit its own signal, shuffled
    for (int i : {4, 0, 6, 2, 1, 5, 3}) scalar(fmt::format("CA{}", i), fmt::format("ca_{}", i));
    scalar("CK", "ck_t");
    scalar("DQS0", "RDQS_t");
    scalar("CS", "cs_p", "reg");  // not a chip-select spelling: mapped below
  } else if (which == "ddr4_vectors") {  // A, BA, BG as vectors; RAS/CAS/WE with their A aliases
    scalar("CK", "CK_t");
    scalar("WE_n", "WE_n_A14");
    scalar("CAS_n", "A15");
    scalar("RAS_n", "RAS_n");
    vector("A", 13, 0, "A[13:0]");
    scalar("A17", "A17");
    vector("BG", 1, 0, "BG [1:0]");
    vector("BA", 1, 0, "BA [1:0]");
    scalar("ACT_n", "ACT_N");
    scalar("CS_n", "CS_N");
    scalar("DQS0", "DQS0_t");
  }
  ASSERT_FALSE(vars.empty());
  CaptureCollector read;
  ReadOptions given;
  if (!r.jitter) given.samplerate = cap.header.samplerate;
  Status s = read_vcd(to_simulator_vcd(cap, vars), "tb.vcd", given, read);
  ASSERT_TRUE(s.ok()) << s.error().message;
  CommandCollector got;
  DecodeOptions d;
  d.standard = r.standard;
  d.window = 1e-6;
  if (which == "lpddr5_scalars") d.roles["CS"] = "cs_p";
  BusDecoder decoder(d, got);
  s = read.capture().replay(decoder);
  ASSERT_TRUE(s.ok()) << s.error().message;
  ASSERT_EQ(got.commands.size(), trace->size());
  EXPECT_TRUE(got.commands == *trace);
}

// A full RTL/ILA dump: the bus among hundreds of other signals and wide
// vectors. Only the channels the roles can use are read (a capture holds
// 64), and they decode to the same commands.
TEST(ForeignVcd, AnIlaDumpWithHundredsOfSignalsDecodesFromTheMappedOnes) {
  using namespace ddr;
  Result<std::vector<Command>> trace = generate_traffic(Standard::lpddr4, "mixed", 1500, 5);
  ASSERT_TRUE(trace.ok());
  const SynthOptions o{.standard = Standard::lpddr4, .samples_per_clock = 8, .jitter = 1};
  CaptureCollector synth;
  ASSERT_TRUE(synthesize(*trace, o, synth).ok());
  const Capture& cap = synth.capture();
  auto bit = [&](const std::string& n) { return *cap.header.find(n); };
  std::vector<Var> vars;
  // Unrelated signals of the design, echoing the bus's bits under other names.
  for (int i = 0; i < 100; ++i)
    vars.push_back({fmt::format("n{}", i), fmt::format("$var wire 1 n{} core_sig_{} $end", i, i), {bit(fmt::format("CA{}", i % 6))}});
  Var wide{"w", "$var wire 256 w axi_wdata [255:0] $end", {}};
  for (int i = 0; i < 256; ++i) wide.bits.push_back(bit(fmt::format("CA{}", (i * 7) % 6)));
  vars.push_back(wide);
  vars.push_back({"k", "$var wire 1 k CK_t $end", {bit("CK")}});
  vars.push_back({"s", "$var logic 1 s CS $end", {bit("CS")}});
  Var ca{"c", "$var wire 6 c CA [5:0] $end", {}};
  for (int i = 5; i >= 0; --i) ca.bits.push_back(bit(fmt::format("CA{}", i)));
  vars.push_back(ca);
  vars.push_back({"q", "$var wire 1 q DQS0_t $end", {bit("DQS0")}});
  const std::string text = to_simulator_vcd(cap, vars);
  // Without a plan: refused, naming the count.
  CaptureSummary none;
  Status refused = read_vcd(text, "ila.vcd", {}, none);
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.error().message,
            "ila.vcd: 365 one-bit signals, more than the 64 a capture holds: name the ones to read (capture "
            "info/convert --channels; decode reads those its roles use)");
  ReadOptions given;
  DecodeOptions d;
  d.standard = Standard::lpddr4;
  given.plan_channels = [&](const std::vector<std::string>& names) -> Result<ChannelPlan> {
    return plan_bus_channels(d.standard, d.roles, names);
  };
  CaptureCollector read;
  Status s = read_vcd(text, "ila.vcd", given, read);
  ASSERT_TRUE(s.ok()) << s.error().message;
  EXPECT_EQ(read.capture().header.channels,
            (std::vector<std::string>{"CK_t", "CS", "CA[0]", "CA[1]", "CA[2]", "CA[3]", "CA[4]", "CA[5]", "DQS0_t"}));
  CommandCollector got;
  BusDecoder decoder(d, got);
  s = read.capture().replay(decoder);
  ASSERT_TRUE(s.ok()) << s.error().message;
  ASSERT_EQ(got.commands.size(), trace->size());
  EXPECT_TRUE(got.commands == *trace);
  // Named channels (capture info/convert --channels).
  ReadOptions named;
  named.plan_channels = plan_named_channels({"CS", "core_sig_7", "axi_wdata[3]"});
  CaptureCollector few;
  ASSERT_TRUE(read_vcd(text, "ila.vcd", named, few).ok());
  EXPECT_EQ(few.capture().header.channels, (std::vector<std::string>{"core_sig_7", "axi_wdata[3]", "CS"}));
  // The decoder reports the unknown samples of the channels it used.
  Capture marked = read.capture();
  marked.header.unknown_samples.assign(marked.header.channels.size(), 0);
  marked.header.unknown_samples[1] = 7;  // CS
  CommandCollector again;
  BusDecoder reporting(d, again);
  ASSERT_TRUE(marked.replay(reporting).ok());
  EXPECT_EQ(reporting.timing().unknown_samples, (std::map<std::string, std::uint64_t>{{"CS", 7}}));
  named.plan_channels = plan_named_channels({"core_sig_7", "CK_x"});
  EXPECT_EQ(read_vcd(text, "ila.vcd", named, few).error().message,
            "ila.vcd: no channel 'CK_x' (did you mean 'CK_t'?)");
}

INSTANTIATE_TEST_SUITE_P(Tools, ForeignBusNames,
                         ::testing::Values(Renaming{"lpddr4_vector", ddr::Standard::lpddr4, 8, 1},
                                           Renaming{"lpddr4_ascending", ddr::Standard::lpddr4, 4, 0},
                                           Renaming{"lpddr5_scalars", ddr::Standard::lpddr5, 8, 1},
                                           Renaming{"ddr4_vectors", ddr::Standard::ddr4, 8, 2}),
                         [](const auto& info) { return std::string(info.param.name); });

}  // namespace
}  // namespace harness
