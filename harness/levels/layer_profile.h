// Per-layer pre-analysis (seed 001, section 4): a profiler's per-layer table
// (CSV or JSON) placed layer by layer on the rig's roofline. Accepted columns:
// scenarios/README.md "[roofline.profile]".
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "harness/base/result.h"
#include "harness/model/metric.h"
#include "harness/scenario/roofline_config.h"

namespace harness {

struct ProfileLayer {
  std::string name;
  std::string op;                 // op type as the profiler names it ("conv", "permute")
  double time_s = 0;              // measured time of the layer
  std::optional<double> start_s;  // when it started, if the profile has timestamps
  std::optional<double> flops;
  std::optional<double> bytes;
  bool bytes_from_shapes = false; // bytes modelled from tensor shapes, not given
  std::string where;              // "file:line" (CSV) or "file: layers[i]" (JSON)
};

struct LayerProfile {
  std::vector<ProfileLayer> layers;
  bool has_start = false;  // every layer has a start time
};

// Parses the text of a profile; `path` decides the format (.csv or .json) and
// names the file in errors ("path:line: column 'time_us': ...").
// `element_bytes` sizes tensor shapes when a layer has no dtype.
Result<LayerProfile> parse_layer_profile(const std::string& text, const std::string& path,
                                         double element_bytes = 4);

// Copy-like ops (permute, transpose, copy, ...): moving data, no arithmetic.
bool is_copy_like(const std::string& op);

// The ceilings the layers are placed against; absent ones carry a reason.
struct ProfileCeilings {
  std::optional<double> peak;       // op/s
  std::optional<double> bandwidth;  // B/s
  std::string peak_name, bandwidth_name;
  std::string missing;              // why the placement is unavailable
  Provenance provenance = Provenance::declared;
};

// Per layer: layer.<name>.{time,intensity,achieved,predicted_time,prediction_error,attainable,bound};
// for the whole profile: profile.* (bandwidth-bound list, top by time, copy
// share, idle gaps, calibration).
void analyse_layer_profile(const LayerProfile& profile, const LayerProfileConfig& config,
                           const ProfileCeilings& ceilings, Provenance measured, Analysis& out);

}  // namespace harness
