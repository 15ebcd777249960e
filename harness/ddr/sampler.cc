#include "harness/ddr/sampler.h"

#include <algorithm>
#include <bit>
#include <cctype>
#include <cmath>
#include <cstring>

#include <fmt/format.h>
#include <immintrin.h>

#include "harness/base/closest_match.h"
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
constexpr std::uint64_t kMaxWindows = 1 << 14;  // DQS timeline windows kept (then merged pairwise)
constexpr double kMinSamplesPerBit = 4;

}  // namespace

std::string chip_select_role(Standard standard, unsigned rank) {
  const bool active_low = !bus_format(standard).chip_select_active_high;
  return fmt::format("CS{}{}", rank, active_low ? "_n" : "");
}

namespace {

// A channel name reduced for matching: the leaf of a hierarchical VCD name
// ("top.dut.CA[3]" -> "CA[3]"), lower case, without the separators tools
// put between a signal's name, index and polarity ("CA_3", "CA[3]", "CS_n",
// "RAS_n/A16", "CS#") -> "ca3", "csn", "rasna16", "cs".
std::string match_key(std::string_view name) {
  std::size_t dot = name.rfind('.');
  if (dot != std::string_view::npos && dot + 1 < name.size()) name.remove_prefix(dot + 1);
  std::string key;
  for (char c : name) {
    if (c == '_' || c == ' ' || c == '-' || c == '[' || c == ']' || c == '/' || c == '#' || c == '(' || c == ')')
      continue;
    key += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  }
  return key;
}

// The keys under which a role is found automatically, besides its own.
// Complements (CK_c, DQS_c) never stand for the true signal. Chip select
// takes any of the usual spellings: its polarity is the standard's (DDR4
// CS_n active low, LPDDR4/5 CS active high), whatever the channel's name.
std::vector<std::string> role_keys(Standard standard, const std::string& role) {
  std::vector<std::string> keys = {match_key(role)};
  auto add = [&](std::initializer_list<const char*> more) { keys.insert(keys.end(), more.begin(), more.end()); };
  const BusFormat& f = bus_format(standard);
  if (role == "CK") add({"ckt", "clk", "ck0", "ckt0", "ck0t", "clk0", "clkt"});
  if (role == f.chip_select) add({"cs", "csn", "cs0", "csn0", "cs0n", "ncs", "csb"});
  if (standard == Standard::ddr4) {
    if (role == "ACT_n") add({"act", "nact", "actb"});
    if (role == "RAS_n") add({"ras", "nras", "a16", "rasna16", "a16rasn"});
    if (role == "CAS_n") add({"cas", "ncas", "a15", "casna15", "a15casn"});
    if (role == "WE_n") add({"we", "nwe", "a14", "wena14", "a14wen"});
    if (role == "A10") add({"ap", "a10ap", "apa10"});
    if (role == "A12") add({"bcn", "a12bcn", "bcna12"});
    if (role.size() > 1 && role[0] == 'A' && std::isdigit(static_cast<unsigned char>(role[1]))) {
      keys.push_back("addr" + role.substr(1));
      keys.push_back("address" + role.substr(1));
    }
  }
  std::sort(keys.begin(), keys.end());
  keys.erase(std::unique(keys.begin(), keys.end()), keys.end());
  return keys;
}

// A data strobe found without a mapping: DQS0, DQS[1], DQS0_t, RDQS_t, DQSL,
// never a complement (DQS0_c, DQS_n).
bool is_strobe_name(const std::string& name) {
  std::string k = match_key(name);
  if (k.rfind("dqs", 0) != 0 && k.rfind("rdqs", 0) != 0) return false;
  const char last = k.back();
  return !(k.size() > 3 && (last == 'c' || last == 'n' || last == 'b'));
}

}  // namespace

