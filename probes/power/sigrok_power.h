// Power from a libsigrok multimeter, power-supply or energy-meter driver: the
// source kind "sigrok" of kPowerSources. Such drivers deliver analog packets,
// each carrying one channel's readings and the quantity it measured.
//
// Two parts: AnalogPowerSeries turns analog readings into a PowerTrace (pure,
// tested with made-up packets), and open_sigrok_power runs a libsigrok session
// on a thread for each measured window and feeds it (sigrok_power.cc, the
// only libsigrokcxx user of probes/power/).
#pragma once

#include <atomic>
#include <cstddef>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "harness/base/result.h"
#include "probes/power/power_source.h"

namespace harness {

// One analog packet as libsigrok delivered it, reduced to what power needs.
struct AnalogChunk {
  std::string channel;   // "A0"
  std::string quantity;  // libsigrok's measured quantity in words: "voltage", "power", "duty cycle"
  std::string unit;      // libsigrok's unit in words: "volt", "watt", "watt hour", "hertz"
  double arrival_s = 0;  // when the packet arrived, from the window's start (host clock)
  double period_s = 0;   // between two readings when the sample rate is known, else 0
  std::vector<float> values;
};

struct AnalogPowerOptions {
  std::string source;                 // "sigrok:demo A0": the trace's source text
  std::vector<std::string> channels;  // one power or energy channel, or a voltage and a current channel
  std::string read_as;                // "" or "power": test override, the one channel's readings taken as watts
  double block_s = 0.1;               // readings are averaged over blocks this long
  std::size_t max_readings = 10000;   // per window; beyond it blocks double in length
};

// Power readings from analog packets.
// - One channel measuring power (W) gives watts; one measuring energy gives
//   cumulative joules (libsigrok 0.5.2 has no energy quantity: energy meters
//   report watt-hours, whatever quantity they name).
// - A voltage and a current channel are multiplied reading by reading, in the
//   order they arrive (the drivers send both for every measurement cycle).
// - Any other quantity is refused, naming the channel and what it measures.
// Times: a packet's last reading is placed at its arrival, the ones before it
// one sample period apart (all at the arrival when the rate is unknown).
// Memory stays bounded for any window length and sample rate: readings are
// averaged over blocks of block_s (energy keeps each block's last counter
// value), and when max_readings blocks have been kept, neighbours are merged
// and the block length doubles.
class AnalogPowerSeries {
 public:
  explicit AnalogPowerSeries(AnalogPowerOptions options);

  void add(const AnalogChunk& chunk);
  // The window's readings are unusable; the first reason is kept.
  void fail(std::string reason);
  bool failed() const { return !unavailable_.empty(); }
  // The time (s) of the latest closed reading, negative before the first
  // (safe to read from another thread).
  double latest_s() const { return latest_s_.load(); }
  // source, quantity, t_s, value, unavailable (start_ns is the recorder's).
  PowerTrace finish();

 private:
  enum class Kind { power, energy, voltage, current };
  struct Block {
    double t_sum = 0, v_sum = 0, last_t = 0, last_v = 0;
    std::size_t n = 0;
  };
  void push(double t, double v);
  void close_block();
  void merge_neighbours();
  std::optional<Kind> kind_of(const AnalogChunk& chunk);

  AnalogPowerOptions options_;
  std::atomic<double> latest_s_{-1};
  std::string quantity_;  // "power" or "energy", once known
  std::map<std::string, Kind> kinds_;
  std::map<std::string, double> last_time_;
  // Voltage and current readings waiting for their partner (t, value);
  // bounded: a channel that runs ahead by more than kMaxPending drops its oldest.
  std::vector<std::pair<double, double>> pending_v_, pending_i_;
  double block_s_;
  double block_end_ = -1;
  Block open_;
  std::vector<double> t_s_, value_;
  std::vector<std::size_t> counts_;  // readings behind each kept block, for merging
  std::string unavailable_;
  std::string read_as_label_;  // "voltage (volt)" once the override has seen a reading
};

// The "sigrok" source: scans `driver` (at `connection`), checks the channels,
// opens the device. A driver libsigrok does not know, a missing channel or a
// sample rate the driver cannot take is a bad-input Error; a known driver
// that finds no device is unavailable (power is optional).
Result<PowerOpen> open_sigrok_power(const PowerConfig& config);

}  // namespace harness
