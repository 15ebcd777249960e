#include "reports/console.h"

#include <algorithm>
#include <map>

#include <fmt/format.h>

#include "harness/base/terminal_text.h"
#include "harness/base/units.h"
#include "harness/levels/level_table.h"
#include "reports/report_model.h"

namespace harness {

std::string metric_value_text(const Metric& m) {
  if (!m.value) return "unavailable: " + m.unavailable;
  if (!m.text.empty()) return m.text;
  return figure_text(m.value, m.unit);
}


std::string Palette::paint(std::string_view text, std::string_view sgr) const {
  if (!on || text.empty()) return std::string(text);
  return fmt::format("\x1b[{}m{}\x1b[0m", sgr, text);
}

std::string render_verdict_table(const std::vector<Verdict>& verdicts, const Palette& palette) {
  if (verdicts.empty()) return "verdicts: none (the scenario sets no expectations)\n";
  // Every field from data is shown escaped (terminal_text.h), and measured so.
  struct Shown {
    std::string check, expected, measured, detail;
  };
  std::vector<Shown> shown;
  std::size_t w_check = 5, w_expected = 8, w_measured = 8;
  for (const Verdict& v : verdicts) {
    shown.push_back({terminal_safe(v.check), terminal_safe(v.expected), terminal_safe(v.measured),
                     terminal_safe_lines(v.detail)});
    w_check = std::max(w_check, shown.back().check.size());
    w_expected = std::max(w_expected, shown.back().expected.size());
    w_measured = std::max(w_measured, std::min<std::size_t>(shown.back().measured.size(), 60));
  }
  std::string out = fmt::format("{:<9} {:<{}} {:<{}} {:<{}} {}\n", "level", "check", w_check, "expected",
                                w_expected, "measured", w_measured, "result");
  for (std::size_t i = 0; i < verdicts.size(); ++i) {
    const Verdict& v = verdicts[i];
    const Shown& t = shown[i];
    // The result is the last column: painting it leaves the alignment alone.
    const std::string_view result = verdict_status_name(v.status);
    const std::string painted = v.status == VerdictStatus::pass   ? palette.good(result)
                                : v.status == VerdictStatus::fail ? palette.bad(result)
                                                                  : palette.warn(result);
    out += fmt::format("{:<9} {:<{}} {:<{}} {:<{}} {}\n", level_name(v.level), t.check, w_check, t.expected,
                       w_expected, t.measured, w_measured, painted);
    if (!t.detail.empty()) out += fmt::format("          {}\n", t.detail);
  }
  return out;
}

std::string render_run_text(const RunRecord& run) {
  return render_run_details_text(run) + "\n" + render_verdicts_and_hints_text(run);
}

std::string render_verdicts_and_hints_text(const RunRecord& run, const Palette& palette) {
  std::string out = render_verdict_table(run.analysis.verdicts, palette);
  // A hint or a reason may span lines (a workload's last output): its line
  // breaks are kept; a name's are escaped with the rest.
  for (const std::string& h : run.analysis.hints) out += "hint: " + terminal_safe_lines(h) + "\n";
  return out;
}

namespace {

std::string run_line(const RunRecord& run, const Palette& palette) {
  const std::string_view status = run_status_name(run.status);
  const std::string painted = run.status == RunStatus::passed   ? palette.good(status)
                              : run.status == RunStatus::failed ? palette.bad(status)
                                                                : palette.warn(status);
  return fmt::format("run {}  scenario {}  rig {}  {}  {}\n", run.id, terminal_safe(run.scenario_name),
                     terminal_safe(run.rig), terminal_safe(run.origin), painted);
}

bool has_prefix(std::string_view s, std::string_view p) { return s.substr(0, p.size()) == p; }
bool has_suffix(std::string_view s, std::string_view x) {
  return s.size() >= x.size() && s.substr(s.size() - x.size()) == x;
}

// "p50 1.2 ms, p95 1.4 ms (measured)": one provenance at the end when all
// figures share it, else one after each.
std::string figures_text(const std::vector<std::pair<std::string, const Metric*>>& figures) {
  if (figures.empty()) return {};
  bool same = true;
  for (const auto& f : figures) same = same && f.second->provenance == figures.front().second->provenance;
  std::string out;
  for (const auto& [label, m] : figures) {
    out += fmt::format("{}{} {}", out.empty() ? "" : ", ", label, metric_value_text(*m));
    // A source overridden for a test (sigrok's read_as) is no measurement, whatever its provenance says.
    if (m->source.find("test override") != std::string::npos) out += " (a test override, not a measurement)";
    if (!same) out += fmt::format(" ({})", provenance_name(m->provenance));
  }
  if (same) out += fmt::format(" ({})", provenance_name(figures.front().second->provenance));
  return out;
}

// The level's stability gate when it says the rig moved under it
// (harness/levels/stability.h): "unstable: cpu0 2.1→1.2 GHz", else empty.
std::string unstable_text(const Analysis& a, Level level) {
  const Metric* m = a.find_metric(fmt::format("stability.{}", level_name(level)));
  if (!m || !m->value || !has_prefix(m->text, "unstable")) return {};
  return m->text;
}

}  // namespace

std::vector<LevelHeadline> level_headlines(const Analysis& a) {
  std::vector<LevelHeadline> out;
  for (const LevelRow* row : levels_in_report_order()) {
    const Level level = row->level;
    // The rig's stability figures are said apart, and only when it moved.
    std::vector<const Metric*> metrics;
    for (const Metric& m : a.metrics)
      if (m.level == level && !has_prefix(m.name, "stability.")) metrics.push_back(&m);
    if (metrics.empty()) continue;
    out.push_back({level, {}});
    std::vector<std::string>& lines = out.back().lines;
    bool any_value = false;
    std::vector<std::string> reasons;
    for (const Metric* m : metrics) {
      if (m->value) any_value = true;
      else if (std::find(reasons.begin(), reasons.end(), m->unavailable) == reasons.end()) reasons.push_back(m->unavailable);
    }
    if (!any_value) {
      std::string why;
      for (const std::string& r : reasons) why += (why.empty() ? "" : "; ") + r;
      lines.push_back("unavailable: " + why);
      continue;
    }
    std::vector<std::pair<std::string, const Metric*>> first, second;
    if (level == Level::roofline) {
      // The ceilings, then where the kernels and layers sit.
      for (const Metric* m : metrics) {
        if (!m->value) continue;
        if (has_prefix(m->name, "ceiling.memory.")) first.push_back({m->name.substr(15), m});
        if (has_prefix(m->name, "ceiling.compute.")) first.push_back({m->name.substr(16), m});
      }
      std::map<std::string, int> bounds;
      int placed = 0;
      for (const Metric* m : metrics) {
        if (!has_suffix(m->name, ".bound") || !m->value || m->text.empty()) continue;
        ++placed;
        ++bounds[m->text];
      }
      std::string text = figures_text(first);
      if (placed > 0) {
        std::string tally;
        for (const auto& [bound, n] : bounds) tally += fmt::format("{}{} {}-bound", tally.empty() ? "" : ", ", n, bound);
        std::string where = fmt::format("{} kernel{} or layer{} placed: {}", placed, placed == 1 ? "" : "s",
                                        placed == 1 ? "" : "s", tally);
        lines.push_back(text.empty() ? where : text);
        if (!text.empty()) lines.push_back(where);
      } else {
        // Kernels timed with nothing to place them against still say so.
        int timed = 0;
        for (const Metric* m : metrics)  // a kernel's same-run reference is not another kernel
          timed += has_suffix(m->name, ".time") && !has_prefix(m->name, "reference.") && m->value ? 1 : 0;
        std::string kernels = timed == 0 ? std::string("no kernel timed")
                                         : fmt::format("{} kernel{} or layer{} timed, none placed", timed,
                                                       timed == 1 ? "" : "s", timed == 1 ? "" : "s");
        lines.push_back(text.empty() ? "no ceiling measured or declared; " + kernels : text);
      }
      continue;
    }
    for (const HeadlineFigure& h : row->headline) {
      const Metric* m = a.find_metric(h.name);
      if (m && m->level == level && m->value) first.push_back({std::string(h.label), m});
    }
    if (level == Level::latency) {
      // Under each load: its p95 beside the unloaded one.
      for (const Metric* m : metrics) {
        if (!has_prefix(m->name, "load.") || !has_suffix(m->name, ".latency_p95") || !m->value) continue;
        std::string load = m->name.substr(5, m->name.size() - 5 - std::string_view(".latency_p95").size());
        second.push_back({"load " + load + " p95", m});
      }
    }
    if (first.empty()) {
      // None of the headline figures has a value: the first few that do.
      for (const Metric* m : metrics) {
        if (m->value && first.size() < 3) first.push_back({m->name, m});
      }
    }
    std::string text = figures_text(first);
    if (level == Level::latency && !second.empty() && !text.empty()) {
      // Several conditions: say which one the first line is. Level 4 names
      // a condition's load in its figures' source (' under load "..."').
      const Metric* p50 = a.find_metric("latency_p50");
      constexpr std::string_view marker = " under load \"";
      std::size_t at = p50 ? p50->source.find(marker) : std::string::npos;
      std::size_t end = at == std::string::npos ? at : p50->source.find('"', at + marker.size());
      text = (end == std::string::npos ? std::string("without load") : p50->source.substr(at + 1, end - at)) + ": " + text;
    }
    std::size_t missing = 0;
    for (const Metric* m : metrics) missing += m->value ? 0 : 1;
    if (missing > 0) text += fmt::format("; {} of {} figures unavailable", missing, metrics.size());
    lines.push_back(text);
    if (!second.empty()) lines.push_back(figures_text(second));
  }
  for (LevelHeadline& h : out)
    if (std::string unstable = unstable_text(a, h.level); !unstable.empty())
      h.lines.push_back("rig " + unstable + " (its metrics cannot be judged)");
  return out;
}

std::vector<std::string> headline_lines(const RunRecord& run) {
  std::vector<std::string> lines;
  for (const LevelHeadline& h : level_headlines(run.analysis)) {
    const std::string tag = fmt::format("level {} {}", static_cast<int>(h.level), level_name(h.level));
    for (std::size_t i = 0; i < h.lines.size(); ++i)
      lines.push_back(fmt::format("{:<17} {}", i == 0 ? tag : "", terminal_safe(h.lines[i])));
  }
  return lines;
}

std::string render_run_summary_text(const RunRecord& run, const Palette& palette) {
  std::string out = run_line(run, palette);
  if (!run.reason.empty()) out += fmt::format("reason: {}\n", terminal_safe_lines(run.reason));
  out += "\n" + render_verdicts_and_hints_text(run, palette);
  std::vector<std::string> lines = headline_lines(run);
  if (!lines.empty()) {
    out += "\n";
    for (const std::string& l : lines) out += l + "\n";
  }
  return out;
}

std::string render_run_details_text(const RunRecord& run) {
  std::string out = run_line(run, Palette{});
  if (!run.uuid.empty()) out += fmt::format("uuid {}\n", terminal_safe(run.uuid));
  if (!run.reason.empty()) out += fmt::format("reason: {}\n", terminal_safe_lines(run.reason));
  out += fmt::format("started {}  ended {}\n", terminal_safe(run.started_at),
                     run.ended_at.empty() ? "-" : terminal_safe(run.ended_at));
  for (const LevelRow* row : levels_in_report_order()) {
    const Level level = row->level;
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
      w_name = std::max(w_name, terminal_safe(m->name).size());
      // The stability gate's text says what broke: it does not set the column.
      if (m->value && !has_prefix(m->name, "stability."))
        w_value = std::max(w_value, terminal_safe(metric_value_text(*m)).size());
    }
    for (const Metric* m : metrics) {
      const std::string name = terminal_safe(m->name), value = terminal_safe(metric_value_text(*m));
      if (m->value) {
        out += fmt::format("  {:<{}} {:>{}}  {:<8} {}\n", name, w_name, value, w_value,
                           provenance_name(m->provenance), terminal_safe(m->source));
      } else {
        out += fmt::format("  {:<{}} {}\n", name, w_name, value);
      }
    }
    if (std::string unstable = unstable_text(run.analysis, level); !unstable.empty())
      out += fmt::format("  rig {} (its metrics cannot be judged)\n", unstable);
  }
  for (const Artifact& a : run.artifacts) {
    out += fmt::format("artifact {} {} ({} B, sha256 {})\n", terminal_safe(a.name), terminal_safe(a.path), a.size,
                       terminal_safe(a.sha256));
  }
  return out;
}

std::string render_run_list_text(const std::vector<RunSummary>& runs) {
  if (runs.empty()) return "no runs stored\n";
  std::string out = fmt::format("{:>5}  {:<36}  {:<24} {:<16} {:<16} {:<7} {:<8} {:>7} {:>6}  {}\n", "id", "uuid",
                                "started", "scenario", "rig", "origin", "status", "metrics", "failed", "reason");
  for (const RunSummary& r : runs) {
    out += fmt::format("{:>5}  {:<36}  {:<24} {:<16} {:<16} {:<7} {:<8} {:>7} {:>6}  {}\n", r.id,
                       terminal_safe(r.uuid), terminal_safe(r.started_at), terminal_safe(r.scenario_name),
                       terminal_safe(r.rig), terminal_safe(r.origin), run_status_name(r.status), r.metric_count,
                       r.verdicts_failed, terminal_safe(r.reason));
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