Result<BusLayout> make_layout(Standard standard, const std::vector<std::string>& channels,
                              const std::map<std::string, std::string>& roles, const ProbeSet& probes) {
  const BusFormat& f = bus_format(standard);
  BusLayout l;
  const bool x16 = probes.organisation == "x16";
  if (!probes.organisation.empty()) {
    if (standard != Standard::ddr4)
      return Error::input(fmt::format("organisation '{}': the device organisation is a DDR4 setting ({} has one "
                                      "command bus layout)",
                                      probes.organisation, standard_name(standard)));
    if (probes.organisation != "x4" && probes.organisation != "x8" && !x16)
      return Error::input(fmt::format("organisation '{}': expected x4, x8 or x16", probes.organisation));
  }
  auto is_strobe = [](const std::string& s) { return s.rfind("DQS", 0) == 0 || s.rfind("RDQS", 0) == 0; };
  const bool listed = !probes.probed.empty();
  auto probed = [&](const std::string& role) {
    return std::find(probes.probed.begin(), probes.probed.end(), role) != probes.probed.end();
  };
  if (listed) {
    // Every listed role must be one the standard has.
    std::vector<std::string> known = {"CK", "CKE", f.chip_select};
    for (unsigned r = 0; r < kMaxRanks; ++r) known.push_back(chip_select_role(standard, r));
    known.insert(known.end(), f.pins.begin(), f.pins.end());
    for (const std::string& role : probes.probed) {
      if (x16 && role == "BG1") return Error::input("probed: BG1 does not exist on x16 DDR4 parts (organisation x16)");
      if (is_strobe(role) || std::find(known.begin(), known.end(), role) != known.end()) continue;
      std::optional<std::string> close = closest_match(role, known);
      return Error::input(fmt::format("probed: '{}' is no {} pin{} (pins: CK, {}, {}, CKE, DQS0.., RDQS..)", role,
                                      standard_name(standard),
                                      close ? fmt::format(" (did you mean '{}'?)", *close) : "", f.chip_select,
                                      compress_pin_list(f.pins)));
    }
    if (!probed("CK") || !(probed(f.chip_select) || probed(chip_select_role(standard, 0))))
      return Error::input(fmt::format("probed: decoding needs CK and {} (command cycles are the CK edges with chip "
                                      "select active)",
                                      f.chip_select));
  }
  l.standard = standard;
  l.two_edges = f.edges == 2;
  auto channel_list = [&] {
    std::string list;
    for (const std::string& c : channels) list += (list.empty() ? "" : ", ") + c;
    return list;
  };
  // A role mapped in [ddr.channels] is that channel exactly. Otherwise the
  // channel of the role's own name, else the one channel whose name matches
  // one of the role's spellings (role_keys); two such channels are an error.
  auto find = [&](const std::string& role, bool required) -> Result<unsigned> {
    auto it = roles.find(role);
    const std::string& name = it == roles.end() ? role : it->second;
    for (unsigned i = 0; i < channels.size(); ++i)
      if (channels[i] == name) return i;
    if (it == roles.end()) {
      const std::vector<std::string> keys = role_keys(standard, role);
      std::vector<unsigned> fits;
      for (unsigned i = 0; i < channels.size(); ++i)
        if (std::binary_search(keys.begin(), keys.end(), match_key(channels[i]))) fits.push_back(i);
      if (fits.size() == 1) return fits[0];
      if (fits.size() > 1) {
        std::string both;
        for (std::size_t k = 0; k < fits.size(); ++k)
          both += fmt::format("{}'{}'", k == 0 ? "" : k + 1 == fits.size() ? " and " : ", ", channels[fits[k]]);
        return Error::input(fmt::format("channels {} all fit {} {}: say which one in [ddr.channels] ({} = \"...\")",
                                        both, standard_name(standard), role, role));
      }
    }
    if (!required) return kAbsent;
    std::optional<std::string> close = closest_match(name, channels);
    return Error::input(fmt::format("the capture has no channel '{}' for {} {}{} (channels: {}); map roles to "
                                    "channels in [ddr.channels]",
                                    name, standard_name(standard), role,
                                    close ? fmt::format(" (did you mean '{}'?)", *close) : "", channel_list()));
  };
  Result<unsigned> ck = find("CK", true);
  if (!ck) return ck.error();
  l.ck = *ck;
  // Rank 0's chip select under the standard's name, else as "CS0"/"CS0_n".
  Result<unsigned> cs = find(f.chip_select, false);
  if (cs && *cs == kAbsent) cs = find(chip_select_role(standard, 0), false);
  if (cs && *cs == kAbsent) cs = find(f.chip_select, true);
  if (!cs) return cs.error();
  l.chip_selects = {*cs};
  for (unsigned r = 1; r < kMaxRanks; ++r) {
    Result<unsigned> more = find(chip_select_role(standard, r), false);
    if (!more) return more.error();
    if (*more == kAbsent) break;
    l.chip_selects.push_back(*more);
  }
  for (unsigned c : l.chip_selects) l.cs_mask |= std::uint64_t{1} << c;
  if (!f.chip_select_active_high) l.cs_invert = l.cs_mask;
  if (standard != Standard::lpddr5 && (!listed || probed("CKE"))) {  // LPDDR5 has no CKE: power-down is a command
    Result<unsigned> cke = find("CKE", listed);
    if (!cke) return cke.error();
    l.cke = *cke;
  }
  std::vector<PinState> states;
  for (const std::string& pin : f.pins) {
    if (x16 && pin == "BG1") {  // x16 parts have two bank groups, on BG0
      l.pins.push_back(kAbsent);
      states.push_back(PinState::not_connected);
      continue;
    }
    if (listed && !probed(pin)) {
      l.pins.push_back(kAbsent);
      states.push_back(PinState::not_probed);
      continue;
    }
    // DDR4 parts with fewer rows leave the top address pins unconnected;
    // A12 is BC_n on every part: without it the burst length is unknown.
    const bool unconnected_if_absent =
        !listed && standard == Standard::ddr4 && (pin == "A17" || pin == "A13" || pin == "A11");
    const bool optional = unconnected_if_absent || (!listed && standard == Standard::ddr4 && pin == "A12");
    Result<unsigned> p = find(pin, !optional);
    if (!p) return p.error();
    l.pins.push_back(*p);
    states.push_back(*p != kAbsent         ? PinState::probed
                     : unconnected_if_absent ? PinState::not_connected
                                             : PinState::not_probed);
  }
  Result<ProbeCoverage> coverage = probe_coverage(standard, std::move(states));
  if (!coverage) return coverage.error();
  l.coverage = std::move(*coverage);
  l.contiguous = true;
  for (unsigned i = 0; i < l.pins.size(); ++i)
    if (l.pins[i] != l.pins[0] + i) l.contiguous = false;
  for (const std::string& role : probes.probed) {
    if (!is_strobe(role)) continue;
    Result<unsigned> p = find(role, true);
    if (!p) return p.error();
    l.dqs_mask |= std::uint64_t{1} << *p;
    l.dqs_names.push_back(channels[*p]);
  }
  for (const auto& [role, name] : roles) {
    if (!is_strobe(role) || listed) continue;
    Result<unsigned> p = find(role, true);
    if (!p) return p.error();
    l.dqs_mask |= std::uint64_t{1} << *p;
    l.dqs_names.push_back(name);
  }
  if (l.dqs_mask == 0 && !listed)
    for (unsigned i = 0; i < channels.size(); ++i)
      if (is_strobe_name(channels[i])) {
        l.dqs_mask |= std::uint64_t{1} << i;
        l.dqs_names.push_back(channels[i]);
      }
  return l;
}

