#include "probes/power/sigrok_power.h"

#include <algorithm>
#include <chrono>
#include <thread>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "probes/clock.h"

namespace harness {
namespace {

AnalogChunk chunk(std::string channel, std::string quantity, std::string unit, double arrival_s, double period_s,
                  std::vector<float> values) {
  return AnalogChunk{std::move(channel), std::move(quantity), std::move(unit), arrival_s, period_s,
                     std::move(values)};
}

AnalogPowerOptions options(std::vector<std::string> channels, std::string read_as = "") {
  AnalogPowerOptions o;
  o.source = "sigrok:demo " + channels.front();
  o.channels = std::move(channels);
  o.read_as = std::move(read_as);
  o.block_s = 0.1;
  return o;
}

// ---- the analog-to-power series, with made-up packets --------------------

TEST(SigrokPowerSeries, APowerChannelIsAveragedOverBlocks) {
  AnalogPowerSeries s(options({"P"}));
  // 20 readings 10 ms apart, the last arriving at 0.195 s: two blocks.
  std::vector<float> v(20, 3.0f);
  for (int i = 10; i < 20; ++i) v[i] = 5.0f;
  s.add(chunk("P", "power", "watt", 0.195, 0.01, v));
  PowerTrace t = s.finish();
  EXPECT_EQ(t.unavailable, "");
  EXPECT_EQ(t.quantity, "power");
  ASSERT_EQ(t.value.size(), 2u);
  EXPECT_DOUBLE_EQ(t.value[0], 3.0);
  EXPECT_DOUBLE_EQ(t.value[1], 5.0);
  EXPECT_NEAR(t.t_s[0], 0.05, 1e-9);
  EXPECT_NEAR(t.t_s[1], 0.15, 1e-9);
}

TEST(SigrokPowerSeries, AVoltageAndACurrentChannelAreMultipliedReadingByReading) {
  AnalogPowerSeries s(options({"V", "I"}));
  s.add(chunk("V", "voltage", "volt", 0.02, 0.01, {12, 12, 12}));
  s.add(chunk("I", "current", "ampere", 0.021, 0.01, {0.5f, 0.25f}));
  s.add(chunk("I", "current", "ampere", 0.03, 0.01, {1}));
  PowerTrace t = s.finish();
  EXPECT_EQ(t.unavailable, "");
  EXPECT_EQ(t.quantity, "power");
  ASSERT_EQ(t.value.size(), 1u);
  EXPECT_DOUBLE_EQ(t.value[0], (6.0 + 3.0 + 12.0) / 3);
}

TEST(SigrokPowerSeries, WattHoursAreCumulativeJoules) {
  AnalogPowerSeries s(options({"E"}));
  s.add(chunk("E", "power", "watt hour", 0.05, 0, {1.0f}));
  s.add(chunk("E", "power", "watt hour", 0.15, 0, {1.5f}));
  PowerTrace t = s.finish();
  EXPECT_EQ(t.quantity, "energy");
  EXPECT_THAT(t.value, testing::ElementsAre(3600.0, 5400.0));
}

TEST(SigrokPowerSeries, AChannelMeasuringAnotherQuantityIsRefusedByName) {
  AnalogPowerSeries s(options({"A2"}));
  s.add(chunk("A2", "frequency", "hertz", 0.1, 0, {50}));
  PowerTrace t = s.finish();
  EXPECT_EQ(t.unavailable, "sigrok:demo A2: channel A2 measures frequency (hertz), not power, energy, voltage or current");
  EXPECT_TRUE(t.value.empty());
}

TEST(SigrokPowerSeries, OneVoltageChannelAloneIsNotPower) {
  AnalogPowerSeries s(options({"A0"}));
  s.add(chunk("A0", "voltage", "volt", 0.1, 0, {5}));
  EXPECT_EQ(s.finish().unavailable,
            "sigrok:demo A0: channel A0 measures voltage: a single channel must measure power or energy; name a "
            "voltage and a current channel to multiply them");
}

TEST(SigrokPowerSeries, ReadingsStayBoundedOverALongWindow) {
  AnalogPowerOptions o = options({"P"});
  o.block_s = 0.01;
  o.max_readings = 8;
  AnalogPowerSeries s(o);
  // 10 s at 1 kHz in 100 ms packets.
  for (int p = 1; p <= 100; ++p) s.add(chunk("P", "power", "watt", p * 0.1, 0.001, std::vector<float>(100, 2.0f)));
  PowerTrace t = s.finish();
  EXPECT_LE(t.value.size(), 8u);
  EXPECT_GE(t.value.size(), 4u);
  EXPECT_THAT(t.value, testing::Each(testing::DoubleNear(2.0, 1e-9)));
  EXPECT_TRUE(std::is_sorted(t.t_s.begin(), t.t_s.end()));
  EXPECT_LT(t.t_s.front(), 2.0);
  EXPECT_GT(t.t_s.back(), 8.0);
}

// ---- the real code path: libsigrok's demo driver ---------------------------
// The demo's analog channels measure volts only, so the window reads them as
// watts through the labelled test override read_as = "power".

PowerConfig demo(std::vector<std::string> channels, std::string read_as = "") {
  PowerConfig c;
  c.source = "sigrok";
  c.driver = "demo";
  c.channels = std::move(channels);
  c.read_as = std::move(read_as);
  c.interval_s = 0.01;
  return c;
}

TEST(SigrokPower, TheDemoDriversVoltsReadAsWattsCoverTheWindow) {
  Result<PowerOpen> open = open_power_source(demo({"A0"}, "power"));
  ASSERT_TRUE(open) << open.error().message;
  ASSERT_TRUE(open->recorder) << open->unavailable;
  EXPECT_EQ(open->recorder->describe(),
            "sigrok:demo A0 (read_as = \"power\": readings taken as watts, a test override)");
  const std::uint64_t before_ns = MonotonicClock().now_ns();
  ASSERT_TRUE(open->recorder->begin());
  const std::uint64_t after_begin_ns = MonotonicClock().now_ns();
  std::this_thread::sleep_for(std::chrono::milliseconds(350));
  PowerTrace t = open->recorder->end();
  const std::uint64_t after_end_ns = MonotonicClock().now_ns();

  EXPECT_EQ(t.unavailable, "");
  EXPECT_EQ(t.quantity, "power");
  EXPECT_EQ(t.source,
            "sigrok:demo A0 (read_as = \"power\": voltage readings in volt taken as watts, a test override, not a "
            "power measurement)");
  EXPECT_GE(t.start_ns, before_ns);
  EXPECT_LE(t.start_ns, after_begin_ns);
  ASSERT_FALSE(t.value.empty());
  ASSERT_EQ(t.t_s.size(), t.value.size());
  EXPECT_TRUE(std::is_sorted(t.t_s.begin(), t.t_s.end()));
  // The demo sends what is due every 100 ms, paced to real time, and each
  // packet's readings are dated back from its arrival at 1 kHz: they start
  // near the window's start and reach into its last 200 ms (slack for a busy
  // machine), never past its end.
  const double window_s = static_cast<double>(after_end_ns - t.start_ns) * 1e-9;
  EXPECT_GE(t.t_s.front(), 0.0);
  EXPECT_LT(t.t_s.front(), 0.1);
  EXPECT_GT(t.t_s.back(), 0.15);
  EXPECT_LE(t.t_s.back(), window_s);
  EXPECT_GE(t.value.size(), 5u);  // 10 ms blocks
  // A square wave of amplitude 10 V, averaged over 10 ms blocks.
  EXPECT_THAT(t.value, testing::Each(testing::AllOf(testing::Ge(-10.0), testing::Le(10.0))));
}

TEST(SigrokPower, ARecorderServesOneWindowAfterAnother) {
  Result<PowerOpen> open = open_power_source(demo({"A1"}, "power"));
  ASSERT_TRUE(open && open->recorder);
  for (int window = 0; window < 2; ++window) {
    ASSERT_TRUE(open->recorder->begin());
    std::this_thread::sleep_for(std::chrono::milliseconds(150));
    PowerTrace t = open->recorder->end();
    EXPECT_EQ(t.unavailable, "") << "window " << window;
    EXPECT_FALSE(t.value.empty()) << "window " << window;
  }
}

TEST(SigrokPower, TwoDemoVoltageChannelsAreNotVoltageTimesCurrent) {
  Result<PowerOpen> open = open_power_source(demo({"A0", "A1"}));
  ASSERT_TRUE(open && open->recorder);
  ASSERT_TRUE(open->recorder->begin());
  std::this_thread::sleep_for(std::chrono::milliseconds(150));
  PowerTrace t = open->recorder->end();
  EXPECT_EQ(t.unavailable, "sigrok:demo A0*A1 (voltage times current): channels A0 and A1 both measure voltage; one "
                           "must measure voltage and the other current");
}

TEST(SigrokPower, AKnownDriverWithoutADeviceIsUnavailable) {
  PowerConfig c = demo({"P1"});
  c.driver = "fluke-dmm";
  c.connection = "/dev/harness-no-such-tty";
  Result<PowerOpen> open = open_power_source(c);
  ASSERT_TRUE(open) << open.error().message;
  EXPECT_FALSE(open->recorder);
  EXPECT_EQ(open->unavailable, "sigrok driver fluke-dmm: no device found at '/dev/harness-no-such-tty'");
}

TEST(SigrokPower, AnUnknownDriverIsBadInputWithASuggestion) {
  PowerConfig c = demo({"A0"});
  c.driver = "demoo";
  Result<PowerOpen> open = open_power_source(c);
  ASSERT_FALSE(open);
  EXPECT_EQ(open.error().code, ExitCode::bad_input);
  EXPECT_EQ(open.error().message, "latency.power: no sigrok driver 'demoo' (did you mean 'demo'?)");
}

TEST(SigrokPower, AWrongChannelNameListsTheAnalogChannels) {
  Result<PowerOpen> open = open_power_source(demo({"B0"}, "power"));
  ASSERT_FALSE(open);
  EXPECT_EQ(open.error().code, ExitCode::bad_input);
  EXPECT_EQ(open.error().message,
            "latency.power: sigrok driver demo: no channel 'B0' (did you mean 'A0'?); its analog channels: A0, A1, A2, "
            "A3, A4");
  Result<PowerOpen> logic = open_power_source(demo({"D0"}, "power"));
  ASSERT_FALSE(logic);
  EXPECT_EQ(logic.error().message,
            "latency.power: sigrok driver demo: channel 'D0' is not an analog channel; its analog channels: A0, A1, "
            "A2, A3, A4");
}

}  // namespace
}  // namespace harness
