#include "harness/runner/runner.h"

#include <csignal>
#include <filesystem>
#include <cstring>
#include <optional>
#include <random>
#include <thread>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "harness/base/digest.h"
#include "harness/base/files.h"
#include "harness/bundle/bundle.h"
#include "harness/compare/compare.h"
#include "harness/base/time_text.h"
#include "harness/levels/analyse.h"
#include "harness/levels/level_table.h"
#include "harness/runner/acquire.h"
#include "harness/runner/acquire_table.h"
#include "harness/runner/stability_readings.h"
#include "probes/device_context.h"
#include "harness/rig/remote_device.h"

namespace harness {
namespace {

RigRecording::ClockSync sync_record(const char* when, const ClockOffset& o) {
  return {when, o.offset_ns, o.uncertainty_ns, o.rtt_ns, o.probes};
}

// Connects to the rig's agent; the run's context becomes the device's, with
// the harness host named beside it. What the agent said of itself is kept
// even when its hello is refused (another protocol).
Result<std::unique_ptr<RemoteDevice>> connect_device(const Rig& rig, Clock& clock, std::stop_token stop,
                                                     RigRecording& out, std::map<std::string, std::string>& context) {
  DeviceInfo hello;
  Result<std::unique_ptr<RemoteDevice>> device = RemoteDevice::connect(RemoteOptions::for_rig(rig), clock, stop, &hello);
  if (hello.protocol != 0) {
    context["rig.agent_protocol"] = std::to_string(hello.protocol);
    context["rig.agent_version"] = hello.harness_version;
  }
  if (!device) return device.error();
  const DeviceInfo& info = (*device)->info();
  out.agent_version = info.harness_version;
  out.protocol = info.protocol;
  out.missing = info.missing;
  out.syncs.push_back(sync_record("before", (*device)->offset()));
  const std::string harness_host = context["host"];
  context = info.context;
  context["harness_host"] = harness_host;
  context["harness_host_version"] = HARNESS_VERSION;
  context["rig.transport"] = out.transport;
  context["rig.agent_protocol"] = std::to_string(info.protocol);
  context["rig.agent_version"] = info.harness_version;
  return device;
}

// The clock offset measured again after the run: the mapping of device
// times must have held across it.
Status check_clock_held(RemoteDevice& device, const Rig& rig, std::uint64_t elapsed_ns, RigRecording& out) {
  const ClockOffset before = device.offset();
  Result<ClockOffset> after = device.sync();
  if (!after) return after.error();
  out.syncs.push_back(sync_record("after", *after));
  // 100 ppm: what two free-running crystals may drift apart, generously.
  std::string unstable =
      check_offset_stable(before, *after, elapsed_ns, 100, static_cast<std::uint64_t>(rig.clock_tolerance_s * 1e9));
  if (!unstable.empty()) return Error::infra(fmt::format("rig '{}': {}", rig.name, unstable));
  return ok();
}

void note(RunProgress* progress, std::string text) {
  if (!progress) return;
  ProgressEvent e;
  e.text = std::move(text);
  progress->report(e);
}

// A level's start and end as progress events, with the time it took; the
// level's own events (steps reported on the device) pass through it and
// gain the level and the time since it started.
class LevelSpan final : public RunProgress {
 public:
  LevelSpan(RunProgress* progress, Clock& clock, Level level, std::string how)
      : progress_(progress), clock_(clock), start_ns_(clock.now_ns()) {
    event_.level = level;
    event_.text = std::move(how);
    report_own(ProgressEvent::Kind::level_started);
  }
  void set_samples(std::int64_t n) { event_.samples = n; }
  void finish(const Status& status) {
    if (!status) event_.failure = status.error().message;
    report_own(ProgressEvent::Kind::level_finished);
  }
  void report(const ProgressEvent& e) override {
    if (!progress_) return;
    ProgressEvent inside = e;
    inside.level = event_.level;
    inside.elapsed_s = elapsed_s();
    progress_->report(inside);
  }