Sampler::Sampler(BusLayout layout, double samplerate, std::uint64_t window_samples, unsigned dqs_preamble)
    : layout_(std::move(layout)), format_(bus_format(layout_.standard)), samplerate_(samplerate),
      dqs_preamble_(dqs_preamble) {
  stats_.window_samples = std::max<std::uint64_t>(window_samples, 1);
  window_end_ = stats_.window_samples;
  stats_.dqs_sampled = layout_.dqs_mask != 0;
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
  if (interval > gap_threshold_) {
    stats_.stops.push_back({cycle_before, start, interval});
  } else {
    period_sum_ += static_cast<double>(interval);
    ++period_count_;
  }
}

Status Sampler::on_estimate() {
  std::vector<double> intervals;
  for (const Early& e : early_) intervals.push_back(static_cast<double>(e.interval));
  double tck = median(intervals);
  HARNESS_TRY(check_rate(tck));
  gap_threshold_ = 1.5 * tck;
  gap_limit_ = static_cast<std::uint64_t>(gap_threshold_);  // an integer interval > threshold iff > its floor
  // Shifts that smear a bit over the next floor(gap_threshold) bits, each
  // step doubling the covered run (see feed_typed).
  if (gap_threshold_ < 64) {
    const auto t = static_cast<unsigned>(gap_threshold_);
    unsigned steps = 0;
    for (unsigned done = 1; done <= t;) {
      const unsigned shift = std::min(done, t + 1 - done);
      smear_shifts_[steps++] = static_cast<std::uint8_t>(shift);
      done += shift;
    }
  }
  for (const Early& e : early_) count_interval(e.interval, e.cycle_before, e.start);
  early_.clear();
  return ok();
}

