#include "reports/console.h"

#include <algorithm>

#include <fmt/format.h>

#include "harness/base/units.h"
#include "reports/report_model.h"

namespace harness {

std::string metric_value_text(const Metric& m) {
  if (!m.value) return "unavailable: " + m.unavailable;
  if (!m.text.empty()) return m.text;
  return figure_text(m.value, m.unit);
}


std::string render_verdict_table(const std::vector<Verdict>& verdicts) {
  if (verdicts.empty()) return "verdicts: none (the scenario sets no expectations)\n";
  std::size_t w_check = 5, w_expected = 8, w_measured = 8;
  for (const Verdict& v : verdicts) {
    w_check = std::max(w_check, v.check.size());
    w_expected = std::max(w_expected, v.expected.size());
    w_measured = std::max(w_measured, std::min<std::size_t>(v.measured.size(), 60));
  }
  std::string out = fmt::format("{:<9} {:<{}} {:<{}} {:<{}} {}\n", "level", "check", w_check, "expected",
                                w_expected, "measured", w_measured, "result");
  for (const Verdict& v : verdicts) {
    out += fmt::format("{:<9} {:<{}} {:<{}} {:<{}} {}\n", level_name(v.level), v.check, w_check, v.expected,
                       w_expected, v.measured, w_measured, verdict_status_name(v.status));
    if (!v.detail.empty()) out += fmt::format("          {}\n", v.detail);
  }
  return out;
}

std::string render_run_text(const RunRecord& run) {
  return render_run_details_text(run) + "\n" + render_verdicts_and_hints_text(run);
}

std::string render_verdicts_and_hints_text(const RunRecord& run) {
  std::string out = render_verdict_table(run.analysis.verdicts);
  for (const std::string& h : run.analysis.hints) out += "hint: " + h + "\n";
  return out;
}

std::string render_run_details_text(const RunRecord& run) {
  std::string out = fmt::format("run {}  scenario {}  rig {}  {}  {}\n", run.id, run.scenario_name, run.rig,
                                run.origin, run_status_name(run.status));
  if (!run.uuid.empty()) out += fmt::format("uuid {}\n", run.uuid);
  if (!run.reason.empty()) out += fmt::format("reason: {}\n", run.reason);
  out += fmt::format("started {}  ended {}\n", run.started_at, run.ended_at.empty() ? "-" : run.ended_at);
  for (Level level : kAllLevels) {
    std::vector<const Metric*> metrics;
    for (const Metric& m : run.analysis.metrics)
      if (m.level == level) metrics.push_back(&m);
    out += fmt::format("\nlevel {} {}\n", static_cast<int>(level), level_name(level));
    if (metrics.empty()) {
      out += "  (no metrics)\n";
      continue;
    }
    std::size_t w_name = 4, w_value = 5;
    for (const Metric* m : metrics) {
      w_name = std::max(w_name, m->name.size());
      if (m->value) w_value = std::max(w_value, metric_value_text(*m).size());
    }
    for (const Metric* m : metrics) {
      if (m->value) {
        out += fmt::format("  {:<{}} {:>{}}  {:<8} {}\n", m->name, w_name, metric_value_text(*m), w_value,
                           provenance_name(m->provenance), m->source);
      } else {
        out += fmt::format("  {:<{}} {}\n", m->name, w_name, metric_value_text(*m));
      }
    }
  }
  for (const Artifact& a : run.artifacts) {
    out += fmt::format("artifact {} {} ({} B, sha256 {})\n", a.name, a.path, a.size, a.sha256);
  }
  return out;
}

std::string render_run_list_text(const std::vector<RunSummary>& runs) {
  if (runs.empty()) return "no runs stored\n";
  std::string out = fmt::format("{:>5}  {:<36}  {:<24} {:<16} {:<16} {:<7} {:<8} {:>7} {:>6}  {}\n", "id", "uuid",
                                "started", "scenario", "rig", "origin", "status", "metrics", "failed", "reason");
  for (const RunSummary& r : runs) {
    out += fmt::format("{:>5}  {:<36}  {:<24} {:<16} {:<16} {:<7} {:<8} {:>7} {:>6}  {}\n", r.id, r.uuid,
                       r.started_at, r.scenario_name, r.rig, r.origin, run_status_name(r.status), r.metric_count,
                       r.verdicts_failed, r.reason);
  }
  return out;
}

std::string run_ids_text(const std::vector<std::int64_t>& ids) {
  if (ids.size() == 1) return fmt::format("run {}", ids.front());
  std::string s;
  for (std::int64_t id : ids) s += (s.empty() ? "" : ", ") + std::to_string(id);
  return "runs " + s;
}

}  // namespace harness
