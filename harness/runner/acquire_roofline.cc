#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <fmt/format.h>

#include "harness/base/input_limits.h"
#include "harness/compare/compare.h"
#include "harness/levels/layer_profile.h"
#include "harness/rig/device.h"
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

// Whether a gating kernel is still "cannot tell" against its reference on
// the rounds so far (the paired judgement of everything measured until now).
bool gating_kernel_undecided(const Scenario& s, const RooflineRecording& so_far, const CompareConfig& config) {
  Analysis analysis;
  analyse_roofline(s, &so_far, Provenance::measured, analysis);
  for (const MetricComparison& m : judge_against_reference(analysis, config).metrics) {
    if (m.level != Level::roofline || m.verdict != Change::cannot_tell) continue;
    if (std::find(config.gating.begin(), config.gating.end(), m.name) != config.gating.end()) return true;
  }
  return false;
}

// A later look's times of each paired kernel, after the earlier ones'.
void append_look(const RooflineRecording& look, RooflineRecording& out) {
  for (const KernelTiming& more : look.kernels) {
    for (KernelTiming& k : out.kernels) {
      if (k.name != more.name || k.reference_seconds.empty()) continue;
      k.seconds.insert(k.seconds.end(), more.seconds.begin(), more.seconds.end());
      k.reference_seconds.insert(k.reference_seconds.end(), more.reference_seconds.begin(),
                                 more.reference_seconds.end());
    }
  }
}

}  // namespace

Result<RooflineRecording> measure_roofline_until_decided(const AcquireContext& ctx, const RooflineConfig& config,
                                                         RunProgress* progress) {
  Result<RooflineRecording> first = ctx.device->measure_roofline(config, ctx.stop, progress);
  if (!first || !config.paired_with || first->pairing.empty()) return first;
  const CompareConfig compare = ctx.scenario.compare.value_or(CompareConfig{});
  const int rounds = config.paired_with->rounds;
  const int most_rounds = std::max(rounds, static_cast<int>(compare.max_rounds));
  // A look: the paired kernels alone, no ceilings, vendor tools or profile.
  RooflineConfig look = config;
  look.host_benchmarks = false;
  look.vendor.clear();
  look.bursts.clear();
  look.profile.reset();
  std::erase_if(look.kernels, [&](const RooflineKernel& k) { return !is_paired(config, k); });
  const std::uint64_t extra_from_ns = ctx.clock.now_ns();
  int done = rounds, looks = 1;
  while (done + rounds <= most_rounds) {
    const double extra_s = static_cast<double>(ctx.clock.now_ns() - extra_from_ns) * 1e-9;
    if (compare.time_budget_s > 0 && extra_s >= compare.time_budget_s) break;
    if (!gating_kernel_undecided(ctx.scenario, *first, compare)) break;
    look.paired_with->first_round = done;
    Result<RooflineRecording> more = ctx.device->measure_roofline(look, ctx.stop, progress);
    if (!more) return more.error();
    if (more->pairing.empty()) break;  // an agent that cannot pair did not time the reference
    append_look(*more, *first);
    done += rounds;
    ++looks;
  }
  if (looks > 1) first->pairing += fmt::format("; {} looks of {} rounds (undecided after each but the last)", looks, rounds);
  return first;
}

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