namespace {

// One block of up to 64 samples as bit masks: bit j is sample j.
struct BlockMasks {
  std::uint64_t ck = 0;
  std::uint64_t selected = 0;       // some chip select active
  std::uint64_t strobe_rise = 0;    // some strobe high that was low the sample before
  std::uint64_t cke = 0;            // CKE level (0 when not captured)
};

// The channels a block is read for, as bit masks of one sample.
template <class T>
struct Lines {
  T ck, cs, cs_invert, strobes, cke;
};

// Portable version. `prev` is the sample before s[0].
template <class T>
BlockMasks block_masks_scalar(const T* s, std::size_t n, T prev, const Lines<T>& l) {
  BlockMasks m;
  for (std::size_t j = 0; j < n; ++j) {
    m.ck |= static_cast<std::uint64_t>((s[j] & l.ck) != 0) << j;
    m.selected |= static_cast<std::uint64_t>(((s[j] ^ l.cs_invert) & l.cs) != 0) << j;
    m.strobe_rise |= static_cast<std::uint64_t>((s[j] & ~prev & l.strobes) != 0) << j;
    m.cke |= static_cast<std::uint64_t>((s[j] & l.cke) != 0) << j;
    prev = s[j];
  }
  return m;
}

// 64 16-bit samples with AVX-512BW: one test instruction per 32 samples and
// mask; strobe rises from the samples AND NOT the samples shifted by one
// (s[-1] must be readable).
// Helpers are functions, not lambdas: clang gives a lambda inside a target
// function no target of its own (the fuzz build uses clang).
__attribute__((target("avx512bw"))) inline std::uint64_t mask_avx512(__m512i a, __m512i b, std::uint16_t bits) {
  const __m512i m = _mm512_set1_epi16(static_cast<short>(bits));
  return static_cast<std::uint64_t>(_mm512_test_epi16_mask(a, m)) |
         static_cast<std::uint64_t>(_mm512_test_epi16_mask(b, m)) << 32;
}

__attribute__((target("avx512bw"))) BlockMasks block_masks_avx512(const std::uint16_t* s,
                                                                 const Lines<std::uint16_t>& l) {
  const __m512i lo = _mm512_loadu_si512(s), hi = _mm512_loadu_si512(s + 32);
  const __m512i lo_before = _mm512_loadu_si512(s - 1), hi_before = _mm512_loadu_si512(s + 31);
  const __m512i invert = _mm512_set1_epi16(static_cast<short>(l.cs_invert));
  BlockMasks m;
  m.ck = mask_avx512(lo, hi, l.ck);
  m.selected = mask_avx512(_mm512_xor_si512(lo, invert), _mm512_xor_si512(hi, invert), l.cs);
  // lo & ~before as lo ^ (lo & before): GCC 12's _mm512_andnot_si512 warns
  // about its own undefined pass-through operand.
  m.strobe_rise = mask_avx512(_mm512_xor_si512(lo, _mm512_and_si512(lo, lo_before)),
                              _mm512_xor_si512(hi, _mm512_and_si512(hi, hi_before)), l.strobes);
  if (l.cke) m.cke = mask_avx512(lo, hi, l.cke);
  return m;
}

// The same with AVX2: compare (sample AND bits) with zero per 16-bit lane,
// pack to bytes, movemask, invert.
// Bit j set where (w[j] ^ invert) & bits != 0.
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

__attribute__((target("avx2"))) BlockMasks block_masks_avx2(const std::uint16_t* s, const Lines<std::uint16_t>& l) {
  __m256i v[4], rose[4];
  for (int i = 0; i < 4; ++i) {
    v[i] = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(s + 16 * i));
    rose[i] = _mm256_andnot_si256(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(s + 16 * i - 1)), v[i]);
  }
  BlockMasks m;
  m.ck = any_avx2(v, l.ck, 0);
  m.selected = any_avx2(v, l.cs, l.cs_invert);
  m.strobe_rise = any_avx2(rose, l.strobes, 0);
  if (l.cke) m.cke = any_avx2(v, l.cke, 0);
  return m;
}

const bool kHaveAvx2 = __builtin_cpu_supports("avx2");
const bool kHaveAvx512 = __builtin_cpu_supports("avx512bw");

