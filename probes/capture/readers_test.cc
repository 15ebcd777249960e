#include "probes/capture/readers.h"

#include <cstring>
#include <filesystem>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "harness/ddr/decoder.h"
#include "harness/ddr/synth.h"
#include "probes/capture/sigrok.h"
#include "probes/capture/state_listing.h"
#include "probes/capture/test_support.h"

namespace harness {
namespace {

Result<Capture> read_vcd_text(const std::string& text) { return capture_test::read_vcd_text(text, "t.vcd"); }

// Writers used only to make test files of the formats the harness reads.
std::string to_vcd(const Capture& cap) {
  std::string out = "$timescale 1ps $end\n$scope module bus $end\n";
  const auto& ch = cap.header.channels;
  for (unsigned i = 0; i < ch.size(); ++i) out += fmt::format("$var wire 1 {} {} $end\n", char('!' + i), ch[i]);
  out += "$upscope $end\n$enddefinitions $end\n";
  const double ps = 1e12 / cap.header.samplerate;
  std::uint64_t prev = 0;
  for (std::uint64_t i = 0; i < cap.sample_count(); ++i) {
    std::uint64_t v = cap.sample(i);
    if (i && v == prev) continue;
    // Timestamp and values on one line, as some tools write them.
    out += fmt::format("#{}", std::llround(i * ps));
    for (unsigned c = 0; c < ch.size(); ++c)
      if (!i || ((v ^ prev) >> c & 1)) out += fmt::format(" {}{}", (v >> c) & 1, char('!' + c));
    out += "\n";
    prev = v;
  }
  out += fmt::format("#{}\n", std::llround(cap.sample_count() * ps));  // the end of the dump
  return out;
}

using capture_test::put;
using capture_test::saleae_v0;

std::vector<SaleaeBinaryFile> to_saleae_binary(const Capture& cap, int version) {
  std::vector<SaleaeBinaryFile> files;
  const double rate = cap.header.samplerate;
  const double end = cap.sample_count() / rate;
  for (unsigned c = 0; c < cap.header.channels.size(); ++c) {
    std::vector<double> toggles;
    bool initial = cap.sample(0) >> c & 1, level = initial;
    for (std::uint64_t i = 1; i < cap.sample_count(); ++i)
      if ((cap.sample(i) >> c & 1) != level) {
        level = !level;
        toggles.push_back(i / rate);
      }
    std::string b = "<SALEAE>";
    put<std::int32_t>(b, version);
    put<std::int32_t>(b, 0);
    if (version == 1) put<std::uint64_t>(b, 1);  // one chunk
    put<std::uint32_t>(b, initial);
    if (version == 1) put<double>(b, rate);
    put<double>(b, 0.0);
    put<double>(b, end);
    put<std::uint64_t>(b, toggles.size());
    for (double t : toggles) put<double>(b, t);
    files.push_back({cap.header.channels[c], fmt::format("digital_{}.bin", c), b});
  }
  return files;
}

std::string to_saleae_csv(const Capture& cap) {
  std::string out = "Time [s]";
  for (const std::string& c : cap.header.channels) out += "," + c;
  out += "\n";
  std::uint64_t prev = 0;
  for (std::uint64_t i = 0; i < cap.sample_count(); ++i) {
    std::uint64_t v = cap.sample(i);
    if (i && v == prev && i + 1 != cap.sample_count()) continue;
    out += fmt::format("{:.12f}", i / cap.header.samplerate);
    for (unsigned c = 0; c < cap.header.channels.size(); ++c) out += (v >> c & 1) ? ",1" : ",0";
    out += "\n";
    prev = v;
  }
  return out;
}

TEST(VcdReader, ReadsTokensSharingLinesAndInfersTheSampleRate) {
  Result<Capture> c = read_vcd_text(
      "$date today $end\n$timescale 1 ns $end\n$scope module top $end\n"
      "$var wire 1 ! CK $end\n$var wire 2 \" ca [1:0] $end\n$upscope $end\n$enddefinitions $end\n"
      "$dumpvars 0! b10 \" $end\n#0\n#5 1! #10 0! b01 \"\n#20\n");
  ASSERT_TRUE(c.ok()) << c.error().message;
  EXPECT_EQ(c->header.channels, (std::vector<std::string>{"CK", "ca[0]", "ca[1]"}));
  EXPECT_DOUBLE_EQ(c->header.samplerate, 200e6);  // 5 ns steps
  ASSERT_EQ(c->sample_count(), 4u);               // #0, #5, #10, #15; #20 ends the dump
  EXPECT_EQ(c->sample(0), 0b100u);
  EXPECT_EQ(c->sample(1), 0b101u);
  EXPECT_EQ(c->sample(2), 0b010u);
  EXPECT_EQ(c->sample(3), 0b010u);
}

TEST(VcdReader, ErrorsNameFileAndLine) {
  Result<Capture> c = read_vcd_text("$timescale 1ns $end\n$var wire 1 ! CK $end\n$enddefinitions $end\n#0 0!\n#1 1?\n");
  ASSERT_FALSE(c.ok());
  EXPECT_EQ(c.error().message, "t.vcd:5: unknown signal id '?'");
  c = read_vcd_text("$timescale 1ns $end\n$var wire 1 ! CK $end\n$enddefinitions $end\n#5 0!\n#3 1!\n");
  ASSERT_FALSE(c.ok());
  EXPECT_EQ(c.error().message, "t.vcd:5: time goes backwards: #3 after #5");
  c = read_vcd_text("$timescale 1ns $end\n$var wire 1 ! CK\n");
  ASSERT_FALSE(c.ok());
  EXPECT_EQ(c.error().message, "t.vcd:2: unterminated $var");
  c = read_vcd_text("$timescale 1 parsec $end\n");
  ASSERT_FALSE(c.ok());
  EXPECT_EQ(c.error().message, "t.vcd:1: bad $timescale unit 'parsec' (s, ms, us, ns, ps, fs)");
}

TEST(SaleaeCsvReader, RejectsBadValuesWithTheLine) {
  CaptureCollector c;
  Status s = read_saleae_csv("Time [s],CK,CS\n0.0,0,1\n1e-8,2,1\n", "x.csv", {}, c);
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.error().message, "x.csv:3: bad value '2' for CK (0, 1 or X)");
}

TEST(SaleaeCsvReader, SaysWhenTheSampleRateCannotBeInferred) {
  CaptureCollector c;
  Status s = read_saleae_csv("Time [s],CK\n0.0,0\n", "x.csv", {}, c);
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.error().message, "x.csv: too few changes to infer the sample rate; pass --samplerate");
}

