#include "harness/runner/acquire_table.h"

#include <optional>

#include <fmt/format.h>

#include "harness/rig/device.h"

namespace harness {
namespace {

double seconds_between(std::uint64_t from_ns, std::uint64_t to_ns) {
  return (static_cast<double>(to_ns) - static_cast<double>(from_ns)) * 1e-9;
}

// ---- Level 1: the ceilings and kernels on the device, the profile here ----

Status acquire_roofline_row(LevelAcquisition& a) {
  const AcquireContext& ctx = a.context;
  const Scenario& s = ctx.scenario;
  Recording& rec = a.recording;
  rec.roofline.emplace();
  Status status = ok();
  RooflineConfig config = *s.roofline;
  if (s.reference) {  // kernels with a reference alternate with it as this run's seed says
    config.paired_with = *s.reference;
    config.paired_with->seed = ctx.pairing_seed;
  }
  Result<RooflineRecording> r = measure_roofline_until_decided(ctx, config, &a.level_progress);
  if (r) *rec.roofline = std::move(*r);
  else status = r.error();
  if (status && s.roofline->profile) status = read_roofline_profile(*s.roofline->profile, *rec.roofline);
  return status;
}

// ---- Level 2: the counted iterations on the device, maybe the window ----

Status acquire_counters_row(LevelAcquisition& a) {
  const AcquireContext& ctx = a.context;
  if (ctx.counters_in_window) return ok();  // read in level 4's window (acquire_latency.cc)
  const Scenario& s = ctx.scenario;
  Recording& rec = a.recording;
  rec.counters.emplace();
  WindowHooks* hooks = ctx.window;
  const bool windowed = hooks && hooks->level == level_name(Level::counters);
  // The window's times are written whenever a window exists: a later
  // owner (level 4) writes its own over them.
  RigRecording::Window unused;
  RigRecording::Window& window = hooks && hooks->record ? *hooks->record : unused;
  const std::uint64_t opened = ctx.clock.now_ns();
  window.origin_host_ns = opened;
  Status status = windowed ? hooks->open() : ok();
  if (status) {
    // The agent does not time level 2's iterations: they lie inside the
    // request's span as this host saw it, which the window records.
    window.iterations_start_s = seconds_between(opened, ctx.clock.now_ns());
    CountersConfig config = *s.counters;
    if (s.reference) {  // the device alternates the windows as this run's seed says
      config.paired_with = *s.reference;
      config.paired_with->seed = ctx.pairing_seed;
    }
    Result<CountersRecording> r = ctx.device->measure_counters(s.workload, config, ctx.stop, &a.level_progress);
    window.iterations_end_s = seconds_between(opened, ctx.clock.now_ns());
    if (r) *rec.counters = std::move(*r);
    else status = r.error();
    rec.counters->window = windowed ? "counters" : "none";
    const AcquireRow* owner = window_owner(s);
    if (owner && owner->level == Level::latency && !ctx.device->info().offers("counters.window"))
      rec.counters->window_reason = "the device's agent does not offer counters.window (older than it): level 2's "
                                    "own iterations, in a request of their own";
  }
  if (windowed) {
    window.level = hooks->level;
    window.closed_s = seconds_between(opened, ctx.clock.now_ns());
    Status closed = hooks->close();
    if (status) status = closed;
  }
  return status;
}

// ---- Level 3: a capture on its own, or the analyzer riding the window ----

class AnalyzerInWindow final : public WindowInstrument {
 public:
  AnalyzerInWindow(const AcquireContext& ctx, DdrRecording& out) : ctx_(ctx), out_(out), capture_(ctx, out) {}
  Status open(const std::string& window_level) override {
    if (ctx_.progress) {
      ProgressEvent e;
      e.text = fmt::format("level 3: analyzer armed for the {} window", window_level);
      ctx_.progress->report(e);
    }
    return capture_.start();
  }
  Status close(RigRecording::Window& window) override {
    Status st = capture_.finish();
    if (st && out_.unavailable.empty() && capture_.first_sample_ns() != 0) {
      window.capture_start_s = seconds_between(window.origin_host_ns, capture_.first_sample_ns());
      window.capture_end_s = seconds_between(window.origin_host_ns, capture_.last_sample_ns());
    }
    return st;
  }
  std::uint64_t samples_so_far() const override { return capture_.samples_so_far(); }
  void window_never_opened() override { out_.unavailable = "the measurement window's level did not run"; }