// Masks of the n samples at s; `prev` is the sample before s[0], and
// `prev_in_memory` says whether s[-1] may be read.
template <class T>
BlockMasks block_masks(const T* s, std::size_t n, T prev, bool prev_in_memory, const Lines<T>& l) {
  if constexpr (sizeof(T) == 2) {
    if (n == 64 && prev_in_memory) {
      if (kHaveAvx512) return block_masks_avx512(s, l);
      if (kHaveAvx2) return block_masks_avx2(s, l);
    }
  }
  return block_masks_scalar(s, n, prev, l);
}

inline std::uint64_t above(int j) { return ~((std::uint64_t{2} << j) - 1); }  // bits > j

}  // namespace

// A declared toggling preamble: the first `dqs_preamble_` active cycles of
// each envelope (a run of active cycles; one idle cycle ends it) are not
// data. Per edge, but only when a preamble is declared.
std::uint64_t Sampler::drop_preamble(std::uint64_t rise, std::uint64_t active) {
  std::uint64_t keep = 0;
  for (std::uint64_t m = rise; m; m &= m - 1) {
    const std::uint64_t e = m & -m;
    const bool on = (active & e) != 0;
    if (on && !edge_active_) preamble_left_ = dqs_preamble_;
    if (on && preamble_left_) {
      --preamble_left_;
      ++stats_.dqs_preamble_cycles;
    } else if (on) {
      keep |= e;
    }
    edge_active_ = on;
  }
  return keep;
}

inline void Sampler::next_window() {
  if (window_active_) {
    if (window_index_ >= stats_.dqs_active_per_window.size()) stats_.dqs_active_per_window.resize(window_index_ + 1, 0);
    stats_.dqs_active_per_window[window_index_] += window_active_;
  }
  window_active_ = 0;
  window_end_ += stats_.window_samples;
  if (++window_index_ < kMaxWindows) return;
  // Bounded memory for any length of capture: merge neighbouring windows
  // and double their length (windows stay aligned to sample 0).
  auto& v = stats_.dqs_active_per_window;
  for (std::size_t i = 0; 2 * i < v.size(); ++i) v[i] = v[2 * i] + (2 * i + 1 < v.size() ? v[2 * i + 1] : 0);
  v.resize((v.size() + 1) / 2);
  stats_.window_samples *= 2;
  window_index_ /= 2;
  window_end_ = (window_index_ + 1) * stats_.window_samples;
}

