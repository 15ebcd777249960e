#include "harness/bundle/bundle.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "harness/base/bounded_json.h"
#include "harness/base/digest.h"
#include "harness/base/files.h"
#include "harness/base/toml.h"
#include "harness/levels/level_table.h"
#include "harness/scenario/counters_group.h"

namespace harness {
namespace fs = std::filesystem;
namespace {

Status write_text(const fs::path& path, const std::string& text) { return write_file_atomically(path.string(), text); }

// A manifest path must stay inside the bundle (the rule for every file named
// by data: harness/base/files.h).
Result<fs::path> confined(const fs::path& dir, const std::string& relative) {
  Result<std::string> inside = path_inside(dir.string(), relative, dir.string(), "the bundle");
  if (!inside) return inside.error();
  return fs::path(*inside);
}

nlohmann::json manifest_to_json(const BundleManifest& m) {
  nlohmann::json files = nlohmann::json::array();
  for (const BundleFile& f : m.files) {
    files.push_back({{"path", f.path}, {"role", f.role}, {"size", f.size}, {"sha256", f.sha256}});
  }
  return {{"format", "harness-recording"},
          {"format_version", m.format_version},
          {"harness_version", m.harness_version},
          {"scenario", m.scenario_name},
          {"rig", m.rig},
          {"status", m.status},
          {"reason", m.reason},
          {"started_at", m.started_at},
          {"ended_at", m.ended_at},
          {"provenance", m.provenance},
          {"context", m.context},
          {"files", files}};
}

Result<BundleManifest> manifest_from_json(const nlohmann::json& j, const std::string& where) {
  try {
    if (j.value("format", "") != "harness-recording") {
      return Error::input(fmt::format("{}: not a harness recording manifest (\"format\" is not "
                                      "\"harness-recording\")", where));
    }
    BundleManifest m;
    m.format_version = json_integer<int>(j.at("format_version"));
    if (m.format_version > kBundleFormatVersion) {
      return Error::input(fmt::format("{}: bundle format version {} is newer than this harness reads ({})",
                                      where, m.format_version, kBundleFormatVersion));
    }
    if (m.format_version < 1) {
      return Error::input(fmt::format("{}: bad bundle format version {}", where, m.format_version));
    }
    m.harness_version = j.value("harness_version", "");
    m.scenario_name = j.value("scenario", "");
    m.rig = j.value("rig", "");
    m.status = j.value("status", "");
    m.reason = j.value("reason", "");
    m.started_at = j.value("started_at", "");
    m.ended_at = j.value("ended_at", "");
    m.provenance = j.value("provenance", "");
    if (j.contains("context")) m.context = j.at("context").get<std::map<std::string, std::string>>();
    for (const auto& f : j.at("files")) {
      m.files.push_back({f.at("path").get<std::string>(), f.at("role").get<std::string>(),
                         json_integer<std::uint64_t>(f.at("size")), f.at("sha256").get<std::string>()});
    }
    return m;
  } catch (const nlohmann::json::exception& e) {
    return Error::input(fmt::format("{}: malformed manifest: {}", where, e.what()));
  }
}

Result<BundleFile> describe(const fs::path& dir, const std::string& relative, const std::string& role) {
  fs::path full = dir / relative;
  std::error_code ec;
  std::uint64_t size = fs::file_size(full, ec);
  if (ec) return Error::infra(fmt::format("{}: {}", full.string(), ec.message()));
  Result<std::string> sha = sha256_regular_file(full.string());
  if (!sha) return sha.error();
  return BundleFile{relative, role, size, *sha};
}

// The counter group files the scenario names, as bundle files: a bare name
// as groups/<name>.toml, a relative path as itself, so that the replay
// resolves them inside the bundle (BundleScope) to the files the run used.
// A group named by an absolute or ".." path cannot travel and is left out:
// its replay says so.
std::vector<ExtraFile> counter_group_files(const RunRecord& run) {
  std::vector<ExtraFile> out;
  toml::parse_result parsed = toml::parse(run.scenario_text, run.scenario_path);
  if (!parsed) return out;
  const toml::array* groups = parsed.table().at_path("counters.groups").as_array();
  if (!groups) return out;
  for (const toml::node& node : *groups) {
    const std::optional<std::string> name = node.value<std::string>();
    if (!name || name->empty()) continue;
    std::string inside;
    if (name->find('/') == std::string::npos && !name->ends_with(".toml")) {
      inside = "groups/" + *name + ".toml";
    } else {
      fs::path p(*name);
      bool escapes = p.is_absolute();
      for (const fs::path& part : p) escapes = escapes || part == "..";
      if (escapes) continue;
      inside = p.lexically_normal().generic_string();
    }
    for (const std::string& candidate : counter_group_candidates(*name, run.scenario_path)) {
      std::error_code ec;
      if (fs::is_regular_file(fs::symlink_status(candidate, ec))) {
        out.push_back({candidate, inside, "counter-group", ""});
        break;
      }
    }
  }
  return out;
}

}  // namespace

Status write_bundle(const std::string& dir_text, const RunRecord& run, const Recording& recording,
                    const std::vector<ExtraFile>& extra_files, const std::string& provenance) {
  fs::path dir(dir_text);
  std::error_code ec;
  if (fs::exists(dir, ec) && !fs::is_empty(dir, ec)) {
    return Error::input(fmt::format("{}: the recording folder must be empty or absent", dir_text));
  }
  fs::create_directories(dir, ec);
  if (ec) return Error::infra(fmt::format("{}: cannot create: {}", dir_text, ec.message()));

  BundleManifest m;
  m.harness_version = HARNESS_VERSION;
  m.scenario_name = run.scenario_name;
  m.rig = run.rig;
  m.status = std::string(run_status_name(run.status));
  m.reason = run.reason;
  m.started_at = run.started_at;
  m.ended_at = run.ended_at;
  m.provenance = provenance;
  m.context = run.context;

  HARNESS_TRY(write_text(dir / "scenario.toml", run.scenario_text));
  HARNESS_TRY(write_text(dir / "recording.json", nlohmann::json(recording).dump(1) + "\n"));
  std::vector<std::pair<std::string, std::string>> listed = {{"scenario.toml", "scenario"},
                                                             {"recording.json", "recording"}};
  std::vector<ExtraFile> files = extra_files;
  for (ExtraFile& g : counter_group_files(run)) {
    bool present = false;
    for (const ExtraFile& f : files) present = present || f.path == g.path;
    if (!present) files.push_back(std::move(g));
  }
  for (const ExtraFile& f : files) {
    Result<fs::path> target = confined(dir, f.path);
    if (!target) return target.error();
    fs::create_directories(target->parent_path(), ec);
    Status copied = copy_file_private(f.source, target->string());
    if (!copied) return copied.error().within(fmt::format("{}: cannot copy into the bundle", f.source));
    listed.emplace_back(f.path, f.role);
  }
  for (auto& [path, role] : listed) {
    Result<BundleFile> file = describe(dir, path, role);
    if (!file) return file.error();
    m.files.push_back(*file);
  }
  // A stored artifact goes out only as the bytes that were stored.
  for (const ExtraFile& f : extra_files) {
    if (f.sha256.empty()) continue;
    for (const BundleFile& b : m.files) {
      if (b.path == f.path && b.sha256 != f.sha256) {
        return Error::infra(fmt::format("{}: sha256 {} does not match the {} stored with the run (altered since "
                                        "it was stored)", f.source, b.sha256, f.sha256));
      }
    }
  }
  return write_text(dir / "manifest.json", manifest_to_json(m).dump(2) + "\n");
}

namespace {

// A listed file, opened as a regular file (no symlink, FIFO or device) and
// checked against the manifest's size and sha256 from that one descriptor.
Status verify_listed_file(const fs::path& full, const BundleFile& f) {
  Result<RegularFile> opened = open_regular_file(full.string());
  if (!opened) {
    std::string m = opened.error().message;
    if (m.find("not a regular file") != std::string::npos) {
      return Error::input(m + " (a bundle holds only regular files)");
    }
    // "<path>: No such file or directory" -> "<path>: listed in the manifest but ..."
    const std::string prefix = full.string() + ": ";
    return Error::input(prefix + "listed in the manifest but " + m.substr(m.rfind(prefix, 0) == 0 ? prefix.size() : 0));
  }
  if (opened->size() != f.size) {
    return Error::input(fmt::format("{}: {} bytes, the manifest says {} (truncated or altered)", full.string(),
                                    opened->size(), f.size));
  }
  Result<std::string> sha = sha256_fd(opened->fd(), full.string());
  if (!sha) return sha.error();
  if (*sha != f.sha256) {
    return Error::input(fmt::format("{}: sha256 {} does not match the manifest's {} (altered)", full.string(), *sha,
                                    f.sha256));
  }
  return ok();
}

// What the recording names must be the bundle's own listed files: a replay
// opens nothing else.
Status check_recording_files(const std::string& dir, const Recording& rec,
                             const std::map<std::string, const BundleFile*>& listed) {
  auto must_be_listed = [&](const std::string& name, const char* what) -> Result<const BundleFile*> {
    std::string normal = fs::path(name).lexically_normal().generic_string();
    auto it = listed.find(normal);
    if (fs::path(name).is_absolute() || it == listed.end()) {
      return Error::input(fmt::format("{}: recording.json names {} \"{}\", which is not a file listed in the "
                                      "manifest (a replay reads only the bundle's listed files)",
                                      dir, what, name));
    }
    return it->second;
  };
  for (const RecordedFile& f : rec.files) {
    Result<const BundleFile*> found = must_be_listed(f.name, "the file");
    if (!found) return found.error();
  }
  if (rec.ddr && !rec.ddr->capture.empty()) {
    Result<const BundleFile*> found = must_be_listed(rec.ddr->capture, "the capture");
    if (!found) return found.error();
    if (!rec.ddr->sha256.empty() && rec.ddr->sha256 != (*found)->sha256) {
      return Error::input(fmt::format("{}: the capture {} has sha256 {}, but the recording says {} (altered)", dir,
                                      rec.ddr->capture, (*found)->sha256, rec.ddr->sha256));
    }
  }
  // Every raw file a level's part of the recording names (the level table:
  // level 5's dumps and layer map; level 3's capture is checked above, with
  // its digest).
  for (const LevelRow& row : level_table()) {
    if (!row.raw_files) continue;
    std::vector<RecordedFile> named;
    row.raw_files(rec, named);
    for (const RecordedFile& f : named) {
      Result<const BundleFile*> found = must_be_listed(f.name, "the file");
      if (!found) return found.error();
    }
  }
  // Level 5 reads a dump as a folder (the files listed below it) or a file.
  if (rec.accuracy) {
    for (const AccuracyDumpRecording& d : rec.accuracy->dumps) {
      const std::string normal = fs::path(d.path).lexically_normal().generic_string();
      const auto below = listed.lower_bound(normal + "/");
      const bool folder = below != listed.end() && below->first.starts_with(normal + "/");
      const bool inside = !fs::path(d.path).is_absolute() && !normal.empty() && normal != "." && !normal.starts_with("..");
      if (!inside || !(listed.contains(normal) || folder))
        return Error::input(fmt::format("{}: recording.json names the accuracy dump \"{}\", which is neither a file "
                                        "nor a folder listed in the manifest (a replay reads only the bundle's listed "
                                        "files)",
                                        dir, d.path));
    }
  }
  return ok();
}

}  // namespace

Result<LoadedBundle> load_bundle(const std::string& dir_text, const BundleLimits& limits) {
  fs::path dir(dir_text);
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) {
    return Error::input(fmt::format("{}: not a recording folder: {}", dir_text,
                                    ec ? ec.message() : std::string("not a directory")));
  }
  fs::path manifest_path = dir / "manifest.json";
  Result<nlohmann::json> manifest_json = read_bounded_json_file(manifest_path.string(), limits.manifest, "manifest");
  if (!manifest_json) return manifest_json.error();
  Result<BundleManifest> manifest = manifest_from_json(*manifest_json, manifest_path.string());
  if (!manifest) return manifest.error();
  if (manifest->files.size() > limits.max_files) {
    return Error::input(fmt::format("{}: {} files is more than the {} allowed", manifest_path.string(),
                                    manifest->files.size(), limits.max_files));
  }

