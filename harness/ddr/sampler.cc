#include "harness/ddr/sampler.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>

#include <fmt/format.h>
#include <immintrin.h>

#include "harness/base/stats.h"
#include "harness/base/units.h"

// Edge counting is popcount-heavy: use the instruction (every x86-64 CPU
// since 2008 has it) rather than libgcc's fallback.
#if defined(__x86_64__)
#pragma GCC target("popcnt")
#endif

namespace harness::ddr {
namespace {

constexpr std::size_t kEarlyIntervals = 32;  // rising-edge intervals used for the first period estimate
constexpr double kMinSamplesPerBit = 4;

}  // namespace

Sampler::Sampler(BusLayout layout, double samplerate, std::uint64_t window_samples, unsigned dqs_preamble)
    : layout_(std::move(layout)), format_(bus_format(layout_.standard)), samplerate_(samplerate) {
  for (unsigned c = 0; c < 64 && strobe_channels_.size() < kMaxStrobes; ++c)
    if ((layout_.dqs_mask >> c) & 1) strobe_channels_.push_back(c);
  stats_.dqs_sampled = !strobe_channels_.empty();
  if (stats_.dqs_sampled)
    strobes_ = std::make_unique<StrobeActivity>(static_cast<unsigned>(strobe_channels_.size()), window_samples,
                                                dqs_preamble);
}

Status Sampler::check_rate(double tck) {
  double per_bit = format_.double_rate ? tck / 2 : tck;
  if (per_bit >= kMinSamplesPerBit) return ok();
  double f_ck = samplerate_ / tck;
  double needed = kMinSamplesPerBit * (format_.double_rate ? 2 : 1) * f_ck;
  return Error::input(fmt::format(
      "capture undersampled: CK is about {} and {} samples/s give {:.3g} samples per CA bit period; decoding "
      "{} needs at least {:g}: capture at {} or more, or slow the bus clock down",
      format_quantity(f_ck, "Hz"), samplerate_text(samplerate_), per_bit, standard_name(layout_.standard),
      kMinSamplesPerBit, samplerate_text(std::ceil(needed / 1e6) * 1e6)));
}

void Sampler::count_interval(std::uint64_t interval, std::uint64_t cycle_before, std::uint64_t start) {
  if (interval > gap_limit_) {
    stops_samples_ += interval;
    stats_.stops.push_back({cycle_before, start, interval});
  }
}

Status Sampler::on_estimate() {
  std::vector<double> intervals;
  for (const Early& e : early_) intervals.push_back(static_cast<double>(e.interval));
  double tck = median(intervals);
  HARNESS_TRY(check_rate(tck));
  // A stop: an interval longer than 1.5 tCK, i.e. (intervals are integers)
  // longer than its floor. At least 6 samples (tCK >= 4), so 0 says "not yet".
  gap_limit_ = static_cast<std::uint64_t>(1.5 * tck);
  // Every edge covers the gap_limit_ - 1 samples after it, so that a sample
  // left uncovered between two edges lies in an interval longer than
  // gap_limit_: a stop (see clock_edges_fast). From 64 samples on, no
  // interval inside a block can be one.
  if (gap_limit_ < 64) cover_ = BitSmear(static_cast<unsigned>(gap_limit_) - 1);
  for (const Early& e : early_) count_interval(e.interval, e.cycle_before, e.start);
  early_.clear();
  if (strobes_) strobes_->clock_period(tck);
  return ok();
}

namespace {

// One block of up to 64 samples as bit masks: bit j is sample j.
struct BlockMasks {
  std::uint64_t ck = 0;
  std::uint64_t selected = 0;  // some chip select active
  std::uint64_t cke = 0;       // CKE level (0 when not captured)
  std::array<std::uint64_t, kMaxStrobes> strobe;  // each strobe's level (the first Lines::strobes)
};

// The channels a block is read for, as bit masks of one sample.
template <class T>
struct Lines {
  T ck, cs, cs_invert, cke;
  unsigned strobes = 0;
  std::array<T, kMaxStrobes> strobe{};
};

// Portable version.
template <class T>
void block_masks_scalar(const T* s, std::size_t n, const Lines<T>& l, BlockMasks& m) {
  m.ck = m.selected = m.cke = 0;
  for (unsigned k = 0; k < l.strobes; ++k) m.strobe[k] = 0;
  for (std::size_t j = 0; j < n; ++j) {
    m.ck |= static_cast<std::uint64_t>((s[j] & l.ck) != 0) << j;
    m.selected |= static_cast<std::uint64_t>(((s[j] ^ l.cs_invert) & l.cs) != 0) << j;
    m.cke |= static_cast<std::uint64_t>((s[j] & l.cke) != 0) << j;
    for (unsigned k = 0; k < l.strobes; ++k) m.strobe[k] |= static_cast<std::uint64_t>((s[j] & l.strobe[k]) != 0) << j;
  }
}

// 64 samples with AVX-512: one test instruction per vector and channel
// mask, the vectors' masks joined in mask registers (kunpck: one move to a
// general register per channel, not one per vector and a shift and an or;
// about 1 ms per 100M samples).
// Helpers are functions, not lambdas: clang gives a lambda inside a target
// function no target of its own (the fuzz build uses clang).
__attribute__((target("avx512bw"))) inline std::uint64_t test16(__m512i a, __m512i b, std::uint16_t bits) {
  const __m512i m = _mm512_set1_epi16(static_cast<short>(bits));
  return _cvtmask64_u64(_mm512_kunpackd(_mm512_test_epi16_mask(b, m), _mm512_test_epi16_mask(a, m)));
}

__attribute__((target("avx512bw"))) void block_masks_avx512(const std::uint16_t* s, const Lines<std::uint16_t>& l,
                                                             BlockMasks& m) {
  const __m512i lo = _mm512_loadu_si512(s), hi = _mm512_loadu_si512(s + 32);
  const __m512i invert = _mm512_set1_epi16(static_cast<short>(l.cs_invert));
  m.ck = test16(lo, hi, l.ck);
  m.selected = test16(_mm512_xor_si512(lo, invert), _mm512_xor_si512(hi, invert), l.cs);
  m.cke = l.cke ? test16(lo, hi, l.cke) : 0;
  for (unsigned k = 0; k < l.strobes; ++k) m.strobe[k] = test16(lo, hi, l.strobe[k]);
}

__attribute__((target("avx512bw"))) inline std::uint64_t test8(__m512i a, std::uint8_t bits) {
  return _mm512_test_epi8_mask(a, _mm512_set1_epi8(static_cast<char>(bits)));
}

__attribute__((target("avx512bw"))) void block_masks_avx512(const std::uint8_t* s, const Lines<std::uint8_t>& l,
                                                             BlockMasks& m) {
  const __m512i v = _mm512_loadu_si512(s);
  m.ck = test8(v, l.ck);
  m.selected = test8(_mm512_xor_si512(v, _mm512_set1_epi8(static_cast<char>(l.cs_invert))), l.cs);
  m.cke = l.cke ? test8(v, l.cke) : 0;
  for (unsigned k = 0; k < l.strobes; ++k) m.strobe[k] = test8(v, l.strobe[k]);
}

__attribute__((target("avx512bw"))) inline std::uint64_t test32(const __m512i* v, std::uint32_t bits) {
  const __m512i m = _mm512_set1_epi32(static_cast<int>(bits));
  const __mmask32 lo = _mm512_kunpackw(_mm512_test_epi32_mask(v[1], m), _mm512_test_epi32_mask(v[0], m));
  const __mmask32 hi = _mm512_kunpackw(_mm512_test_epi32_mask(v[3], m), _mm512_test_epi32_mask(v[2], m));
  return _cvtmask64_u64(_mm512_kunpackd(hi, lo));
}

__attribute__((target("avx512bw"))) void block_masks_avx512(const std::uint32_t* s, const Lines<std::uint32_t>& l,
                                                            BlockMasks& m) {
  __m512i v[4], x[4];
  const __m512i invert = _mm512_set1_epi32(static_cast<int>(l.cs_invert));
  for (int i = 0; i < 4; ++i) {
    v[i] = _mm512_loadu_si512(s + 16 * i);
    x[i] = _mm512_xor_si512(v[i], invert);
  }
  m.ck = test32(v, l.ck);
  m.selected = test32(x, l.cs);
  m.cke = l.cke ? test32(v, l.cke) : 0;
  for (unsigned k = 0; k < l.strobes; ++k) m.strobe[k] = test32(v, l.strobe[k]);
}

// The same with AVX2 for 16-bit samples: compare (sample AND bits) with
// zero per lane, pack to bytes, movemask, invert. Bit j set where
// (w[j] ^ invert) & bits != 0.
__attribute__((target("avx2"))) inline std::uint64_t any_avx2(const __m256i* w, std::uint16_t bits,
                                                              std::uint16_t invert) {
  const __m256i m = _mm256_set1_epi16(static_cast<short>(bits));
  const __m256i x = _mm256_set1_epi16(static_cast<short>(invert));
  __m256i zero[4];
  for (int i = 0; i < 4; ++i)
    zero[i] = _mm256_cmpeq_epi16(_mm256_and_si256(_mm256_xor_si256(w[i], x), m), _mm256_setzero_si256());
  const __m256i lo = _mm256_permute4x64_epi64(_mm256_packs_epi16(zero[0], zero[1]), 0xD8);
  const __m256i hi = _mm256_permute4x64_epi64(_mm256_packs_epi16(zero[2], zero[3]), 0xD8);
  return ~(static_cast<std::uint64_t>(static_cast<std::uint32_t>(_mm256_movemask_epi8(lo))) |
           static_cast<std::uint64_t>(static_cast<std::uint32_t>(_mm256_movemask_epi8(hi))) << 32);
}

__attribute__((target("avx2"))) void block_masks_avx2(const std::uint16_t* s, const Lines<std::uint16_t>& l,
                                                       BlockMasks& m) {
  __m256i v[4];
  for (int i = 0; i < 4; ++i) v[i] = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(s + 16 * i));
  m.ck = any_avx2(v, l.ck, 0);
  m.selected = any_avx2(v, l.cs, l.cs_invert);
  m.cke = l.cke ? any_avx2(v, l.cke, 0) : 0;
  for (unsigned k = 0; k < l.strobes; ++k) m.strobe[k] = any_avx2(v, l.strobe[k], 0);
}

const bool kHaveAvx2 = __builtin_cpu_supports("avx2");
const bool kHaveAvx512 = __builtin_cpu_supports("avx512bw");

// Masks of the n samples at s.
template <class T>
inline void block_masks(const T* s, std::size_t n, const Lines<T>& l, BlockMasks& m) {
  if constexpr (sizeof(T) <= 4) {
    if (n == 64 && kHaveAvx512) return block_masks_avx512(s, l, m);
  }
  if constexpr (sizeof(T) == 2) {
    if (n == 64 && kHaveAvx2) return block_masks_avx2(s, l, m);
  }
  block_masks_scalar(s, n, l, m);
}

inline std::uint64_t above(int j) { return ~((std::uint64_t{2} << j) - 1); }  // bits > j

}  // namespace