// Works on blocks of 64 samples as bit masks (CK level, rising and falling
// edges, DQS toggles), so that the per-sample cost is a few vector
// instructions; per-edge work happens only for command cycles, and
// per-interval work only until the clock period is known or when a block may
// hold a clock stop.
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
  const Lines<T> lines{bit(layout_.ck), static_cast<T>(layout_.cs_mask), static_cast<T>(layout_.cs_invert),
                       static_cast<T>(layout_.dqs_mask), bit(layout_.cke)};
  const bool has_cke = layout_.cke != kAbsent;
  for (std::size_t b = 0; b < count; b += 64) {
    const std::size_t n = std::min<std::size_t>(64, count - b);
    const std::uint64_t valid = n == 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << n) - 1;
    const T* s = x + b;
    const std::uint64_t at = base + b;  // sample index of bit 0
    // Levels of CK and CS and the strobe toggles, one bit per sample.
    const BlockMasks masks = block_masks(s, n, static_cast<T>(prev_sample_), b > 0, lines);
    const std::uint64_t ck_at_start = (prev_sample_ >> layout_.ck) & 1;  // CK just before this block
    prev_sample_ = s[n - 1];
    const std::uint64_t ck = masks.ck;
    const std::uint64_t ck_before = (ck << 1) | ck_at_start;
    const std::uint64_t rise = ck & ~ck_before & valid;
    const std::uint64_t fall = ~ck & ck_before & valid;
    const std::uint64_t dqs_toggle = masks.strobe_rise & valid;  // strobe rising edges
    if (pending_ && second_is_fall && fall) {
      pending_group_.second = s[std::countr_zero(fall)];
      out.push_back(pending_group_);
      pending_ = false;
    }
    if (!rise) {
      if (dqs_toggle) dqs_carry_ = true;
      continue;
    }
    // DQS activity: a CK rising edge ends an active cycle when a strobe rose
    // since the previous one (rising edges only: one per strobe period, so a
    // burst's trailing fall or a static postamble adds nothing). Adding the
    // strobe edges to the runs of non-edge bits carries each run's edges
    // into the CK edge that ends it.
    if (stats_.dqs_sampled) {
      const std::uint64_t runs = ~rise & valid;
      const std::uint64_t carry_in = dqs_carry_ && (runs & 1) ? 1 : 0;
      const unsigned __int128 sum =
          static_cast<unsigned __int128>(runs) + (dqs_toggle & runs) + carry_in;
      std::uint64_t active = rise & (static_cast<std::uint64_t>(sum) | dqs_toggle);
      if (dqs_carry_ && (rise & 1)) active |= 1;
      dqs_carry_ = (sum >> n) != 0;
      // Edges of the first cycle have no previous edge: not a cycle yet.
      if (!have_rise_) active &= ~(rise & -rise);
      if (dqs_preamble_) active = drop_preamble(rise, active);
      stats_.dqs_active_cycles += static_cast<std::uint64_t>(std::popcount(active));
      // Windows advance by addition (no division per block); most blocks
      // lie inside the window being filled.
      if (at + 64 <= window_end_) {
        window_active_ += static_cast<std::uint32_t>(std::popcount(active));
      } else {
        while (active) {
          const std::uint64_t pos = at + static_cast<std::uint64_t>(std::countr_zero(active));
          while (pos >= window_end_) next_window();
          const std::uint64_t end = window_end_ - at;
          const std::uint64_t part = end >= 64 ? active : active & ((std::uint64_t{1} << end) - 1);
          window_active_ += static_cast<std::uint32_t>(std::popcount(part));
          active &= ~part;
        }
      }
    }
    const std::uint64_t cycle0 = stats_.cycles;
    const int first = std::countr_zero(rise), last = 63 - std::countl_zero(rise);
    // Clock period and clock stops.
    bool slow = gap_threshold_ == 0;
    if (!slow && have_rise_ && at + first - last_rise_ > gap_limit_) slow = true;
    if (!slow && gap_threshold_ < 64) {
      // Smear every edge over the following gap_threshold bits: an uncovered
      // bit between the first and last edge is a longer interval.
      std::uint64_t cover = rise;
      // At most six doublings cover 63 bits; unused steps shift by 0.
      for (unsigned k = 0; k < smear_shifts_.size(); ++k) cover |= cover << smear_shifts_[k];
      const std::uint64_t between = ((std::uint64_t{2} << last) - 1) & ~((std::uint64_t{1} << first) - 1);
      if (~cover & between) slow = true;
    }
    if (slow) {
      std::uint64_t cycle = cycle0;
      for (std::uint64_t m = rise; m; m &= m - 1) {
        const std::uint64_t pos = at + static_cast<std::uint64_t>(std::countr_zero(m));
        if (have_rise_) {
          const std::uint64_t interval = pos - last_rise_;
          if (gap_threshold_ > 0) {
            count_interval(interval, cycle - 1, last_rise_);
          } else {
            early_.push_back({interval, cycle - 1, last_rise_});
            if (early_.size() == kEarlyIntervals) HARNESS_TRY(on_estimate());
          }
        }
        have_rise_ = true;
        last_rise_ = pos;
        ++cycle;
      }
    } else {
      const std::uint64_t last_pos = at + static_cast<std::uint64_t>(last);
      const auto edges = static_cast<std::uint64_t>(std::popcount(rise));
      if (have_rise_) {
        period_sum_ += static_cast<double>(last_pos - last_rise_);
        period_count_ += edges;
      } else {
        period_sum_ += static_cast<double>(last - first);
        period_count_ += edges - 1;
      }
      have_rise_ = true;
      last_rise_ = last_pos;
    }
    stats_.cycles += static_cast<std::uint64_t>(std::popcount(rise));
    // Command cycles: chip select active at the rising edge.
    std::uint64_t command = rise & masks.selected;
    // CKE: edges where it changed become groups too; while it stays low the
    // part ignores the bus (power-down, self refresh).
    std::uint64_t cke_fell = 0, cke_rose = 0;
    if (has_cke) {
      const std::uint64_t high = masks.cke & rise;
      if (!cke_seen_) {
        cke_high_ = (high >> first) & 1;
        cke_seen_ = true;
      }
      if (high == rise && cke_high_) {
        // CKE high throughout: the usual case.
      } else if (high == 0 && !cke_high_) {
        command = 0;
      } else {
        std::uint64_t heard = 0;  // edges where CKE is or was just high
        for (std::uint64_t m = rise; m; m &= m - 1) {
          const std::uint64_t e = m & -m;
          const bool now = (high & e) != 0;
          if (now != cke_high_) (now ? cke_rose : cke_fell) |= e;
          if (now || cke_high_) heard |= e;
          cke_high_ = now;
        }
        command = (command & heard) | cke_fell | cke_rose;
      }
    }
    if (pending_ && second_is_next_rise) {
      const int j = first;
      pending_group_.second = s[j];
      out.push_back(pending_group_);
      pending_ = false;
      command &= ~(std::uint64_t{1} << j);  // the second cycle starts no command
    }
    for (std::uint64_t m = command; m; m &= m - 1) {
      const int j = std::countr_zero(m);
      // Built in place: copying a just-built group would stall on store
      // forwarding, which costs more than everything else here.
      EdgeGroup& g = out.emplace_back();
      g.cycle = cycle0 + static_cast<std::uint64_t>(std::popcount(rise & ((std::uint64_t{1} << j) - 1)));
      g.sample = at + static_cast<std::uint64_t>(j);
      g.first = s[j];
      if ((cke_fell | cke_rose) >> j & 1) {
        g.cke = (cke_fell >> j & 1) ? CkeChange::fell : CkeChange::rose;
        if (!(masks.selected >> j & 1)) continue;  // CKE alone: no command word
      }
      if (second_is_fall || second_is_next_rise) {
        const std::uint64_t later = (second_is_fall ? fall : rise) & above(j);
        if (later) {
          const int k = std::countr_zero(later);
          g.second = s[k];
          if (second_is_next_rise) m &= ~(std::uint64_t{1} << k);
        } else {
          pending_ = true;
          pending_group_ = g;
          out.pop_back();
        }
      }
    }
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
  if (gap_threshold_ == 0) {
    if (early_.empty())
      return Error::input(fmt::format("no clock: fewer than two rising edges on CK in {} samples", stats_.samples));
    HARNESS_TRY(on_estimate());
  }
  stats_.tck_samples = period_count_ ? period_sum_ / static_cast<double>(period_count_) : 0;
  next_window();  // the last window's count
  // Windows with no cycle at their end still belong to the timeline.
  std::uint64_t windows = (stats_.samples + stats_.window_samples - 1) / stats_.window_samples;
  if (stats_.dqs_active_per_window.size() < windows) stats_.dqs_active_per_window.resize(windows, 0);
  return ok();
}

}  // namespace harness::ddr

