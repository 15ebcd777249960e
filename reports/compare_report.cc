#include "reports/compare_report.h"

#include "reports/svg.h"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "harness/base/terminal_text.h"
#include "harness/base/units.h"
#include "harness/compare/persistence.h"
#include "reports/console.h"
#include "reports/json.h"
#include "reports/lava.h"
#include "reports/markdown.h"

namespace harness {
namespace {

std::string value_text(const std::optional<double>& v, const std::string& text, const std::string& unit) {
  // The reason is in the row's "why"; the value cell only says so.
  if (text.rfind("unavailable: ", 0) == 0) return "unavailable";
  if (!text.empty()) return text;
  if (!v) return "-";
  if (unit.empty() || unit == "1") return fmt::format("{:.4g}", *v);
  return format_quantity(*v, unit);
}

std::string baseline_text(const MetricComparison& m) { return value_text(m.baseline, m.baseline_text, m.unit); }
std::string current_text(const MetricComparison& m) { return value_text(m.current, m.current_text, m.unit); }

std::string change_text(const MetricComparison& m) {
  if (!m.change) return "";
  if (m.unit.empty() || m.unit == "1") return fmt::format("{:+.4g}", *m.change);
  std::string q = format_quantity(std::fabs(*m.change), m.unit);
  return (*m.change < 0 ? "-" : "+") + q;
}

std::string percent_text(const MetricComparison& m) {
  if (!m.relative_change) return "";
  return fmt::format("{:+.1f} %", 100 * *m.relative_change);
}

std::string method_line(const Comparison& c) {
  const std::string rule = fmt::format(
      "regressed/improved when significant ({} over {} tests at alpha {:g}{}) and beyond the threshold; unchanged "
      "when the {:g} % interval lies inside the threshold and the smallest detectable change at {:g} % power is "
      "within it; else cannot tell",
      correction_description(c.config.method), c.tests, c.config.alpha,
      c.against == "reference" && c.config.looks > 1 ? fmt::format(", split over {} looks", c.config.looks) : "",
      100 * (1 - 2 * c.config.alpha / (c.against == "reference" ? c.config.looks : 1)), 100 * c.config.power);
  if (c.against == "reference") {
    return fmt::format("method: paired rounds against the same-run reference: the mean log ratio of the rounds, "
                       "paired t interval (signed-rank p beside it); {}; threshold ±{:g} %, at least {} rounds",
                       rule, 100 * c.config.paired_threshold, c.config.min_rounds);
  }
  return fmt::format(
      "method: against baseline nights: each night's value (each run's best of {} stretches for repeated "
      "iterations; a count of events at least its Poisson spread), the spread between nights from a baseline of "
      ">= {} runs, the rig's calibration, or for one baseline run the history of the last {} measured runs once {} "
      "exist; {}; thresholds: single values ±{:g} %, from samples ±{:g} %; a change of repeated iterations must "
      "show in each of the new run's {} stretches",
      kPersistenceStretches, c.config.min_baseline_runs, c.config.history_runs, c.config.min_history_runs, rule,
      100 * c.config.default_threshold, 100 * c.config.sample_threshold, kPersistenceStretches);
}

std::string summary_line(const Comparison& c) {
  const std::size_t regressed = c.count(Change::regressed), acked = regressed - c.unacknowledged_regressions();
  std::string changed = c.count(Change::changed) ? fmt::format(", {} changed", c.count(Change::changed)) : "";
  return fmt::format("{} regressed{}, {} improved{}, {} unchanged, {} cannot tell", regressed,
                     acked ? fmt::format(" ({} acknowledged)", acked) : "", c.count(Change::improved), changed,
                     c.count(Change::unchanged), c.count(Change::cannot_tell));
}

// "regressed", or "regressed (acknowledged)".
std::string verdict_text(const MetricComparison& m) {
  std::string v(change_name(m.verdict));
  return m.acknowledged.empty() ? v : v + " (acknowledged)";
}

// For a terminal, names are shown escaped (terminal_safe): a line break in
// one would start a line of its own.
std::string title(const CompareReport& r, bool terminal) {
  auto name = [&](const std::string& s) { return terminal ? terminal_safe(s) : s; };
  std::string against = r.baseline_name.empty() ? fmt::format("run {}", r.baseline_run)
                                                 : fmt::format("baseline '{}' ({})", name(r.baseline_name),
                                                               run_ids_text(r.baseline_runs.empty() ? std::vector<std::int64_t>{r.baseline_run}
                                                                                       : r.baseline_runs));
  return fmt::format("run {} against {}, scenario {}, rig {}", r.current_run, against, name(r.scenario), name(r.rig));
}


std::string markdown_cell(const std::string& s) { return markdown_text(s); }

nlohmann::json optional_number(const std::optional<double>& v) {
  return v && std::isfinite(*v) ? nlohmann::json(*v) : nlohmann::json(nullptr);
}

nlohmann::json metrics_json(const Comparison& c) {
  nlohmann::json rows = nlohmann::json::array();
  for (const MetricComparison& m : c.metrics) {
    nlohmann::json row = {{"name", m.name},
                          {"level", level_name(m.level)},
                          {"unit", m.unit},
                          {"better", better_name(m.better)},
                          {"kind", m.kind},
                          {"baseline", optional_number(m.baseline)},
                          {"current", optional_number(m.current)},
                          {"change", optional_number(m.change)},
                          {"relative_change", optional_number(m.relative_change)},
                          {"effect", optional_number(m.effect)},
                          {"effect_name", m.effect_name},
                          {"low", optional_number(m.low)},
                          {"high", optional_number(m.high)},
                          {"detectable", optional_number(m.detectable)},
                          {"basis", m.basis},
                          {"threshold", m.threshold},
                          {"p_samples", optional_number(m.p_samples)},
                          {"p_history", optional_number(m.p_history)},
                          {"history_runs", m.history_runs},
                          {"p_between", optional_number(m.p_between)},
                          {"between_runs", m.between_runs},
                          {"p_paired", optional_number(m.p_paired)},
                          {"p_wilcoxon", optional_number(m.p_wilcoxon)},
                          {"rounds", m.rounds},
                          {"decided_by", m.decided_by},
                          {"p", optional_number(m.p)},
                          {"p_adjusted", optional_number(m.p_adjusted)},
                          {"baseline_samples", m.baseline_samples},
                          {"current_samples", m.current_samples},
                          {"verdict", change_name(m.verdict)},
                          {"reason", m.reason},
                          {"acknowledged", m.acknowledged}};
    if (!m.baseline_text.empty()) row["baseline_text"] = m.baseline_text;
    if (!m.current_text.empty()) row["current_text"] = m.current_text;
    if (m.counting_floor) row["counting_floor"] = true;  // the spread was a count's Poisson spread
    if (m.between_undisturbed) row["between_undisturbed"] = true;  // each run's best stretch
    if (m.stretches) {  // persistence.h: the new run's stretches, and those showing the change
      row["stretches"] = m.stretches;
      row["stretches_showing"] = m.stretches_showing;
    }
    if (m.baseline_provenance) row["baseline_provenance"] = provenance_name(*m.baseline_provenance);
    if (m.current_provenance) row["current_provenance"] = provenance_name(*m.current_provenance);
    rows.push_back(row);
  }
  return rows;
}

}  // namespace

std::string_view outcome_mark(Change c) {
  switch (c) {
    case Change::regressed: return "❌";
    case Change::improved: return "✅";
    case Change::changed: return "🔀";
    case Change::unchanged: return "➖";
    case Change::cannot_tell: return "❔";
  }
  return "";
}

// One comparison's rows, each with its reason, and the method that judged them.
std::string comparison_text(const Comparison& c) {
  std::string out;
  std::size_t w_name = 6, w_base = 8, w_new = 3, w_change = 6;
  for (const MetricComparison& m : c.metrics) {
    w_name = std::max(w_name, m.name.size());
    w_base = std::max(w_base, std::min<std::size_t>(baseline_text(m).size(), 24));
    w_new = std::max(w_new, std::min<std::size_t>(current_text(m).size(), 24));
    w_change = std::max(w_change, change_text(m).size());
  }
  auto clip = [](std::string s) { return s.size() > 24 ? s.substr(0, 21) + "..." : s; };
  out += fmt::format("\n{:<{}}  {:>{}}  {:>{}}  {:>{}}  {:>9}  {:<6}  {}\n", "metric", w_name, "baseline", w_base,
                     "new", w_new, "change", w_change, "%", "better", "verdict");
  for (const MetricComparison& m : c.metrics) {
    out += fmt::format("{:<{}}  {:>{}}  {:>{}}  {:>{}}  {:>9}  {:<6}  {}\n", m.name, w_name, clip(baseline_text(m)),
                       w_base, clip(current_text(m)), w_new, change_text(m), w_change, percent_text(m),
                       better_name(m.better), verdict_text(m));
    if (!m.acknowledged.empty()) out += fmt::format("    {}\n", m.acknowledged);
    // Every verdict's reason: an unchanged one says what it could have seen.
    if (!m.reason.empty()) {
      out += fmt::format("    {}{}\n", m.reason, m.decided_by.empty() ? "" : " [decided by: " + m.decided_by + "]");
    }
  }
  return out + "\n" + method_line(c) + "\n";
}

std::string render_compare_text(const CompareReport& r) {
  const Comparison& c = r.comparison;
  std::string out = title(r, true) + "\n";
  for (const std::string& n : r.notes) out += "note: " + n + "\n";
  out += comparison_text(c);
  if (!c.expectations.empty()) out += "\nbaseline expectations\n" + render_verdict_table(c.expectations);
  if (r.reference) {
    out += fmt::format("\nrun {} against its same-run reference\n", r.current_run);
    out += comparison_text(*r.reference);
  }
  const char* result = r.regressed() && !c.failed_expectations() ? "REGRESSED"
                       : c.failed_expectations()                ? "FAILED (a baseline expectation is not met)"
                                                                : "no regression";
  out += fmt::format("\nresult: {} ({}{})\n", result, summary_line(c),
                     r.reference ? "; against the reference: " + summary_line(*r.reference) : "");
  if (!c.calibration.empty()) out += c.calibration + "\n";
  return out;
}

nlohmann::json compare_to_json(const CompareReport& r) {
  const Comparison& c = r.comparison;
  nlohmann::json j;
  j["current"] = {{"run", r.current_run}, {"scenario", r.scenario}, {"rig", r.rig}};
  j["baseline"] = {{"run", r.baseline_run},
                   {"runs", r.baseline_runs.empty() ? std::vector<std::int64_t>{r.baseline_run} : r.baseline_runs},
                   {"name", r.baseline_name.empty() ? nlohmann::json(nullptr) : nlohmann::json(r.baseline_name)},
                   {"scenario", r.baseline_scenario},
                   {"rig", r.baseline_rig}};
  j["notes"] = r.notes;
  j["against"] = c.against;
  if (!c.calibration.empty()) j["calibration"] = c.calibration;
  j["method"] = {{"correction", correction_name(c.config.method)},
                 {"description", correction_description(c.config.method)},
                 {"alpha", c.config.alpha},
                 {"power", c.config.power},
                 {"looks", c.config.looks},
                 {"paired_threshold", c.config.paired_threshold},
                 {"rule", method_line(c)},
                 {"tests", c.tests},
                 {"sample_test", "mann-whitney-u two-sided, tie and continuity corrected"},
                 {"default_threshold", c.config.default_threshold},
                 {"sample_threshold", c.config.sample_threshold},
                 {"min_samples", c.config.min_samples},
                 {"history_runs", c.config.history_runs},
                 {"min_history_runs", c.config.min_history_runs},
                 {"min_baseline_runs", c.config.min_baseline_runs}};
  j["metrics"] = metrics_json(c);
  j["expectations"] = nlohmann::json::array();
  for (const Verdict& v : c.expectations) j["expectations"].push_back(verdict_to_json(v));
  j["summary"] = {{"regressed", c.count(Change::regressed)}, {"improved", c.count(Change::improved)},
                  {"changed", c.count(Change::changed)}, {"unchanged", c.count(Change::unchanged)},
                  {"cannot_tell", c.count(Change::cannot_tell)},
                  {"failed_expectations", c.failed_expectations()}};
  if (r.reference) {
    j["reference"] = {{"method", method_line(*r.reference)},
                      {"metrics", metrics_json(*r.reference)},
                      {"summary",
                       {{"regressed", r.reference->count(Change::regressed)},
                        {"improved", r.reference->count(Change::improved)},
                        {"changed", r.reference->count(Change::changed)},
                        {"unchanged", r.reference->count(Change::unchanged)},
                        {"cannot_tell", r.reference->count(Change::cannot_tell)}}}};
  }
  j["regressed"] = r.regressed();
  j["undecided"] = r.undecided();
  return j;
}

std::string render_compare_junit(const CompareReport& r) {
  const Comparison& c = r.comparison;
  std::vector<std::pair<std::string, const Comparison*>> parts = {{"compare", &c}};
  if (r.reference) parts.push_back({"reference", &*r.reference});
  std::size_t failures = 0, skipped = 0, tests = c.expectations.size();
  for (const auto& [prefix, part] : parts) {
    failures += part->unacknowledged_regressions();
    skipped += part->count(Change::cannot_tell) + part->count(Change::regressed) - part->unacknowledged_regressions();
    tests += part->metrics.size();
  }
  for (const Verdict& v : c.expectations) {
    if (v.status == VerdictStatus::fail) ++failures;
    if (v.status == VerdictStatus::unavailable || v.status == VerdictStatus::cannot_tell) ++skipped;
  }
  std::string suite = fmt::format("harness compare {}", r.scenario);
  std::string out = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
  out += fmt::format("<testsuites name=\"harness\" tests=\"{}\" failures=\"{}\" skipped=\"{}\">\n", tests, failures,
                     skipped);
  out += fmt::format("  <testsuite name=\"{}\" tests=\"{}\" failures=\"{}\" skipped=\"{}\">\n", svg::escape_xml(suite), tests,
                     failures, skipped);
  out += "    <properties>\n";
  auto property = [&](const std::string& name, const std::string& value) {
    out += fmt::format("      <property name=\"{}\" value=\"{}\"/>\n", svg::escape_xml(name), svg::escape_xml(value));
  };
  property("current_run", std::to_string(r.current_run));
  property("baseline_run", std::to_string(r.baseline_run));
  if (!r.baseline_name.empty()) property("baseline", r.baseline_name);
  property("rig", r.rig);
  property("method", method_line(c));
  if (r.reference) property("reference_method", method_line(*r.reference));
  out += "    </properties>\n";
  for (const auto& [prefix, part] : parts) {
    for (const MetricComparison& m : part->metrics) {
      std::string classname = fmt::format("{}.{}", prefix, level_name(m.level));
      std::string summary = fmt::format("{}: {} {}, new {}{}{}", change_name(m.verdict),
                                        prefix == "reference" ? "reference" : "baseline", baseline_text(m),
                                        current_text(m), m.relative_change ? " (" + percent_text(m) + ")" : "",
                                        m.reason.empty() ? "" : "; " + m.reason);
      out += fmt::format("    <testcase classname=\"{}\" name=\"{}\">", svg::escape_xml(classname), svg::escape_xml(m.name));
      if (m.verdict == Change::regressed && m.acknowledged.empty()) {
        out += fmt::format("\n      <failure message=\"{}\" type=\"regression\"/>\n    ", svg::escape_xml(summary));
      } else if (m.verdict == Change::regressed) {
        out += fmt::format("\n      <skipped message=\"{}\"/>\n    ", svg::escape_xml(summary + "; " + m.acknowledged));
      } else if (m.verdict == Change::cannot_tell) {
        out += fmt::format("\n      <skipped message=\"{}\"/>\n    ", svg::escape_xml(summary));
      } else {
        out += fmt::format("\n      <system-out>{}</system-out>\n    ", svg::escape_xml(summary));
      }
      out += "</testcase>\n";
    }
  }
  for (const Verdict& v : c.expectations) {
    std::string summary = fmt::format("expected {}, measured {}{}", v.expected, v.measured,
                                      v.detail.empty() ? "" : "; " + v.detail);
    out += fmt::format("    <testcase classname=\"expect.{}\" name=\"{}\">", level_name(v.level), svg::escape_xml(v.check));
    if (v.status == VerdictStatus::fail) {
      out += fmt::format("\n      <failure message=\"{}\" type=\"expectation\"/>\n    ", svg::escape_xml(summary));
    } else if (v.status == VerdictStatus::unavailable || v.status == VerdictStatus::cannot_tell) {
      out += fmt::format("\n      <skipped message=\"{}\"/>\n    ", svg::escape_xml(summary));
    }
    out += "</testcase>\n";
  }
  out += "  </testsuite>\n</testsuites>\n";
  return out;
}

namespace {

// One comparison's table for a CI comment: regressions first, then what could
// not be told.
std::string markdown_table(const Comparison& c, std::string_view against) {
  std::string out = fmt::format("| metric | {} | new | change | % | better | verdict | why |\n", against);
  out += "|---|---:|---:|---:|---:|---|---|---|\n";
  std::vector<const MetricComparison*> rows;
  for (const MetricComparison& m : c.metrics) rows.push_back(&m);
  auto order = [](const MetricComparison* m) {
    return m->verdict == Change::regressed ? 0 : m->verdict == Change::cannot_tell ? 1 : 2;
  };
  std::stable_sort(rows.begin(), rows.end(),
                   [&](const MetricComparison* a, const MetricComparison* b) { return order(a) < order(b); });
  for (const MetricComparison* m : rows) {
    std::string verdict = fmt::format("{} {}", outcome_mark(m->verdict), verdict_text(*m));
    if (m->verdict == Change::regressed && m->acknowledged.empty())
      verdict = fmt::format("{} **regressed**", outcome_mark(m->verdict));
    out += fmt::format("| `{}` | {} | {} | {} | {} | {} | {} | {} |\n", markdown_cell(m->name),
                       markdown_cell(baseline_text(*m)), markdown_cell(current_text(*m)), change_text(*m),
                       percent_text(*m), better_name(m->better), verdict,
                       markdown_cell(m->acknowledged.empty() ? m->reason : m->reason + "; " + m->acknowledged));
  }
  return out + "\n" + markdown_cell(method_line(c)) + "\n";
}

}  // namespace

std::string render_compare_markdown(const CompareReport& r) {
  const Comparison& c = r.comparison;
  std::string out = fmt::format("### harness compare: {}\n\n", r.regressed() ? "regression found" : "no regression");
  out += markdown_cell(title(r, false)) + "\n\n";
  for (const std::string& n : r.notes) out += "> note: " + markdown_cell(n) + "\n";
  if (!r.notes.empty()) out += "\n";
  out += "**" + summary_line(c) + "**\n\n";
  out += markdown_table(c, "baseline");
  if (!c.expectations.empty()) {
    out += "\n| baseline expectation | expected | measured | result |\n|---|---|---|---|\n";
    for (const Verdict& v : c.expectations) {
      out += fmt::format("| `{}` | {} | {} | {} |\n", markdown_cell(v.check), markdown_cell(v.expected),
                         markdown_cell(v.measured), verdict_status_name(v.status));
    }
  }
  if (r.reference) {
    out += fmt::format("\n#### Against its same-run reference\n\n**{}**\n\n", summary_line(*r.reference));
    out += markdown_table(*r.reference, "reference");
  }
  if (!c.calibration.empty()) out += "\n" + markdown_cell(c.calibration) + "\n";
  return out;
}

std::string render_compare_lava(const CompareReport& r) {
  const Comparison& c = r.comparison;
  std::string out;
  auto signal = [&](const std::string& prefix, const MetricComparison& m) {
    std::string_view result = m.verdict == Change::regressed && m.acknowledged.empty() ? "fail"
                              : m.verdict == Change::regressed                          ? "skip"
                              : m.verdict == Change::cannot_tell                        ? "unknown"
                                                                                        : "pass";
    out += lava_signal(prefix + m.name, result, m.current, m.unit);
  };
  for (const MetricComparison& m : c.metrics) signal("compare.", m);
  if (r.reference)
    for (const MetricComparison& m : r.reference->metrics) signal("reference.", m);
  for (const Verdict& v : c.expectations) {
    out += lava_signal("expect." + v.check, lava_result(v.status), std::nullopt, "");
  }
  out += lava_signal(fmt::format("compare.run-{}-vs-run-{}", r.current_run, r.baseline_run),
                     r.regressed() ? "fail" : "pass", std::nullopt, "");
  return out;
}

}  // namespace harness
