#include "reports/compare_report.h"

#include "reports/svg.h"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "harness/base/units.h"
#include "harness/compare/persistence.h"
#include "reports/console.h"
#include "reports/json.h"
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
  return fmt::format(
      "method: {} over {} tests at alpha {:g}; thresholds: single values ±{:g} %, from samples ±{:g} % "
      "(U test, quantile test or Welch t by statistic, >= {} samples); noise band from the last {} measured runs up to the "
      "baseline once {} exist; a baseline of several runs: the between-run spread of its runs (>= {}), each run's "
      "best of {} stretches for repeated iterations; a count of events at least its Poisson spread; a change of "
      "repeated iterations must show in each of the new run's {} stretches",
      correction_description(c.config.method), c.tests, c.config.alpha, 100 * c.config.default_threshold,
      100 * c.config.sample_threshold, c.config.min_samples, c.config.history_runs, c.config.min_history_runs,
      c.config.min_baseline_runs, kPersistenceStretches, kPersistenceStretches);
}

std::string summary_line(const Comparison& c) {
  const std::size_t regressed = c.count(Change::regressed), acked = regressed - c.unacknowledged_regressions();
  return fmt::format("{} regressed{}, {} improved, {} changed, {} unchanged, {} cannot tell", regressed,
                     acked ? fmt::format(" ({} acknowledged)", acked) : "", c.count(Change::improved),
                     c.count(Change::changed), c.count(Change::unchanged), c.count(Change::cannot_tell));
}

// "regressed", or "regressed (acknowledged)".
std::string verdict_text(const MetricComparison& m) {
  std::string v(change_name(m.verdict));
  return m.acknowledged.empty() ? v : v + " (acknowledged)";
}

std::string title(const CompareReport& r) {
  std::string against = r.baseline_name.empty() ? fmt::format("run {}", r.baseline_run)
                                                 : fmt::format("baseline '{}' ({})", r.baseline_name,
                                                               run_ids_text(r.baseline_runs.empty() ? std::vector<std::int64_t>{r.baseline_run}
                                                                                       : r.baseline_runs));
  return fmt::format("run {} against {}, scenario {}, rig {}", r.current_run, against, r.scenario, r.rig);
}


std::string markdown_cell(const std::string& s) { return markdown_text(s); }

nlohmann::json optional_number(const std::optional<double>& v) {
  return v && std::isfinite(*v) ? nlohmann::json(*v) : nlohmann::json(nullptr);
}

}  // namespace

std::string render_compare_text(const CompareReport& r) {
  const Comparison& c = r.comparison;
  std::string out = title(r) + "\n";
  for (const std::string& n : r.notes) out += "note: " + n + "\n";
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
    // The reason of every verdict but a plain "within the threshold", and the
    // evidence that decided it.
    const bool telling = m.verdict != Change::unchanged || (!m.decided_by.empty() && m.decided_by != "threshold");
    if (telling && !m.reason.empty()) {
      out += fmt::format("    {}{}\n", m.reason, m.decided_by.empty() ? "" : " [decided by: " + m.decided_by + "]");
    }
  }
  out += "\n" + method_line(c) + "\n";
  if (!c.expectations.empty()) out += "\nbaseline expectations\n" + render_verdict_table(c.expectations);
  const char* result = c.unacknowledged_regressions() > 0 ? "REGRESSED"
                       : c.failed_expectations()       ? "FAILED (a baseline expectation is not met)"
                                                       : "no regression";
  out += fmt::format("\nresult: {} ({})\n", result, summary_line(c));
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
  j["method"] = {{"correction", correction_name(c.config.method)},
                 {"description", correction_description(c.config.method)},
                 {"alpha", c.config.alpha},
                 {"tests", c.tests},
                 {"sample_test", "mann-whitney-u two-sided, tie and continuity corrected"},
                 {"default_threshold", c.config.default_threshold},
                 {"sample_threshold", c.config.sample_threshold},
                 {"min_samples", c.config.min_samples},
                 {"history_runs", c.config.history_runs},
                 {"min_history_runs", c.config.min_history_runs},
                 {"min_baseline_runs", c.config.min_baseline_runs}};
  j["metrics"] = nlohmann::json::array();
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
                          {"threshold", m.threshold},
                          {"p_samples", optional_number(m.p_samples)},
                          {"p_history", optional_number(m.p_history)},
                          {"history_runs", m.history_runs},
                          {"p_between", optional_number(m.p_between)},
                          {"between_runs", m.between_runs},
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
    j["metrics"].push_back(row);
  }
  j["expectations"] = nlohmann::json::array();
  for (const Verdict& v : c.expectations) j["expectations"].push_back(verdict_to_json(v));
  j["summary"] = {{"regressed", c.count(Change::regressed)}, {"improved", c.count(Change::improved)},
                  {"changed", c.count(Change::changed)}, {"unchanged", c.count(Change::unchanged)},
                  {"cannot_tell", c.count(Change::cannot_tell)},
                  {"failed_expectations", c.failed_expectations()}};
  j["regressed"] = c.regressed();
  return j;
}

