// Which capture channel carries which role of a DRAM command bus (CK, chip
// selects, command/address pins, CKE, strobes), what the probed pins are,
// and which of a file's channels a reader keeps for the decoder.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "harness/base/result.h"
#include "harness/ddr/encoding.h"
#include "probes/capture/readers.h"

namespace harness::ddr {

constexpr unsigned kAbsent = 64;  // a pin the capture lacks: read as low
constexpr unsigned kMaxRanks = 4;

// The chip-select role of a rank: "CS" / "CS_n" for one rank, "CS1" / "CS1_n"
// for the others (rank 0 may also be named "CS0" / "CS0_n").
std::string chip_select_role(Standard standard, unsigned rank);

// How a role found its channel: mapped ([ddr.channels], --map), the
// channel named as the role ("CK"), or by one of its usual spellings
// ("CS#" for CS_n, "DQS0_t" for DQS0).
struct RoleMatch {
  enum How : std::uint8_t { mapped, named, spelled };
  std::string role, channel;
  How how;
};

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
  std::vector<RoleMatch> roles;  // how each role present found its channel

  // The command word carried by the first and second edge samples.
  std::uint64_t word(std::uint64_t first, std::uint64_t second) const;
  // Where the pins are, when `contiguous`.
  ContiguousPins contiguous_pins() const {
    return {pins.empty() ? 0 : pins[0], static_cast<unsigned>(pins.size()), two_edges};
  }
  // Whether a sample has some chip select active, and the lowest such rank.
  bool selected(std::uint64_t sample) const { return ((sample ^ cs_invert) & cs_mask) != 0; }
  int rank_of(std::uint64_t sample) const {
    for (unsigned r = 0; r < chip_selects.size(); ++r)
      if ((((sample ^ cs_invert) >> chip_selects[r]) & 1) != 0) return static_cast<int>(r);
    return 0;
  }
};

inline std::uint64_t BusLayout::word(std::uint64_t first, std::uint64_t second) const {
  if (contiguous) return contiguous_pins().word(first, second);  // the usual wiring: CA0.. on consecutive channels
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

}  // namespace harness::ddr
