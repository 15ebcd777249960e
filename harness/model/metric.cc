#include "harness/model/metric.h"

#include <array>
#include <utility>

namespace harness {
namespace {

template <class E, std::size_t N>
std::string_view name_of(const std::array<std::pair<E, std::string_view>, N>& table, E e) {
  for (auto& [value, name] : table)
    if (value == e) return name;
  return "?";
}

template <class E, std::size_t N>
std::optional<E> value_of(const std::array<std::pair<E, std::string_view>, N>& table,
                          std::string_view n) {
  for (auto& [value, name] : table)
    if (name == n) return value;
  return std::nullopt;
}

constexpr std::array<std::pair<Level, std::string_view>, 5> kLevels = {{
    {Level::roofline, "roofline"}, {Level::counters, "counters"},
    {Level::ddr, "ddr"}, {Level::latency, "latency"}, {Level::accuracy, "accuracy"}}};
constexpr std::array<std::pair<Provenance, std::string_view>, 4> kProvenances = {{
    {Provenance::measured, "measured"}, {Provenance::declared, "declared"},
    {Provenance::model, "model"}, {Provenance::replayed, "replayed"}}};
constexpr std::array<std::pair<Better, std::string_view>, 3> kBetters = {{
    {Better::lower, "lower"}, {Better::higher, "higher"}, {Better::none, "none"}}};
constexpr std::array<std::pair<VerdictStatus, std::string_view>, 4> kVerdicts = {{
    {VerdictStatus::pass, "pass"}, {VerdictStatus::fail, "fail"},
    {VerdictStatus::unavailable, "unavailable"}, {VerdictStatus::cannot_tell, "cannot tell"}}};
constexpr std::array<std::pair<RunStatus, std::string_view>, 5> kRunStatuses = {{
    {RunStatus::running, "running"}, {RunStatus::passed, "passed"},
    {RunStatus::failed, "failed"}, {RunStatus::aborted, "aborted"}, {RunStatus::abandoned, "abandoned"}}};

}  // namespace

std::string_view level_name(Level l) { return name_of(kLevels, l); }
std::optional<Level> level_from_name(std::string_view n) { return value_of(kLevels, n); }
std::string_view provenance_name(Provenance p) { return name_of(kProvenances, p); }
std::optional<Provenance> provenance_from_name(std::string_view n) { return value_of(kProvenances, n); }
std::string_view better_name(Better b) { return name_of(kBetters, b); }
std::optional<Better> better_from_name(std::string_view n) { return value_of(kBetters, n); }
std::string_view verdict_status_name(VerdictStatus s) { return name_of(kVerdicts, s); }
std::optional<VerdictStatus> verdict_status_from_name(std::string_view n) { return value_of(kVerdicts, n); }
std::string_view run_status_name(RunStatus s) { return name_of(kRunStatuses, s); }
std::optional<RunStatus> run_status_from_name(std::string_view n) { return value_of(kRunStatuses, n); }

const Metric* Analysis::find_metric(std::string_view name) const {
  for (const Metric& m : metrics)
    if (m.name == name) return &m;
  return nullptr;
}

const SampleSet* Analysis::find_samples(std::string_view name) const {
  for (const SampleSet& s : samples)
    if (s.name == name) return &s;
  return nullptr;
}

}  // namespace harness
