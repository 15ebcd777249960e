// Hostile inputs of a few bytes against the reader limits: each is refused
// with the file and the limit named, before the memory or time it declares
// is spent. (The .sr cases are in srzip_reader_test.cc, beside the ZIP
// writer they need.)
#include "probes/capture/limits.h"

#include <cstring>
#include <filesystem>
#include <fstream>

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include "probes/capture/readers.h"
#include "probes/capture/state_listing.h"
#include "probes/capture/test_support.h"

namespace harness {
namespace {

using capture_test::put;
using capture_test::saleae_v0;

std::string error_of(const Status& s) { return s ? std::string("no error") : s.error().message; }

// Why the VCD text `vcd`, read as the file `name`, is refused.
std::string vcd_error(const std::string& vcd, const std::string& name, const ReadOptions& o = {}) {
  CaptureSummary sink;
  return error_of(read_vcd(vcd, name, o, sink));
}

TEST(ReaderLimits, SetReaderLimitParsesNamesAndValues) {
  ReaderLimits l;
  ASSERT_TRUE(set_reader_limit(l, "samples=8Gi").ok());
  EXPECT_EQ(l.samples, std::uint64_t{8} << 30);
  ASSERT_TRUE(set_reader_limit(l, "changes=2^30").ok());
  EXPECT_EQ(l.changes, std::uint64_t{1} << 30);
  ASSERT_TRUE(set_reader_limit(l, "file_bytes=12345").ok());
  EXPECT_EQ(l.file_bytes, 12345u);
  EXPECT_EQ(error_of(set_reader_limit(l, "sample=1")),
            "unknown reader limit 'sample' (known: samples, file_bytes, signal_bits, declared_bits, changes, "
            "entry_bytes, inflated_bytes, in_memory_bytes)");
  EXPECT_EQ(error_of(set_reader_limit(l, "samples=0")),
            "reader limit samples: '0' is not a positive whole number (e.g. 8589934592, 8Gi, 2^33)");
  EXPECT_EQ(error_of(set_reader_limit(l, "samples=17000000Ti")),
            "reader limit samples: '17000000Ti' is not a positive whole number (e.g. 8589934592, 8Gi, 2^33)");
  EXPECT_EQ(error_of(set_reader_limit(l, "samples")),
            "reader limit 'samples': expected NAME=VALUE (samples, file_bytes, signal_bits, declared_bits, changes, "
            "entry_bytes, inflated_bytes, in_memory_bytes)");
}

// The 80-byte VCD of issue 14: a 2e9-bit wire used to abort in std::bad_alloc.
TEST(ReaderLimits, VcdWithAHugeWireIsRefusedBeforeNamingItsBits) {
  const std::string vcd = "$timescale 1ns $end $var wire 2000000000 ! w $end $enddefinitions $end #0 0! #1\n";
  ASSERT_LE(vcd.size(), 80u);
  EXPECT_EQ(vcd_error(vcd, "w.vcd"),
            "w.vcd:1: $var 'w' is 2000000000 bits wide, more than the reader limit signal_bits = 65536 bits");
  // Widths beyond 64 bits of integer too.
  EXPECT_EQ(vcd_error("$var wire 99999999999999999999999 ! w $end $enddefinitions $end #0\n", "w.vcd"),
            "w.vcd:1: $var 'w' is 99999999999999999999999 bits wide, more than the reader limit signal_bits = "
            "65536 bits");
  // Many variables of an allowed width add up.
  std::string many;
  for (int i = 0; i < 5; ++i) many += fmt::format("$var wire 60000 {} v{} $end\n", char('!' + i), i);
  EXPECT_EQ(vcd_error(many + "$enddefinitions $end #0\n", "m.vcd"),
            "m.vcd:5: the variables declared up to 'v4' hold 300000 bits, more than the reader limit declared_bits "
            "= 262144 bits");
}

// A timestamp far ahead: 2^40 samples used to be rendered one by one (about
// an hour); the span is refused before the sink sees a sample.
TEST(ReaderLimits, VcdSpanningTwoToTheFortySamplesIsRefused) {
  const std::string vcd = "$var wire 1 ! a $end $enddefinitions $end #0 0! #1 1! #1099511627776 0!\n";
  ASSERT_LE(vcd.size(), 90u);
  CaptureSummary sink;
  EXPECT_EQ(error_of(read_vcd(vcd, "s.vcd", {}, sink)),
            "s.vcd: the timestamps span 1099511627777 samples at 1 GHz, more than the reader limit samples = "
            "4294967296 samples");
  EXPECT_EQ(sink.sample_count(), 0u);
  // Exactly at a (lowered) limit it reads; one more is refused.
  ReadOptions o;
  o.limits.samples = 1 << 20;
  const std::string at_limit = fmt::format("$var wire 1 ! a $end $enddefinitions $end #0 0! #1 1! #{} 0!\n",
                                           (1 << 20) - 1);
  ASSERT_TRUE(read_vcd(at_limit, "s.vcd", o, sink).ok());
  EXPECT_EQ(sink.sample_count(), 1u << 20);
  const std::string past = fmt::format("$var wire 1 ! a $end $enddefinitions $end #0 0! #1 1! #{} 0!\n", 1 << 20);
  EXPECT_EQ(error_of(read_vcd(past, "s.vcd", o, sink)),
            "s.vcd: the timestamps span 1048577 samples at 1 GHz, more than the reader limit samples = 1048576 "
            "samples");
  // A timestamp past any limit (the index saturates).
  EXPECT_EQ(error_of(read_vcd("$var wire 1 ! a $end $enddefinitions $end #0 0! #1 1! #18446744073709551615 0!\n",
                              "s.vcd", {}, sink)),
            "s.vcd: the timestamps span more than 2^62 samples at 1 GHz, more than the reader limit samples = "
            "4294967296 samples");
}

TEST(ReaderLimits, VcdChangesAreBounded) {
  ReadOptions o;
  o.limits.changes = 5;
  CaptureSummary sink;
  const std::string vcd = "$var wire 1 ! a $end $enddefinitions $end\n#0 0!\n#1 1!\n#2 0!\n";
  EXPECT_EQ(error_of(read_vcd(vcd, "c.vcd", o, sink)),
            "c.vcd:4: more value changes and timestamps, more than the reader limit changes = 5 changes");
  o.limits.changes = 6;
  EXPECT_TRUE(read_vcd(vcd, "c.vcd", o, sink).ok());
}

TEST(ReaderLimits, SaleaeCsvSpanningTwoToTheFortySamplesIsRefused) {
  const std::string csv = "Time [s],a\n0,0\n1e-9,1\n1100,0\n";
  CaptureSummary sink;
  EXPECT_EQ(error_of(read_saleae_csv(csv, "c.csv", {}, sink)),
            "c.csv: the timestamps span 1100000000001 samples at 1 GHz, more than the reader limit samples = "
            "4294967296 samples");
  ReadOptions o;
  o.limits.changes = 2;
  EXPECT_EQ(error_of(read_saleae_csv(csv, "c.csv", o, sink)),
            "c.csv:4: more rows, more than the reader limit changes = 2 changes");
  EXPECT_EQ(sink.sample_count(), 0u);
}

TEST(ReaderLimits, SaleaeBinarySpanningTwoToTheFortySamplesIsRefused) {
  const std::string b = saleae_v0(0, 0.0, 1100.0, {1e-9});
  ASSERT_LE(b.size(), 60u);
  CaptureSummary sink;
  EXPECT_EQ(error_of(read_saleae_binary({{"digital_0", "digital_0.bin", b}}, {}, sink)),
            "digital_0.bin: the timestamps span 1100000000000 samples at 1 GHz, more than the reader limit samples "
            "= 4294967296 samples");
  ReadOptions o;
  o.limits.changes = 1;
  EXPECT_EQ(error_of(read_saleae_binary({{"digital_0", "digital_0.bin", b}}, o, sink)),
            "digital_0.bin: 2 transitions in the files up to this one, more than the reader limit changes = 1 "
            "changes");
  EXPECT_EQ(sink.sample_count(), 0u);
}

TEST(ReaderLimits, StateListingRowFarAheadIsRefused) {
  Result<StateListing> l = parse_state_listing("time_s,edge,CS\n0,R,0\n1,R,1\n2,R,0\n3e9,R,1\n", "l.txt");
  ASSERT_TRUE(l.ok()) << l.error().message;
  CaptureSummary sink;
  EXPECT_EQ(error_of(render_state_listing(*l, 8, sink, "l.txt", {})),
            "l.txt: the timestamps span 24000000009 samples at 8 Hz, more than the reader limit samples = "
            "4294967296 samples");
}

TEST(ReaderLimits, WholeFileReadsAreBoundedBeforeReading) {
  const std::string path =
      (std::filesystem::temp_directory_path() / fmt::format("harness_limits_{}.vcd", getpid())).string();
  std::ofstream(path) << std::string(100, ' ');
  ReadOptions o;
  o.limits.file_bytes = 99;
  CaptureSummary sink;
  EXPECT_EQ(error_of(read_capture(path, o, sink)),
            path + ": 100 bytes to read, more than the reader limit file_bytes = 99 bytes");
  std::filesystem::remove(path);
  Result<std::string> device = read_input_file("/dev/null", {});
  ASSERT_FALSE(device.ok());
  EXPECT_EQ(device.error().message, "/dev/null: is a device, not a regular file");
}

// A FIFO named as a capture (no writer: opening it would wait forever) is
// refused before anything opens it, whatever its name says.
TEST(ReaderLimits, AFifoIsRefusedWithoutBlocking) {
  for (const char* name : {"fifo", "fifo.vcd", "fifo.csv"}) {
    const std::string path =
        (std::filesystem::temp_directory_path() / fmt::format("harness_limits_{}_{}", getpid(), name)).string();
    std::filesystem::remove(path);
    ASSERT_EQ(::mkfifo(path.c_str(), 0600), 0) << std::strerror(errno);
    CaptureSummary sink;
    EXPECT_EQ(error_of(read_capture(path, {}, sink)), path + ": is a FIFO, not a regular file");
    Result<std::string> format = detect_capture_format(path);
    ASSERT_FALSE(format.ok());
    EXPECT_EQ(format.error().message, path + ": is a FIFO, not a regular file");
    std::filesystem::remove(path);
  }
}

TEST(ReaderLimits, InMemoryCollectorRefusesADeclaredCaptureBeforeAllocating) {
  ReaderLimits limits;
  limits.in_memory_bytes = 1000;
  CaptureCollector c("x.sr", limits);
  CaptureHeader h;
  h.channels = {"a", "b", "c", "d", "e", "f", "g", "h", "i"};
  h.unitsize = 2;
  h.declared_samples = 501;
  EXPECT_EQ(error_of(c.begin(h)),
            "x.sr: 501 samples of 2 bytes to load into memory, more than the reader limit in_memory_bytes = 1000 "
            "bytes; without --in-memory the capture is decoded as it streams, in bounded memory");
  // Undeclared: refused when the samples reach the limit.
  h.declared_samples.reset();
  ASSERT_TRUE(c.begin(h).ok());
  std::vector<std::uint8_t> data(1002);
  ASSERT_TRUE(c.samples(data.data(), 500).ok());
  EXPECT_EQ(error_of(c.samples(data.data(), 1)),
            "x.sr: the samples loaded into memory reach 1002 bytes, more than the reader limit in_memory_bytes = "
            "1000 bytes; without --in-memory the capture is decoded as it streams, in bounded memory");
}

}  // namespace
}  // namespace harness
