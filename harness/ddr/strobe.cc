#include "harness/ddr/strobe.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <limits>

#include <fmt/format.h>

// Toggle counting is popcount-heavy: use the instruction (every x86-64 CPU
// since 2008 has it) rather than libgcc's fallback.
#if defined(__x86_64__)
#pragma GCC target("popcnt")
#endif

namespace harness::ddr {
namespace {

constexpr std::size_t kMaxWindows = 1 << 14;   // timeline windows kept (then merged pairwise)
constexpr std::size_t kRateIntervals = 64;     // rising-edge intervals that measure the strobe period
constexpr std::size_t kMaxEarlyBlocks = 1 << 16;  // frames with toggles kept until CK's period is known

// The lowest set bit of the 128-bit (lo, hi) above bit j, or 128.
inline unsigned next_bit(std::uint64_t lo, std::uint64_t hi, unsigned j) {
  if (j < 63) {
    const std::uint64_t rest = lo & ~bits_below(j + 1);
    if (rest) return static_cast<unsigned>(std::countr_zero(rest));
  }
  const unsigned from = j < 63 ? 0 : j - 63;  // hi bits above j - 64
  const std::uint64_t rest = from >= 64 ? 0 : hi & ~bits_below(from);
  return rest ? 64 + static_cast<unsigned>(std::countr_zero(rest)) : 128;
}

}  // namespace

std::string StrobeFigures::method() const {
  return fmt::format(
      "DQS toggles ({} strobe{}): glitch filter {} samples, bursts split at gaps of one strobe period ({:.3g} samples), "
      "{} pulse{} per tCK{}; +-{:.0f} toggles (one per burst)",
      channels, channels == 1 ? "" : "s, their mean", min_width, period_samples, pulses_per_tck,
      pulses_per_tck == 1 ? "" : "s", rate_measured ? " (measured)" : " (assumed: too few strobe periods to measure)",
      bursts);
}

StrobeActivity::StrobeActivity(unsigned channels, std::uint64_t window_samples, unsigned preamble_tck)
    : channels_(std::min(channels, kMaxStrobes)), preamble_tck_(preamble_tck),
      window_samples_(std::max<std::uint64_t>(window_samples, 1)) {
  figures_.channels = channels_;
}

void StrobeActivity::gather(std::uint64_t at, const std::uint64_t* levels, unsigned n) {
  if (gathered_ == 0) gather_at_ = at;
  const unsigned take = std::min(n, 64 - gathered_);
  for (unsigned c = 0; c < channels_; ++c) gather_[c] |= (levels[c] & bits_below(take)) << gathered_;
  gathered_ += take;
  if (gathered_ < 64) return;
  frame(gather_at_, gather_.data(), 64);
  gathered_ = n - take;
  gather_at_ += 64;
  for (unsigned c = 0; c < channels_; ++c) gather_[c] = gathered_ ? (levels[c] >> take) & bits_below(gathered_) : 0;
}

// 64 samples from `at` (the last frame may hold fewer: its level holds).
// The frame before it, waiting for these toggles to look ahead into, is
// counted now.
void StrobeActivity::frame(std::uint64_t at, const std::uint64_t* levels, unsigned n) {
  copy_out_last_level();
  frame_toggles(at, levels, n);
  update_alike();
}

void StrobeActivity::copy_out_last_level() {
  if (!alike_) return;
  for (unsigned c = 1; c < channels_; ++c) lanes_[c].last_level = lanes_[0].last_level;
  alike_ = false;
}

void StrobeActivity::update_alike() {
  alike_ = counting_ && lockstep_;
  for (unsigned c = 1; c < channels_ && alike_; ++c) alike_ = lanes_[c].last_level == lanes_[0].last_level;
}

void StrobeActivity::frame_toggles(std::uint64_t at, const std::uint64_t* levels, unsigned n) {
  std::uint64_t toggles[kMaxStrobes];
  std::uint64_t any = 0;
  for (unsigned c = 0; c < channels_; ++c) {
    Lane& lane = lanes_[c];
    std::uint64_t x = levels[c];
    if (n < 64) x = (x & bits_below(n)) | ((x >> (n - 1) & 1) ? ~bits_below(n) : 0);
    toggles[c] = x ^ ((x << 1) | lane.last_level);
    lane.last_level = x >> 63;
    any |= toggles[c];
  }
  if (!counting_) return early(at, toggles, levels, any != 0);
  if (!any && !have_pending_) return;
  take(at, toggles, any != 0);
}

// Each strobe keeps its own last level: frame() has already set it from
// the frame that differs.
void StrobeActivity::leave_lockstep() {
  lockstep_ = false;
  for (unsigned c = 1; c < channels_; ++c) {
    const std::uint64_t level = lanes_[c].last_level;
    lanes_[c] = lanes_[0];
    lanes_[c].last_level = level;
  }
}

// Inlined (forced: GCC declines, take() having three callers): frame()
// calls it for every frame with toggles (most of a busy bus), and the
// call's prologue costs more than the lockstep test it makes.
[[gnu::always_inline]] inline void StrobeActivity::take(std::uint64_t at, const std::uint64_t* toggles, bool any) {
  if (lockstep_) {
    bool same = true;
    for (unsigned c = 1; c < channels_; ++c) same &= toggles[c] == toggles[0];
    if (same) return take_lockstep(at, toggles[0], any);
    leave_lockstep();
  }
  const unsigned lanes = lockstep_ ? 1 : channels_;
  if (have_pending_) {
    // The frames are consecutive unless the ones between held no toggle.
    const bool adjacent = pending_at_ + 64 == at;
    std::uint64_t kept[kMaxStrobes];
    unsigned count = 0;
    for (unsigned c = 0; c < lanes; ++c) {
      Lane& lane = lanes_[c];
      kept[c] = lane_frame(lane, pending_at_, lane.pending, adjacent ? toggles[c] : 0);
      count += static_cast<unsigned>(std::popcount(kept[c]));
    }
    // In lockstep lane 0 stands for every strobe.
    const unsigned weight = lockstep_ ? channels_ : 1;
    if (count && pending_at_ >= window_start_ && pending_at_ + 64 <= window_end_)  // most frames
      window_toggles_ += count * weight;
    else if (count)
      for (unsigned c = 0; c < lanes; ++c) add_to_window(pending_at_, kept[c], weight);
  }
  have_pending_ = any;
  if (!any) return;
  pending_at_ = at;
  for (unsigned c = 0; c < lanes; ++c) lanes_[c].pending = toggles[c];
}

// Before the period is known: rising-edge intervals of each strobe are
// measured and frames with toggles are kept.
void StrobeActivity::early(std::uint64_t at, const std::uint64_t* toggles, const std::uint64_t* levels, bool any) {
  if (!any) return;
  Early e{at, {}};
  for (unsigned c = 0; c < channels_; ++c) {
    e.toggles[c] = toggles[c];
    Lane& lane = lanes_[c];
    if (rise_intervals_.size() >= 4 * kRateIntervals) continue;
    for (std::uint64_t m = toggles[c] & levels[c]; m; m &= m - 1) {
      const std::uint64_t pos = at + static_cast<std::uint64_t>(std::countr_zero(m));
      if (lane.last_rise != kNoToggle) rise_intervals_.push_back(pos - lane.last_rise);
      lane.last_rise = pos;
    }
  }
  early_.push_back(e);
  if (early_.size() > kMaxEarlyBlocks) {
    overflow_ = true;
    early_.clear();
  }
  try_start();
}

void StrobeActivity::clock_period(double tck_samples) {
  tck_samples_ = tck_samples;
  copy_out_last_level();
  try_start();
  update_alike();
}

// The strobe period: the median rising-edge interval shorter than 1.5 tCK.
bool StrobeActivity::rate_known(bool final) {
  if (tck_samples_ <= 0) return false;
  std::vector<std::uint64_t> in_bursts;
  for (std::uint64_t i : rise_intervals_)
    if (static_cast<double>(i) <= 1.5 * tck_samples_) in_bursts.push_back(i);
  if (in_bursts.size() < kRateIntervals && !final && rise_intervals_.size() < 4 * kRateIntervals) return false;
  double pulses = 1;
  if (!in_bursts.empty()) {
    std::nth_element(in_bursts.begin(), in_bursts.begin() + in_bursts.size() / 2, in_bursts.end());
    const double period = static_cast<double>(in_bursts[in_bursts.size() / 2]);
    pulses = std::max(1.0, std::round(tck_samples_ / period));
  }
  figures_.rate_measured = !in_bursts.empty();
  figures_.pulses_per_tck = pulses;
  const double period = tck_samples_ / pulses;
  figures_.period_samples = period;
  period_ = std::max<unsigned>(2, static_cast<unsigned>(std::lround(period)));
  half_ = std::max<unsigned>(1, static_cast<unsigned>(std::lround(period / 2)));
  width_ = std::clamp<unsigned>(static_cast<unsigned>(std::lround(period / 4)), 2, 32);
  figures_.min_width = width_;
  // A toggle covers the period_ - 1 samples after it (63 at most).
  continues_ = BitSmear(std::min(period_ - 1, 63u) - 1);
  return true;
}

void StrobeActivity::try_start(bool final) {
  if (counting_ || !rate_known(final)) return;
  counting_ = true;
  std::vector<Early> early = std::move(early_);
  early_.clear();
  for (const Early& e : early) take(e.at, e.toggles.data(), true);
}

// Glitch filter for a frame holding a short pulse (or the second edge of one
// removed before): toggle by toggle, with the next frame's toggles to look
// ahead. Returns the toggles kept.
std::uint64_t StrobeActivity::filter(Lane& lane, std::uint64_t at, std::uint64_t t, std::uint64_t next) {
  std::uint64_t kept = 0, dropped = 0;
  const double inf = std::numeric_limits<double>::infinity();
  for (std::uint64_t m = t; m; m &= m - 1) {
    const unsigned j = static_cast<unsigned>(std::countr_zero(m));
    const std::uint64_t pos = at + j;
    if (pos == lane.skip_at || (dropped >> j & 1)) {
      if (pos == lane.skip_at) lane.skip_at = kNoToggle;
      continue;
    }
    const unsigned r = next_bit(t, next, j);
    if (r < 128 && r - j < width_) {
      // A pulse of r - j samples: ringing, unless it sits where a pulse belongs.
      const double a = lane.last_kept == kNoToggle ? inf : static_cast<double>(pos - lane.last_kept);
      const unsigned u = next_bit(t, next, r);
      const double b = u < 128 ? static_cast<double>(u - r) : inf;
      const double flank = std::min(a, b);
      if (!(flank >= half_ && flank < period_)) {
        ++lane.glitches;
        if (r < 64) dropped |= std::uint64_t{1} << r;
        else lane.skip_at = at + r;
        continue;
      }
    }
    kept |= std::uint64_t{1} << j;
    lane.last_kept = pos;
  }
  return kept;
}

// A frame where bursts start: each start closes the burst before it.
void StrobeActivity::runs(Lane& lane, std::uint64_t at, std::uint64_t k, std::uint64_t starts) {
  std::uint64_t rest = k;
  for (; starts; starts &= starts - 1) {
    const unsigned s = static_cast<unsigned>(std::countr_zero(starts));
    lane.run_toggles += static_cast<std::uint64_t>(std::popcount(rest & bits_below(s)));
    close_run(lane);
    lane.run_start = at + s;
    rest &= ~bits_below(s);
  }
  lane.run_toggles += static_cast<std::uint64_t>(std::popcount(rest));
}

// A burst ends: n toggles count as n rounded down to even, less a declared
// toggling preamble.
void StrobeActivity::close_run(Lane& lane) {
  const std::uint64_t n = lane.run_toggles;
  lane.run_toggles = 0;
  if (n == 0) return;
  const std::uint64_t even = n & ~std::uint64_t{1};
  const std::uint64_t preamble =
      std::min<std::uint64_t>(even, static_cast<std::uint64_t>(2 * preamble_tck_ * figures_.pulses_per_tck));
  const std::uint64_t data = even - preamble;
  lane.kept += data;
  lane.preamble += preamble;
  if (data) ++lane.bursts;
  // In lockstep lane 0 stands for every strobe.
  if (n != data) adjust_window(lane.run_start, -static_cast<double>(n - data) * (lockstep_ ? channels_ : 1));
}

void StrobeActivity::add_window_toggles() {
  if (window_toggles_) windows_[window_index_] += static_cast<double>(window_toggles_);
  window_toggles_ = 0;
}

std::size_t StrobeActivity::window_of(std::uint64_t pos) {
  if (pos / window_samples_ >= kMaxWindows) add_window_toggles();  // before the windows move
  while (pos / window_samples_ >= kMaxWindows) {
    // Bounded memory for any length of capture: merge neighbouring windows
    // and double their length (windows stay aligned to sample 0).
    for (std::size_t i = 0; 2 * i < windows_.size(); ++i)
      windows_[i] = windows_[2 * i] + (2 * i + 1 < windows_.size() ? windows_[2 * i + 1] : 0);
    windows_.resize((windows_.size() + 1) / 2);
    window_samples_ *= 2;
    window_end_ = 0;  // the cached window is gone
  }
  const std::size_t w = static_cast<std::size_t>(pos / window_samples_);
  if (w >= windows_.size()) windows_.resize(w + 1, 0);
  return w;
}

// The toggles of a frame, `weight` times each, into the windows they fall in
// (the frame may straddle a window's end).
void StrobeActivity::add_to_window(std::uint64_t at, std::uint64_t toggles, unsigned weight) {
  add_window_toggles();  // the window may change
  for (std::uint64_t m = toggles; m;) {
    const std::uint64_t pos = at + static_cast<std::uint64_t>(std::countr_zero(m));
    if (pos < window_start_ || pos >= window_end_) {  // else still the window the last toggles fell in
      window_index_ = window_of(pos);
      window_start_ = window_index_ * window_samples_;
      window_end_ = window_start_ + window_samples_;
    }
    const std::uint64_t part = window_end_ - at >= 64 ? m : m & bits_below(static_cast<unsigned>(window_end_ - at));
    windows_[window_index_] += static_cast<double>(std::popcount(part)) * weight;
    m &= ~part;
  }
}

void StrobeActivity::adjust_window(std::uint64_t pos, double delta) { windows_[window_of(pos)] += delta; }

Status StrobeActivity::finish(std::uint64_t samples, double tck_samples) {
  if (overflow_)
    return Error::input(fmt::format("the strobes toggle for more than {} samples before CK's period is known: is CK "
                                    "mapped to the clock?",
                                    kMaxEarlyBlocks * 64));
  copy_out_last_level();  // every lane's last level, for leave_lockstep() below
  if (gathered_) {
    frame(gather_at_, gather_.data(), gathered_);
    gathered_ = 0;
  }
  if (tck_samples_ <= 0) tck_samples_ = tck_samples;
  try_start(true);
  if (have_pending_) {
    static const std::uint64_t kZero[kMaxStrobes] = {};
    take(pending_at_ + 128, kZero, false);  // nothing follows the last frame
  }
  if (lockstep_) leave_lockstep();
  for (unsigned c = 0; c < channels_; ++c) {
    Lane& lane = lanes_[c];
    close_run(lane);
    figures_.toggles += static_cast<double>(lane.kept) / channels_;
    figures_.bursts += static_cast<double>(lane.bursts) / channels_;
    figures_.preamble_tck += static_cast<double>(lane.preamble) / channels_ / (2 * figures_.pulses_per_tck);
    figures_.glitches += lane.glitches;
  }
  add_window_toggles();
  if (samples > 0) window_of(samples - 1);
  figures_.window_samples = window_samples_;
  for (double w : windows_)
    figures_.active_tck_per_window.push_back(std::max(0.0, w / channels_ / (2 * figures_.pulses_per_tck)));
  return ok();
}

}  // namespace harness::ddr
