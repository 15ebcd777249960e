// Renderers for `harness compare`: a table for people, JSON (--json), JUnit
// XML with one test case per metric (--junit) and Markdown for CI comments
// (--markdown), LAVA test-case signals (--lava). All of them say which
// correction for many metrics was used.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "harness/compare/compare.h"
#include "harness/compare/stored_comparison.h"

namespace harness {

// Each outcome's own mark where a reader scans a table (Markdown, HTML,
// publish): "❌ regressed", "✅ improved", "🔀 changed", "➖ unchanged", "❔ cannot tell".
std::string_view outcome_mark(Change c);

std::string render_compare_text(const CompareReport& report);
nlohmann::json compare_to_json(const CompareReport& report);
std::string render_compare_junit(const CompareReport& report);
std::string render_compare_markdown(const CompareReport& report);
// LAVA test-case signals, one per metric verdict and baseline expectation and
// one for the whole comparison, as LAVA's test shell reads them from a job's
// output: <LAVA_SIGNAL_TESTCASE TEST_CASE_ID=... RESULT=pass|fail|skip
// MEASUREMENT=... UNITS=...>. regressed or a failed expectation is fail,
// cannot tell is unknown, unavailable or an acknowledged regression is skip,
// everything else pass.
std::string render_compare_lava(const CompareReport& report);

}  // namespace harness
