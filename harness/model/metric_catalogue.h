// The metric catalogue: every name a level may emit, with its unit, its
// better direction, the expectation keys a scenario may write on it and one
// line saying what it is. One table per level (metric_catalogue.cc).
//
// It is the one contract between the levels (which emit through
// catalogued_metric/catalogued_missing, so that a name outside it cannot be
// emitted), the scenario readers (which take their allowed expectation keys
// from it) and the reports (which look their names up through
// catalogue_pattern). `harness metrics` lists it.
//
// A name is either exact ("ddr.bandwidth") or a pattern whose <placeholder>
// parts stand for a non-empty part of the name chosen by the scenario or the
// data ("<kernel>.time", "ddr.transactions.<N>B", "accuracy.<layer>.cosine").
// Exact names are matched first, then patterns in table order, so a table
// lists a specific pattern before a more general one.
#pragma once

#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "harness/model/metric.h"

namespace harness {

// The expectation keys an entry supports, as flags over its `expect` stem.
enum ExpectForm : unsigned {
  kNoExpectation = 0,
  kExpectBounds = 1u << 0,      // <stem>_min, <stem>_max
  kExpectEquals = 1u << 1,      // <stem> = one of `categories`
  kExpectVsBaseline = 1u << 2,  // <stem>_vs_baseline = "lower" | "higher" (compare)
  kExpectGainMin = 1u << 3,     // <stem>_gain_min: a ratio to the baseline (compare)
  kExpectIncreased = 1u << 4,   // <stem>_increased = true: above the baseline (compare)
  kExpectFlag = 1u << 5,        // <stem> = true (compare)
  kExpectBaselineChange = 1u << 6,  // baseline.<stem>_drop_min, _rise_max, _follows (compare)
  kExpectKey = 1u << 7,         // the stem is the key itself (a bound with its own table)
  // baseline.<stem with "_min" read as "_drop_max">: how far the value may
  // fall below the baseline's ("cosine_min" -> "baseline.cosine_drop_max")
  kExpectDropMax = 1u << 8,
};

// What is recorded under the name: a metric, a sample set (raw values behind
// a distribution), or both under the same name.
enum class Series { metric, samples, both };

struct CatalogueEntry {
  std::string_view name;  // exact or a pattern with <placeholders>
  // SI unit ("s", "B/s", "op/B"), "1" for a count or ratio, "" for a
  // categorical figure or a level's placeholder; alternatives separated by
  // '|' ("1/J|token/J"); "*" when the source declares it (a counter group,
  // a vendor figure's dimension).
  std::string_view unit;
  Better better = Better::none;
  bool better_from_source = false;  // a counter group declares the direction
  std::string_view expect;          // the key stem in the expect table, "" for none
  unsigned forms = kNoExpectation;
  std::string_view expect_table;    // where the keys go; "" means [<level>.expect]
  std::string_view categories;      // for kExpectEquals: "memory|compute"
  std::string_view description;
  Series series = Series::metric;
  // A sample set of repetitions of the same work, in the order they ran
  // (level 4's iterations, level 1's rounds, level 2's windows): a change of
  // the work shows in every stretch of it, a disturbance of the host comes
  // and goes (harness/compare/persistence.h).
  bool repetitions_in_order = false;

  bool is_pattern() const { return name.find('<') != std::string_view::npos; }
  std::vector<std::string> expectation_keys() const;  // "bandwidth_min", "bandwidth_max", ...
  std::string table_of_keys(Level level) const;       // "[ddr.expect]"
};

// One level's table, in listing order.
std::span<const CatalogueEntry> metric_catalogue(Level level);

// Level 4's metrics of one load condition (the first condition's names; the
// others carry them under "load.<load>.").
std::span<const CatalogueEntry> latency_condition_catalogue();

// The level-4 statistics a run with a same-run reference also takes per
// round of each side: each gets "reference.<name>" (the reference's figure)
// and "vs_reference.<name>" (the rounds' ratios candidate / reference, a
// sample set, and their geometric mean), for every load condition.
inline constexpr std::string_view kPairedLatencyStatistics[] = {"latency_p50", "latency_p90", "latency_mean",
                                                               "throughput", "power_mean"};
bool is_paired_latency_statistic(std::string_view name);  // also under "load.<load>."

// Whether `name` matches the (exact or pattern) catalogue name.
bool name_matches(std::string_view pattern, std::string_view name);

// The entry `name` falls under at `level`, or null: exact names first, then
// patterns in table order.
const CatalogueEntry* find_catalogue_entry(Level level, std::string_view name, Series series = Series::metric);
// The same over every level (reports know a name, not always its level).
const CatalogueEntry* find_catalogue_entry(std::string_view name, Series series = Series::metric);

// A report's or parser's reference to a catalogue name, exact or pattern
// exactly as the table spells it ("ddr.transactions.<N>B"). Throws
// std::logic_error for a name the catalogue lacks: a programming error that
// every test rendering a report trips. Each lookup is remembered, so the
// catalogue test can check that some replayed run emits what reports read.
const CatalogueEntry& catalogue_pattern(std::string_view pattern);
struct CatalogueLookup {
  Level level;
  std::string pattern;
};
std::vector<CatalogueLookup> catalogue_lookups_so_far();

// The part of `name` a single-placeholder pattern stands for
// ("ddr.transactions.<N>B", "ddr.transactions.64B" -> "64"), or nothing.
std::optional<std::string> placeholder_value(std::string_view pattern, std::string_view name);
// A pattern with its placeholders replaced, in order ("<kernel>.achieved", {"gemm"} -> "gemm.achieved").
std::string instance_name(std::string_view pattern, std::initializer_list<std::string_view> parts);

// Metrics built from the catalogue: unit and direction come from the entry.
// `unit` and `better` are taken only where the entry leaves them to the source
// (unit "*" or one of its '|' alternatives; better_from_source). Throws
// std::logic_error for a name outside the level's table or a unit the entry
// does not allow: the analysis must not emit a name nobody can look up.
Metric catalogued_metric(Level level, std::string name, double value, Provenance provenance, std::string source,
                         std::string text = {}, std::string_view unit = {},
                         std::optional<Better> better = std::nullopt);
Metric catalogued_missing(Level level, std::string name, std::string reason, std::string_view unit = {},
                          std::optional<Better> better = std::nullopt);
SampleSet catalogued_samples(Level level, std::string name, Provenance provenance, std::string source,
                             std::vector<double> values, std::string_view unit = {},
                             std::optional<Better> better = std::nullopt);

// Every metric and sample set of an analysis that the catalogue lacks, or
// whose unit or direction differs from its entry: "ddr: ddr.foo (not in the
// catalogue)". Empty when the analysis keeps the contract.
std::vector<std::string> catalogue_violations(const Analysis& analysis);

}  // namespace harness
