// harness calibrate SCENARIO --nights N: runs N A/A nights of the scenario on
// this rig (its [reference] set to its [workload]), stores them as runs and
// then, per metric, the spread between nights, the spread of the paired
// rounds, what each lets a verdict detect, and the false alarms the nights
// raised at the scenario's compare settings (harness/compare/calibration.h).
// compare, rig check, the reports and publish show it.
#include <unistd.h>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "harness/base/time_text.h"
#include "harness/cli/commands.h"
#include "harness/cli/progress_view.h"
#include "harness/compare/calibration.h"
#include "harness/runner/runner.h"
#include "harness/runner/signal_stop.h"
#include "harness/scenario/scenario.h"

namespace harness {
namespace {

std::string percent_or_dash(const std::optional<double>& relative) {
  return relative ? fmt::format("≥ {:.1f} %", 100 * *relative) : "-";
}

std::string calibration_table(const Calibration& c) {
  std::size_t w = 6;
  for (const CalibratedMetric& m : c.metrics) w = std::max(w, m.name.size());
  std::string out = fmt::format("{:<{}}  {:>9}  {:>13}  {:>9}  {:>15}  {}\n", "metric", w, "spread", "one night sees",
                                "rounds", "the rounds see", "false alarms");
  for (const CalibratedMetric& m : c.metrics) {
    const std::string spread = m.df >= 1 ? fmt::format("{:.2f} %", 100 * m.sd) : "-";
    out += fmt::format("{:<{}}  {:>9}  {:>13}  {:>9}  {:>15}  {}\n", m.name, w, spread, percent_or_dash(m.detectable),
                       m.paired_sd ? std::to_string(m.paired_rounds) : "-", percent_or_dash(m.paired_detectable),
                       m.false_alarms);
  }
  return out;
}

nlohmann::json calibration_json(const Calibration& c, const std::string& summary) {
  nlohmann::json metrics = nlohmann::json::array();
  auto number = [](const std::optional<double>& v) { return v ? nlohmann::json(*v) : nlohmann::json(nullptr); };
  for (const CalibratedMetric& m : c.metrics) {
    metrics.push_back({{"name", m.name}, {"scale", m.scale}, {"sd", m.sd}, {"df", m.df},
                       {"detectable", number(m.detectable)}, {"paired_sd", number(m.paired_sd)},
                       {"paired_rounds", m.paired_rounds}, {"paired_detectable", number(m.paired_detectable)},
                       {"false_alarms", m.false_alarms}});
  }
  return {{"id", c.id}, {"scenario", c.scenario_name}, {"rig", c.rig}, {"created_at", c.created_at},
          {"runs", c.runs}, {"comparisons", c.comparisons}, {"false_alarms", c.false_alarms},
          {"summary", summary}, {"metrics", metrics}};
}

}  // namespace

Action setup_calibrate(CLI::App& app, const GlobalOptions& global, Io io) {
  auto scenario_path = std::make_shared<std::string>();
  auto nights = std::make_shared<int>(10);
  auto quiet = std::make_shared<bool>(false);
  app.add_option("scenario", *scenario_path, "Scenario file (TOML) to calibrate this rig for")->required();
  app.add_option("--nights", *nights, "A/A nights to run (at least 3; 20 or more give a false-alarm rate)")
      ->check(CLI::Range(3, 10'000));
  app.add_flag("--quiet,-q", *quiet, "Progress as plain one-line milestones, also on a terminal");
  return [=, &global]() -> Result<ExitCode> {
    SignalStop signals;
    Result<Scenario> given = load_scenario(*scenario_path);
    if (!given) return given.error();
    Result<std::string> aa_text = aa_scenario_text(given->text, given->path);
    if (!aa_text) return aa_text.error();
    Result<Scenario> scenario = parse_scenario(*aa_text, given->path);
    if (!scenario) return scenario.error();
    Result<Store> store = Store::open(resolve_database_path(global.db));
    if (!store) return store.error();
    MonotonicClock clock;
    ProgressViewOptions view;
    view.live = io.err_tty && !*quiet;
    view.columns = io.err_tty ? terminal_columns(STDERR_FILENO) : 80;
    view.tick = view.live;
    std::vector<RunRecord> runs;
    for (int night = 1; night <= *nights; ++night) {
      io.err << fmt::format("harness: calibrate: A/A night {} of {}\n", night, *nights);
      std::unique_ptr<RunProgress> progress = make_progress_view(io.err, clock, view);
      RunOptions options;
      options.signals = &signals;
      options.progress = progress.get();
      options.context["calibration"] = fmt::format("A/A night {} of {}", night, *nights);
      Result<RunOutcome> outcome = run_scenario(*scenario, *store, options);
      progress.reset();
      if (!outcome) return outcome.error();
      if (outcome->run.status == RunStatus::aborted) {
        return Error::infra(fmt::format("calibration stopped: night {} (run {}) was aborted: {}", night,
                                        outcome->run.id, outcome->run.reason));
      }
      Result<RunRecord> stored = store->load_run(outcome->run.id);
      if (!stored) return stored.error();
      runs.push_back(std::move(*stored));
    }
    const CompareConfig config = scenario->compare.value_or(CompareConfig{});
    Calibration c = calibrate_nights(runs, config);
    c.created_at = utc_now_iso8601();
    Result<std::int64_t> id = store->insert_calibration(c);
    if (!id) return id.error();
    c.id = *id;
    const std::string summary = calibration_summary(c, config);
    if (global.json) {
      io.out << calibration_json(c, summary).dump(2) << "\n";
    } else {
      print_text(io.out, summary + "\n\n" + calibration_table(c));
      print_text(io.out, fmt::format("\nstored as calibration {} of scenario '{}' on rig '{}' in {} (runs {}-{})\n", c.id,
                                     c.scenario_name, c.rig, store->path(), c.runs.front(), c.runs.back()));
    }
    return ExitCode::ok;
  };
}

}  // namespace harness
