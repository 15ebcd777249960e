// Per-layer pre-analysis (seed 001, section 4): a profiler's per-layer table
// (probes/profile: ONNX Runtime, Chrome trace, TensorFlow Lite, Vela, RKNN,
// the project's CSV/JSON) placed layer by layer on the rig's roofline, with
// the time shares, copies, idle gaps and CPU fallback of the whole profile.
// Reference: scenarios/README.md "[roofline.profile]", docs/parts/roofline.md.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "harness/base/result.h"
#include "harness/model/metric.h"
#include "harness/scenario/roofline_config.h"
#include "probes/profile/profile.h"

namespace harness {

// Reads a profile as the scenario configures it: `text` from `path`, and
// when the scenario names a work file, its layers' flops and bytes joined
// by layer name (a work file's layer that matches none is a note).
Result<LayerProfile> read_configured_profile(const LayerProfileConfig& config, const std::string& text,
                                             const std::string& path, const std::string* work_text = nullptr,
                                             const std::string* work_path = nullptr);

// The ceilings the layers are placed against; absent ones carry a reason.
struct ProfileCeilings {
  std::optional<double> peak;       // op/s
  std::optional<double> bandwidth;  // B/s
  std::string peak_name, bandwidth_name;
  std::string missing;              // why the placement is unavailable
  Provenance provenance = Provenance::declared;
};

// Per layer: layer.<name>.{time,time_share,intensity,achieved,predicted_time,
// prediction_error,attainable,bound}; for the whole profile: profile.*
// (runs, bandwidth-bound and unplaced lists, top by time, copy share, idle
// gaps, synchronisation, CPU fallback, calibration). `measured` is the
// provenance of a measured time in this run (measured, or replayed).
void analyse_layer_profile(const LayerProfile& profile, const LayerProfileConfig& config,
                           const ProfileCeilings& ceilings, Provenance measured, Analysis& out);

}  // namespace harness
