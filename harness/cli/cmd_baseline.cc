// harness baseline set NAME RUN... [--last N] | list | show NAME | ack NAME
// METRIC --reason WHY: names runs as the reference for later runs of the same
// scenario on the same rig; a baseline of several runs (the last good nights)
// carries their spread; an acknowledged regression stops failing compare
// until the baseline is set anew.
#include <algorithm>
#include <cmath>
#include <cstdlib>

#include <pwd.h>
#include <unistd.h>

#include <fmt/format.h>

#include "harness/base/time_text.h"
#include "harness/cli/commands.h"
#include "harness/compare/stored_comparison.h"
#include "harness/store/store.h"
#include "reports/console.h"
#include "reports/json.h"

namespace harness {
namespace {

nlohmann::json baseline_to_json(const Baseline& b) {
  return {{"name", b.name}, {"scenario", b.scenario_name}, {"rig", b.rig}, {"run", b.run_id},
          {"runs", b.runs},   {"set_at", b.set_at}};
}

std::string runs_text(const Baseline& b) {
  return run_ids_text(b.runs.empty() ? std::vector<std::int64_t>{b.run_id} : b.runs);
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

// Who acknowledges: --by, else the login name.
std::string current_user() {
  for (const char* var : {"USER", "LOGNAME"})
    if (const char* v = std::getenv(var); v && *v) return v;
  if (const passwd* pw = ::getpwuid(::getuid())) return pw->pw_name;
  return "uid " + std::to_string(::getuid());
}

// The one baseline called `name` (of --scenario/--rig when several rigs have one).
Result<Baseline> one_baseline(const Store& store, const std::string& name, const std::string& scenario,
                              const std::string& rig) {
  Result<std::vector<Baseline>> found = store.list_baselines(name);
  if (!found) return found.error();
  std::vector<Baseline> chosen;
  for (const Baseline& b : *found)
    if ((scenario.empty() || b.scenario_name == scenario) && (rig.empty() || b.rig == rig)) chosen.push_back(b);
  if (chosen.empty()) {
    return Error::input(fmt::format("no baseline named '{}'{} (see 'harness baseline list')", name,
                                    found->empty() ? "" : " for that scenario and rig"));
  }
  if (chosen.size() > 1) {
    std::string keys;
    for (const Baseline& b : chosen) keys += fmt::format("{}scenario '{}' on rig '{}'", keys.empty() ? "" : ", ",
                                                        b.scenario_name, b.rig);
    return Error::input(fmt::format("baseline '{}' exists for {}: pick one with --scenario and --rig", name, keys));
  }
  return chosen.front();
}

// The options of the four subcommands, parsed into one struct.
struct BaselineOptions {
  std::string name;
  std::vector<std::int64_t> runs;
  int last = 0;
  std::string scenario, rig;
  std::string metric, reason, by;
};

// baseline set NAME RUN... [--last N]
Result<ExitCode> baseline_set(Store& store, const BaselineOptions& o, bool json, Io io) {
  if (o.name.empty()) return Error::input("a baseline name must not be empty");
  std::vector<std::int64_t> runs = o.runs;
  ChosenNights chosen;
  if (o.last > 0) {
    if (runs.size() != 1) return Error::input("--last N takes one RUN: the newest run of the baseline");
    Result<ChosenNights> good = choose_good_nights(store, runs.front(), o.last);
    if (!good) return good.error();
    chosen = std::move(*good);
    runs = chosen.taken;
  }
  Result<std::optional<std::int64_t>> previous = store.set_baseline(o.name, runs, utc_now_iso8601());
  if (!previous) return previous.error();
  const std::int64_t newest = *std::max_element(runs.begin(), runs.end());
  Result<std::vector<Baseline>> now = store.list_baselines(o.name);
  if (!now) return now.error();
  const Baseline* b = nullptr;
  for (const Baseline& x : *now)
    if (x.run_id == newest) b = &x;
  if (!b) return Error::infra("baseline vanished right after it was set");
  if (json) {
    nlohmann::json j = baseline_to_json(*b);
    j["replaced_run"] = *previous ? nlohmann::json(**previous) : nlohmann::json(nullptr);
    j["skipped"] = nlohmann::json::array();
    for (const auto& [run, why] : chosen.skipped) j["skipped"].push_back({{"run", run}, {"why", why}});
    io.out << j.dump(2) << "\n";
  } else {
    print_text(io.out, fmt::format("baseline '{}' of scenario '{}' on rig '{}' is now {}{}\n", b->name,
                                   b->scenario_name, b->rig, runs_text(*b),
                                   *previous ? fmt::format(" (was run {})", **previous) : ""));
    for (const auto& [run, why] : chosen.skipped) print_text(io.out, fmt::format("  skipped run {}: {}\n", run, why));
    if (o.last > 0 && static_cast<int>(runs.size()) < o.last) {
      io.out << fmt::format("  only {} good nights of the {} asked for among the runs before it\n", runs.size(),
                            o.last);
    }
  }
  return ExitCode::ok;
}

// baseline ack NAME METRIC --reason WHY
Result<ExitCode> baseline_ack(Store& store, const BaselineOptions& o, bool json, Io io) {
  if (o.reason.empty()) return Error::input("--reason must say why the regression is accepted");
  Result<Baseline> b = one_baseline(store, o.name, o.scenario, o.rig);
  if (!b) return b.error();
  Acknowledgement a{b->name, b->scenario_name, b->rig, o.metric, b->run_id,
                    o.by.empty() ? current_user() : o.by, utc_now_iso8601(), o.reason};
  HARNESS_TRY(store.acknowledge(a));
  if (json) {
    io.out << nlohmann::json({{"baseline", a.baseline}, {"scenario", a.scenario_name}, {"rig", a.rig},
                              {"metric", a.metric}, {"baseline_run", a.baseline_run}, {"by", a.by},
                              {"at", a.at}, {"reason", a.reason}})
                  .dump(2)
           << "\n";
  } else {
    print_text(io.out, fmt::format("'{}' acknowledged against baseline '{}' of scenario '{}' on rig '{}' (run {}) "
                                   "by {}: {}; it holds until the baseline is set anew\n",
                                   a.metric, a.baseline, a.scenario_name, a.rig, a.baseline_run, a.by,
                                   a.reason));
  }
  return ExitCode::ok;
}

// baseline show NAME
Result<ExitCode> baseline_show(const Store& store, const BaselineOptions& o, bool json, Io io) {
  Result<std::vector<Baseline>> found = store.list_baselines(o.name);
  if (!found) return found.error();
  std::vector<Baseline> chosen;
  for (const Baseline& b : *found) {
    if ((o.scenario.empty() || b.scenario_name == o.scenario) && (o.rig.empty() || b.rig == o.rig))
      chosen.push_back(b);
  }
  if (chosen.empty()) {
    return Error::input(fmt::format("no baseline named '{}'{} (see 'harness baseline list')", o.name,
                                    found->empty() ? "" : " for that scenario and rig"));
  }
  nlohmann::json j = nlohmann::json::array();
  std::string text;
  for (const Baseline& b : chosen) {
    Result<RunRecord> run = store.load_run(b.run_id);
    if (!run) return run.error();
    if (json) {
      j.push_back({{"baseline", baseline_to_json(b)}, {"run", run_to_json(*run)}});
    } else {
      text += fmt::format("baseline '{}' of scenario '{}' on rig '{}': {}, set {}\n\n", b.name,
                          b.scenario_name, b.rig, runs_text(b), b.set_at);
      text += render_run_text(*run) + "\n";
    }
  }
  if (json) io.out << j.dump(2) << "\n";
  else print_text(io.out, text);
  return ExitCode::ok;
}

// baseline list
Result<ExitCode> baseline_list(const Store& store, bool json, Io io) {
  Result<std::vector<Baseline>> all = store.list_baselines();
  if (!all) return all.error();
  if (json) {
    nlohmann::json j = nlohmann::json::array();
    for (const Baseline& b : *all) j.push_back(baseline_to_json(b));
    io.out << j.dump(2) << "\n";
  } else {
    print_text(io.out, render_baselines(*all));
  }
  return ExitCode::ok;
}

}  // namespace

Action setup_baseline(CLI::App& app, const GlobalOptions& global, Io io) {
  app.require_subcommand(1);
  auto o = std::make_shared<BaselineOptions>();
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
  CLI::App* ack = app.add_subcommand(
      "ack", "Acknowledge a regression against baseline NAME: compare still shows it, but no longer fails on it, "
             "until the baseline is set anew");
  ack->add_option("name", o->name, "Baseline name")->required();
  ack->add_option("metric", o->metric, "The regressed metric, as compare names it")->required();
  ack->add_option("--reason", o->reason, "Why it is accepted for now (stored with the acknowledgement)")->required();
  ack->add_option("--by", o->by, "Who acknowledges (default: the login name)");
  ack->add_option("--scenario", o->scenario, "The baseline of this scenario (when several have the name)");
  ack->add_option("--rig", o->rig, "The baseline of this rig (when several have the name)");
  for (CLI::App* sub : {set, list, show, ack}) sub->fallthrough();  // --json, --db after the subcommand

  return [=, &global]() -> Result<ExitCode> {
    Result<Store> store = Store::open(resolve_database_path(global.db));
    if (!store) return store.error();
    if (set->parsed()) return baseline_set(*store, *o, global.json, io);
    if (ack->parsed()) return baseline_ack(*store, *o, global.json, io);
    if (show->parsed()) return baseline_show(*store, *o, global.json, io);
    return baseline_list(*store, global.json, io);
  };
}

}  // namespace harness
