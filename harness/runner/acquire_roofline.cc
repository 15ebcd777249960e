#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <fmt/format.h>

#include "harness/base/input_limits.h"
#include "harness/levels/layer_profile.h"
#include "harness/runner/acquire.h"

namespace harness {
namespace {

// Reads a profile file whole, refusing one beyond the limit before reading it.
Result<std::string> read_profile_file(const std::string& path, const std::string& from) {
  std::error_code ec;
  const std::uintmax_t size = std::filesystem::file_size(path, ec);
  if (ec) return Error::input(fmt::format("{}: cannot open profile: {} (from {})", path, ec.message(), from));
  if (size > kMaxProfileBytes) {
    return Error::input(fmt::format("{}: {} bytes: a profile may have at most {} MiB (from {})", path, size,
                                    kMaxProfileBytes >> 20, from));
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) return Error::input(fmt::format("{}: cannot open profile: {} (from {})", path, std::strerror(errno), from));
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

}  // namespace

// The per-layer profile (and its work file) into the recording, checked now
// so that a bad file stops the run with its file:line error.
Status read_roofline_profile(const LayerProfileConfig& p, RooflineRecording& out) {
  Result<std::string> text = read_profile_file(p.path, p.where);
  if (!text) return text.error();
  std::optional<std::string> work;
  if (!p.work_path.empty()) {
    Result<std::string> w = read_profile_file(p.work_path, p.where);
    if (!w) return w.error();
    work = std::move(*w);
  }
  Result<LayerProfile> parsed =
      read_configured_profile(p, *text, p.path, work ? &*work : nullptr, work ? &p.work_path : nullptr);
  if (!parsed) return parsed.error();
  out.profile = ProfileText{p.path, std::move(*text)};
  if (work) out.profile_work = ProfileText{p.work_path, std::move(*work)};
  return ok();
}

Status check_layer_profile(const LayerProfileConfig& profile) {
  RooflineRecording ignored;
  return read_roofline_profile(profile, ignored);
}

}  // namespace harness
