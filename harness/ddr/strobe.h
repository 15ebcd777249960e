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

#include <algorithm>
#include <array>
#include <bit>
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
    if (gathered_ == 0 && n == 64) {  // the usual case: blocks on frames
      if (alike_) return lockstep_frame(at, levels);
      return frame(at, levels, 64);
    }
    gather(at, levels, n);
  }
  // The CK period in samples, once the sampler knows it.
  void clock_period(double tck_samples);
  // After the last block: `samples` in the capture.
  Status finish(std::uint64_t samples, double tck_samples);
  const StrobeFigures& figures() const { return figures_; }

 private:
  // One strobe's state.
  static constexpr std::uint64_t kNoToggle = UINT64_MAX;  // a sample position: none yet
  struct Lane {
    std::uint64_t pending = 0;             // toggles of the frame waiting for its successor
    std::uint64_t last_level = 0;          // level of the last sample seen
    std::uint64_t last_kept = kNoToggle;   // the last toggle kept
    std::uint64_t skip_at = kNoToggle;     // the second edge of a glitch removed in the previous frame
    std::uint64_t run_toggles = 0, run_start = 0;
    std::uint64_t kept = 0, bursts = 0, preamble = 0, glitches = 0;
    std::uint64_t last_rise = kNoToggle;   // while the strobe's period is measured
  };
  struct Early {
    std::uint64_t at;
    std::array<std::uint64_t, kMaxStrobes> toggles;
  };
  void gather(std::uint64_t at, const std::uint64_t* levels, unsigned n);
  void frame(std::uint64_t at, const std::uint64_t* levels, unsigned n);
  void frame_toggles(std::uint64_t at, const std::uint64_t* levels, unsigned n);
  void early(std::uint64_t at, const std::uint64_t* toggles, const std::uint64_t* levels, bool any);
  void take(std::uint64_t at, const std::uint64_t* toggles, bool any);
  void take_lockstep(std::uint64_t at, std::uint64_t toggles, bool any);
  void lockstep_frame(std::uint64_t at, const std::uint64_t* levels);
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
  // Counting in lockstep, and every strobe's last level the same: then a
  // frame whose levels are the same for every strobe has the same toggles
  // for every strobe, and only lane 0's last level is kept up to date
  // (frame() copies it out first).
  bool alike_ = false;
  void update_alike();
  void copy_out_last_level();
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
  // Toggles of window_index_ not yet in windows_ (an integer sum per frame,
  // not a double's: add_window_toggles() before windows_ is read or moved).
  std::uint64_t window_toggles_ = 0;
  void add_window_toggles();
  StrobeFigures figures_;
};

// The usual frame, inline in the caller's loop (the sampler's, block by
// block, where its work overlaps the sampler's): the period known, the
// strobes in lockstep (alike_). A frame where their levels differ goes to
// frame().
inline void StrobeActivity::lockstep_frame(std::uint64_t at, const std::uint64_t* levels) {
  for (unsigned c = 1; c < channels_; ++c)
    if (levels[c] != levels[0]) return frame(at, levels, 64);
  const std::uint64_t t = levels[0] ^ ((levels[0] << 1) | lanes_[0].last_level);
  lanes_[0].last_level = levels[0] >> 63;
  if (t || have_pending_) take_lockstep(at, t, t != 0);
}

// The same while lane 0 stands for every strobe (most captures): one lane,
// each of its toggles weighing as many as there are strobes.
inline void StrobeActivity::take_lockstep(std::uint64_t at, std::uint64_t toggles, bool any) {
  if (have_pending_) {
    Lane& lane = lanes_[0];
    const std::uint64_t kept = lane_frame(lane, pending_at_, lane.pending, pending_at_ + 64 == at ? toggles : 0);
    const auto count = static_cast<unsigned>(std::popcount(kept));
    if (count && pending_at_ >= window_start_ && pending_at_ + 64 <= window_end_)  // most frames
      window_toggles_ += count * channels_;
    else if (count)
      add_to_window(pending_at_, kept, channels_);
  }
  have_pending_ = any;
  if (!any) return;
  pending_at_ = at;
  lanes_[0].pending = toggles;
}

// One strobe's frame of toggles `t` (with the next frame's to look ahead):
// the glitch filter, then the bursts. Returns the toggles kept.
inline std::uint64_t StrobeActivity::lane_frame(Lane& lane, std::uint64_t at, std::uint64_t t, std::uint64_t next) {
  if (!t) return 0;
  // Toggles followed by another within width_ - 1 samples: short pulses.
  std::uint64_t near = (t >> 1) | (next << 63);
  for (unsigned d = 2; d < width_; ++d) near |= (t >> d) | (next << (64 - d));
  std::uint64_t k = t;
  if ((t & near) || lane.skip_at - at < 64) {
    const std::uint64_t prior = lane.last_kept;
    k = filter(lane, at, t, next);
    lane.last_kept = prior;
    if (!k) return 0;
  }
  // Kept toggles with another in the period_ - 1 samples before them
  // continue a burst; the others start one.
  std::uint64_t covered = continues_(k << 1);
  if (lane.last_kept + period_ > at && lane.last_kept != kNoToggle)
    covered |= bits_below(static_cast<unsigned>(std::min<std::uint64_t>(64, lane.last_kept + period_ - at)));
  const std::uint64_t starts = k & ~covered;
  if (starts) runs(lane, at, k, starts);
  else lane.run_toggles += static_cast<std::uint64_t>(std::popcount(k));
  lane.last_kept = at + 63 - static_cast<unsigned>(std::countl_zero(k));
  return k;
}

}  // namespace harness::ddr
