// libFuzzer target: any bytes given to the scenario parser give a Scenario or
// an error with a message, never a crash, a hang or undefined behaviour; the
// same for the pass that collects every section's problems (the pre-flight's),
// the lookup of a key's place in the text and [notify]'s own reader.
#include <cstddef>
#include <cstdint>
#include <string>

#include "harness/scenario/notify_config.h"
#include "harness/scenario/scenario.h"
#include "harness/scenario/scenario_problems.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string text(reinterpret_cast<const char*>(data), size);
  harness::Result<harness::Scenario> s = harness::parse_scenario(text, "fuzz.toml");
  if (!s && s.error().message.empty()) __builtin_trap();
  harness::ScenarioProblems all = harness::parse_scenario_problems(text, "fuzz.toml");
  if (all.problems.empty() != s.ok()) __builtin_trap();
  for (const harness::Error& e : all.problems)
    if (e.message.empty()) __builtin_trap();
  for (const char* key : {"rig", "ddr.capture", "roofline.vendor[0].command", "rig.versions.kernel"})
    if (harness::where_in_scenario(all.scenario, key).empty()) __builtin_trap();
  harness::Result<std::optional<harness::NotifyConfig>> notify = harness::notify_config_from_text(text, "fuzz.toml");
  if (!notify && notify.error().message.empty()) __builtin_trap();
  return 0;
}
