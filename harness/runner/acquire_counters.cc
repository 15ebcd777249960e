#include "harness/runner/acquire.h"

namespace harness {

Status acquire_counters(const AcquireContext& ctx, CountersRecording& out) {
  if (!ctx.scenario.counters) return ok();
  out.unavailable = "no counter source is implemented in this build";
  return ok();
}

}  // namespace harness
