#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "harness/cli/commands.h"
#include "harness/runner/preflight.h"

namespace harness {

Result<ExitCode> print_preflight(const std::string& path, bool ask_rig, const GlobalOptions& global, Io io) {
  Preflight checked = preflight_file(path, {.ask_rig = ask_rig}, nullptr);
  if (global.json) {
    nlohmann::json problems = nlohmann::json::array();
    for (const Error& e : checked.problems) problems.push_back(e.message);
    io.out << nlohmann::json{{"scenario", path}, {"ok", checked.ok()}, {"problems", problems}, {"checked", checked.checked}}
                  .dump(2)
           << "\n";
    return checked.ok() ? ExitCode::ok : ExitCode::bad_input;
  }
  if (!checked.ok()) {
    // Before a run, any problem means the scenario cannot run here: exit 2.
    Error problems = combined_problems(path, checked.problems);
    return Error::input(problems.message);
  }
  io.out << fmt::format("{}: ready to run; nothing was run or stored\n", path);
  for (const std::string& line : checked.checked) io.out << "  checked: " << line << "\n";
  return ExitCode::ok;
}

Result<Scenario> preflight_for_run(const std::string& path) {
  std::optional<Scenario> scenario;
  Preflight checked = preflight_file(path, {}, &scenario);
  // The rig's faults are left to the run, which meets them again, stores the
  // run aborted with the reason and exits 3: what the scenario itself gets
  // wrong stops it here, before anything is stored.
  std::vector<Error> blocking;
  for (const Error& e : checked.problems)
    if (e.code != ExitCode::infrastructure) blocking.push_back(e);
  if (!blocking.empty()) return combined_problems(path, blocking);
  return std::move(*scenario);
}

Action setup_check(CLI::App& app, const GlobalOptions& global, Io io) {
  auto path = std::make_shared<std::string>();
  auto no_rig = std::make_shared<bool>(false);
  app.add_option("scenario", *path, "Scenario file (TOML); reference: scenarios/README.md")->required();
  app.add_flag("--no-rig", *no_rig, "Do not contact the rig's agent (files and this host's tools only)");
  return [=, &global]() -> Result<ExitCode> { return print_preflight(*path, !*no_rig, global, io); };
}

}  // namespace harness
