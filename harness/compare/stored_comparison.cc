#include "harness/compare/stored_comparison.h"

#include <algorithm>

#include <fmt/format.h>

#include "harness/compare/baseline_expectations.h"
#include "harness/compare/calibration.h"
#include "harness/levels/diagnostics.h"
#include "harness/scenario/scenario.h"

namespace harness {
namespace {

// "runs 3, 4 and 7" / "run 3".
std::string run_ids_words(const std::vector<std::int64_t>& ids) {
  std::string s = ids.size() == 1 ? "run " : "runs ";
  for (std::size_t i = 0; i < ids.size(); ++i)
    s += (i == 0 ? "" : i + 1 == ids.size() ? " and " : ", ") + std::to_string(ids[i]);
  return s;
}

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
Result<RunRecord> resolve_baseline(const Store& store, const CompareRequest& o, const RunRecord& run,
                                   std::vector<std::string>& notes, std::vector<std::int64_t>& members) {
  std::int64_t id = o.against;
  if (!o.baseline.empty()) {
    Result<std::vector<Baseline>> found = store.list_baselines(o.baseline);
    if (!found) return found.error();
    if (found->empty()) {
      return Error::input(fmt::format("no baseline named '{}' (see 'harness baseline list')", o.baseline));
    }
    const std::string& rig = o.rig.empty() ? run.rig : o.rig;
    const Baseline* match = nullptr;
    for (const Baseline& b : *found)
      if (b.scenario_name == run.scenario_name && b.rig == rig) match = &b;
    if (match && rig != run.rig) {
      notes.push_back(fmt::format("--rig: against the baseline of rig '{}'; run {} is on rig '{}'", rig, run.id, run.rig));
    }
    if (!match && !o.rig.empty()) {
      return Error::input(fmt::format("baseline '{}' has no run of scenario '{}' on rig '{}' (see 'harness baseline "
                                      "list')", o.baseline, run.scenario_name, o.rig));
    }
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
    members = match->runs;
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

// Without a named baseline or run: the newest baseline of the run's scenario
// and rig whose runs all came before it, else the nights before it. Fills
// `o` with the choice (a baseline's name, or the nights as a set) and says
// which in a note.
Status choose_default_baseline(const Store& store, const RunRecord& run, std::size_t nights, CompareRequest& o,
                               std::vector<std::int64_t>& members, std::vector<std::string>& notes) {
  Result<std::vector<Baseline>> all = store.list_baselines();
  if (!all) return all.error();
  const Baseline* newest = nullptr;
  for (const Baseline& b : *all) {
    if (b.scenario_name != run.scenario_name || b.rig != run.rig || b.runs.empty()) continue;
    if (*std::max_element(b.runs.begin(), b.runs.end()) >= run.id) continue;
    if (!newest || b.set_at > newest->set_at) newest = &b;
  }
  if (newest) {
    o.baseline = newest->name;
    notes.push_back(fmt::format("no baseline named: the newest baseline of scenario '{}' on rig '{}' set before run "
                                "{}, '{}'", run.scenario_name, run.rig, run.id, newest->name));
    return ok();
  }
  Result<std::vector<std::int64_t>> recent = store.recent_completed_runs(run.id, static_cast<int>(nights) + 1);
  if (!recent) return recent.error();
  for (std::int64_t id : *recent)
    if (id != run.id) members.push_back(id);
  if (members.empty()) {
    return Error::input(fmt::format("run {} has no baseline of scenario '{}' on rig '{}' and no earlier completed "
                                    "live run to be judged against: --baseline NAME or --against RUN",
                                    run.id, run.scenario_name, run.rig));
  }
  o.against = members.back();
  notes.push_back(fmt::format("no baseline named: against the {} night{} before it ({})", members.size(),
                              members.size() == 1 ? "" : "s", run_ids_words(members)));
  return ok();
}

}  // namespace

Result<StoredComparison> compare_stored_runs(const Store& store, const CompareRequest& request) {
    Result<RunRecord> loaded = store.load_run(request.run);
    if (!loaded) return loaded.error();
    RunRecord& run_rec = *loaded;
    CompareReport report;
    std::vector<std::int64_t> members;
    CompareRequest o = request;
    if (o.baseline.empty() && o.against == 0) {
      Scenario own;
      if (Result<Scenario> parsed = parse_scenario(run_rec.scenario_text, run_rec.scenario_path)) own = std::move(*parsed);
      const std::size_t nights = own.compare.value_or(CompareConfig{}).history_runs;
      HARNESS_TRY(choose_default_baseline(store, run_rec, nights, o, members, report.notes));
    }
    Result<RunRecord> base = o.baseline.empty() && !members.empty()
                                 ? store.load_run(o.against)
                                 : resolve_baseline(store, o, run_rec, report.notes, members);
    if (!base) return base.error();
    RunRecord& base_run = *base;
    // A run that never finished has no figures to judge, nor to judge by:
    // "no regression" against it would be a lie.
    for (const RunRecord* r : {&run_rec, &base_run}) {
      if (r->status == RunStatus::running || r->status == RunStatus::abandoned) {
        return Error::input(fmt::format("run {} is {} ({}): an unfinished run is neither compared nor compared "
                                        "against", r->id, run_status_name(r->status),
                                        r->reason.empty() ? std::string("it has not finished") : r->reason));
      }
    }
    // A baseline set: every run's analysis, for the between-run spread. The
    // run being judged is never its own reference.
    std::vector<RunRecord> other_members;
    std::vector<const Analysis*> member_analyses;
    if (members.size() >= 2) {
      for (std::int64_t id : members) {
        if (id == base_run.id || id == run_rec.id) continue;
        Result<RunRecord> m = store.load_run(id);
        if (!m) return m.error();
        other_members.push_back(std::move(*m));
      }
      for (const RunRecord& m : other_members) member_analyses.push_back(&m.analysis);
      if (base_run.id != run_rec.id) member_analyses.push_back(&base_run.analysis);
      if (std::find(members.begin(), members.end(), run_rec.id) != members.end()) {
        report.notes.push_back(fmt::format("run {} is one of the baseline's runs: it is left out of the spread",
                                           run_rec.id));
      }
    }

    // The run's own scenario says how to judge it and what it expects of the
    // baseline; a stored text that no longer parses falls back to defaults.
    Scenario scenario;
    Result<Scenario> parsed = parse_scenario(run_rec.scenario_text, run_rec.scenario_path);
    if (parsed) scenario = std::move(*parsed);
    else report.notes.push_back("the run's stored scenario does not parse (" + parsed.error().message +
                                "): default compare settings, no baseline expectations");
    const CompareConfig config = scenario.compare.value_or(CompareConfig{});
    if (base_run.scenario_hash != run_rec.scenario_hash) {
      report.notes.push_back(fmt::format("the scenario text differs between run {} and run {}", base_run.id, run_rec.id));
    }
    for (const RunRecord* r : {&base_run, &run_rec}) {
      if (r->status != RunStatus::passed && r->status != RunStatus::failed) {
        report.notes.push_back(fmt::format("run {} is {}: its metrics may be incomplete", r->id,
                                           run_status_name(r->status)));
      }
    }

    // The noise band ends at the baseline: runs after it (a regression's
    // earlier nights among them) would widen the band until a persistent
    // regression looked like noise. Against a newer baseline it ends before
    // the run itself, which never judges itself.
    const std::int64_t history_end = std::min(run_rec.id, base_run.id + 1);
    // The band is the run's own rig's, unless --all-rigs asks for every rig's.
    Result<std::map<std::string, std::vector<double>>> history = store.recent_values(
        run_rec.scenario_name, o.all_rigs ? std::string() : run_rec.rig, history_end,
        static_cast<int>(config.history_runs));
    if (o.all_rigs) report.notes.push_back("--all-rigs: the history noise band draws on the scenario's runs on every rig");
    if (!history) return history.error();
    HistoryLookup lookup = [&](const std::string& metric) {
      auto it = history->find(metric);
      return it == history->end() ? std::vector<double>{} : it->second;
    };
    // The rig's calibration of the scenario, if it has one: the spread
    // between nights that one baseline night cannot show.
    Result<std::optional<Calibration>> calibration = store.latest_calibration(run_rec.scenario_name, run_rec.rig);
    if (!calibration) return calibration.error();
    const CalibrationLookup calibrated = *calibration ? calibration_lookup(**calibration) : CalibrationLookup{};
    report.comparison =
        compare_analyses(base_run.analysis, run_rec.analysis, config, lookup, member_analyses, calibrated);
    if (*calibration) report.comparison.calibration = calibration_summary(**calibration, config);
    Comparison paired = judge_against_reference(run_rec.analysis, config);
    if (!paired.metrics.empty()) report.reference = std::move(paired);
    if (!o.baseline.empty()) {
      Result<std::vector<Acknowledgement>> acks =
          store.acknowledgements(o.baseline, base_run.scenario_name, base_run.rig);
      if (!acks) return acks.error();
      for (MetricComparison& m : report.comparison.metrics) {
        if (m.verdict != Change::regressed) continue;
        for (const Acknowledgement& a : *acks) {
          if (a.metric == m.name) m.acknowledged = fmt::format("acknowledged by {} at {}: {}", a.by, a.at, a.reason);
        }
      }
    }
    if (parsed) report.comparison.expectations = evaluate_baseline_expectations(scenario, base_run.analysis, run_rec.analysis);
    for (const std::string& hint : diagnose_efficiency_against_baseline(base_run.analysis, run_rec.analysis)) {
      report.notes.push_back("hint: " + hint);
    }
    report.baseline_run = base_run.id;
    report.baseline_runs = members.empty() ? std::vector<std::int64_t>{base_run.id} : members;
    report.current_run = run_rec.id;
    report.baseline_name = o.baseline;
    report.scenario = run_rec.scenario_name;
    report.rig = run_rec.rig;
    report.baseline_scenario = base_run.scenario_name;
    report.baseline_rig = base_run.rig;

  return StoredComparison{std::move(report), std::move(base_run), std::move(run_rec)};
}

namespace {

// Why run `r` is no good night for a baseline, or "".
Result<std::string> not_a_good_night(const Store& store, const RunRecord& r) {
  if (r.status != RunStatus::passed) return fmt::format("{}: {}", run_status_name(r.status), r.reason);
  for (const Verdict& v : r.analysis.verdicts)
    if (v.status == VerdictStatus::cannot_tell) return fmt::format("{} cannot tell", v.check);
  for (Level level : kAllLevels)
    if (std::optional<std::string> why = unstable_level(r.analysis, level)) return *why;
  CompareRequest own;
  own.run = r.id;
  Result<StoredComparison> judged = compare_stored_runs(store, own);
  if (!judged) return std::string();  // no earlier night to judge it by: nothing against it
  std::string regressed;
  for (const MetricComparison& m : judged->report.comparison.metrics) {
    if (m.verdict != Change::regressed || !m.acknowledged.empty()) continue;
    regressed += fmt::format("{}{} {}", regressed.empty() ? "" : ", ", m.name,
                             m.effect ? percent_text(*m.effect) : std::string());
  }
  return regressed.empty() ? std::string() : "regressed against the nights before it: " + regressed;
}

}  // namespace

Result<ChosenNights> choose_good_nights(const Store& store, std::int64_t newest, int count) {
  // Candidates: a few times as many completed live runs as wanted.
  Result<std::vector<std::int64_t>> recent = store.recent_completed_runs(newest, std::max(count * 5, count + 20));
  if (!recent) return recent.error();
  if (recent->empty() || recent->back() != newest) {
    return Error::input(fmt::format("run {} is not a completed live run: --last N counts back from one", newest));
  }
  ChosenNights out;
  for (auto it = recent->rbegin(); it != recent->rend() && static_cast<int>(out.taken.size()) < count; ++it) {
    Result<RunRecord> run = store.load_run(*it);
    if (!run) return run.error();
    Result<std::string> why = not_a_good_night(store, *run);
    if (!why) return why.error();
    if (why->empty()) out.taken.push_back(*it);
    else out.skipped.emplace_back(*it, *why);
  }
  if (out.taken.empty()) {
    return Error::input(fmt::format("no good night for a baseline among the {} completed live run{} up to run {} "
                                    "(run {}: {})",
                                    out.skipped.size(), out.skipped.size() == 1 ? "" : "s", newest,
                                    out.skipped.front().first, out.skipped.front().second));
  }
  std::reverse(out.taken.begin(), out.taken.end());
  return out;
}

}  // namespace harness