TEST(SaleaeBinaryReader, RefusesTruncatedFiles) {
  const std::string b = saleae_v0(0, 0, 1e-6, {1e-7}, 5);  // 5 announced, room for 1
  CaptureCollector c;
  Status s = read_saleae_binary({{"digital_0", "digital_0.bin", b}}, {}, c);
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.error().message, "digital_0.bin: byte 44: truncated: 5 transitions announced, room for 1");
  CaptureCollector c2;
  s = read_saleae_binary({{"digital_0", "digital_0.bin", "<SALEAE"}}, {}, c2);
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.error().message, "digital_0.bin: byte 0: truncated: the <SALEAE> identifier missing");
}

TEST(StateListing, ErrorsNameTheLine) {
  Result<StateListing> l = parse_state_listing("# x\ntime_s,edge,CS\n1e-8,R,1\n2e-8,Q,0\n", "s.txt");
  ASSERT_FALSE(l.ok());
  EXPECT_EQ(l.error().message, "s.txt:4: edge 'Q' is not R or F");
}

TEST(SrReader, NamesAMissingFile) {
  CaptureCollector c;
  Status s = read_sr("/nonexistent/x.sr", c);
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.error().message, "/nonexistent/x.sr: No such file or directory");
}

// Every reader, on a file of its format made from one synthesized capture,
// gives back exactly the commands that were synthesized.
class ReaderRoundTrip : public ::testing::TestWithParam<std::string> {};