// Clock stops from the rising edges of one block (at least one), when no
// interval in it may be a stop: the common case, false when clock_edges
// must look edge by edge (until the period is known, or where a block may
// hold a stop). The period needs nothing here: every interval that is not a
// stop is one (finish).
inline bool Sampler::clock_edges_fast(std::uint64_t rise, std::uint64_t at) {
  if (gap_limit_ == 0) return false;  // known once 32 intervals were seen (so is last_rise_)
  const int first = std::countr_zero(rise), last = 63 - std::countl_zero(rise);
  if (at + first - last_rise_ > gap_limit_) return false;
  if (gap_limit_ < 64) {
    // An uncovered bit between the first and last edge lies in an interval
    // longer than gap_limit_.
    const std::uint64_t cover = cover_(rise);
    const std::uint64_t between = ((std::uint64_t{2} << last) - 1) & ~((std::uint64_t{1} << first) - 1);
    if (~cover & between) return false;
  }
  last_rise_ = at + static_cast<std::uint64_t>(last);
  return true;
}

// The same edge by edge.
Status Sampler::clock_edges(std::uint64_t rise, std::uint64_t at) {
  std::uint64_t cycle = stats_.cycles;
  for (std::uint64_t m = rise; m; m &= m - 1) {
    const std::uint64_t pos = at + static_cast<std::uint64_t>(std::countr_zero(m));
    if (have_rise_) {
      const std::uint64_t interval = pos - last_rise_;
      if (gap_limit_ > 0) {
        count_interval(interval, cycle - 1, last_rise_);
      } else {
        early_.push_back({interval, cycle - 1, last_rise_});
        if (early_.size() == kEarlyIntervals) HARNESS_TRY(on_estimate());
      }
    }
    if (!have_rise_) first_rise_ = pos;
    have_rise_ = true;
    last_rise_ = pos;
    ++cycle;
  }
  return ok();
}

