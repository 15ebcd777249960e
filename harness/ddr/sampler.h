// Timing mode -> per-clock-edge states. Finds CK edges in packed samples,
// estimates the clock period, finds clock-stop gaps, measures DQS activity
// per clock, and hands the decoder only the cycles where chip select is
// active (with the second edge of the command word). A capture with fewer
// than 4 samples per CA bit period is refused: its edges cannot be placed.
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "harness/base/result.h"
#include "harness/ddr/command.h"
#include "harness/ddr/encoding.h"
#include "probes/capture/capture.h"
#include "probes/capture/readers.h"

namespace harness::ddr {

constexpr unsigned kAbsent = 64;  // a pin the capture lacks: read as low
constexpr unsigned kMaxRanks = 4;

// The chip-select role of a rank: "CS" / "CS_n" for one rank, "CS1" / "CS1_n"
// for the others (rank 0 may also be named "CS0" / "CS0_n").
std::string chip_select_role(Standard standard, unsigned rank);

// Which capture channel carries which role.
struct BusLayout {
  Standard standard = Standard::lpddr4;
  bool two_edges = false;       // a word spans two edges (LPDDR4, LPDDR5)
  bool contiguous = false;      // pins on consecutive channels (fast path)
  unsigned ck = 0;
  std::vector<unsigned> chip_selects;  // channel of each rank's chip select (rank 0 first)
  std::uint64_t cs_mask = 0;    // all chip-select channels
  std::uint64_t cs_invert = 0;  // the active-low ones: XOR makes "active" a 1
  unsigned cke = kAbsent;       // DDR4/LPDDR4 CKE, if captured
  std::vector<unsigned> pins;   // channel of each BusFormat pin, kAbsent if missing
  std::uint64_t dqs_mask = 0;   // DQS/RDQS channels (never WCK: it may run continuously)
  std::vector<std::string> dqs_names;
  ProbeCoverage coverage;       // which fields the probed pins determine

