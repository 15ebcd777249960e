// Counter group files (scenarios/groups/*.toml), parsed once into a typed
// CounterGroup. Reference: scenarios/README.md "Counter groups".
#pragma once

#include <string>
#include <vector>

#include "harness/base/result.h"
#include "harness/scenario/counters_config.h"

namespace harness {

// Parses a group file's text; `path` is used in error messages
// ("path:line:col: ...") and kept in the group.
Result<CounterGroup> parse_counter_group(std::string text, std::string path);
// Reads and parses a file; a missing file names the OS error.
Result<CounterGroup> load_counter_group(const std::string& path);

// Where the group named `name` is looked for, first match wins: a path (it
// has a '/' or ends in .toml) relative to the scenario's folder; else
// <scenario folder>/groups/<name>.toml, then the groups shipped with harness.
std::vector<std::string> counter_group_candidates(const std::string& name, const std::string& scenario_path);
// The group names found in the folders above, for "did you mean".
std::vector<std::string> known_counter_groups(const std::string& scenario_path);

}  // namespace harness
