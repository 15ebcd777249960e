// Every problem of a scenario file in one pass, for the pre-flight
// (harness/runner/preflight.h): each section is read on its own, so a
// problem in one section does not hide another's.
#pragma once

#include <string>
#include <vector>

#include "harness/base/result.h"
#include "harness/scenario/scenario.h"

namespace harness {

// `scenario` runs only when `problems` is empty; else it holds the sections
// that parsed (a level whose section failed is absent), which the pre-flight
// still checks. Problems are in the order of their place in the file.
struct ScenarioProblems {
  Scenario scenario;
  std::vector<Error> problems;
  std::vector<std::string> failed_sections;  // "rig", "latency", ...
};
ScenarioProblems parse_scenario_problems(std::string text, std::string path, const BundleScope* bundle = nullptr);

// Problems that start with "path:line:col:" in the order of their place in
// the file, the others first.
std::vector<Error> sorted_by_position(std::vector<Error> problems, const std::string& path);
// One problem as it is; several as "path: N problems:" and one indented line
// each (exit 2, or the code of a problem that is not bad input).
Error combined_problems(const std::string& path, const std::vector<Error>& problems);

// "path:line:col" of a key of the scenario's text, by its dotted path
// ("rig", "ddr.capture", "roofline.vendor[0].command", "rig.versions.kernel"),
// else the path alone: where the pre-flight's problems point.
std::string where_in_scenario(const Scenario& scenario, std::string_view dotted);

}  // namespace harness
