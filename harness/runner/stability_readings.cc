#include "harness/runner/stability_readings.h"

#include "harness/rig/device.h"

namespace harness {

StabilityReadings::StabilityReadings(const AcquireContext& ctx, Device& device, Level level, std::string condition)
    : device_(device), out_(ctx.stability) {
  if (!out_) return;
  const Scenario& s = ctx.scenario;
  series_.level = std::string(level_name(level));
  series_.condition = std::move(condition);
  if (!s.rig.stability.enabled) {
    series_.unavailable = "[rig.stability] enabled = false";
    return;
  }
  Status begun = device_.begin_stability({s.workload.cpus, s.workload.first_cpu, s.rig.stability.interval_s});
  if (begun) open_ = true;
  else series_.unavailable = begun.error().message;
}

StabilityReadings::~StabilityReadings() { end(); }

void StabilityReadings::end() {
  if (!out_) return;
  if (open_) {
    Result<std::vector<StabilityReading>> readings = device_.end_stability();
    if (readings) series_.readings = std::move(*readings);
    else series_.unavailable = readings.error().message;
    open_ = false;
  }
  out_->series.push_back(std::move(series_));
  out_ = nullptr;  // recorded
}

}  // namespace harness
