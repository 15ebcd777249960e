#include "reports/lava.h"

#include <cmath>

#include <fmt/format.h>

namespace harness {
namespace {

std::string lava_word(std::string_view s) {
  std::string out;
  for (char ch : s) {
    const bool keep = (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') ||
                      ch == '.' || ch == '_' || ch == '-';
    out += keep ? ch : '_';
  }
  return out;
}

}  // namespace

std::string_view lava_result(VerdictStatus s) {
  switch (s) {
    case VerdictStatus::pass: return "pass";
    case VerdictStatus::fail: return "fail";
    case VerdictStatus::unavailable: return "skip";
    case VerdictStatus::cannot_tell: return "unknown";
  }
  return "unknown";
}

std::string lava_signal(std::string_view id, std::string_view result, const std::optional<double>& measurement,
                        std::string_view unit) {
  std::string out = fmt::format("<LAVA_SIGNAL_TESTCASE TEST_CASE_ID={} RESULT={}", lava_word(id), result);
  if (measurement && std::isfinite(*measurement)) {
    out += fmt::format(" MEASUREMENT={:.9g}", *measurement);
    if (!unit.empty()) out += " UNITS=" + lava_word(unit);
  }
  return out + ">\n";
}

std::string render_lava(const ReportInput& in) {
  const RunRecord& run = in.run;
  std::string out;
  for (const Metric& m : run.analysis.metrics) {
    if (!m.text.empty()) continue;  // a category ("memory") has no measurement to report
    out += lava_signal("metric." + m.name, m.value ? "pass" : "skip", m.value, m.unit);
  }
  for (const Verdict& v : run.analysis.verdicts)
    out += lava_signal("verdict." + v.check, lava_result(v.status), std::nullopt, "");
  if (in.comparison) {
    for (const MetricChange& m : in.comparison->changes) {
      if (m.verdict.empty()) continue;  // a difference nobody judged is no test case
      std::string_view result = m.verdict == "regressed" ? "fail" : m.verdict == "cannot tell" ? "unknown" : "pass";
      out += lava_signal("compare." + m.name, result, m.current, m.unit);
    }
  }
  out += lava_signal(fmt::format("run-{}", run.id), run.status == RunStatus::passed ? "pass" : "fail", std::nullopt,
                     "");
  return out;
}

}  // namespace harness
