#include "reports/markdown.h"

#include <fmt/format.h>

#include "harness/model/metric_catalogue.h"
#include "reports/console.h"

namespace harness {
namespace {

std::string cell(std::string_view text) { return markdown_text(text); }

std::string result_text(VerdictStatus s) {
  switch (s) {
    case VerdictStatus::pass: return "pass";
    case VerdictStatus::fail: return "**FAIL**";
    case VerdictStatus::unavailable: return "unavailable";
    case VerdictStatus::cannot_tell: return "❔ cannot tell";
  }
  return "?";
}

// The figures a reviewer looks at first: placement, efficiency, tail
// latency and bus activity, as catalogue names (harness/model/metric_catalogue.cc).
// Everything else is in the folded table.
bool is_key_figure(const Metric& m) {
  static constexpr std::string_view kKeyFigures[] = {"latency_p50",
                                                     "latency_p95",
                                                     "latency_p99",
                                                     "latency_p95_over_p50",
                                                     "throughput",
                                                     "power_mean",
                                                     "efficiency",
                                                     "ddr.dq_active_ratio",
                                                     "load.<load>.latency_p95",
                                                     "load.<load>.latency_p95_over_p50",
                                                     "<kernel>.intensity",
                                                     "<kernel>.utilisation",
                                                     "<kernel>.bound",
                                                     "layer.<layer>.intensity",
                                                     "layer.<layer>.bound"};
  const CatalogueEntry* entry = find_catalogue_entry(m.level, m.name);
  for (std::string_view key : kKeyFigures)
    if (entry == &catalogue_pattern(key)) return true;
  return false;
}

}  // namespace

std::string markdown_text(std::string_view text) {
  auto alpha = [](char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); };
  std::string out;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    const char next = i + 1 < text.size() ? text[i + 1] : '\0';
    if (c == '|') out += "\\|";
    else if (c == '\n' || c == '\r') out += ' ';
    else if (c == '<' && (alpha(next) || next == '/' || next == '!' || next == '?')) out += "&lt;";
    else if (c == '&' && (alpha(next) || next == '#')) out += "&amp;";
    else out += c;
  }
  return out;
}

std::string render_markdown(const ReportInput& in) {
  const RunRecord& run = in.run;
  std::string out = fmt::format("## harness run {}: {} on {}: {}\n\n", run.id, cell(run.scenario_name), cell(run.rig),
                                run_status_name(run.status));
  out += fmt::format("{} run, started {}, ended {}, scenario sha256 `{}`\n", run.origin, run.started_at,
                     run.ended_at.empty() ? "-" : run.ended_at, run.scenario_hash.substr(0, 12));
  if (!run.reason.empty()) out += fmt::format("\nReason: {}\n", cell(run.reason));

  out += "\n### Verdicts\n\n";
  if (run.analysis.verdicts.empty()) {
    out += "No verdicts: the scenario sets no expectations.\n";
  } else {
    out += "| level | check | expected | measured | result |\n|---|---|---|---|---|\n";
    for (const Verdict& v : run.analysis.verdicts) {
      out += fmt::format("| {} | {} | {} | {} | {} |\n", level_name(v.level), cell(v.check), cell(v.expected),
                         cell(v.measured), result_text(v.status));
    }
  }

  if (in.comparison) {
    const ReportComparison& c = *in.comparison;
    out += fmt::format("\n### Comparison with {}\n\n{}\n\n", cell(c.baseline_label), cell(c.method));
    out += "| metric | baseline | this run | change | verdict |\n|---|---:|---:|---:|---|\n";
    int neither = 0;
    for (const MetricChange& m : c.changes) {
      if (!m.baseline && !m.current) {
        ++neither;
        continue;
      }
      out += fmt::format("| {} | {} | {} | {} | {} |\n", cell(m.name), figure_text(m.baseline, m.unit),
                         figure_text(m.current, m.unit),
                         m.change_pct ? fmt::format("{:+.1f} %", *m.change_pct) : std::string("-"),
                         m.verdict.empty() ? "-" : (m.verdict == "regressed" ? "**regressed**" : m.verdict));
    }
    if (neither > 0) out += fmt::format("\n{} metrics are unavailable in both runs.\n", neither);
  }

  std::string key;
  for (const Metric& m : run.analysis.metrics) {
    if (!is_key_figure(m)) continue;
    key += fmt::format("- {}: {}{}\n", cell(m.name), cell(metric_value_text(m)),
                       m.value ? fmt::format(" ({})", provenance_name(m.provenance)) : "");
  }
  if (!key.empty()) out += "\n### Key figures\n\n" + key;

  // The full table folds away so that a CI comment stays short.
  int available = 0, unavailable = 0;
  for (const Metric& m : run.analysis.metrics) (m.value ? available : unavailable) += 1;
  out += fmt::format("\n<details><summary>All figures with provenance: {} with a value, {} unavailable</summary>\n",
                     available, unavailable);
  for (Level level : kAllLevels) {
    std::string rows;
    for (const Metric& m : run.analysis.metrics) {
      if (m.level != level) continue;
      if (m.value) {
        rows += fmt::format("| {} | {} | {} | {} |\n", cell(m.name), cell(metric_value_text(m)),
                            provenance_name(m.provenance), cell(m.source));
      } else {
        rows += fmt::format("| {} | unavailable: {} | | |\n", cell(m.name), cell(m.unavailable));
      }
    }
    out += fmt::format("\n**{}**\n\n", level_name(level));
    out += rows.empty() ? std::string("No figures.\n")
                        : "| metric | value | provenance | source |\n|---|---|---|---|\n" + rows;
  }
  out += "\n</details>\n";
  if (!run.analysis.hints.empty()) {
    out += "\n### Hints\n\n";
    for (const std::string& h : run.analysis.hints) out += "- " + cell(h) + "\n";
  }
  return out;
}

}  // namespace harness