TEST_P(ReaderRoundTrip, DecodesTheSynthesizedTrace) {
  using namespace ddr;
  Result<std::vector<Command>> trace = generate_traffic(Standard::lpddr4, "mixed", 1500, 11);
  ASSERT_TRUE(trace.ok());
  const SynthOptions o{.standard = Standard::lpddr4, .samples_per_clock = 4};
  CaptureCollector synth;
  ASSERT_TRUE(synthesize(*trace, o, synth).ok());
  const Capture& cap = synth.capture();
  CommandCollector got;
  BusDecoder decoder({Standard::lpddr4, {}, 1e-6}, got);
  Status s = ok();
  const std::string& format = GetParam();
  if (format == "vcd") {
    // Every change of the synthesized bus falls on a CK edge: the change
    // grid (half a clock) is too coarse to decode, so the rate is given.
    ReadOptions given;
    given.samplerate = cap.header.samplerate;
    s = read_vcd(to_vcd(cap), "t.vcd", given, decoder);
  } else if (format == "saleae-binary-v0") {
    // v0 states no sample rate, and at 4 samples per clock every toggle
    // falls on an even sample: the rate must be given.
    ReadOptions given;
    given.samplerate = cap.header.samplerate;
    s = read_saleae_binary(to_saleae_binary(cap, 0), given, decoder);
  } else if (format == "saleae-binary-v1") {
    s = read_saleae_binary(to_saleae_binary(cap, 1), {}, decoder);
  } else if (format == "saleae-csv") {
    s = read_saleae_csv(to_saleae_csv(cap), "t.csv", {}, decoder);
  } else if (format == "sr") {
    std::string path = (std::filesystem::temp_directory_path() / "harness_reader_rt.sr").string();
    SrWriter w(path, 4096);  // small chunks: several logic packets
    ASSERT_TRUE(cap.replay(w, 1000).ok());
    s = read_capture(path, {}, decoder);
    std::filesystem::remove(path);
  }
  ASSERT_TRUE(s.ok()) << s.error().message;
  ASSERT_EQ(got.commands.size(), trace->size());
  EXPECT_TRUE(got.commands == *trace);
}

INSTANTIATE_TEST_SUITE_P(Formats, ReaderRoundTrip,
                         ::testing::Values("vcd", "saleae-binary-v0", "saleae-binary-v1", "saleae-csv", "sr"),
                         [](const auto& info) {
                           std::string n = info.param;
                           for (char& c : n)
                             if (c == '-') c = '_';
                           return n;
                         });

// The live path through a real libsigrok driver: the demo device.
TEST(SigrokAcquisition, RecordsTheDemoDriverIntoASessionFile) {
  SigrokAcquisition a;
  a.driver = "demo";
  a.samplerate = 1e6;
  a.limit_samples = 20000;
  a.group_options["pattern"] = "graycode";
  std::string path = (std::filesystem::temp_directory_path() / "harness_demo.sr").string();
  {
    SrWriter w(path);
    Status s = sigrok_acquire(a, w);
    ASSERT_TRUE(s.ok()) << s.error().message;
  }
  CaptureCollector c;
  Status s = read_sr(path, c);
  std::filesystem::remove(path);
  ASSERT_TRUE(s.ok()) << s.error().message;
  EXPECT_EQ(c.capture().header.channels.size(), 8u);
  EXPECT_EQ(c.capture().header.samplerate, 1e6);
  EXPECT_EQ(c.capture().sample_count(), 20000u);
  // Gray code: consecutive samples differ in exactly one bit.
  int one_bit_steps = 0;
  for (std::uint64_t i = 1; i < 100; ++i)
    one_bit_steps += std::popcount(c.capture().sample(i) ^ c.capture().sample(i - 1)) == 1;
  EXPECT_EQ(one_bit_steps, 99);
}

TEST(SigrokAcquisition, SuggestsTheClosestDriverName) {
  SigrokAcquisition a;
  a.driver = "demoo";
  a.limit_samples = 10;
  CaptureCollector c;
  Status s = sigrok_acquire(a, c);
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.error().message, "no sigrok driver 'demoo' (did you mean 'demo'?)");
}

