// Recording bundles: a self-describing directory holding one run's raw truth,
// so that `harness replay DIR` analyses it again with identical results.
//
//   DIR/manifest.json    format, versions, rig, context, status, and every
//                        file below with its size and sha256
//   DIR/scenario.toml    the scenario text the run used
//   DIR/recording.json   the Recording (all levels' raw data, readable JSON)
//   DIR/files/...        captures and other raw files the recording names
//   DIR/groups/...       the counter group files the scenario names
#pragma once

#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "harness/base/bounded_json.h"
#include "harness/base/input_limits.h"
#include "harness/base/result.h"
#include "harness/levels/recording.h"
#include "harness/model/run.h"

namespace harness {

inline constexpr int kBundleFormatVersion = 1;

struct BundleFile {
  std::string path;  // relative to the bundle directory, '/'-separated
  std::string role;  // "scenario", "recording", "capture", ...
  std::uint64_t size = 0;
  std::string sha256;
};

struct BundleManifest {
  int format_version = kBundleFormatVersion;
  std::string harness_version;
  std::string scenario_name;
  std::string rig;
  std::string status;      // of the run that made it
  std::string reason;
  std::string started_at;
  std::string ended_at;
  std::string provenance;  // how the bundle was made: "recorded live on <host>", or "synthetic: ..."
  std::map<std::string, std::string> context;
  std::vector<BundleFile> files;
};

// Limits that keep a hostile bundle from exhausting memory or disk; the
// defaults are the harness's input limits (harness/base/input_limits.h).
struct BundleLimits {
  JsonLimits manifest{.bytes = kMaxManifestBytes};    // manifest.json
  JsonLimits recording{.bytes = kMaxRecordingBytes};  // recording.json
  std::uint64_t max_scenario_bytes = kMaxScenarioBytes;  // scenario.toml
  std::uint64_t max_file_bytes = 64ull << 30;            // a capture
  std::uint64_t max_total_bytes = 128ull << 30;
  std::size_t max_files = 4096;
};

struct ExtraFile {
  std::string source;  // where it is now
  std::string path;    // where it goes in the bundle, relative ("files/capture.sr")
  std::string role;
  std::string sha256;  // when set, the copy must have it (a stored artifact), else an error
};

// Writes a bundle into `dir` (created; must be empty or absent). The
// recording's file references must already be the bundle-relative paths.
// The counter group files the scenario names go in too (groups/<name>.toml,
// or the relative path the scenario gives), so the replay needs nothing
// outside the bundle.
Status write_bundle(const std::string& dir, const RunRecord& run, const Recording& recording,
                    const std::vector<ExtraFile>& extra_files, const std::string& provenance);

struct LoadedBundle {
  std::string dir;
  BundleManifest manifest;
  std::string scenario_text;
  Recording recording;  // recording.base_dir is set to `dir`
  std::set<std::string> files;  // the manifest's paths, normalised ("files/capture.sr")
};

// Reads and verifies a bundle, a closed world: format version; every listed
// path relative, without "..", and below the directory once symlinks are
// resolved; every listed file a regular file (opened with O_NOFOLLOW and
// O_NONBLOCK, so a symlink, FIFO or device is refused without blocking, the
// manifest included) with the manifest's size and sha256; the JSON within
// its limits (size, depth, memory: bounded_json.h); every file the recording names (the capture)
// one of the listed files. Every error names the bundle's path and the rule.
Result<LoadedBundle> load_bundle(const std::string& dir, const BundleLimits& limits = {});

}  // namespace harness
