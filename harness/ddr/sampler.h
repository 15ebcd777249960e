// Timing mode -> per-clock-edge states. Finds CK edges in packed samples,
// estimates the clock period, finds clock-stop gaps, hands the strobes'
// levels to the DQ-activity estimate (strobe.h), and hands the decoder only
// the cycles where chip select is active (with the second edge of the
// command word). A capture with fewer
// than 4 samples per CA bit period is refused: its edges cannot be placed.
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "harness/base/result.h"
#include "harness/ddr/bit_smear.h"
#include "harness/ddr/command.h"
#include "harness/ddr/encoding.h"
#include "harness/ddr/layout.h"
#include "harness/ddr/strobe.h"
#include "probes/capture/capture.h"
#include "probes/capture/readers.h"

namespace harness::ddr {

struct ClockStopSamples {
  std::uint64_t after_cycle;
  std::uint64_t start;   // sample of the last edge before the stop
  std::uint64_t length;  // samples until the next edge
};

struct SamplerStats {
  std::uint64_t samples = 0;
  std::uint64_t cycles = 0;           // rising CK edges
  double tck_samples = 0;             // mean clock period, gaps excluded
  std::vector<ClockStopSamples> stops;
  bool dqs_sampled = false;
  StrobeFigures strobes;              // DQ activity from the strobes (strobe.h)
};

class Sampler {
 public:
  // `window_samples`: length of the windows of the DQS activity timeline;
  // `dqs_preamble`: tCK of toggling preamble that start each strobe burst
  // (not data; 0: none declared).
  Sampler(BusLayout layout, double samplerate, std::uint64_t window_samples, unsigned dqs_preamble = 0);
  // Appends the command cycles found in these samples to `out`.
  Status feed(const std::uint8_t* data, std::size_t count, unsigned unitsize, std::vector<EdgeGroup>& out);
  Status finish();
  const SamplerStats& stats() const { return stats_; }
  const BusLayout& layout() const { return layout_; }

 private:
  template <class T>
  Status feed_typed(const T* x, std::size_t count, std::vector<EdgeGroup>& out);
  Status on_estimate();
  Status check_rate(double tck_samples);
  void count_interval(std::uint64_t interval, std::uint64_t cycle_before, std::uint64_t start);
  bool clock_edges_fast(std::uint64_t rise, std::uint64_t at);
  Status clock_edges(std::uint64_t rise, std::uint64_t at);
  std::uint64_t cke_commands(std::uint64_t rise, std::uint64_t command, std::uint64_t cke, std::uint64_t& fell,
                             std::uint64_t& rose);
  template <class T>
  void emit_groups(const T* s, std::uint64_t at, std::uint64_t cycle0, std::uint64_t rise, std::uint64_t fall,
                   std::uint64_t command, std::uint64_t selected, std::uint64_t cke_change, std::uint64_t cke_fell,
                   std::vector<EdgeGroup>& out);

  BusLayout layout_;
  const BusFormat& format_;
  double samplerate_;
  SamplerStats stats_;
  bool started_ = false;
  std::uint64_t prev_sample_ = 0;   // the previous chunk's last sample
  bool cke_high_ = true;            // CKE at the last rising edge
  bool cke_seen_ = false;           // an edge has been seen (the first sets cke_high_)
  std::uint64_t first_rise_ = 0;   // sample index of the first rising edge
  std::uint64_t last_rise_ = 0;    // sample index of the last rising edge
  bool have_rise_ = false;
  std::vector<unsigned> strobe_channels_;
  std::unique_ptr<StrobeActivity> strobes_;  // when a strobe is probed
  // Period estimate: the first intervals are kept until there are enough.
  struct Early {
    std::uint64_t interval, cycle_before, start;
  };
  std::vector<Early> early_;
  std::uint64_t gap_limit_ = 0;    // samples: a longer interval is a stop; 0 until estimated
  BitSmear cover_;                 // an edge over the gap_limit_ - 1 samples after it
  std::uint64_t stops_samples_ = 0;  // the stops' intervals summed
  // A command cycle waiting for its second edge: while a feed runs, the
  // group at pending_index_ of its output (completed in place: copying a
  // just-built group stalls on store forwarding); between feeds, here.
  bool pending_ = false;
  std::size_t pending_index_ = 0;
  EdgeGroup pending_group_;
};

}  // namespace harness::ddr