std::string render_compare_junit(const CompareReport& r) {
  const Comparison& c = r.comparison;
  std::size_t failures = c.unacknowledged_regressions(),
              skipped = c.count(Change::cannot_tell) + c.count(Change::regressed) - failures;
  for (const Verdict& v : c.expectations) {
    if (v.status == VerdictStatus::fail) ++failures;
    if (v.status == VerdictStatus::unavailable) ++skipped;
  }
  const std::size_t tests = c.metrics.size() + c.expectations.size();
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
  out += "    </properties>\n";
  for (const MetricComparison& m : c.metrics) {
    std::string classname = fmt::format("compare.{}", level_name(m.level));
    std::string summary = fmt::format("{}: baseline {}, new {}{}{}", change_name(m.verdict), baseline_text(m),
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
  for (const Verdict& v : c.expectations) {
    std::string summary = fmt::format("expected {}, measured {}{}", v.expected, v.measured,
                                      v.detail.empty() ? "" : "; " + v.detail);
    out += fmt::format("    <testcase classname=\"expect.{}\" name=\"{}\">", level_name(v.level), svg::escape_xml(v.check));
    if (v.status == VerdictStatus::fail) {
      out += fmt::format("\n      <failure message=\"{}\" type=\"expectation\"/>\n    ", svg::escape_xml(summary));
    } else if (v.status == VerdictStatus::unavailable) {
      out += fmt::format("\n      <skipped message=\"{}\"/>\n    ", svg::escape_xml(summary));
    }
    out += "</testcase>\n";
  }
  out += "  </testsuite>\n</testsuites>\n";
  return out;
}

std::string render_compare_markdown(const CompareReport& r) {
  const Comparison& c = r.comparison;
  std::string out = fmt::format("### harness compare: {}\n\n", c.regressed() ? "regression found" : "no regression");
  out += markdown_cell(title(r)) + "\n\n";
  for (const std::string& n : r.notes) out += "> note: " + markdown_cell(n) + "\n";
  if (!r.notes.empty()) out += "\n";
  out += "**" + summary_line(c) + "**\n\n";
  out += "| metric | baseline | new | change | % | better | verdict | why |\n";
  out += "|---|---:|---:|---:|---:|---|---|---|\n";
  // Regressions first: the reader of a CI comment looks for them.
  std::vector<const MetricComparison*> rows;
  for (const MetricComparison& m : c.metrics) rows.push_back(&m);
  std::stable_sort(rows.begin(), rows.end(), [](const MetricComparison* a, const MetricComparison* b) {
    return (a->verdict == Change::regressed) > (b->verdict == Change::regressed);
  });
  for (const MetricComparison* m : rows) {
    std::string verdict = verdict_text(*m);
    if (m->verdict == Change::regressed && m->acknowledged.empty()) verdict = "**regressed**";
    out += fmt::format("| `{}` | {} | {} | {} | {} | {} | {} | {} |\n", markdown_cell(m->name),
                       markdown_cell(baseline_text(*m)), markdown_cell(current_text(*m)), change_text(*m),
                       percent_text(*m), better_name(m->better), verdict,
                       markdown_cell(m->acknowledged.empty() ? m->reason : m->reason + "; " + m->acknowledged));
  }
  if (!c.expectations.empty()) {
    out += "\n| baseline expectation | expected | measured | result |\n|---|---|---|---|\n";
    for (const Verdict& v : c.expectations) {
      out += fmt::format("| `{}` | {} | {} | {} |\n", markdown_cell(v.check), markdown_cell(v.expected),
                         markdown_cell(v.measured), verdict_status_name(v.status));
    }
  }
  out += "\n" + markdown_cell(method_line(c)) + "\n";
  return out;
}

namespace {

// LAVA splits a signal at spaces and '>' ends it: an id or unit keeps
// letters, digits and ._- and the rest becomes '_'.
std::string lava_word(std::string_view s) {
  std::string out;
  for (char ch : s) {
    const bool keep = (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') ||
                      ch == '.' || ch == '_' || ch == '-';
    out += keep ? ch : '_';
  }
  return out;
}

std::string lava_signal(const std::string& id, std::string_view result, const std::optional<double>& measurement,
                        const std::string& unit) {
  std::string out = fmt::format("<LAVA_SIGNAL_TESTCASE TEST_CASE_ID={} RESULT={}", lava_word(id), result);
  if (measurement && std::isfinite(*measurement)) {
    out += fmt::format(" MEASUREMENT={:.9g}", *measurement);
    if (!unit.empty()) out += " UNITS=" + lava_word(unit);
  }
  return out + ">\n";
}

}  // namespace

std::string render_compare_lava(const CompareReport& r) {
  const Comparison& c = r.comparison;
  std::string out;
  for (const MetricComparison& m : c.metrics) {
    std::string_view result = m.verdict == Change::regressed && m.acknowledged.empty() ? "fail"
                              : m.verdict == Change::regressed || m.verdict == Change::cannot_tell ? "skip"
                                                                                                    : "pass";
    out += lava_signal("compare." + m.name, result, m.current, m.unit);
  }
  for (const Verdict& v : c.expectations) {
    std::string_view result = v.status == VerdictStatus::fail          ? "fail"
                              : v.status == VerdictStatus::unavailable ? "skip"
                                                                       : "pass";
    out += lava_signal("expect." + v.check, result, std::nullopt, "");
  }
  out += lava_signal(fmt::format("compare.run-{}-vs-run-{}", r.current_run, r.baseline_run),
                     c.regressed() ? "fail" : "pass", std::nullopt, "");
  return out;
}

}  // namespace harness