namespace harness::ddr {

ChannelPlan plan_bus_channels(Standard standard, const std::map<std::string, std::string>& roles,
                              const std::vector<std::string>& channels) {
  const BusFormat& f = bus_format(standard);
  // The keys make_layout looks a role up under, and the names mapped to roles.
  std::vector<std::string> keys, select_keys;
  std::vector<std::string> role_names = {"CK", "CKE"};
  role_names.insert(role_names.end(), f.pins.begin(), f.pins.end());
  std::vector<std::string> selects = {f.chip_select};
  for (unsigned r = 0; r < kMaxRanks; ++r) selects.push_back(chip_select_role(standard, r));
  for (const std::string& role : role_names)
    for (std::string& k : role_keys(standard, role)) keys.push_back(std::move(k));
  for (const std::string& role : selects)
    for (std::string& k : role_keys(standard, role)) select_keys.push_back(std::move(k));
  std::sort(keys.begin(), keys.end());
  std::sort(select_keys.begin(), select_keys.end());
  ChannelPlan plan;
  for (unsigned i = 0; i < channels.size(); ++i) {
    const std::string k = match_key(channels[i]);
    bool mapped = false, mapped_select = false;
    for (const auto& [role, name] : roles)
      if (name == channels[i]) {
        mapped = true;
        mapped_select = mapped_select || std::find(selects.begin(), selects.end(), role) != selects.end();
      }
    const bool select = mapped_select || std::binary_search(select_keys.begin(), select_keys.end(), k) ||
                        std::find(selects.begin(), selects.end(), channels[i]) != selects.end();
    const bool role = select || mapped || std::binary_search(keys.begin(), keys.end(), k) || is_strobe_name(channels[i]);
    if (role && channels.size() > 64) plan.keep.push_back(i);
    if (select && !f.chip_select_active_high) plan.idle_high.push_back(i);
  }
  return plan;
}

}  // namespace harness::ddr
