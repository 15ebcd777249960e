// Ceilings read from a vendor tool's output (a rig's bandwidth or peak
// compute as its own tool reports them). Running the tool is acquisition;
// picking the figures out of its text is analysis, so a recorded output
// replays to the same figures.
#pragma once

#include <string>
#include <vector>

#include "harness/base/result.h"
#include "harness/base/units.h"

namespace harness {

// What one run of the tool left: its output text, or why there is none.
struct VendorOutput {
  std::string tool;               // the scenario's name for it
  std::vector<std::string> argv;
  std::string out;                // stdout
  std::string unavailable;        // non-empty: the tool could not be run or failed
};

// Runs the tool; a tool that is missing, fails or times out is recorded as
// unavailable (a rig without its tool is a state, not a crash).
VendorOutput run_vendor_tool(const std::string& tool, const std::vector<std::string>& argv,
                             double timeout_s);

// The first match of `pattern` (ECMAScript regex with one capture group
// holding a number) in a line of `text`, read as "<number> <unit>" in `dimension`.
// Errors say what was not found.
Result<double> extract_vendor_figure(const std::string& text, const std::string& pattern,
                                     const std::string& unit, Dimension dimension);

// Checks that a pattern compiles and has exactly one capture group; the error
// text is ready to follow "file:line:col: ".
Status check_vendor_pattern(const std::string& pattern);

}  // namespace harness
