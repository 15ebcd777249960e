// Moving runs between stores (`harness store push` / `pull`): a rig's local
// SQLite file to the lab's PostgreSQL server and back. Runs are keyed by
// their UUID, so a run is copied once however often the copy is repeated,
// and its number in the destination is the destination's own.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "harness/base/result.h"
#include "harness/store/store.h"

namespace harness {

struct TransferSummary {
  std::vector<std::int64_t> copied;      // the runs' ids in the source
  int already_there = 0;                 // runs the destination had (same uuid)
  std::vector<std::int64_t> unfinished;  // running or abandoned: left where they are
  int artifacts = 0;                     // artifact files copied (verified by sha256)
  std::uint64_t artifact_bytes = 0;
};

// Copies every finished run of `source` that `destination` lacks, with its
// metrics, samples, verdicts, hints and artifacts, each run in one
// transaction. Each artifact is checked against its stored sha256 before it
// is copied and is stored again content-addressed, so a damaged file stops
// the copy with an error naming both digests; runs copied before it stay.
Result<TransferSummary> copy_runs(const Store& source, Store& destination);

struct BaselineTransferSummary {
  // Each as "'nightly' of scenario 'host' on rig 'lab-a'".
  std::vector<std::string> copied;
  int already_there = 0;           // the destination had the same baseline (the same runs)
  std::vector<std::string> kept;   // the destination has another baseline of that name: kept
  std::vector<std::string> left;   // a member run is not in the destination (not finished)
  int acknowledgements = 0;        // acknowledged regressions copied with their baseline
};

// Copies `source`'s baselines, with the acknowledgements that hold for them,
// whose runs `destination` has (copy_runs first), keyed by the runs' UUIDs,
// so that `compare --baseline` works in either store: a rig's baselines reach
// the lab's server, and the server's reach a laptop that pulled its runs. A
// baseline the destination already has under the same name, scenario and rig
// with other runs is kept as it is, never replaced: which nights are good is
// decided where the baseline is set (`harness baseline set` there).
Result<BaselineTransferSummary> copy_baselines(const Store& source, Store& destination);

}  // namespace harness