// CKE: edges where it changed become groups too; while it stays low the
// part ignores the bus (power-down, self refresh). Returns the command
// cycles the part hears.
std::uint64_t Sampler::cke_commands(std::uint64_t rise, std::uint64_t command, std::uint64_t cke, std::uint64_t& fell,
                                    std::uint64_t& rose) {
  const std::uint64_t high = cke & rise;
  if (!cke_seen_) {
    cke_high_ = (high >> std::countr_zero(rise)) & 1;
    cke_seen_ = true;
  }
  if (high == rise && cke_high_) return command;  // CKE high throughout: the usual case
  if (high == 0 && !cke_high_) return 0;
  std::uint64_t heard = 0;  // edges where CKE is or was just high
  for (std::uint64_t m = rise; m; m &= m - 1) {
    const std::uint64_t e = m & -m;
    const bool now = (high & e) != 0;
    if (now != cke_high_) (now ? rose : fell) |= e;
    if (now || cke_high_) heard |= e;
    cke_high_ = now;
  }
  return (command & heard) | fell | rose;
}

// The groups of the command cycles of one block: built in place (copying
// a just-built group would stall on store forwarding, which costs more than
// everything else here); a word whose second edge lies in the next block
// waits in pending_group_.
template <class T>
void Sampler::emit_groups(const T* s, std::uint64_t at, std::uint64_t cycle0, std::uint64_t rise, std::uint64_t fall,
                          std::uint64_t command, std::uint64_t selected, std::uint64_t cke_change,
                          std::uint64_t cke_fell, std::vector<EdgeGroup>& out) {
  const bool second_is_fall = format_.double_rate;
  const bool second_is_next_rise = format_.edges == 2 && !format_.double_rate;
  for (std::uint64_t m = command; m; m &= m - 1) {
    const int j = std::countr_zero(m);
    EdgeGroup& g = out.emplace_back();
    g.cycle = cycle0 + static_cast<std::uint64_t>(std::popcount(rise & ((std::uint64_t{1} << j) - 1)));
    g.sample = at + static_cast<std::uint64_t>(j);
    g.first = s[j];
    if ((cke_change >> j) & 1) {
      g.cke = (cke_fell >> j & 1) ? CkeChange::fell : CkeChange::rose;
      if (!(selected >> j & 1)) continue;  // CKE alone: no command word
    }
    if (!second_is_fall && !second_is_next_rise) continue;
    const std::uint64_t later = (second_is_fall ? fall : rise) & above(j);
    if (later) {
      const int k = std::countr_zero(later);
      g.second = s[k];
      if (second_is_next_rise) m &= ~(std::uint64_t{1} << k);  // the second cycle starts no command
    } else {
      pending_ = true;
      pending_index_ = out.size() - 1;
    }
  }
}

