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

}  // namespace harness
