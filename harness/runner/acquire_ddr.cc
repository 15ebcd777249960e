#include <filesystem>

#include <fmt/format.h>

#include "harness/base/digest.h"
#include "harness/base/time_text.h"
#include "harness/runner/acquire.h"
#include "probes/capture/readers.h"
#include "probes/capture/sigrok.h"

namespace harness {
namespace {

// Keeps the capture as the recording's raw truth: where it is and its hash.
Status record_file(const std::string& path, DdrRecording& out) {
  std::error_code ec;
  std::filesystem::path abs = std::filesystem::absolute(path, ec);
  out.capture = abs.lexically_normal().string();
  Result<std::string> digest = sha256_file(out.capture);
  if (!digest) return Error::input("ddr capture: " + digest.error().message);
  out.sha256 = *digest;
  out.size = std::filesystem::file_size(out.capture, ec);
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
    return record_file(cfg.capture_path, out);
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
  std::error_code ec;
  std::filesystem::create_directories(a.output_dir, ec);
  if (ec) return Error::infra(fmt::format("ddr capture folder {}: {}", a.output_dir, ec.message()));
  std::string stamp = utc_now_iso8601();
  for (char& c : stamp)
    if (c == ':') c = '-';
  std::string path = (std::filesystem::path(a.output_dir) / fmt::format("ddr-{}-{}.sr", a.driver, stamp)).string();
  out.source = "sigrok:" + a.driver;
  out.format = "sr";
  SrWriter writer(path);
  Status s = sigrok_acquire(acq, writer);
  if (!s && ctx.stop.stop_requested()) return interrupted_error();
  if (!s) {
    // A wrong name in the scenario stops the run; a device that is not
    // there is a missing source.
    if (s.error().code == ExitCode::bad_input) return s.error().within("ddr acquisition");
    out.unavailable = s.error().message;
    return ok();
  }
  return record_file(path, out);
}

}  // namespace harness
