#include "reports/junit.h"

#include <cstdio>
#include <ctime>
#include <optional>

#include <fmt/format.h>

#include "reports/svg.h"

namespace harness {
namespace {

using svg::escape_xml;

struct Case {
  std::string classname, name;
  enum { pass, fail, skip } outcome = pass;
  std::string message, body;
};

struct Suite {
  std::string name;
  std::vector<Case> cases;
  int failures() const {
    int n = 0;
    for (const Case& c : cases) n += c.outcome == Case::fail;
    return n;
  }
  int skipped() const {
    int n = 0;
    for (const Case& c : cases) n += c.outcome == Case::skip;
    return n;
  }
};

// The JUnit schema's timestamp has no time zone and no fraction:
// "2026-11-29T17:40:12.345Z" -> "2026-11-29T17:40:12".
std::string junit_timestamp(const std::string& iso) { return iso.substr(0, 19); }

// Seconds since the epoch of "2026-11-29T17:40:12.345Z"; nullopt when the
// text is not of that shape (a run that never ended has no end time).
std::optional<double> epoch_seconds(const std::string& iso) {
  std::tm tm{};
  double seconds = 0;
  if (std::sscanf(iso.c_str(), "%4d-%2d-%2dT%2d:%2d:%lf", &tm.tm_year, &tm.tm_mon, &tm.tm_mday, &tm.tm_hour,
                  &tm.tm_min, &seconds) != 6) {
    return std::nullopt;
  }
  tm.tm_year -= 1900;
  tm.tm_mon -= 1;
  return static_cast<double>(timegm(&tm)) + seconds;
}

// The suite's time is the run's wall time, when the run recorded both ends.
std::string time_attribute(const RunRecord& run) {
  std::optional<double> start = epoch_seconds(run.started_at), end = epoch_seconds(run.ended_at);
  if (!start || !end || *end < *start) return "";
  return fmt::format(" time=\"{:.3f}\"", *end - *start);
}

// The machine harness ran on, when the run recorded it; else the rig's name.
std::string host_of(const RunRecord& run) {
  auto it = run.context.find("host");
  if (it == run.context.end() || it->second.rfind("unavailable", 0) == 0) return run.rig;
  return it->second;
}

std::string suite_xml(const Suite& s, const RunRecord& run) {
  std::string out = fmt::format(
      "  <testsuite name=\"{}\" tests=\"{}\" failures=\"{}\" errors=\"0\" skipped=\"{}\" timestamp=\"{}\" "
      "hostname=\"{}\"{}>\n",
      escape_xml(s.name), s.cases.size(), s.failures(), s.skipped(), escape_xml(junit_timestamp(run.started_at)),
      escape_xml(host_of(run)), time_attribute(run));
  out += "    <properties>\n";
  out += fmt::format("      <property name=\"rig\" value=\"{}\"/>\n", escape_xml(run.rig));
  out += fmt::format("      <property name=\"run\" value=\"{}\"/>\n", run.id);
  out += fmt::format("      <property name=\"scenario\" value=\"{}\"/>\n", escape_xml(run.scenario_name));
  out += fmt::format("      <property name=\"scenario_sha256\" value=\"{}\"/>\n", escape_xml(run.scenario_hash));
  out += fmt::format("      <property name=\"origin\" value=\"{}\"/>\n", escape_xml(run.origin));
  out += fmt::format("      <property name=\"status\" value=\"{}\"/>\n", run_status_name(run.status));
  out += "    </properties>\n";
  for (const Case& c : s.cases) {
    std::string head = fmt::format("    <testcase classname=\"{}\" name=\"{}\"", escape_xml(c.classname),
                                   escape_xml(c.name));
    if (c.outcome == Case::pass) {
      out += head + "/>\n";
    } else if (c.outcome == Case::fail) {
      out += head + ">\n" +
             fmt::format("      <failure message=\"{}\" type=\"verdict\">{}</failure>\n", escape_xml(c.message),
                         escape_xml(c.body)) +
             "    </testcase>\n";
    } else {
      out += head + ">\n" + fmt::format("      <skipped message=\"{}\"/>\n", escape_xml(c.message)) +
             "    </testcase>\n";
    }
  }
  return out + "  </testsuite>\n";
}

}  // namespace

std::string render_junit(const ReportInput& in) {
  const RunRecord& run = in.run;
  std::vector<Suite> suites;
  Suite verdicts{"harness." + run.scenario_name, {}};
  for (const Verdict& v : run.analysis.verdicts) {
    Case c{fmt::format("harness.{}", level_name(v.level)), v.check, Case::pass, "", ""};
    if (v.status == VerdictStatus::fail) {
      c.outcome = Case::fail;
      c.message = fmt::format("expected {}, measured {}", v.expected, v.measured);
      c.body = fmt::format("expected: {}\nmeasured: {}", v.expected, v.measured);
      if (!v.detail.empty()) c.body += "\n" + v.detail;
    } else if (v.status == VerdictStatus::unavailable) {
      c.outcome = Case::skip;
      c.message = v.measured.empty() ? "unavailable" : v.measured;
    } else if (v.status == VerdictStatus::cannot_tell) {
      c.outcome = Case::skip;
      c.message = "cannot tell: " + (v.detail.empty() ? v.measured : v.detail);
    }
    verdicts.cases.push_back(c);
  }
  suites.push_back(verdicts);
  if (in.comparison) {
    Suite cmp{fmt::format("harness.{}.compare", run.scenario_name), {}};
    for (const MetricChange& m : in.comparison->changes) {
      if (m.verdict.empty()) continue;  // a difference nobody judged is no test
      Case c{fmt::format("harness.compare.{}", level_name(m.level)), m.name, Case::pass, "", ""};
      std::string values = fmt::format("baseline {}, this run {}{}", figure_text(m.baseline, m.unit),
                                       figure_text(m.current, m.unit),
                                       m.change_pct ? fmt::format(" ({:+.1f} %)", *m.change_pct) : "");
      if (m.verdict == "regressed") {
        c.outcome = Case::fail;
        c.message = "regressed against " + in.comparison->baseline_label + ": " + values;
        c.body = m.detail;
      } else if (m.verdict == "cannot tell") {
        c.outcome = Case::skip;
        c.message = "cannot tell: " + (m.detail.empty() ? values : m.detail);
      }
      cmp.cases.push_back(c);
    }
    if (!cmp.cases.empty()) suites.push_back(cmp);
  }
  int tests = 0, failures = 0, skipped = 0;
  for (const Suite& s : suites) {
    tests += static_cast<int>(s.cases.size());
    failures += s.failures();
    skipped += s.skipped();
  }
  std::string out = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
  out += fmt::format("<testsuites name=\"harness\" tests=\"{}\" failures=\"{}\" errors=\"0\" skipped=\"{}\">\n", tests,
                     failures, skipped);
  for (const Suite& s : suites) out += suite_xml(s, run);
  return out + "</testsuites>\n";
}

}  // namespace harness