 private:
  const AcquireContext& ctx_;
  DdrRecording& out_;
  WindowCapture capture_;
};

std::unique_ptr<WindowInstrument> ddr_window_instrument(const AcquireContext& ctx, Recording& rec) {
  if (!ctx.scenario.ddr->acquire) return nullptr;  // an imported capture: acquired on its own
  rec.ddr.emplace();
  return std::make_unique<AnalyzerInWindow>(ctx, *rec.ddr);
}

Status acquire_ddr_row(LevelAcquisition& a) {
  a.recording.ddr.emplace();
  return acquire_ddr(a.context, *a.recording.ddr);
}

// ---- Level 4: from this host, the iterations on the device ----

Status acquire_latency_row(LevelAcquisition& a) {
  Recording& rec = a.recording;
  rec.latency.emplace();
  // Level 4 reports its conditions and iterations itself (acquire_latency.cc).
  Status status = acquire_latency(a.context, *rec.latency);
  for (const LatencyCondition& c : rec.latency->conditions) a.samples += static_cast<std::int64_t>(c.latency_s.size());
  return status;
}

// ---- Level 5: the dumps, fetched from the device or linked from here ----

Status acquire_accuracy_row(LevelAcquisition& a) {
  a.recording.accuracy.emplace();
  return acquire_accuracy(a.context, *a.recording.accuracy);
}

const AcquireRow kAcquireRows[] = {
    {Level::roofline, [](const Scenario& s) { return s.roofline.has_value(); }, [](const Scenario&) { return true; },
     [](const Scenario&) { return std::string("ceilings and kernels on the device"); }, WindowRole::none, nullptr,
     &acquire_roofline_row, nullptr, StabilityAround::acquisition},
    {Level::counters, [](const Scenario& s) { return s.counters.has_value(); }, [](const Scenario&) { return true; },
     [](const Scenario&) { return std::string("on the device"); }, WindowRole::fallback_owner, nullptr,
     &acquire_counters_row, nullptr, StabilityAround::acquisition,
     [](const AcquireContext& ctx) { return ctx.counters_in_window != nullptr; }},
    {Level::ddr, [](const Scenario& s) { return s.ddr.has_value(); }, [](const Scenario&) { return false; },
     [](const Scenario&) { return std::string("capture"); }, WindowRole::none, &ddr_window_instrument,
     &acquire_ddr_row},
    {Level::latency, [](const Scenario& s) { return s.latency.has_value(); }, [](const Scenario&) { return true; },
     [](const Scenario&) { return std::string("iterations on the device"); }, WindowRole::owner, nullptr,
     &acquire_latency_row, &check_latency_plan, StabilityAround::each_condition},
    {Level::accuracy, [](const Scenario& s) { return s.accuracy.has_value(); },
     [](const Scenario& s) { return s.accuracy->on_device; },
     [](const Scenario& s) { return std::string(s.accuracy->on_device ? "dumps fetched from the device" : "dumps"); },
     WindowRole::none, nullptr, &acquire_accuracy_row},
};

}  // namespace

std::span<const AcquireRow> acquire_table() { return kAcquireRows; }

Status check_acquisition_plan(const Scenario& s) {
  for (const AcquireRow& row : kAcquireRows)
    if (row.check_plan && row.asked(s)) HARNESS_TRY(row.check_plan(s));
  return ok();
}

bool counters_ride_latency_window(const Scenario& s, const AcquireRow* owner, const DeviceInfo* device) {
  return owner && owner->level == Level::latency && s.counters && s.latency && device &&
         device->offers("counters.window");
}

const AcquireRow* window_owner(const Scenario& s) {
  const std::optional<Level> named = level_from_name(s.rig.window.level);  // "none" names no level
  if (!named) return nullptr;
  for (const AcquireRow& row : kAcquireRows)
    if (row.level == *named && row.window != WindowRole::none && row.asked(s)) return &row;
  for (const AcquireRow& row : kAcquireRows)
    if (row.level != *named && row.window == WindowRole::fallback_owner && row.asked(s)) return &row;
  return nullptr;
}

}  // namespace harness
