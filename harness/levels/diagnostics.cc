#include "harness/levels/diagnostics.h"

#include <algorithm>
#include <cctype>
#include <cmath>

#include <fmt/format.h>

#include "harness/levels/counters.h"

namespace harness {
namespace {

bool is_alu_stall(const Metric& m) {
  if (m.level != Level::counters) return false;
  std::string upper = m.name;
  std::transform(upper.begin(), upper.end(), upper.begin(), [](unsigned char c) { return std::toupper(c); });
  return upper.find("ALU_STALL") != std::string::npos;
}

// Levels 1-3 "pass": at least one verdict, and none failed.
bool lower_levels_pass(const Analysis& a) {
  bool any_pass = false;
  for (const Verdict& v : a.verdicts) {
    if (v.level == Level::latency) continue;
    if (v.status == VerdictStatus::fail) return false;
    if (v.status == VerdictStatus::pass) any_pass = true;
  }
  return any_pass;
}

std::string value_text(const Metric& m) {
  if (!m.value) return "unavailable: " + m.unavailable;
  return fmt::format("{:.4g}{}", *m.value, m.unit.empty() || m.unit == "1" ? "" : " " + m.unit);
}

constexpr const char* kRule =
    "levels 1-3 pass but level 4 efficiency did not improve: look at ALU-stall counters "
    "(CPU-side overhead, cache pollution)";

}  // namespace

void add_counters_verdicts_and_hints(const Scenario& scenario, Analysis& a) {
  // The generic evaluation names a check after its metric's prefix ("counter."
  // for level 2, meant for roofline kernels); the user wrote [counters.expect].
  for (Verdict& v : a.verdicts) {
    if (v.level == Level::counters && v.check.rfind("counter.expect.", 0) == 0)
      v.check = "counters." + v.check.substr(8);
  }
  if (scenario.counters) {
    std::vector<Verdict> placeholders = counters_baseline_placeholders(*scenario.counters);
    a.verdicts.insert(a.verdicts.end(), placeholders.begin(), placeholders.end());
  }
  auto failed = std::find_if(a.verdicts.begin(), a.verdicts.end(), [](const Verdict& v) {
    return v.level == Level::latency && v.status == VerdictStatus::fail &&
           v.check.find("efficiency") != std::string::npos;
  });
  if (failed == a.verdicts.end() || !lower_levels_pass(a)) return;
  std::string shown;
  for (const Metric& m : a.metrics) {
    if (!is_alu_stall(m)) continue;
    shown += fmt::format("{}{} = {}", shown.empty() ? "" : "; ", m.name, value_text(m));
  }
  if (shown.empty()) {
    a.hints.push_back(fmt::format("{} ({} failed); no counter group reads an ALU-stall counter (a name containing "
                                  "ALU_STALL), so this run cannot show it",
                                  kRule, failed->check));
    return;
  }
  a.hints.push_back(fmt::format("{} ({} failed): {}. Compare against a baseline run to see whether they rose.",
                                kRule, failed->check, shown));
}

std::vector<std::string> diagnose_efficiency_against_baseline(const Analysis& baseline, const Analysis& current) {
  const Metric* eb = baseline.find_metric("efficiency");
  const Metric* ec = current.find_metric("efficiency");
  if (!eb || !ec || !eb->value || !ec->value || *ec->value > *eb->value) return {};
  if (!lower_levels_pass(current)) return {};
  std::vector<std::string> rose, steady;
  for (const Metric& m : current.metrics) {
    if (!is_alu_stall(m) || !m.value) continue;
    const Metric* b = baseline.find_metric(m.name);
    if (!b || !b->value) continue;
    std::string move = fmt::format("{} {:.4g} -> {:.4g}", m.name, *b->value, *m.value);
    if (*b->value > 0 && *m.value > *b->value) {
      rose.push_back(fmt::format("{} (+{:.3g} %)", move, (*m.value / *b->value - 1) * 100));
    } else {
      steady.push_back(move);
    }
  }
  std::string head = fmt::format("{} (efficiency {:.4g} -> {:.4g})", kRule, *eb->value, *ec->value);
  auto join = [](const std::vector<std::string>& v) {
    std::string s;
    for (const std::string& x : v) s += (s.empty() ? "" : ", ") + x;
    return s;
  };
  if (!rose.empty()) return {fmt::format("{}: ALU-stall counters rose: {}", head, join(rose))};
  if (!steady.empty()) {
    return {fmt::format("{}: ALU-stall counters did not rise ({}); the cause is elsewhere", head, join(steady))};
  }
  return {fmt::format("{}: neither run has an ALU-stall counter (a name containing ALU_STALL) to check", head)};
}

}  // namespace harness
