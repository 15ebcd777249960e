// Renderers for `harness compare`: a table for people, JSON (--json), JUnit
// XML with one test case per metric (--junit) and Markdown for CI comments
// (--markdown). All of them say which correction for many metrics was used.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "harness/compare/compare.h"

namespace harness {

// What was compared with what, and the judgement.
struct CompareReport {
  std::int64_t baseline_run = 0;
  std::int64_t current_run = 0;
  std::string baseline_name;  // empty for --against RUN
  std::string scenario, rig;                    // of the new run
  std::string baseline_scenario, baseline_rig;  // of the baseline run
  std::vector<std::string> notes;  // e.g. key mismatch allowed, scenario text differs
  Comparison comparison;
};

std::string render_compare_text(const CompareReport& report);
nlohmann::json compare_to_json(const CompareReport& report);
std::string render_compare_junit(const CompareReport& report);
std::string render_compare_markdown(const CompareReport& report);

}  // namespace harness
