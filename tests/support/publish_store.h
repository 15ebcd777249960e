// A run store of several nights filled by real code, for the publish tests:
// the bundled fixtures are replayed (load_bundle + replay_bundle) and stored
// with insert_run as nights of a lab. Two series are made on purpose:
//   whisper-medium-ryzen-ai on "lab-a": the case study's days in reverse order (day 6
//     four nights, then day 5, day 3, day 1 three nights each), so latency,
//     bandwidth and the counters get worse in steps; baseline "nightly" is
//     its first night;
//   whisper-medium-ryzen-ai on "lab-b": day 6 every night (nothing changes);
//   the host fixture's own scenario on "host-a": one night.
// The replayed records are stored as origin "live" because they stand for
// the lab's nights here (drawn as live runs; their values, provenance
// replayed, are fitted either way).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "harness/base/result.h"
#include "harness/model/run.h"
#include "harness/store/store.h"

namespace harness::test_support {

struct PublishStore {
  std::vector<std::int64_t> lab_a, lab_b, host_a;  // run ids, oldest first
};

// A replayed fixture (HARNESS_SOURCE_DIR/fixtures/<relative>) as one night.
Result<RunRecord> replayed_night(const std::string& fixture, const std::string& rig, const std::string& day);

// Fills `store` as above; nights start on 2026-11-01.
Result<PublishStore> fill_publish_store(Store& store);

}  // namespace harness::test_support
