// Level 5: layer-wise accuracy of the quantized model on the device.
// Reference: scenarios/README.md "[accuracy]"; docs/parts/accuracy.md.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace harness {

// [[accuracy.layer]]: thresholds for the layers whose name matches a glob
// pattern ('*' any run, '?' one character). The first matching entry wins;
// a layer no entry matches takes [accuracy]'s own cosine_min / psnr_min_db.
struct AccuracyLayerThreshold {
  std::string pattern;
  std::optional<double> cosine_min, psnr_min_db;
  std::string where;  // file:line:col of the entry
};

// One set of tensor dumps: a directory (.npy, raw + .json sidecars) or an .npz.
struct AccuracyDumpSource {
  std::string as_written;  // in the scenario
  std::string path;        // resolved against the scenario's folder (host dumps)
  std::string where;
};

struct AccuracyConfig {
  AccuracyDumpSource reference;               // FP32 reference dumps, on the host
  AccuracyDumpSource device;                  // the device's dumps of the end-to-end run ("cumulative")
  std::optional<AccuracyDumpSource> isolated; // each device layer fed the reference's input
  std::string map, map_path;                  // layer map file (reference name -> device name)
  // The device's dumps lie on the device: single .npz files fetched through
  // the rig's file.read op (at most max_fetch_bytes each). Else host paths.
  bool on_device = false;
  std::uint64_t max_fetch_bytes = std::uint64_t{256} << 20;
  std::optional<double> cosine_min, psnr_min_db;  // every layer, unless a [[accuracy.layer]] matches
  std::string cosine_min_where, psnr_min_db_where;
  std::vector<AccuracyLayerThreshold> layers;
  // [accuracy.baseline]: no layer's PSNR drops by more than this many dB
  // (cosine by more than this much) against the baseline run.
  std::optional<double> psnr_drop_max_db, cosine_drop_max;
  std::string psnr_drop_where, cosine_drop_where;
  // How many of the worst layers verdicts and reports name.
  int worst = 3;
};

// Glob match of a layer name ('*', '?').
bool layer_pattern_matches(std::string_view pattern, std::string_view name);

}  // namespace harness