// Works on blocks of 64 samples as bit masks (CK level, rising and falling
// edges, chip selects, strobe levels), so that the per-sample cost is a few
// vector instructions; per-edge work happens only for command cycles.
template <class T>
Status Sampler::feed_typed(const T* x, std::size_t count, std::vector<EdgeGroup>& out) {
  const bool second_is_fall = format_.double_rate;
  const bool second_is_next_rise = format_.edges == 2 && !format_.double_rate;
  const std::uint64_t base = stats_.samples;
  if (!started_ && count > 0) {
    prev_sample_ = x[0];
    started_ = true;
  }
  auto bit = [](unsigned channel) { return channel < 64 ? static_cast<T>(std::uint64_t{1} << channel) : T{0}; };
  Lines<T> lines{bit(layout_.ck), static_cast<T>(layout_.cs_mask), static_cast<T>(layout_.cs_invert),
                 bit(layout_.cke)};
  lines.strobes = static_cast<unsigned>(strobe_channels_.size());
  for (unsigned k = 0; k < lines.strobes; ++k) lines.strobe[k] = bit(strobe_channels_[k]);
  const bool has_cke = layout_.cke != kAbsent;
  if (pending_) {  // from the previous feed
    out.push_back(pending_group_);
    pending_index_ = out.size() - 1;
  }
  BlockMasks masks;
  for (std::size_t b = 0; b < count; b += 64) {
    const std::size_t n = std::min<std::size_t>(64, count - b);
    const std::uint64_t valid = n == 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << n) - 1;
    const T* s = x + b;
    const std::uint64_t at = base + b;  // sample index of bit 0
    block_masks(s, n, lines, masks);
    const std::uint64_t ck_at_start = (prev_sample_ >> layout_.ck) & 1;  // CK just before this block
    prev_sample_ = s[n - 1];
    const std::uint64_t ck_before = (masks.ck << 1) | ck_at_start;
    const std::uint64_t rise = masks.ck & ~ck_before & valid;
    const std::uint64_t fall = ~masks.ck & ck_before & valid;
    if (strobes_) strobes_->block(at, masks.strobe.data(), static_cast<unsigned>(n));
    if (pending_ && second_is_fall && fall) {
      out[pending_index_].second = s[std::countr_zero(fall)];
      pending_ = false;
    }
    if (!rise) continue;
    const std::uint64_t cycle0 = stats_.cycles;
    if (!clock_edges_fast(rise, at)) HARNESS_TRY(clock_edges(rise, at));
    stats_.cycles += static_cast<std::uint64_t>(std::popcount(rise));
    // Command cycles: chip select active at the rising edge.
    std::uint64_t command = rise & masks.selected;
    std::uint64_t cke_fell = 0, cke_rose = 0;
    if (has_cke) command = cke_commands(rise, command, masks.cke, cke_fell, cke_rose);
    if (pending_ && second_is_next_rise) {
      const int j = std::countr_zero(rise);
      out[pending_index_].second = s[j];
      pending_ = false;
      command &= ~(std::uint64_t{1} << j);  // the second cycle starts no command
    }
    if (command)
      emit_groups(s, at, cycle0, rise, fall, command, masks.selected, cke_fell | cke_rose, cke_fell, out);
  }
  if (pending_) {  // its second edge comes with the next feed: the group waits outside
    pending_group_ = out[pending_index_];
    out.erase(out.begin() + static_cast<std::ptrdiff_t>(pending_index_));
  }
  stats_.samples += count;
  return ok();
}

