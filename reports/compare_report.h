// Renderers for `harness compare`: a table for people, JSON (--json), JUnit
// XML with one test case per metric (--junit) and Markdown for CI comments
// (--markdown). All of them say which correction for many metrics was used.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "harness/compare/compare.h"
#include "harness/compare/stored_comparison.h"

namespace harness {


std::string render_compare_text(const CompareReport& report);
nlohmann::json compare_to_json(const CompareReport& report);
std::string render_compare_junit(const CompareReport& report);
std::string render_compare_markdown(const CompareReport& report);

}  // namespace harness
