// The plain structs every level produces and every sink (store, reports,
// compare) consumes: metrics with provenance, raw sample sets, verdicts.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace harness {

enum class Level : int { roofline = 1, counters = 2, ddr = 3, latency = 4, accuracy = 5 };
constexpr Level kAllLevels[] = {Level::roofline, Level::counters, Level::ddr, Level::latency, Level::accuracy};
std::string_view level_name(Level level);  // "roofline", "counters", "ddr", "latency", "accuracy"
std::optional<Level> level_from_name(std::string_view name);

// Where a number comes from. Never absent: a figure without provenance is a bug.
enum class Provenance { measured, declared, model, replayed };
std::string_view provenance_name(Provenance p);
std::optional<Provenance> provenance_from_name(std::string_view name);

// Which direction is an improvement, used by compare.
enum class Better { lower, higher, none };
std::string_view better_name(Better b);
std::optional<Better> better_from_name(std::string_view name);

struct Metric {
  Level level = Level::roofline;
  std::string name;              // "dram_bandwidth", "latency_p95", "vector_add.intensity"
  std::optional<double> value;   // absent: unavailable, see `unavailable`
  std::string unit;              // SI unit ("s", "B/s", "op/s", "B", "op/B") or "1" for ratios
  Provenance provenance = Provenance::measured;
  std::string source;            // the probe or input it came from: "membw:seq_read"
  std::string unavailable;       // reason, when value is absent
  Better better = Better::none;
  std::string text;              // for categorical metrics ("memory", "compute"): the value

  static Metric known(Level level, std::string name, double value, std::string unit, Provenance provenance,
                      std::string source, Better better = Better::none, std::string text = {}) {
    Metric m;
    m.level = level;
    m.name = std::move(name);
    m.value = value;
    m.unit = std::move(unit);
    m.provenance = provenance;
    m.source = std::move(source);
    m.better = better;
    m.text = std::move(text);
    return m;
  }

  static Metric missing(Level level, std::string name, std::string unit, std::string reason,
                        Better better = Better::none) {
    Metric m;
    m.level = level;
    m.name = std::move(name);
    m.unit = std::move(unit);
    m.unavailable = std::move(reason);
    m.better = better;
    return m;
  }
};

// Raw samples behind a metric (latencies, repeated bandwidth measurements),
// kept so that compare can run a two-sample test.
struct SampleSet {
  Level level = Level::latency;
  std::string name;
  std::string unit;
  Provenance provenance = Provenance::measured;
  std::string source;
  Better better = Better::none;
  std::vector<double> values;
};

// cannot_tell: judged, but the evidence could not decide (a paired verdict
// against the run's reference whose interval straddles its threshold, or a
// rig that was unstable); never a failure, never a pass.
enum class VerdictStatus { pass, fail, unavailable, cannot_tell };
std::string_view verdict_status_name(VerdictStatus s);
std::optional<VerdictStatus> verdict_status_from_name(std::string_view name);

struct Verdict {
  Level level = Level::roofline;
  std::string check;     // the expectation as written: "latency.expect.p95_over_p50_max"
  std::string expected;  // "<= 1.3"
  std::string measured;  // "1.12" or "unavailable: ..."
  VerdictStatus status = VerdictStatus::unavailable;
  std::string detail;    // why it failed, or a hint
};

// abandoned is never stored: the store reports a "running" run whose process
// is gone (harness/store/run_owner.h) as abandoned.
enum class RunStatus { running, passed, failed, aborted, abandoned };
std::string_view run_status_name(RunStatus s);
std::optional<RunStatus> run_status_from_name(std::string_view name);

struct Artifact {
  std::string name;    // "ddr_capture"
  std::string path;    // absolute or relative to the store's folder
  std::uint64_t size = 0;
  std::string sha256;
  std::string kind;    // "sigrok-session", "csv", ...
};

// Everything the analysis of one run produced.
struct Analysis {
  std::vector<Metric> metrics;
  std::vector<SampleSet> samples;
  std::vector<Verdict> verdicts;
  std::vector<std::string> hints;  // diagnostics for people (seed's rules)

  const Metric* find_metric(std::string_view name) const;
  const SampleSet* find_samples(std::string_view name) const;
};

}  // namespace harness
