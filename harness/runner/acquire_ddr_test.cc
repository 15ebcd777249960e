// The live level-3 path with a real libsigrok driver (demo): the capture is
// kept as a file with its sha256, and the analysis reads that file. The demo
// device carries no DDR bus, so the analysis says so instead of inventing
// numbers.
// Harness headers first: <signal.h> (pulled in by gtest) defines si_value,
// a parameter name in units.h.
#include "harness/base/digest.h"
#include "harness/levels/ddr.h"
#include "harness/runner/acquire.h"
#include "probes/clock.h"

#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <optional>
#include <thread>

#include <gtest/gtest.h>

#include "tests/support/scratch_dir.h"

namespace harness {
namespace {

TEST(AcquireDdr, RecordsADemoCaptureAndAnalysisReportsWhyItCannotDecodeIt) {
  auto dir = std::filesystem::temp_directory_path() / "harness_acquire_ddr";
  std::filesystem::remove_all(dir);
  std::string text =
      "[scenario]\nname = \"t\"\n[rig]\nname = \"r\"\n[workload]\nname = \"w\"\nbuiltin = \"gemm\"\n"
      "m = 8\nn = 8\nk = 8\n[ddr]\nstandard = \"lpddr4\"\n[ddr.acquire]\ndriver = \"demo\"\n"
      "samplerate = \"1 MHz\"\nsamples = 20000\npattern = \"walking-one\"\n";
  Result<Scenario> s = parse_scenario(text, "t.toml");
  ASSERT_TRUE(s.ok()) << s.error().message;
  MonotonicClock clock;
  AcquireContext ctx{*s, clock, {}, dir.string()};
  DdrRecording rec;
  Status st = acquire_ddr(ctx, rec);
  ASSERT_TRUE(st.ok()) << st.error().message;
  EXPECT_EQ(rec.source, "sigrok:demo");
  EXPECT_EQ(rec.unavailable, "");
  EXPECT_EQ(rec.capture, "ddr/capture.sr");
  const std::string path = (dir / rec.capture).string();
  ASSERT_TRUE(std::filesystem::exists(path));
  EXPECT_EQ(rec.sha256, *sha256_file(path));
  EXPECT_EQ(rec.size, std::filesystem::file_size(path));
  Analysis a;
  analyse_ddr(*s, &rec, dir.string(), Provenance::measured, a);
  const Metric* m = a.find_metric("ddr.bytes");
  ASSERT_TRUE(m);
  EXPECT_FALSE(m->value);
  EXPECT_EQ(m->unavailable,
            "capture not decodable: " + path +
                ": the capture has no channel 'CK' for lpddr4 CK (did you mean 'D0'?) (channels: D0, D1, D2, D3, D4, "
                "D5, D6, D7); map roles to channels in [ddr.channels] (capture decode: --map CK=CHANNEL); if CK was "
                "not probed, list the roles that were with --probed (scenario: probed = [...]): fields on the others "
                "are reported unknown");
  std::filesystem::remove_all(dir);
}

Scenario window_scenario(const std::string& acquire_keys) {
  std::string text =
      "[scenario]\nname = \"t\"\n[rig]\nname = \"r\"\n[workload]\nname = \"w\"\nbuiltin = \"gemm\"\n"
      "m = 8\nn = 8\nk = 8\n[ddr]\nstandard = \"lpddr4\"\n[ddr.acquire]\ndriver = \"demo\"\n"
      "samplerate = \"100 kHz\"\nduration = \"60 s\"\n" + acquire_keys;
  Result<Scenario> s = parse_scenario(text, "t.toml");
  EXPECT_TRUE(s.ok()) << s.error().message;
  return *s;
}

// A window's capture by the demo driver, its file in the test's folder.
class AcquireWindow : public testing_support::ScratchDirTest {
 protected:
  WindowCapture& open(const std::string& acquire_keys) {
    scenario_ = window_scenario(acquire_keys);
    context_.emplace(AcquireContext{scenario_, clock_, {}, dir_.string()});
    return capture_.emplace(*context_, rec_);
  }

  Scenario scenario_;
  MonotonicClock clock_;
  std::optional<AcquireContext> context_;
  DdrRecording rec_;
  std::optional<WindowCapture> capture_;
};

TEST_F(AcquireWindow, IsSamplingWhenStartReturnsAndCoversUntilFinish) {
  WindowCapture& capture = open("pattern = \"walking-one\"\n");
  ASSERT_TRUE(capture.start());
  const std::uint64_t window_start = clock_.now_ns();
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  const std::uint64_t window_end = clock_.now_ns();
  ASSERT_TRUE(capture.finish());
  EXPECT_EQ(rec_.unavailable, "");
  EXPECT_EQ(rec_.capture, "ddr/capture.sr");
  EXPECT_LE(capture.first_sample_ns(), window_start);
  EXPECT_GE(capture.last_sample_ns(), window_end);
}

TEST_F(AcquireWindow, ATriggerThatNeverFiresStillEndsWithTheWindow) {
  WindowCapture& capture = open("pattern = \"all-low\"\ntrigger = \"D0=1\"\n");
  const auto t0 = std::chrono::steady_clock::now();
  ASSERT_TRUE(capture.start());  // armed: waiting for the trigger
  Status finished = capture.finish();
  ASSERT_TRUE(finished) << finished.error().message;
  EXPECT_LT(std::chrono::steady_clock::now() - t0, std::chrono::seconds(5));
  EXPECT_EQ(capture.first_sample_ns(), 0u);
  EXPECT_EQ(rec_.unavailable, "the analyzer's trigger (D0=1) did not fire during the window");
}

}  // namespace
}  // namespace harness
