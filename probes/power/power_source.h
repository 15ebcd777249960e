// Power sources sampled over a measured window. One interface, one table of
// implementations (kPowerSources in power_source.cc):
//   rapl   powercap/RAPL energy_uj counters (wrap-around at max_energy_range_uj)
//   hwmon  hwmon energy*_input (uJ) or power*_input (uW)
//   meter  an external command printing "<n> W" or "<n> J" lines (or bare numbers with a unit)
//   trace  a CSV recorded by an external logger: "unix_time_s,watts" rows
//   sigrok a libsigrok multimeter, power-supply or energy-meter driver's analog
//          channels, acquired on a thread during the window (sigrok_power.h)
// Sysfs sources are read on a Boost.Asio timer started at the window's start,
// with a last reading at its end.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "harness/base/result.h"

namespace harness {

// Where power comes from while a measured window runs: the settings of
// [latency.power] (parsed in harness/scenario/parse_latency.cc).
struct PowerConfig {
  std::string source = "none";     // "none", "auto", "rapl", "hwmon", "meter", "trace", "sigrok"
  double interval_s = 0.1;         // sampling period of sysfs sources; sigrok: the averaging block
  std::string root;                // sysfs root; empty: /sys/class/powercap or /sys/class/hwmon
  std::string sensor;              // hwmon: "hwmon0/power1_input"; empty: the first found
  std::vector<std::string> command;  // meter: argv of a command printing "<n> W" or "<n> J" lines
  std::string unit;                // meter: unit of bare numbers ("W" or "J"); empty: lines carry it
  std::string file;                // trace: CSV "unix_time_s,watts" recorded by an external logger
  std::string driver;              // sigrok: libsigrok driver name ("demo", "fluke-dmm")
  std::string connection;          // sigrok: its "conn" scan option ("/dev/ttyUSB0"); empty: none
  std::vector<std::string> channels;  // sigrok: one power or energy channel, or a voltage and a current channel
  double samplerate = 0;           // sigrok: Hz, for drivers with a settable rate; 0: 1 kHz there
  std::string read_as;             // sigrok test override: "power" takes the one channel's readings as watts
};

// What a source saw during one window: raw readings with times from the
// window's start. Energy readings are cumulative joules (already unwrapped).
struct PowerTrace {
  std::string source;    // "rapl:/sys/class/powercap (intel-rapl:0)"
  std::string quantity;  // "power" (W) or "energy" (J)
  std::vector<double> t_s;
  std::vector<double> value;
  std::string unavailable;  // set when the source failed during the window
  std::uint64_t start_ns = 0;  // host CLOCK_MONOTONIC time of t = 0 (set in begin())
};

class PowerRecorder {
 public:
  virtual ~PowerRecorder() = default;
  virtual const std::string& describe() const = 0;
  virtual Status begin() = 0;       // the measured window starts now
  virtual PowerTrace end() = 0;     // and ends now
  // The host CLOCK_MONOTONIC time of the latest reading so far in this
  // window, 0 before the first. A runner waits for a first reading before
  // the workload starts and for one past its end before end(), so that the
  // trace covers the workload (a streaming meter's readings come late, and
  // a packet may close several averaged readings at once).
  virtual std::uint64_t covered_until_ns() = 0;
};

// A source of the table, opened. `recorder` is null when the machine has no
// such source; `unavailable` then says why (not an error: power is optional).
struct PowerOpen {
  std::unique_ptr<PowerRecorder> recorder;
  std::string unavailable;
};

// Errors are for a bad configuration (a meter command that does not exist).
Result<PowerOpen> open_power_source(const PowerConfig& config);

// The names of the table, for messages and the README.
std::vector<std::string> power_source_names();

// A counter's increase between two raw readings, across one wrap at `range`.
inline unsigned long long counter_delta(unsigned long long previous, unsigned long long current,
                                        unsigned long long range) {
  return current >= previous ? current - previous : range - previous + current;
}

}  // namespace harness