  LoadedBundle b;
  b.dir = dir_text;
  b.manifest = *manifest;
  std::uint64_t total = 0;
  const BundleFile* scenario_file = nullptr;
  const BundleFile* recording_file = nullptr;
  std::map<std::string, const BundleFile*> listed;
  for (const BundleFile& f : b.manifest.files) {
    Result<fs::path> full = confined(dir, f.path);
    if (!full) return full.error();
    if (f.path == "manifest.json") {
      return Error::input(fmt::format("{}: the manifest lists itself", manifest_path.string()));
    }
    std::uint64_t limit = f.role == "scenario"    ? limits.max_scenario_bytes
                          : f.role == "recording" ? limits.recording.bytes
                                                  : limits.max_file_bytes;
    if (f.size > limit) {
      return Error::input(fmt::format("{}: {} bytes is more than the {} allowed", full->string(), f.size, limit));
    }
    total += f.size;
    if (total > limits.max_total_bytes) {
      return Error::input(fmt::format("{}: the bundle's files exceed the {} bytes allowed", dir_text,
                                      limits.max_total_bytes));
    }
    HARNESS_TRY(verify_listed_file(*full, f));
    listed[fs::path(f.path).lexically_normal().generic_string()] = &f;
    if (f.role == "scenario") scenario_file = &f;
    if (f.role == "recording") recording_file = &f;
  }
  if (!scenario_file || !recording_file) {
    return Error::input(fmt::format("{}: the manifest lists no {} file", manifest_path.string(),
                                    scenario_file ? "recording" : "scenario"));
  }
  Result<std::string> scenario = read_regular_file((dir / scenario_file->path).string(), limits.max_scenario_bytes);
  if (!scenario) return scenario.error();
  b.scenario_text = *scenario;
  fs::path recording_path = dir / recording_file->path;
  Result<nlohmann::json> j = read_bounded_json_file(recording_path.string(), limits.recording, "recording");
  if (!j) return j.error();
  try {
    const int version = j->contains("format_version") ? json_integer<int>(j->at("format_version")) : 0;
    if (version > Recording::kFormatVersion) {
      return Error::input(fmt::format("{}: recording format version {} is newer than this harness reads ({})",
                                      recording_path.string(), version, Recording::kFormatVersion));
    }
    b.recording = j->get<Recording>();
  } catch (const nlohmann::json::exception& e) {
    return Error::input(fmt::format("{}: malformed recording: {}", recording_path.string(), e.what()));
  }
  HARNESS_TRY(check_recording_files(dir_text, b.recording, listed));
  for (const auto& [path, file] : listed) b.files.insert(path);
  b.recording.base_dir = dir_text;
  return b;
}

}  // namespace harness
