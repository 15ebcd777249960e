// Level 5: layer-wise accuracy of the quantized model on the device (seed
// 001 section 6.2). The Recording keeps the dump files (reference, the
// device's end-to-end "cumulative" dumps, optionally its "isolated" ones) as
// files of the run, like level 3's capture; the analysis streams them again
// and gives per-layer metrics (harness/accuracy/ computes them):
//   accuracy.<layer>.{cosine,psnr_db,sqnr_db,max_abs_error,mean_abs_error,relative_l2,device_nan_inf}
//   accuracy.<layer>.{cosine_min,psnr_min_db}  the layer's declared bounds, when set
//   accuracy.isolated.<layer>.{...}           the same figures, for the isolated dumps
//   accuracy.{layers,unpaired,min_cosine,min_psnr_db}
// Reference: docs/parts/accuracy.md.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "harness/model/metric.h"
#include "harness/scenario/scenario.h"

namespace harness {

struct AccuracyDumpRecording {
  std::string role;    // "reference", "device", "isolated"
  std::string path;    // relative to the recording's base_dir: "accuracy/reference" or "accuracy/device.npz"
  std::string source;  // "file:<as written>" or "device:<path on the device>"
  struct File {
    std::string name;  // relative to base_dir
    std::string sha256;
    std::uint64_t size = 0;
  };
  std::vector<File> files;
};

struct AccuracyRecording {
  std::vector<AccuracyDumpRecording> dumps;
  std::string map;          // the layer map's copy, relative to base_dir; empty: pairing by name
  std::string unavailable;  // why there are no dumps
};

void to_json(nlohmann::json& j, const AccuracyRecording& r);
void from_json(const nlohmann::json& j, AccuracyRecording& r);

// The metric names of one layer: "accuracy.<layer>.<figure>" (cumulative)
// or "accuracy.isolated.<layer>.<figure>".
std::string accuracy_metric_name(const std::string& layer, std::string_view figure, bool isolated = false);

// `base_dir` is where the recording's files are (Recording::base_dir).
// Verdicts: accuracy.expect.device_finite (no NaN/Inf in the device's
// output), accuracy.expect.cosine_min and accuracy.expect.psnr_min_db (per
// layer, [[accuracy.layer]] patterns first), naming the worst layers.
void analyse_accuracy(const Scenario& scenario, const AccuracyRecording* recording, const std::string& base_dir,
                      Provenance measured, Analysis& out);

// After level 1's analysis: where the layer profile has the same layer names,
// the layers failing a threshold (else the worst ones) become FP16-fallback
// candidates, each with its share of the profiled latency
// (accuracy.fp16_candidate.<layer>.latency_share) and a hint.
void add_accuracy_fallback_candidates(const Scenario& scenario, Analysis& out);

// [accuracy.baseline]: no layer's PSNR (cosine) drops by more than the
// allowed amount against the baseline run.
std::vector<Verdict> evaluate_accuracy_baseline(const AccuracyConfig& config, const Analysis& baseline,
                                                const Analysis& current);

}  // namespace harness
