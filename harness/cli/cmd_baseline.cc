// harness baseline set NAME RUN... [--last N] | list | show NAME: names runs
// as the reference for later runs of the same scenario on the same rig; a
// baseline of several runs (the last good nights) carries their spread.
#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "harness/base/time_text.h"
#include "harness/cli/commands.h"
#include "harness/store/store.h"
#include "reports/console.h"
#include "reports/json.h"

namespace harness {
namespace {

nlohmann::json baseline_to_json(const Baseline& b) {
  return {{"name", b.name}, {"scenario", b.scenario_name}, {"rig", b.rig}, {"run", b.run_id},
          {"runs", b.runs},   {"set_at", b.set_at}};
}

// "run 7", or "runs 3, 4, 5, 6, 7".
std::string runs_text(const Baseline& b) {
  if (b.runs.size() < 2) return fmt::format("run {}", b.run_id);
  std::string s;
  for (std::int64_t id : b.runs) s += (s.empty() ? "" : ", ") + std::to_string(id);
  return "runs " + s;
}

std::string render_baselines(const std::vector<Baseline>& list) {
  if (list.empty()) return "no baselines (name one with 'harness baseline set NAME RUN')\n";
  std::size_t w_name = 4, w_scenario = 8, w_rig = 3;
  for (const Baseline& b : list) {
    w_name = std::max(w_name, b.name.size());
    w_scenario = std::max(w_scenario, b.scenario_name.size());
    w_rig = std::max(w_rig, b.rig.size());
  }
  std::string out = fmt::format("{:<{}}  {:<{}}  {:<{}}  {:>5}  {:>4}  {}\n", "name", w_name, "scenario", w_scenario,
                                "rig", w_rig, "run", "runs", "set at");
  for (const Baseline& b : list) {
    out += fmt::format("{:<{}}  {:<{}}  {:<{}}  {:>5}  {:>4}  {}\n", b.name, w_name, b.scenario_name, w_scenario,
                       b.rig, w_rig, b.run_id, b.runs.size(), b.set_at);
  }
  return out;
}

}  // namespace

Action setup_baseline(CLI::App& app, const GlobalOptions& global, Io io) {
  app.require_subcommand(1);
  struct Options {
    std::string name;
    std::vector<std::int64_t> runs;
    int last = 0;
    std::string scenario, rig;
  };
  auto o = std::make_shared<Options>();
  CLI::App* set = app.add_subcommand(
      "set", "Name RUN (or several runs, e.g. the last good nights) as baseline NAME of its scenario and rig");
  set->add_option("name", o->name, "Baseline name, e.g. nightly")->required();
  set->add_option("runs", o->runs,
                  "Run id(s) (see 'harness runs'); several runs let compare judge against their run-to-run spread")
      ->required();
  set->add_option("--last", o->last,
                  "With one RUN: the newest N completed live runs of its scenario and rig, up to RUN")
      ->check(CLI::Range(2, 1000));
  CLI::App* list = app.add_subcommand("list", "List baselines");
  CLI::App* show = app.add_subcommand("show", "Show a baseline and its run");
  show->add_option("name", o->name, "Baseline name")->required();
  show->add_option("--scenario", o->scenario, "Only the baseline of this scenario");
  show->add_option("--rig", o->rig, "Only the baseline of this rig");
  for (CLI::App* sub : {set, list, show}) sub->fallthrough();  // --json, --db after the subcommand

  return [=, &global]() -> Result<ExitCode> {
    Result<Store> store = Store::open(resolve_database_path(global.db));
    if (!store) return store.error();
    if (set->parsed()) {
      if (o->name.empty()) return Error::input("a baseline name must not be empty");
      std::vector<std::int64_t> runs = o->runs;
      if (o->last > 0) {
        if (runs.size() != 1) return Error::input("--last N takes one RUN: the newest run of the baseline");
        Result<std::vector<std::int64_t>> recent = store->recent_completed_runs(runs.front(), o->last);
        if (!recent) return recent.error();
        if (recent->empty() || recent->back() != runs.front()) {
          return Error::input(fmt::format("run {} is not a completed live run: --last N counts back from one",
                                          runs.front()));
        }
        runs = std::move(*recent);
      }
      Result<std::optional<std::int64_t>> previous = store->set_baseline(o->name, runs, utc_now_iso8601());
      if (!previous) return previous.error();
      const std::int64_t newest = *std::max_element(runs.begin(), runs.end());
      Result<std::vector<Baseline>> now = store->list_baselines(o->name);
      if (!now) return now.error();
      const Baseline* b = nullptr;
      for (const Baseline& x : *now)
        if (x.run_id == newest) b = &x;
      if (!b) return Error::infra("baseline vanished right after it was set");
      if (global.json) {
        nlohmann::json j = baseline_to_json(*b);
        j["replaced_run"] = *previous ? nlohmann::json(**previous) : nlohmann::json(nullptr);
        io.out << j.dump(2) << "\n";
      } else {
        io.out << fmt::format("baseline '{}' of scenario '{}' on rig '{}' is now {}{}\n", b->name,
                              b->scenario_name, b->rig, runs_text(*b),
                              *previous ? fmt::format(" (was run {})", **previous) : "");
      }
      return ExitCode::ok;
    }
    if (show->parsed()) {
      Result<std::vector<Baseline>> found = store->list_baselines(o->name);
      if (!found) return found.error();
      std::vector<Baseline> chosen;
      for (const Baseline& b : *found) {
        if ((o->scenario.empty() || b.scenario_name == o->scenario) && (o->rig.empty() || b.rig == o->rig))
          chosen.push_back(b);
      }
      if (chosen.empty()) {
        return Error::input(fmt::format("no baseline named '{}'{} (see 'harness baseline list')", o->name,
                                        found->empty() ? "" : " for that scenario and rig"));
      }
      nlohmann::json j = nlohmann::json::array();
      std::string text;
      for (const Baseline& b : chosen) {
        Result<RunRecord> run = store->load_run(b.run_id);
        if (!run) return run.error();
        if (global.json) {
          j.push_back({{"baseline", baseline_to_json(b)}, {"run", run_to_json(*run)}});
        } else {
          text += fmt::format("baseline '{}' of scenario '{}' on rig '{}': {}, set {}\n\n", b.name,
                              b.scenario_name, b.rig, runs_text(b), b.set_at);
          text += render_run_text(*run) + "\n";
        }
      }
      if (global.json) io.out << j.dump(2) << "\n";
      else io.out << text;
      return ExitCode::ok;
    }
    Result<std::vector<Baseline>> all = store->list_baselines();
    if (!all) return all.error();
    if (global.json) {
      nlohmann::json j = nlohmann::json::array();
      for (const Baseline& b : *all) j.push_back(baseline_to_json(b));
      io.out << j.dump(2) << "\n";
    } else {
      io.out << render_baselines(*all);
    }
    return ExitCode::ok;
  };
}

}  // namespace harness