 private:
  double elapsed_s() { return static_cast<double>(clock_.now_ns() - start_ns_) * 1e-9; }
  void report_own(ProgressEvent::Kind kind) {
    if (!progress_) return;
    event_.kind = kind;
    event_.elapsed_s = elapsed_s();
    progress_->report(event_);
  }
  RunProgress* progress_;
  Clock& clock_;
  std::uint64_t start_ns_;
  ProgressEvent event_;
};

// Acquisition of every configured level, walking the acquire table
// (acquire_table.h) in its order. The device (reached through the rig's
// transport, a local child agent by default) runs what the rows ask of it;
// this host runs the instruments around the scenario's measurement window.
Status acquire_all(const AcquireContext& base, Recording& rec, std::map<std::string, std::string>& context) {
  const Scenario& s = base.scenario;
  RunProgress* progress = base.progress;
  bool needs_device = false;
  for (const AcquireRow& row : acquire_table()) needs_device = needs_device || (row.asked(s) && row.needs_device(s));
  std::unique_ptr<RemoteDevice> device;
  rec.rig.emplace();
  RigRecording& rig = *rec.rig;
  rig.name = s.rig.name;
  rig.transport = describe_transport(s.rig.transport);
  if (needs_device) {
    note(progress, fmt::format("rig '{}': connecting to the agent ({})", s.rig.name, rig.transport));
    Result<std::unique_ptr<RemoteDevice>> connected = connect_device(s.rig, base.clock, base.stop, rig, context);
    if (!connected) return connected.error();
    device = std::move(*connected);
  }
  if (!needs_device) collect_versions(s.rig.versions, context);  // nothing on a device: the rig is this host
  const std::uint64_t sync_before_ns = base.clock.now_ns();
  AcquireContext ctx = base;
  ctx.device = device.get();
  if (device) ctx.stability = &rec.stability.emplace();

  // The measurement window, when its owner runs; an instrument that rides
  // it (level 3's analyzer) is armed and stopped by the owner.
  const AcquireRow* owner = window_owner(s);
  WindowHooks hooks;
  RigRecording::Window window_record;
  std::unique_ptr<WindowInstrument> instrument;
  const AcquireRow* instrument_row = nullptr;
  if (owner) {
    hooks.level = std::string(level_name(owner->level));
    hooks.condition = s.rig.window.condition;
    hooks.record = &window_record;
    hooks.open = [] { return ok(); };
    hooks.close = [] { return ok(); };
    ctx.window = &hooks;
    for (const AcquireRow& row : acquire_table()) {
      if (!row.window_instrument || !row.asked(s)) continue;
      instrument = row.window_instrument(ctx, rec);
      if (instrument) {
        instrument_row = &row;
        break;
      }
    }
  }
  // Level 2 read at the edges of level 4's window: its part waits for it.
  if (counters_ride_latency_window(s, owner, device ? &device->info() : nullptr)) {
    CountersRecording& counters = rec.counters.emplace();
    counters.window = "latency";
    counters.window_condition = s.rig.window.condition;
    counters.unavailable = "level 4's window ended before the counters were read at its edges";
    ctx.counters_in_window = &counters;
  }
  if (instrument) {
    hooks.captured_samples = [&instrument] { return instrument->samples_so_far(); };
    hooks.open = [&] { return instrument->open(hooks.level); };
    hooks.close = [&] { return instrument->close(window_record); };
  }

  Status status = ok();
  for (const AcquireRow& row : acquire_table()) {
    if (!status) break;
    if (!row.asked(s) || &row == instrument_row) continue;  // the instrument's level is acquired in the window
    LevelSpan span(progress, base.clock, row.level, row.how(s));
    LevelAcquisition acquisition{ctx, rec, span};
    std::optional<StabilityReadings> around;
    const bool inside_another = row.inside_another && row.inside_another(ctx);
    if (row.stability == StabilityAround::acquisition && ctx.device && !inside_another)
      around.emplace(ctx, *ctx.device, row.level);
    status = row.acquire(acquisition);
    if (around) around->end();
    span.set_samples(acquisition.samples);
    span.finish(status);
  }
  if (instrument && window_record.level.empty() && status) instrument->window_never_opened();
  if (!window_record.level.empty()) rig.window = window_record;

  if (device) {
    if (status) status = check_clock_held(*device, s.rig, base.clock.now_ns() - sync_before_ns, rig);
    Status bye = device->bye();
    if (status && !bye) status = bye;
  }
  return status;
}

// The run's record as it begins (its scenario, the host's context and the
// command's, a fresh UUID), stored: the id is the store's.
Result<RunRecord> begin_live_run(const Scenario& scenario, Store& store, const RunOptions& options) {
  RunRecord run;
  run.scenario_name = scenario.name;
  run.scenario_path = scenario.path;
  run.scenario_text = scenario.text;
  run.scenario_hash = sha256_hex(scenario.text);
  run.rig = scenario.rig.name;
  run.origin = "live";
  run.started_at = utc_now_iso8601();
  run.context = host_context();
  for (const auto& [key, value] : options.context) run.context[key] = value;
  run.uuid = new_run_uuid();
  Result<std::int64_t> id = store.begin_run(run);
  if (!id) return id.error();
  run.id = *id;
  note(options.progress, fmt::format("run {} started ({})", run.id, store.path()));
  return run;
}

// A raw file of the recording, with its digest taken before the analysis.
struct PendingArtifact {
  RecordedFile file;
  std::string path, sha256;
};

// Each raw file is read once for its digest before the analysis, and kept
// (moved into the store's content-addressed folder) after it. A file that
// cannot be read aborts the recording, if nothing did before.
std::vector<PendingArtifact> digest_raw_files(Recording& rec) {
  std::vector<PendingArtifact> pending;
  for (const RecordedFile& f : rec.files) {
    std::string path = rec.base_dir + "/" + f.name;
    Result<std::string> sha = sha256_regular_file(path);
    if (!sha) {
      if (rec.aborted.empty()) rec.aborted = fmt::format("artifact {} is unreadable: {}", path, sha.error().message);
      continue;
    }
    pending.push_back({f, path, *sha});
  }
  return pending;
}

// The raw files moved into the store as the run's artifacts, each as it was
// when digested; then the run's working folder goes.
void keep_artifacts(Store& store, const std::vector<PendingArtifact>& pending, Recording& rec, RunRecord& run) {
  for (const PendingArtifact& p : pending) {
    Result<Artifact> kept = store.keep_artifact(p.path, p.file.name, p.file.kind, /*move=*/true);
    if (kept && kept->sha256 != p.sha256) kept = Error::infra(fmt::format("artifact {} changed while it was analysed", p.path));
    if (!kept) {
      if (rec.aborted.empty()) rec.aborted = kept.error().message;
      continue;
    }
    run.artifacts.push_back(*kept);
  }
  std::error_code ignored;
  std::filesystem::remove_all(rec.base_dir, ignored);  // the run's working folder: its files are kept above
}

// The run's status and reason, and its exit code. A signal during the
// analysis, or just before storing (`late`), aborts the run as one while
// acquiring does; the recording itself is complete.
ExitCode settle_status(RunRecord& run, const Recording& rec, const std::string& late, const Status& acquired) {
  ExitCode exit = ExitCode::ok;
  if (!late.empty()) {
    run.status = RunStatus::aborted;
    run.reason = late + " while analysing";
    exit = ExitCode::infrastructure;
  } else if (!rec.aborted.empty()) {
    run.status = RunStatus::aborted;
    run.reason = rec.aborted;
    // Bad input found while acquiring (a malformed profile file) is exit 2.
    exit = !acquired ? acquired.error().code : ExitCode::infrastructure;
  } else {
    run.status = status_from_verdicts(run.analysis.verdicts);
    if (run.status == RunStatus::failed) {
      run.reason = "a verdict failed";
      exit = ExitCode::failed;
    }
  }
  return exit;
}

}  // namespace

Status abort_if_interrupted(Store& store, const std::string& reason, const char* phase, RunOutcome& outcome) {
  if (reason.empty() || outcome.run.status == RunStatus::aborted) return ok();
  outcome.run.status = RunStatus::aborted;
  outcome.run.reason = fmt::format("{} {}", reason, phase);
  outcome.exit = ExitCode::infrastructure;
  return store.mark_aborted(outcome.run.id, outcome.run.reason);
}

Result<RunOutcome> run_scenario(const Scenario& scenario, Store& store, const RunOptions& options) {
  HARNESS_TRY(check_acquisition_plan(scenario));  // a missing stress-ng is bad input, before anything runs
  MonotonicClock monotonic;
  Clock& clock = options.clock ? *options.clock : monotonic;

  Result<RunRecord> begun = begin_live_run(scenario, store, options);
  if (!begun) return begun.error();
  RunRecord run = std::move(*begun);

  std::string artifact_root = options.artifact_root.empty() ? store.artifact_folder() : options.artifact_root;
  Recording rec;
  rec.started_at = run.started_at;
  rec.base_dir = fmt::format("{}/run-{}", artifact_root, run.id);

  // Signals are watched on their own thread for the whole run (signal_stop.h):
  // the command's, when it watches beyond this function, else one of our own.
  std::optional<SignalStop> own_signals;
  if (!options.signals) own_signals.emplace();
  SignalStop& signals = options.signals ? *options.signals : *own_signals;
  std::string interrupted_by;
  Status acquired = ok();
  {
    AcquireContext ctx{scenario, clock, signals.token(), rec.base_dir};
    ctx.progress = options.progress;
    if (scenario.reference) ctx.pairing_seed = scenario.reference->seed.value_or(std::random_device{}());
    acquired = acquire_all(ctx, rec, run.context);
    interrupted_by = signals.reason();
  }

  rec.context = run.context;
  rec.ended_at = utc_now_iso8601();
  // The raw files the levels' parts name (level 3's capture, level 5's
  // dumps) are raw truth: they become the run's artifacts and travel with
  // its bundle.
  for (const LevelRow& row : level_table())
    if (row.raw_files) row.raw_files(rec, rec.files);
  if (!interrupted_by.empty()) {
    rec.aborted = interrupted_by;
  } else if (!acquired) {
    rec.aborted = acquired.error().message;
  }

  std::vector<PendingArtifact> pending = digest_raw_files(rec);

  note(options.progress, "analysing the recording");
  run.analysis = analyse(scenario, rec, Provenance::measured);
  add_reference_verdicts(scenario.compare.value_or(CompareConfig{}), run.analysis);
  keep_artifacts(store, pending, rec, run);
  run.ended_at = rec.ended_at;
  run.recording_json = nlohmann::json(rec).dump();
  RunOutcome outcome;
  outcome.exit = settle_status(run, rec, rec.aborted.empty() ? signals.reason() : std::string(), acquired);
  HARNESS_TRY(store.finish_run(run));
  outcome.run = std::move(run);
  HARNESS_TRY(abort_if_interrupted(store, signals.reason(), "while storing", outcome));
  if (!options.record_dir.empty()) {
    std::vector<ExtraFile> files;
    for (const Artifact& a : outcome.run.artifacts) files.push_back({a.path, a.name, a.kind, a.sha256});
    Status written = write_bundle(options.record_dir, outcome.run, rec, files,
                                  fmt::format("recorded live on {}", outcome.run.context["host"]));
    if (!written) return written.error().within("the run is stored, but its recording bundle failed");
  }
  if (own_signals) HARNESS_TRY(abort_if_interrupted(store, own_signals->seal(), "after storing", outcome));
  return outcome;
}

}  // namespace harness