TEST(TruncatedCaptures, AreRefusedWithAClearError) {
  // A session file cut in half.
  Capture cap;
  cap.header.channels = {"CK", "CS"};
  cap.header.samplerate = 1e6;
  cap.header.unitsize = 1;
  for (int i = 0; i < 100000; ++i) cap.data.push_back(static_cast<std::uint8_t>((i / 3) & 3));
  std::string path = (std::filesystem::temp_directory_path() / "harness_truncated.sr").string();
  {
    SrWriter w(path);
    ASSERT_TRUE(cap.replay(w).ok());
  }
  std::filesystem::resize_file(path, std::filesystem::file_size(path) / 2);
  CaptureSummary sink;
  Status s = read_sr(path, sink);
  std::filesystem::remove(path);
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.error().message,
            path + ": no ZIP end of central directory record: not a sigrok session file, or truncated");
  // A VCD cut inside its header.
  CaptureSummary vcd_sink;
  s = read_vcd("$timescale 1ns $end\n$var wire 1 ! CK $end\n", "cut.vcd", {}, vcd_sink);
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.error().message, "cut.vcd:3: no $enddefinitions: not a VCD file, or truncated");
}

TEST(SigrokAcquisition, StopsWhenAsked) {
  SigrokAcquisition a;
  a.driver = "demo";
  a.samplerate = 1e6;
  a.limit_samples = 100'000'000;  // 100 s of real time if it did not stop
  int polls = 0;
  a.should_stop = [&] { return ++polls > 3; };
  CaptureSummary sink;
  Status s = sigrok_acquire(a, sink);
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.error().message, "interrupted");
  EXPECT_LT(sink.sample_count(), 100'000'000u);
}

TEST(SaleaeCsvReader, RefusesTimestampsBeyondAnyCapture) {
  CaptureSummary sink;
  ReadOptions o;
  o.samplerate = 1e9;
  Status s = read_saleae_csv("Time [s],CK\n0.0,0\n1e9,1\n", "x.csv", o, sink);
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.error().message,
            "x.csv: the timestamps span 1000000000000000001 samples at 1 GHz, more than the reader limit samples = "
            "4294967296 samples");
}

// Issue 18: decoding a .sr inflated on any number of threads gives the same
// commands and bus timing, whatever the chunking of the file.
TEST(SrReader, DecodesTheSameOnAnyNumberOfThreads) {
  using namespace ddr;
  Result<std::vector<Command>> trace = generate_traffic(Standard::lpddr4, "mixed", 40000, 3);
  ASSERT_TRUE(trace.ok());
  const SynthOptions so{.standard = Standard::lpddr4, .samples_per_clock = 8, .jitter = 1};
  const std::string path =
      (std::filesystem::temp_directory_path() / fmt::format("harness_jobs_{}.sr", ::getpid())).string();
  {
    SrWriter w(path, 100000);  // ~7 chunk entries, none ending on a block border
    ASSERT_TRUE(synthesize(*trace, so, w).ok());
  }
  DecodeOptions d;
  d.standard = Standard::lpddr4;
  std::optional<BusTiming> reference;
  for (unsigned jobs : {1u, 2u, 3u, 0u}) {
    SCOPED_TRACE(jobs);
    ReadOptions r;
    r.jobs = jobs;
    CommandCollector got;
    Result<BusTiming> t = decode_capture_file(path, r, d, got);
    ASSERT_TRUE(t.ok()) << t.error().message;
    EXPECT_TRUE(got.commands == *trace);
    if (!reference) reference = *t;
    EXPECT_EQ(t->samples, reference->samples);
    EXPECT_EQ(t->cycles, reference->cycles);
    EXPECT_EQ(t->tck, reference->tck);
    EXPECT_EQ(t->strobes.toggles, reference->strobes.toggles);
    EXPECT_EQ(t->strobes.bursts, reference->strobes.bursts);
    EXPECT_EQ(t->dqs_timeline, reference->dqs_timeline);
  }
  std::filesystem::remove(path);
}

}  // namespace
}  // namespace harness
