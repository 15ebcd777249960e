#include "probes/power/power_source.h"

#include <filesystem>
#include <fstream>
#include <iomanip>
#include <thread>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "probes/clock.h"

namespace harness {
namespace {

namespace fs = std::filesystem;

// A fake sysfs tree in a fresh temporary folder.
class FakeSysfs {
 public:
  FakeSysfs() {
    root_ = fs::temp_directory_path() / ("harness-power-" + std::to_string(::getpid()) + "-" +
                                         testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(root_);
    fs::create_directories(root_);
  }
  ~FakeSysfs() { fs::remove_all(root_); }
  // Written whole and renamed into place, as a sysfs read never sees half a value.
  void write(const std::string& rel, const std::string& text) {
    fs::path p = root_ / rel;
    fs::create_directories(p.parent_path());
    std::ofstream(p.string() + ".new") << text << "\n";
    fs::rename(p.string() + ".new", p);
  }
  std::string root() const { return root_.string(); }

 private:
  fs::path root_;
};

PowerConfig config(const std::string& source, const std::string& root) {
  PowerConfig c;
  c.source = source;
  c.root = root;
  c.interval_s = 0.01;
  return c;
}

TEST(PowerSource, CounterDeltaWrapsAtTheRange) {
  EXPECT_EQ(counter_delta(100, 250, 1000), 150u);
  EXPECT_EQ(counter_delta(900, 100, 1000), 200u);
  EXPECT_EQ(counter_delta(262143328850ull, 5000ull, 262143328850ull), 5000u);
}

TEST(PowerSource, RaplEnergyIsUnwrappedAcrossMaxEnergyRange) {
  FakeSysfs sys;
  sys.write("intel-rapl:0/max_energy_range_uj", "1000000");
  sys.write("intel-rapl:0/energy_uj", "900000");
  sys.write("intel-rapl:0:0/energy_uj", "5");  // a subzone: counted within its package
  Result<PowerOpen> open = open_power_source(config("rapl", sys.root()));
  ASSERT_TRUE(open);
  ASSERT_TRUE(open->recorder) << open->unavailable;
  EXPECT_EQ(open->recorder->describe(), "rapl:" + sys.root() + " (intel-rapl:0)");
  ASSERT_TRUE(open->recorder->begin());
  std::this_thread::sleep_for(std::chrono::milliseconds(30));
  sys.write("intel-rapl:0/energy_uj", "950000");
  std::this_thread::sleep_for(std::chrono::milliseconds(30));
  sys.write("intel-rapl:0/energy_uj", "100000");  // wrapped: 0.05 J, then 0.05 J + 0.1 J
  std::this_thread::sleep_for(std::chrono::milliseconds(30));
  PowerTrace t = open->recorder->end();
  EXPECT_EQ(t.unavailable, "");
  EXPECT_EQ(t.quantity, "energy");
  ASSERT_GE(t.value.size(), 2u);
  EXPECT_DOUBLE_EQ(t.value.front(), 0);
  EXPECT_NEAR(t.value.back(), 0.2, 1e-12);
  EXPECT_TRUE(std::is_sorted(t.value.begin(), t.value.end()));
  EXPECT_TRUE(std::is_sorted(t.t_s.begin(), t.t_s.end()));
}

TEST(PowerSource, NoRaplZoneIsUnavailableNotAnError) {
  FakeSysfs sys;
  Result<PowerOpen> open = open_power_source(config("rapl", sys.root()));
  ASSERT_TRUE(open);
  EXPECT_FALSE(open->recorder);
  EXPECT_EQ(open->unavailable, "no powercap/RAPL zone under " + sys.root());
}

TEST(PowerSource, HwmonPowerInputIsReadInWatts) {
  FakeSysfs sys;
  sys.write("hwmon0/temp1_input", "41000");
  sys.write("hwmon1/power1_input", "5500000");
  Result<PowerOpen> open = open_power_source(config("hwmon", sys.root()));
  ASSERT_TRUE(open && open->recorder) << (open ? open->unavailable : open.error().message);
  ASSERT_TRUE(open->recorder->begin());
  std::this_thread::sleep_for(std::chrono::milliseconds(30));
  PowerTrace t = open->recorder->end();
  EXPECT_EQ(t.source, "hwmon:" + sys.root() + "/hwmon1/power1_input");
  EXPECT_EQ(t.quantity, "power");
  EXPECT_THAT(t.value, testing::Each(5.5));
}

TEST(PowerSource, ARecorderServesOneWindowAfterAnother) {
  FakeSysfs sys;
  sys.write("hwmon0/power1_input", "2000000");
  Result<PowerOpen> open = open_power_source(config("hwmon", sys.root()));
  ASSERT_TRUE(open && open->recorder);
  ASSERT_TRUE(open->recorder->begin());
  std::this_thread::sleep_for(std::chrono::milliseconds(30));
  PowerTrace first = open->recorder->end();
  sys.write("hwmon0/power1_input", "3000000");
  ASSERT_TRUE(open->recorder->begin());
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  PowerTrace second = open->recorder->end();
  EXPECT_THAT(first.value, testing::Each(2.0));
  EXPECT_GE(second.value.size(), 3u);  // the timer runs again in the second window
  EXPECT_THAT(second.value, testing::Each(3.0));
}

TEST(PowerSource, AutoPrefersRaplThenHwmonAndSaysWhyWhenNeither) {
  FakeSysfs sys;
  Result<PowerOpen> none = open_power_source(config("auto", sys.root()));
  ASSERT_TRUE(none);
  EXPECT_EQ(none->unavailable, "no powercap/RAPL zone under " + sys.root() + "/powercap; no hwmon power or energy "
                               "sensor under " + sys.root() + "/hwmon");
  sys.write("hwmon/hwmon0/energy1_input", "1000");
  Result<PowerOpen> hwmon = open_power_source(config("auto", sys.root()));
  ASSERT_TRUE(hwmon && hwmon->recorder);
  EXPECT_EQ(hwmon->recorder->describe(), "hwmon:" + sys.root() + "/hwmon/hwmon0/energy1_input");
}

PowerTrace run_meter(const std::string& mode, const std::string& unit = "") {
  PowerConfig c;
  c.source = "meter";
  c.command = {HARNESS_SOURCE_DIR "/tests/tools/scripted_meter.sh", mode};
  c.unit = unit;
  Result<PowerOpen> open = open_power_source(c);
  EXPECT_TRUE(open && open->recorder);
  EXPECT_TRUE(open->recorder->begin());
  std::this_thread::sleep_for(std::chrono::milliseconds(250));
  return open->recorder->end();
}

TEST(PowerSource, AScriptedMeterPrintingWatts) {
  PowerTrace t = run_meter("watts");
  EXPECT_EQ(t.unavailable, "");
  EXPECT_EQ(t.quantity, "power");
  EXPECT_FALSE(t.value.empty());
  EXPECT_THAT(t.value, testing::Each(4.5));
}

TEST(PowerSource, AScriptedMeterPrintingCumulativeJoules) {
  PowerTrace t = run_meter("joules");
  EXPECT_EQ(t.quantity, "energy");
  ASSERT_GE(t.value.size(), 2u);
  EXPECT_EQ(t.value[0], 0);
  EXPECT_EQ(t.value[1], 2);
}

TEST(PowerSource, BareNumbersTakeTheDeclaredUnit) {
  PowerTrace t = run_meter("bare", "W");
  EXPECT_EQ(t.quantity, "power");
  EXPECT_THAT(t.value, testing::Each(7.25));
}

TEST(PowerSource, AMeterLineThatIsNotAReadingMakesPowerUnavailable) {
  PowerTrace t = run_meter("garbage");
  EXPECT_EQ(t.unavailable, "power meter " HARNESS_SOURCE_DIR
                           "/tests/tools/scripted_meter.sh: cannot read watts or joules from the line \"hello\"");
}

TEST(PowerSource, AMissingMeterIsAConfigurationError) {
  PowerConfig c;
  c.source = "meter";
  c.command = {"no-such-meter"};
  Result<PowerOpen> open = open_power_source(c);
  ASSERT_FALSE(open);
  EXPECT_EQ(open.error().message, "latency.power meter: command 'no-such-meter': not found in PATH");
}

TEST(PowerSource, ATraceKeepsTheRowsInsideTheWindow) {
  FakeSysfs dir;
  double now = std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
  std::string file = dir.root() + "/power.csv";
  std::ofstream(file) << std::fixed << std::setprecision(6) << "unix_time_s,watts\n" << now - 100 << ",1\n" << now + 0.05 << ",3\n" << now + 1000 << ",9\n";
  PowerConfig c;
  c.source = "trace";
  c.file = file;
  Result<PowerOpen> open = open_power_source(c);
  ASSERT_TRUE(open && open->recorder);
  ASSERT_TRUE(open->recorder->begin());
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  PowerTrace t = open->recorder->end();
  EXPECT_EQ(t.unavailable, "");
  EXPECT_THAT(t.value, testing::ElementsAre(3));
}

// Every kind dates its trace's t = 0 on the host's monotonic clock.
TEST(PowerSource, EveryTraceRecordsWhenItsWindowStarted) {
  FakeSysfs sys;
  sys.write("hwmon0/power1_input", "1000000");
  std::string csv = sys.root() + "/power.csv";
  std::ofstream(csv) << "unix_time_s,watts\n";
  PowerConfig hwmon = config("hwmon", sys.root());
  PowerConfig meter;
  meter.source = "meter";
  meter.command = {HARNESS_SOURCE_DIR "/tests/tools/scripted_meter.sh", "watts"};
  PowerConfig trace;
  trace.source = "trace";
  trace.file = csv;
  for (const PowerConfig& c : {hwmon, meter, trace}) {
    Result<PowerOpen> open = open_power_source(c);
    ASSERT_TRUE(open && open->recorder) << c.source;
    const std::uint64_t before = MonotonicClock().now_ns();
    ASSERT_TRUE(open->recorder->begin());
    const std::uint64_t after = MonotonicClock().now_ns();
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    PowerTrace t = open->recorder->end();
    EXPECT_GE(t.start_ns, before) << c.source;
    EXPECT_LE(t.start_ns, after) << c.source;
  }
}

}  // namespace
}  // namespace harness
