// harness compare RUN (--baseline NAME | --against RUN): judges a run against
// a baseline metric by metric (harness/compare/compare.h), exits 1 on any
// regression or failed baseline expectation.
#include <cerrno>
#include <cstring>
#include <fstream>

#include <fmt/format.h>

#include "harness/cli/commands.h"
#include "harness/compare/baseline_expectations.h"
#include "harness/compare/compare.h"
#include "harness/scenario/scenario.h"
#include "harness/store/store.h"
#include "reports/compare_report.h"

namespace harness {
namespace {

struct CompareOptions {
  std::int64_t run = 0;
  std::string baseline;
  std::int64_t against = 0;
  std::string junit;
  std::string markdown;
  bool allow_mismatch = false;
};

// "scenario (host vs other), rig (lab-a vs localhost)" for the keys that differ.
std::string key_differences(const std::string& base_scenario, const std::string& base_rig,
                            const RunRecord& run) {
  std::vector<std::string> parts;
  if (base_scenario != run.scenario_name)
    parts.push_back(fmt::format("scenario ('{}' vs '{}')", base_scenario, run.scenario_name));
  if (base_rig != run.rig) parts.push_back(fmt::format("rig ('{}' vs '{}')", base_rig, run.rig));
  std::string s;
  for (const std::string& p : parts) s += (s.empty() ? "" : " and ") + p;
  return s;
}

// The baseline run: a named baseline of the run's scenario and rig, or the
// run given with --against; other keys only with --allow-mismatch.
Result<RunRecord> resolve_baseline(const Store& store, const CompareOptions& o, const RunRecord& run,
                                   std::vector<std::string>& notes) {
  std::int64_t id = o.against;
  if (!o.baseline.empty()) {
    Result<std::vector<Baseline>> found = store.list_baselines(o.baseline);
    if (!found) return found.error();
    if (found->empty()) {
      return Error::input(fmt::format("no baseline named '{}' (see 'harness baseline list')", o.baseline));
    }
    const Baseline* match = nullptr;
    for (const Baseline& b : *found)
      if (b.scenario_name == run.scenario_name && b.rig == run.rig) match = &b;
    if (!match) {
      if (found->size() > 1) {
        std::string keys;
        for (const Baseline& b : *found) keys += fmt::format("{}scenario '{}' on rig '{}'", keys.empty() ? "" : ", ",
                                                            b.scenario_name, b.rig);
        return Error::input(fmt::format(
            "baseline '{}' exists for {}, but not for run {} (scenario '{}' on rig '{}'); "
            "compare with --against RUN to pick one", o.baseline, keys, run.id, run.scenario_name, run.rig));
      }
      const Baseline& b = found->front();
      std::string diff = key_differences(b.scenario_name, b.rig, run);
      if (!o.allow_mismatch) {
        return Error::input(fmt::format(
            "baseline '{}' (run {}) does not match run {}: {} differ; pass --allow-mismatch to compare anyway",
            o.baseline, b.run_id, run.id, diff));
      }
      notes.push_back(fmt::format("--allow-mismatch: baseline and run differ in {}", diff));
      match = &b;
    }
    id = match->run_id;
  }
  Result<RunRecord> base = store.load_run(id);
  if (!base) return base.error();
  if (o.baseline.empty()) {
    std::string diff = key_differences(base->scenario_name, base->rig, run);
    if (!diff.empty()) {
      if (!o.allow_mismatch) {
        return Error::input(fmt::format(
            "run {} does not match run {}: {} differ; pass --allow-mismatch to compare anyway", id, run.id, diff));
      }
      notes.push_back(fmt::format("--allow-mismatch: baseline and run differ in {}", diff));
    }
  }
  return base;
}

Status write_file(const std::string& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  if (out) out << text;
  if (!out) return Error::input(fmt::format("{}: cannot write: {}", path, std::strerror(errno)));
  return ok();
}

}  // namespace

Action setup_compare(CLI::App& app, const GlobalOptions& global, Io io) {
  auto o = std::make_shared<CompareOptions>();
  app.add_option("run", o->run, "The new run's id (see 'harness runs')")->required();
  CLI::Option* baseline =
      app.add_option("--baseline", o->baseline, "Named baseline of the run's scenario and rig");
  CLI::Option* against = app.add_option("--against", o->against, "Compare with this run instead of a named baseline");
  baseline->excludes(against);
  app.add_option("--junit", o->junit, "Also write JUnit XML, one test case per metric, to FILE");
  app.add_option("--markdown", o->markdown, "Also write a Markdown summary for CI comments to FILE");
  app.add_flag("--allow-mismatch", o->allow_mismatch,
               "Compare even when the baseline's scenario or rig differs from the run's");
  return [=, &global]() -> Result<ExitCode> {
    if (o->baseline.empty() && o->against == 0) {
      return Error::input("compare needs a baseline: --baseline NAME or --against RUN");
    }
    Result<Store> store = Store::open(resolve_database_path(global.db));
    if (!store) return store.error();
    Result<RunRecord> run = store->load_run(o->run);
    if (!run) return run.error();
    CompareReport report;
    Result<RunRecord> base = resolve_baseline(*store, *o, *run, report.notes);
    if (!base) return base.error();

    // The run's own scenario says how to judge it and what it expects of the
    // baseline; a stored text that no longer parses falls back to defaults.
    Scenario scenario;
    Result<Scenario> parsed = parse_scenario(run->scenario_text, run->scenario_path);
    if (parsed) scenario = std::move(*parsed);
    else report.notes.push_back("the run's stored scenario does not parse (" + parsed.error().message +
                                "): default compare settings, no baseline expectations");
    const CompareConfig config = scenario.compare.value_or(CompareConfig{});
    if (base->scenario_hash != run->scenario_hash) {
      report.notes.push_back(fmt::format("the scenario text differs between run {} and run {}", base->id, run->id));
    }
    for (const RunRecord* r : {&*base, &*run}) {
      if (r->status != RunStatus::passed && r->status != RunStatus::failed) {
        report.notes.push_back(fmt::format("run {} is {}: its metrics may be incomplete", r->id,
                                           run_status_name(r->status)));
      }
    }

    Result<std::map<std::string, std::vector<double>>> history = store->recent_values(
        run->scenario_name, run->rig, run->id, static_cast<int>(config.history_runs));
    if (!history) return history.error();
    HistoryLookup lookup = [&](const std::string& metric) {
      auto it = history->find(metric);
      return it == history->end() ? std::vector<double>{} : it->second;
    };
    report.comparison = compare_analyses(base->analysis, run->analysis, config, lookup);
    if (parsed) report.comparison.expectations = evaluate_baseline_expectations(scenario, base->analysis, run->analysis);
    report.baseline_run = base->id;
    report.current_run = run->id;
    report.baseline_name = o->baseline;
    report.scenario = run->scenario_name;
    report.rig = run->rig;
    report.baseline_scenario = base->scenario_name;
    report.baseline_rig = base->rig;

    if (!o->junit.empty()) HARNESS_TRY(write_file(o->junit, render_compare_junit(report)));
    if (!o->markdown.empty()) HARNESS_TRY(write_file(o->markdown, render_compare_markdown(report)));
    if (global.json) io.out << compare_to_json(report).dump(2) << "\n";
    else io.out << render_compare_text(report);
    return report.comparison.regressed() ? ExitCode::failed : ExitCode::ok;
  };
}

}  // namespace harness
