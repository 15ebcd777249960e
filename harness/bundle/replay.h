// Replay: load a bundle, then run the same analysis as a live run.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "harness/base/result.h"
#include "harness/bundle/bundle.h"
#include "harness/model/run.h"

namespace harness {

// The run a bundle replays to: scenario and context from the bundle,
// metrics analysed afresh with Provenance::replayed for what the rig
// measured, origin "replay". Not stored.
Result<RunRecord> replay_bundle(const LoadedBundle& bundle);

// What a replay is checked against (`--expect`): metrics, verdicts and hints,
// at full precision; nothing that changes from one replay to the next.
nlohmann::json analysis_fingerprint(const Analysis& analysis);

// Differences between an expected and an actual fingerprint, one per line
// ("metric latency_p95: value 0.0012 expected 0.0011"); empty when equal.
std::string describe_fingerprint_difference(const nlohmann::json& expected, const nlohmann::json& actual);

}  // namespace harness
