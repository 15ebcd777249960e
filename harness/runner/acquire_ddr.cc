#include <filesystem>

#include <fmt/format.h>

#include "harness/base/digest.h"
#include "harness/runner/acquire.h"
#include "probes/capture/readers.h"
#include "probes/capture/sigrok.h"

namespace harness {
namespace {

// Keeps the capture as the recording's raw truth: named relative to the
// run's artifact folder, with its hash and size.
Status record_file(const AcquireContext& ctx, const std::string& name, DdrRecording& out) {
  std::string path = (std::filesystem::path(ctx.artifact_dir) / name).string();
  Result<std::string> digest = sha256_file(path);
  if (!digest) return Error::input("ddr capture: " + digest.error().message);
  std::error_code ec;
  out.capture = name;
  out.sha256 = *digest;
  out.size = std::filesystem::file_size(path, ec);
  return ok();
}

// An imported capture joins the run's artifacts: a hard link where the
// file system allows (no copy of a large capture), else a copy.
Status import_file(const AcquireContext& ctx, const std::string& source, const std::string& name) {
  std::filesystem::path target = std::filesystem::path(ctx.artifact_dir) / name;
  std::error_code ec;
  std::filesystem::create_directories(target.parent_path(), ec);
  if (ec) return Error::infra(fmt::format("ddr capture folder {}: {}", target.parent_path().string(), ec.message()));
  std::filesystem::remove(target, ec);
  std::filesystem::create_hard_link(source, target, ec);
  if (ec) {
    ec.clear();
    std::filesystem::copy_file(source, target, ec);
  }
  if (ec) return Error::input(fmt::format("ddr capture {}: {}", source, ec.message()));
  return ok();
}

}  // namespace

Status acquire_ddr(const AcquireContext& ctx, DdrRecording& out) {
  if (!ctx.scenario.ddr) return ok();
  const DdrConfig& cfg = *ctx.scenario.ddr;
  if (!cfg.acquire) {
    out.source = "file:" + cfg.capture;
    out.format = cfg.format;
    if (out.format.empty()) {
      Result<std::string> detected = detect_capture_format(cfg.capture_path);
      if (!detected) return detected.error().within("ddr capture");
      out.format = *detected;
    }
    std::string name = "ddr/capture" + std::filesystem::path(cfg.capture_path).extension().string();
    HARNESS_TRY(import_file(ctx, cfg.capture_path, name));
    return record_file(ctx, name, out);
  }
  if (ctx.stop.stop_requested()) return interrupted_error();
  const DdrAcquireConfig& a = *cfg.acquire;
  SigrokAcquisition acq;
  acq.driver = a.driver;
  acq.connection = a.connection;
  acq.samplerate = a.samplerate;
  acq.limit_samples = a.samples;
  acq.limit_msec = static_cast<std::uint64_t>(a.duration * 1e3);
  acq.trigger = a.trigger;
  if (!a.pattern.empty()) acq.group_options["pattern"] = a.pattern;
  for (const auto& [role, name] : cfg.channels) acq.channels.push_back(name);
  std::stop_token stop = ctx.stop;
  acq.should_stop = [stop] { return stop.stop_requested(); };
  const std::string name = "ddr/capture.sr";
  std::filesystem::path path = std::filesystem::path(ctx.artifact_dir) / name;
  std::error_code ec;
  std::filesystem::create_directories(path.parent_path(), ec);
  if (ec) return Error::infra(fmt::format("ddr capture folder {}: {}", path.parent_path().string(), ec.message()));
  out.source = "sigrok:" + a.driver;
  out.format = "sr";
  SrWriter writer(path.string());
  Status s = sigrok_acquire(acq, writer);
  if (!s && ctx.stop.stop_requested()) return interrupted_error();
  if (!s) {
    // A wrong name in the scenario stops the run; a device that is not
    // there is a missing source.
    if (s.error().code == ExitCode::bad_input) return s.error().within("ddr acquisition");
    out.unavailable = s.error().message;
    return ok();
  }
  return record_file(ctx, name, out);
}

}  // namespace harness
