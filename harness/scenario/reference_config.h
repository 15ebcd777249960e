// A same-run reference ([reference]): what the candidate ([workload]) is
// measured against in the same run, the two alternating in rounds so that
// whatever the rig does during a round both sides see (docs/parts/compare.md,
// "Paired rounds"). Reference: scenarios/README.md "[reference]".
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "probes/workload/workload_spec.h"

namespace harness {

struct ReferenceConfig {
  // The keys of [workload]: the last known-good build of the model,
  // firmware or driver, or the same command for an A/A night.
  Workload workload;
  // Rounds of the first look; one block of each side a round. Level 4 splits
  // [latency] iterations over them, level 2 its counter windows are them,
  // level 1 times each kernel and its reference once a round.
  int rounds = 20;
  // "random": each round's order drawn from the seed; "abba": AB, BA, AB...
  std::string order = "random";
  // Absent: drawn when the run starts and recorded with it.
  std::optional<std::uint64_t> seed;
  // Unmeasured iterations before each block of level 4, so neither side pays
  // for the switch from the other.
  std::int64_t block_warmup = 2;
  // Not a [reference] key: the run's number of a request's first round, so
  // that a later look of level 1 (acquire_roofline.cc) continues the run's
  // order instead of drawing its first rounds again.
  int first_round = 0;
  std::string where;  // file:line:col of [reference]
};

// Whether the reference runs first in round `round` (0-based): drawn from the
// seed for "random" (a fair coin per round, the same for the same seed and
// round on every host and device), alternating AB, BA, ... for "abba".
bool reference_first(const ReferenceConfig& config, std::uint64_t seed, int round);

// "random order, seed 1234" / "ABBA order".
std::string pairing_text(const ReferenceConfig& config, std::uint64_t seed);

}  // namespace harness
