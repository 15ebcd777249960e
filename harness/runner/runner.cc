#include "harness/runner/runner.h"

#include <csignal>
#include <filesystem>
#include <cstring>
#include <thread>

#include <boost/asio.hpp>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "harness/base/digest.h"
#include "harness/bundle/bundle.h"
#include "harness/base/time_text.h"
#include "harness/levels/analyse.h"
#include "harness/runner/acquire.h"
#include "harness/runner/context.h"

namespace harness {
namespace {

// Acquisition of every configured level, in the order of the design:
// ceilings and kernels, counters around the workload, the bus, then latency.
Status acquire_all(const AcquireContext& ctx, Recording& rec,
                   const std::function<void(const std::string&)>& progress) {
  const Scenario& s = ctx.scenario;
  auto step = [&](const char* what) {
    if (progress) progress(what);
  };
  if (s.roofline) {
    step("level 1: ceilings and kernels");
    rec.roofline.emplace();
    HARNESS_TRY(acquire_roofline(ctx, *rec.roofline));
  }
  if (s.counters) {
    step("level 2: counters");
    rec.counters.emplace();
    HARNESS_TRY(acquire_counters(ctx, *rec.counters));
  }
  if (s.ddr) {
    step("level 3: DDR capture");
    rec.ddr.emplace();
    HARNESS_TRY(acquire_ddr(ctx, *rec.ddr));
  }
  if (s.latency) {
    step("level 4: latency");
    rec.latency.emplace();
    HARNESS_TRY(acquire_latency(ctx, *rec.latency));
  }
  return ok();
}

}  // namespace

Result<RunOutcome> run_scenario(const Scenario& scenario, Store& store, const RunOptions& options) {
  HARNESS_TRY(check_latency_plan(scenario));  // a missing stress-ng is bad input, before anything runs
  MonotonicClock monotonic;
  Clock& clock = options.clock ? *options.clock : monotonic;

  RunRecord run;
  run.scenario_name = scenario.name;
  run.scenario_path = scenario.path;
  run.scenario_text = scenario.text;
  run.scenario_hash = sha256_hex(scenario.text);
  run.rig = scenario.rig.name;
  run.origin = "live";
  run.started_at = utc_now_iso8601();
  run.context = host_context();
  Result<std::int64_t> id = store.begin_run(run);
  if (!id) return id.error();
  run.id = *id;
  if (options.progress) options.progress(fmt::format("run {} started ({})", run.id, store.path()));

  std::string artifact_root = options.artifact_root;
  if (artifact_root.empty()) {
    artifact_root = (std::filesystem::absolute(store.path()).parent_path() / "harness-artifacts").string();
  }
  Recording rec;
  rec.started_at = run.started_at;
  rec.base_dir = fmt::format("{}/run-{}", artifact_root, run.id);

  // The probes block, so they run on a worker thread; this thread's loop
  // handles signals and turns them into a stop request.
  boost::asio::io_context io;
  boost::asio::signal_set signals(io, SIGINT, SIGTERM);
  std::stop_source stop;
  std::string interrupted_by;
  signals.async_wait([&](const boost::system::error_code& ec, int signal) {
    if (ec) return;
    interrupted_by = fmt::format("interrupted by {}", sigabbrev_np(signal) ? fmt::format("SIG{}", sigabbrev_np(signal))
                                                                             : std::to_string(signal));
    stop.request_stop();
  });
  auto work = boost::asio::make_work_guard(io);
  Status acquired = ok();
  std::thread worker([&] {
    collect_versions(scenario.rig, run.context);
    AcquireContext ctx{scenario, clock, stop.get_token(), rec.base_dir};
    acquired = acquire_all(ctx, rec, options.progress);
    boost::asio::post(io, [&] {
      signals.cancel();
      work.reset();
    });
  });
  io.run();
  worker.join();

  rec.context = run.context;
  rec.ended_at = utc_now_iso8601();
  // Level 3's capture is raw truth the recording names: it becomes one of
  // the run's artifacts and travels with its bundle.
  if (rec.ddr && !rec.ddr->capture.empty())
    rec.files.push_back({rec.ddr->capture, rec.ddr->format == "sr" ? "sigrok-session" : "capture:" + rec.ddr->format});
  if (!interrupted_by.empty()) {
    rec.aborted = interrupted_by;
  } else if (!acquired) {
    rec.aborted = acquired.error().message;
  }

  for (const RecordedFile& f : rec.files) {
    std::string path = rec.base_dir + "/" + f.name;
    Result<std::string> sha = sha256_file(path);
    std::error_code ec;
    std::uint64_t size = std::filesystem::file_size(path, ec);
    if (!sha || ec) {
      if (rec.aborted.empty()) rec.aborted = fmt::format("artifact {} is unreadable: {}", path, sha ? ec.message() : sha.error().message);
      continue;
    }
    run.artifacts.push_back({f.name, path, size, *sha, f.kind});
  }

  run.analysis = analyse(scenario, rec, Provenance::measured);
  run.ended_at = rec.ended_at;
  run.recording_json = nlohmann::json(rec).dump();
  RunOutcome outcome;
  if (!rec.aborted.empty()) {
    run.status = RunStatus::aborted;
    run.reason = rec.aborted;
    // Bad input found while acquiring (a malformed profile file) is exit 2.
    outcome.exit = !acquired ? acquired.error().code : ExitCode::infrastructure;
  } else {
    run.status = status_from_verdicts(run.analysis.verdicts);
    if (run.status == RunStatus::failed) {
      run.reason = "a verdict failed";
      outcome.exit = ExitCode::failed;
    }
  }
  HARNESS_TRY(store.finish_run(run));
  if (!options.record_dir.empty()) {
    std::vector<ExtraFile> files;
    for (const Artifact& a : run.artifacts) files.push_back({a.path, a.name, a.kind});
    Status written = write_bundle(options.record_dir, run, rec, files,
                                  fmt::format("recorded live on {}", run.context["host"]));
    if (!written) return written.error().within("the run is stored, but its recording bundle failed");
  }
  outcome.run = std::move(run);
  return outcome;
}

}  // namespace harness
