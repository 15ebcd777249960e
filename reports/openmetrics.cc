#include "reports/openmetrics.h"

#include <cctype>
#include <cmath>
#include <cstdio>
#include <ctime>
#include <map>
#include <set>

#include <fmt/format.h>

#include "harness/compare/outcome.h"
#include "harness/model/metric_catalogue.h"

namespace harness {
namespace {

std::string escape_label(const std::string& v) {
  std::string out;
  for (char c : v) {
    if (c == '\\') out += "\\\\";
    else if (c == '"') out += "\\\"";
    else if (c == '\n') out += "\\n";
    else out += c;
  }
  return out;
}

std::string escape_help(const std::string& v) {
  std::string out;
  for (char c : v) {
    if (c == '\\') out += "\\\\";
    else if (c == '\n') out += "\\n";
    else out += c;
  }
  return out;
}

// Go's strconv formatting of a float64 as Prometheus parses it.
std::string number(double v) { return fmt::format("{}", v); }

std::string run_labels(const RunRecord& r) {
  return fmt::format("rig=\"{}\",scenario=\"{}\"", escape_label(r.rig), escape_label(r.scenario_name));
}

// "2024-05-01T02:00:00Z" (fractions of a second dropped) -> seconds since the epoch.
std::optional<double> epoch_seconds(const std::string& iso) {
  std::tm tm{};
  if (std::sscanf(iso.c_str(), "%d-%d-%dT%d:%d:%d", &tm.tm_year, &tm.tm_mon, &tm.tm_mday, &tm.tm_hour, &tm.tm_min,
                  &tm.tm_sec) != 6)
    return std::nullopt;
  tm.tm_year -= 1900;
  tm.tm_mon -= 1;
  return static_cast<double>(timegm(&tm));
}

struct Family {
  std::string help;
  std::vector<std::string> samples;
};

// The verdict and run states of the model, in its order.
constexpr VerdictStatus kVerdictStates[] = {VerdictStatus::pass, VerdictStatus::fail, VerdictStatus::unavailable,
                                            VerdictStatus::cannot_tell};
constexpr Change kOutcomes[] = {Change::regressed, Change::improved, Change::unchanged, Change::cannot_tell};
// A metric's verdict may also be "changed" (no better direction).
constexpr Change kMetricStates[] = {Change::regressed, Change::improved, Change::changed, Change::unchanged,
                                    Change::cannot_tell};
constexpr RunStatus kRunStates[] = {RunStatus::passed, RunStatus::failed, RunStatus::aborted};

void add_metrics(const RunRecord& r, std::map<std::string, Family>& families, std::map<std::string, std::string>& owner,
                 std::vector<std::string>& skipped) {
  std::set<std::string> seen;
  for (const Metric& m : r.analysis.metrics) {
    if (!m.value || !std::isfinite(*m.value)) continue;  // unavailable or categorical: no number to give
    const std::string family = openmetrics_family(m.name);
    auto [at, fresh] = owner.emplace(family, m.name);
    if (at->second != m.name || !seen.insert(family).second) {
      skipped.push_back(fmt::format("{} (its family {} is {}'s)", m.name, family, at->second));
      continue;
    }
    Family& f = families[family];
    if (fresh) {
      const CatalogueEntry* entry = find_catalogue_entry(m.level, m.name);
      f.help = fmt::format("{} ({}): {}", m.name, m.unit.empty() ? "1" : m.unit,
                           entry ? std::string(entry->description) : m.source);
    }
    f.samples.push_back(fmt::format("{}{{{},level=\"{}\",provenance=\"{}\"}} {}", family, run_labels(r),
                                    level_name(m.level), provenance_name(m.provenance), number(*m.value)));
  }
}

// A state set: one sample per state, labelled with the family's own name,
// 1 for `current` and 0 for the others.
template <typename State, std::size_t N, typename NameOf>
void add_state_set(Family& f, const std::string& family, const std::string& labels, const State (&states)[N],
                   State current, NameOf name_of) {
  for (State s : states)
    f.samples.push_back(fmt::format("{}{{{},{}=\"{}\"}} {}", family, labels, family, name_of(s), s == current ? 1 : 0));
}

void add_states(const RunRecord& r, std::map<std::string, Family>& families) {
  Family& verdicts = families["harness_verdict"];
  verdicts.help = "each verdict of the run as a state set: 1 for its state (label harness_verdict), 0 for the others";
  for (const Verdict& v : r.analysis.verdicts)
    add_state_set(verdicts, "harness_verdict",
                  fmt::format("{},level=\"{}\",check=\"{}\"", run_labels(r), level_name(v.level), escape_label(v.check)),
                  kVerdictStates, v.status, verdict_status_name);
  Family& status = families["harness_run_status"];
  status.help = "the run's status as a state set: 1 for its status (label harness_run_status), 0 for the others";
  add_state_set(status, "harness_run_status", run_labels(r), kRunStates, r.status, run_status_name);
  Family& id = families["harness_run_id"];
  id.help = "the run's id in the store (harness show ID)";
  id.samples.push_back(fmt::format("harness_run_id{{{}}} {}", run_labels(r), r.id));
  if (std::optional<double> t = epoch_seconds(r.started_at)) {
    Family& start = families["harness_run_start_timestamp_seconds"];
    start.help = "when the run started, in seconds since 1970-01-01 UTC";
    start.samples.push_back(fmt::format("harness_run_start_timestamp_seconds{{{}}} {}", run_labels(r), number(*t)));
  }
}

// One line: a comment may not hold a line break.
std::string one_line(std::string v) {
  for (char& c : v)
    if (c == '\n' || c == '\r') c = ' ';
  return v;
}

void add_judgement(const RunRecord& r, const CompareReport& judged, std::map<std::string, Family>& families) {
  const Outcome o = outcome_of(judged);
  Family& outcome = families["harness_judgement"];
  outcome.help = "the run's judgement as a state set of its four outcomes (compare RUN, history --changes, publish)";
  add_state_set(outcome, "harness_judgement", run_labels(r), kOutcomes, o.outcome, change_name);
  Family& info = families["harness_judgement_info"];
  info.help = "why the run's judgement is what it is (label why), always 1";
  info.samples.push_back(fmt::format("harness_judgement_info{{{},outcome=\"{}\",why=\"{}\"}} 1", run_labels(r),
                                     change_name(o.outcome), escape_label(o.why)));
  Family& metrics = families["harness_metric_judgement"];
  metrics.help = "each judged metric's verdict as a state set (against the nights or the same-run reference)";
  auto add_rows = [&](const Comparison& c, const char* against) {
    for (const MetricComparison& m : c.metrics)
      if (tells_about_the_night(m))
        add_state_set(metrics, "harness_metric_judgement",
                      fmt::format("{},level=\"{}\",metric=\"{}\",against=\"{}\"", run_labels(r), level_name(m.level),
                                  escape_label(m.name), against),
                      kMetricStates, m.verdict, change_name);
  };
  add_rows(judged.comparison, "nights");
  if (judged.reference) add_rows(*judged.reference, "reference");
}

}  // namespace

std::string openmetrics_family(const std::string& metric) {
  std::string out = "harness_";
  for (char c : metric) out += std::isalnum(static_cast<unsigned char>(c)) || c == '_' ? c : '_';
  // Prometheus's own lint refuses a gauge whose name holds a metric type
  // as a word (level 2's counter.<NAME>): the word takes an s.
  for (const char* type : {"counter", "gauge", "histogram", "summary"}) {
    const std::string word = std::string("_") + type;
    for (std::size_t at = out.find(word + "_"); at != std::string::npos; at = out.find(word + "_", at + 1))
      out.insert(at + word.size(), "s");
    if (out.ends_with(word)) out += "s";
  }
  return out;
}

std::string render_openmetrics(const std::vector<JudgedRun>& runs) {
  std::map<std::string, Family> families;
  std::map<std::string, std::string> owner;  // family -> the metric name that took it
  std::vector<std::string> skipped, unjudged;
  for (const JudgedRun& j : runs) {
    add_metrics(j.run, families, owner, skipped);
    add_states(j.run, families);
    if (j.judged) add_judgement(j.run, *j.judged, families);
    else unjudged.push_back(fmt::format("run {} of '{}' on rig '{}': {}", j.run.id, j.run.scenario_name, j.run.rig,
                                        j.unjudged.empty() ? "no judgement" : j.unjudged));
  }
  std::string out = "# harness: the newest run of each scenario and rig (harness export --openmetrics)\n";
  for (const std::string& s : skipped) out += "# left out: " + s + "\n";
  for (const std::string& s : unjudged) out += "# not judged: " + one_line(s) + "\n";
  for (const auto& [name, f] : families) {
    if (f.samples.empty()) continue;
    out += fmt::format("# HELP {} {}\n# TYPE {} gauge\n", name, escape_help(f.help), name);
    for (const std::string& s : f.samples) out += s + "\n";
  }
  return out;
}

}  // namespace harness
