// The smallest scenario text for this machine: the rig "test-host" (the
// local transport) running the built-in vector_add kernel. The caller appends
// the rest of [workload] (its size) and the levels it wants; the text keeps
// its line numbers (the workload's next key is line 7) for tests that assert
// file:line.
#pragma once

#include <string>

namespace harness::testing_support {

inline std::string host_scenario(const std::string& name) {
  return "[scenario]\nname = \"" + name + "\"\n[rig]\nname = \"test-host\"\n[workload]\nbuiltin = \"vector_add\"\n";
}

}  // namespace harness::testing_support
