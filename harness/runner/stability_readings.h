// The rig's stability readings around one acquisition on the device
// ([rig.stability]; harness/levels/stability.h judges them): begun right
// before it (the "before" reading and its canary, then readings at the
// interval on the device), ended right after it on every path, and kept as
// one series of the Recording's stability part. A device that cannot take
// them (an agent from before they existed) leaves the series unavailable
// with the reason; the run goes on, since they judge the run, not make it.
#pragma once

#include <string>

#include "harness/runner/acquire.h"

namespace harness {

class StabilityReadings {
 public:
  // Begins the series, unless the context keeps none (ctx.stability null)
  // or [rig.stability] enabled = false (recorded as the reason).
  StabilityReadings(const AcquireContext& ctx, Device& device, Level level, std::string condition = {});
  ~StabilityReadings();  // ends the series if end() was not called
  StabilityReadings(const StabilityReadings&) = delete;
  StabilityReadings& operator=(const StabilityReadings&) = delete;

  // The "after" reading; the series is recorded.
  void end();

 private:
  Device& device_;
  StabilityRecording* out_;
  StabilitySeries series_;
  bool open_ = false;
};

}  // namespace harness
