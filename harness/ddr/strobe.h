// DQ activity from the data strobes, defined on edges (docs/parts/ddr.md,
// "DQ activity"; ../shared/spec/ddr-and-captures.md): an analyzer samples
// DQS asynchronously, so each edge wanders by a sample or so against CK, the
// strobe may sit at a constant skew and its duty cycle is rarely 50/50.
// Nothing here looks at CK cycles: the strobe's own toggles are counted.
//
// - Glitch filter: a pulse shorter than a quarter of the strobe period (at
//   least 2 samples) is ringing and removed with its two edges, unless it
//   sits where a pulse belongs: both neighbouring phases at least half a
//   period long and one of them shorter than a period (a pulse squeezed by
//   jitter and duty distortion inside a burst, or at its end).
// - Bursts: runs of toggles whose gaps stay under one strobe period.
// - A burst of n toggles is n rounded down to even: a lone level change, or
//   the odd toggle of a strobe parked high (its static preamble falling, its
//   return after the postamble), is not data. A declared toggling preamble
//   (N tCK) drops the first 2 x N x (pulses per tCK) toggles of each burst.
// - Active time = toggles / (2 x strobe pulses per tCK) tCK; the strobe's
//   period is measured (the median interval of its rising edges shorter
//   than 1.5 tCK), pulses per tCK = tCK / period rounded.
// - With several strobes (byte lanes of one bus) each is counted on its own
//   and their mean is the estimate.
// - A parked strobe (held at a level, or tri-stated: VCD z, which the
//   readers hold at the last level) toggles nowhere: idle.
// - Uncertainty: about one toggle per burst.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "harness/base/result.h"
#include "harness/ddr/bit_smear.h"

namespace harness::ddr {

// Strobes counted at most (a x64 bus has eight byte lanes).
constexpr unsigned kMaxStrobes = 16;

struct StrobeFigures {
  unsigned channels = 0;
  double toggles = 0;              // kept toggles, mean over the strobes
  double bursts = 0;               // mean over the strobes
  double pulses_per_tck = 1;       // measured (or assumed: see rate_measured)
  bool rate_measured = false;
  double period_samples = 0;       // the strobe period used
  unsigned min_width = 0;          // glitch filter, samples
  std::uint64_t glitches = 0;      // short pulses removed (all strobes)
  double preamble_tck = 0;         // declared toggling preamble left out, tCK (mean over the strobes)
  double active_tck() const { return toggles / (2 * pulses_per_tck); }
  double uncertainty_tck() const { return bursts / (2 * pulses_per_tck); }
  std::uint64_t window_samples = 0;
  std::vector<double> active_tck_per_window;  // timeline (mean over the strobes)
  // One line for reports: how the figure was made.
  std::string method() const;
};

class StrobeActivity {
 public:
  // `channels` strobes (at most kMaxStrobes); timeline windows of `window_samples`; a declared
  // toggling preamble of `preamble_tck` tCK at the start of each burst.
  StrobeActivity(unsigned channels, std::uint64_t window_samples, unsigned preamble_tck);
  // Levels of the strobes in 64 samples from sample `at` (one mask per
  // strobe, bit j = sample at + j; only the low `n` bits are samples).
  void block(std::uint64_t at, const std::uint64_t* levels, unsigned n) {
    if (gathered_ == 0 && n == 64) return frame(at, levels, 64);  // the usual case: blocks on frames
    gather(at, levels, n);
  }
  // The CK period in samples, once the sampler knows it.
  void clock_period(double tck_samples);
  // After the last block: `samples` in the capture.
  Status finish(std::uint64_t samples, double tck_samples);
  const StrobeFigures& figures() const { return figures_; }

 private:
  // One strobe's state.
  struct Lane {
    std::uint64_t pending = 0;             // toggles of the frame waiting for its successor
    std::uint64_t last_level = 0;          // level of the last sample seen
    std::uint64_t last_kept = UINT64_MAX;  // the last toggle kept
    std::uint64_t skip_at = UINT64_MAX;    // the second edge of a glitch removed in the previous frame
    std::uint64_t run_toggles = 0, run_start = 0;
    std::uint64_t kept = 0, bursts = 0, preamble = 0, glitches = 0;
    std::uint64_t last_rise = UINT64_MAX;  // while the strobe's period is measured
  };
  struct Early {
    std::uint64_t at;
    std::array<std::uint64_t, kMaxStrobes> toggles;
  };
  void gather(std::uint64_t at, const std::uint64_t* levels, unsigned n);
  void frame(std::uint64_t at, const std::uint64_t* levels, unsigned n);
  void early(std::uint64_t at, const std::uint64_t* toggles, const std::uint64_t* levels, bool any);
  void take(std::uint64_t at, const std::uint64_t* toggles, bool any);
  void take_lockstep(std::uint64_t at, std::uint64_t toggles, bool any);
  bool rate_known(bool final);
  void try_start(bool final = false);
  std::uint64_t lane_frame(Lane& lane, std::uint64_t at, std::uint64_t t, std::uint64_t next);
  std::uint64_t filter(Lane& lane, std::uint64_t at, std::uint64_t t, std::uint64_t next);
  void runs(Lane& lane, std::uint64_t at, std::uint64_t kept, std::uint64_t starts);
  void close_run(Lane& lane);
  std::size_t window_of(std::uint64_t pos);
  void add_to_window(std::uint64_t at, std::uint64_t toggles, unsigned weight);
  void adjust_window(std::uint64_t pos, double delta);

  unsigned channels_;
  unsigned preamble_tck_;
  std::array<Lane, kMaxStrobes> lanes_{};
  // Samples are taken in frames of 64 from sample 0 (the glitch filter looks
  // one frame ahead); a block not on a frame is gathered here first.
  std::array<std::uint64_t, kMaxStrobes> gather_{};
  std::uint64_t gather_at_ = 0;
  unsigned gathered_ = 0;
  // Until the clock and the strobe period are known, frames with toggles
  // wait here (frames without toggles need no keeping).
  std::vector<Early> early_;
  bool overflow_ = false;
  double tck_samples_ = 0;
  std::vector<std::uint64_t> rise_intervals_;
  bool counting_ = false;
  // Strobes sampled together toggle alike (a simulation, a synchronous
  // analyzer): while every strobe's frames have been the same, lane 0
  // stands for all of them; the first frame that differs copies it out.
  bool lockstep_ = true;
  void leave_lockstep();
  // The frame waiting for its successor (each lane holds its toggles).
  bool have_pending_ = false;
  std::uint64_t pending_at_ = 0;
  // Filter and burst parameters, samples; a toggle spread over the
  // period_ - 1 samples after it (the burst it continues).
  unsigned width_ = 2, half_ = 4, period_ = 8;
  BitSmear continues_{6};
  // Timeline: kept toggles per window (summed over the strobes), and the
  // window the last frame fell in.
  std::uint64_t window_samples_;
  std::vector<double> windows_;
  std::uint64_t window_start_ = 0, window_end_ = 0;
  std::size_t window_index_ = 0;
  StrobeFigures figures_;
};

}  // namespace harness::ddr