Status Sampler::feed(const std::uint8_t* data, std::size_t count, unsigned unitsize, std::vector<EdgeGroup>& out) {
  switch (unitsize) {
    case 1: return feed_typed(data, count, out);
    case 2: return feed_typed(reinterpret_cast<const std::uint16_t*>(data), count, out);
    case 4: return feed_typed(reinterpret_cast<const std::uint32_t*>(data), count, out);
    case 8: return feed_typed(reinterpret_cast<const std::uint64_t*>(data), count, out);
    default: return Error::input(fmt::format("unsupported sample size {} bytes", unitsize));
  }
}

Status Sampler::finish() {
  if (gap_limit_ == 0) {
    if (early_.empty())
      return Error::input(fmt::format("no clock: fewer than two rising edges on CK in {} samples", stats_.samples));
    HARNESS_TRY(on_estimate());
  }
  // The mean period: the span of the rising edges less the stops, over the
  // intervals that are not stops (sums exact in integers).
  const std::uint64_t intervals = stats_.cycles ? stats_.cycles - 1 - stats_.stops.size() : 0;
  stats_.tck_samples =
      intervals ? static_cast<double>(last_rise_ - first_rise_ - stops_samples_) / static_cast<double>(intervals) : 0;
  if (strobes_) {
    HARNESS_TRY(strobes_->finish(stats_.samples, stats_.tck_samples));
    stats_.strobes = strobes_->figures();
  }
  return ok();
}

}  // namespace harness::ddr
