#include "harness/runner/acquire.h"

namespace harness {

Status acquire_ddr(const AcquireContext& ctx, DdrRecording& out) {
  if (!ctx.scenario.ddr) return ok();
  out.unavailable = "no logic-analyzer source is implemented in this build";
  return ok();
}

}  // namespace harness
