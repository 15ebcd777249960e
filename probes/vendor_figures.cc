#include "probes/vendor_figures.h"

#include <regex>
#include <sstream>

#include <fmt/format.h>

#include "harness/base/units.h"
#include "probes/process.h"

namespace harness {

VendorOutput run_vendor_tool(const std::string& tool, const std::vector<std::string>& argv,
                             double timeout_s) {
  VendorOutput v{tool, argv, "", ""};
  CommandOptions options;
  options.timeout_s = timeout_s;
  Result<CommandResult> r = run_command(argv, options);
  if (!r) {
    v.unavailable = r.error().message;
  } else if (!r->succeeded()) {
    v.unavailable = fmt::format("{} ended with {}", argv.front(), r->describe_end());
    v.out = r->out;
  } else {
    v.out = r->out;
  }
  return v;
}

Status check_vendor_pattern(const std::string& pattern) {
  try {
    std::regex re(pattern);
    if (re.mark_count() != 1) {
      return Error::input(fmt::format("the pattern must have exactly one capture group (the number), it has {}",
                                      re.mark_count()));
    }
  } catch (const std::regex_error& e) {
    return Error::input(fmt::format("invalid regular expression: {}", e.what()));
  }
  return ok();
}

Result<double> extract_vendor_figure(const std::string& text, const std::string& pattern,
                                     const std::string& unit, Dimension dimension) {
  HARNESS_TRY(check_vendor_pattern(pattern));
  // Line by line: std::regex recurses per character, so one search over a
  // megabyte of output could exhaust the stack; a figure sits on one line.
  const std::regex re(pattern);
  std::smatch match;
  std::istringstream lines(text);
  std::string line;
  bool found = false;
  while (!found && std::getline(lines, line)) found = std::regex_search(line, match, re);
  if (!found) return Error::input(fmt::format("pattern /{}/ not found in the tool's output", pattern));
  Result<double> q = parse_quantity(match[1].str() + " " + unit, dimension);
  if (!q) return q.error().within(fmt::format("pattern /{}/ matched \"{}\"", pattern, match[1].str()));
  return *q;
}

}  // namespace harness