  // The command word carried by the first and second edge samples.
  std::uint64_t word(std::uint64_t first, std::uint64_t second) const;
  // Whether a sample has some chip select active, and the lowest such rank.
  bool selected(std::uint64_t sample) const { return ((sample ^ cs_invert) & cs_mask) != 0; }
  int rank_of(std::uint64_t sample) const {
    for (unsigned r = 0; r < chip_selects.size(); ++r)
      if ((((sample ^ cs_invert) >> chip_selects[r]) & 1) != 0) return static_cast<int>(r);
    return 0;
  }
};

inline std::uint64_t BusLayout::word(std::uint64_t first, std::uint64_t second) const {
  if (contiguous) {
    // The usual wiring: CA0.. on consecutive channels.
    const std::uint64_t mask = (std::uint64_t{1} << pins.size()) - 1;
    const std::uint64_t lo = (first >> pins[0]) & mask;
    return two_edges ? lo | (((second >> pins[0]) & mask) << pins.size()) : lo;
  }
  std::uint64_t w = 0;
  const unsigned n = static_cast<unsigned>(pins.size());
  for (unsigned i = 0; i < n; ++i) {
    const unsigned p = pins[i];
    if (p == kAbsent) continue;
    w |= ((first >> p) & 1) << i;
    w |= ((second >> p) & 1) << (i + n);
  }
  return two_edges ? w : w & ((std::uint64_t{1} << n) - 1);
}

// Which pins the part has and which the capture carries.
struct ProbeSet {
  // DDR4 device organisation: "x4" or "x8" (bank groups on BG0 and BG1),
  // "x16" (BG0 only: x16 parts have no BG1 pin). Empty: x4/x8.
  std::string organisation;
  // The roles that were probed ("CK", "CS_n", "ACT_n", ..., "DQS0"): every
  // one must be in the capture; the standard's pins not listed are unknown.
  // Empty: every pin must be in the capture (DDR4 A11, A13, A17 may be
  // absent: unconnected on parts with fewer rows; an absent A12 leaves the
  // burst length unknown) and strobes are found by name.
  std::vector<std::string> probed;
};

// `roles` maps a role ("CK", "CS", "CA3", "DQS0") to a channel name; a role
// not mapped is looked up under its own name. DQS channels are the roles or
// channel names starting with DQS or RDQS.
Result<BusLayout> make_layout(Standard standard, const std::vector<std::string>& channels,
                              const std::map<std::string, std::string>& roles, const ProbeSet& probes = {});

// The reader's channel plan for a file naming its channels first (VCD,
// Saleae CSV): with more than a capture holds, only the channels
// make_layout could give a role (mapped, a role's name or spelling, a
// strobe); and the active-low chip selects, whose unknown (x/z) values read
// as deselected until a known value comes.
ChannelPlan plan_bus_channels(Standard standard, const std::map<std::string, std::string>& roles,
                              const std::vector<std::string>& channels);

// CKE at a rising edge, compared with the previous edge (power-down and
// DDR4 self-refresh entry and exit).
enum class CkeChange : std::uint8_t { none, fell, rose };

// One command-carrying clock cycle, or an edge where CKE changed.
struct EdgeGroup {
  std::uint64_t cycle = 0;   // index of the rising edge
  std::uint64_t sample = 0;  // sample index of the rising edge
  std::uint64_t first = 0;   // all channels at the rising edge
  std::uint64_t second = 0;  // at the falling edge (LPDDR5) or next rising edge (LPDDR4)
  CkeChange cke = CkeChange::none;
};

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
  std::uint64_t dqs_active_cycles = 0;  // cycles with at least one DQS toggle
  std::uint64_t window_samples = 0;   // as asked, doubled as often as needed to keep <= 16384 windows
  std::vector<std::uint32_t> dqs_active_per_window;  // active cycles per window
  std::uint64_t dqs_preamble_cycles = 0;  // cycles of declared toggling preamble, not counted as active
};

class Sampler {
 public:
  // `window_samples`: length of the windows of the DQS activity timeline;
  // `dqs_preamble`: CK cycles of toggling preamble that start each strobe
  // envelope (not data; 0: none declared).
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

  BusLayout layout_;
  const BusFormat& format_;
  double samplerate_;
  SamplerStats stats_;
  bool started_ = false;
  void next_window();
  std::uint64_t window_index_ = 0, window_end_ = 0;  // DQS timeline window being filled
  std::uint32_t window_active_ = 0;                  // its active cycles so far
  std::uint64_t prev_sample_ = 0;   // the previous chunk's last sample
  bool cke_high_ = true;            // CKE at the last rising edge
  bool cke_seen_ = false;           // an edge has been seen (the first sets cke_high_)
  std::uint64_t last_rise_ = 0;    // sample index of the last rising edge
  bool have_rise_ = false;
  bool dqs_carry_ = false;         // a DQS rising edge since the last CK rising edge
  unsigned dqs_preamble_ = 0;      // declared toggling preamble, CK cycles
  unsigned preamble_left_ = 0;     // of the envelope being read
  bool edge_active_ = false;       // the previous CK edge ended an active cycle
  std::uint64_t drop_preamble(std::uint64_t rise, std::uint64_t active);
  // Period estimate: the first intervals are kept until there are enough.
  struct Early {
    std::uint64_t interval, cycle_before, start;
  };
  std::vector<Early> early_;
  double gap_threshold_ = 0;       // samples; 0 until estimated
  std::uint64_t gap_limit_ = 0;    // its integer part
  std::array<std::uint8_t, 6> smear_shifts_{};  // 0 for unused steps
  double period_sum_ = 0;
  std::uint64_t period_count_ = 0;
  // A command cycle waiting for its second edge.
  bool pending_ = false;
  EdgeGroup pending_group_;
};

}  // namespace harness::ddr
