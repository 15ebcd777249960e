// Level 5's acquisition: the dumps join the run's artifacts, so that the
// recording (and its bundle) carries the tensors its analysis reads. Bad
// input (a header, a sidecar, a pairing, a file that is not a regular file)
// stops the run with exit 2 before a host dump is copied.
#include <filesystem>
#include <fstream>

#include <fmt/format.h>

#include "harness/accuracy/compare.h"
#include "harness/base/digest.h"
#include "harness/base/files.h"
#include "harness/base/input_limits.h"
#include "harness/rig/device.h"
#include "harness/runner/acquire.h"
#include "probes/tensor/tensor_set.h"

namespace harness {
namespace {

namespace fs = std::filesystem;

// A hard link where the file system allows (no copy of large dumps), else a
// private copy; the source is first opened by the rule for every file the
// harness reads, so a symlink, FIFO or device is refused, never linked.
Status link_or_copy(const fs::path& source, const fs::path& target) {
  Result<RegularFile> checked = open_regular_file(source.string(), kMaxTensorFileBytes);
  if (!checked) return checked.error();
  std::error_code ec;
  fs::create_directories(target.parent_path(), ec);
  if (ec) return Error::infra(fmt::format("accuracy dump folder {}: {}", target.parent_path().string(), ec.message()));
  fs::remove(target, ec);
  fs::create_hard_link(source, target, ec);
  if (!ec) return ok();
  return copy_file_private(source.string(), target.string());
}

Status record(const AcquireContext& ctx, const std::string& name, AccuracyDumpRecording& out) {
  const fs::path path = fs::path(ctx.artifact_dir) / name;
  Result<RegularFile> file = open_regular_file(path.string());
  if (!file) return Error::infra("accuracy dump: " + file.error().message);
  Result<std::string> digest = sha256_fd(file->fd(), path.string());
  if (!digest) return Error::infra("accuracy dump: " + digest.error().message);
  out.files.push_back({name, *digest, file->size()});
  return ok();
}

// Host dumps: a folder's regular files, or one archive (with its
// quantization companion "<archive>.json" when there is one).
Status import_host(const AcquireContext& ctx, const AccuracyDumpSource& src, const std::string& role,
                   AccuracyDumpRecording& out) {
  std::error_code ec;
  const bool folder = fs::is_directory(src.path, ec);
  out.source = "file:" + src.as_written;
  if (folder) {
    out.path = "accuracy/" + role;
    Result<std::vector<std::string>> files = tensor::tensor_folder_files(src.path);
    if (!files) return files.error();
    for (const std::string& f : *files) {
      const std::string name = out.path + "/" + fs::path(f).filename().string();
      HARNESS_TRY(link_or_copy(f, fs::path(ctx.artifact_dir) / name));
      HARNESS_TRY(record(ctx, name, out));
    }
    return ok();
  }
  const std::string ext = fs::path(src.path).extension().string();
  out.path = "accuracy/" + role + ext;
  HARNESS_TRY(link_or_copy(src.path, fs::path(ctx.artifact_dir) / out.path));
  HARNESS_TRY(record(ctx, out.path, out));
  if (fs::exists(fs::symlink_status(src.path + ".json", ec))) {
    HARNESS_TRY(link_or_copy(src.path + ".json", fs::path(ctx.artifact_dir) / (out.path + ".json")));
    HARNESS_TRY(record(ctx, out.path + ".json", out));
  }
  return ok();
}

// Device dumps: one .npz each, fetched through the rig transport's file.read
// (whole, at most max_fetch_bytes, sha256 checked on arrival).
Status fetch_from_device(const AcquireContext& ctx, const AccuracyDumpSource& src, const std::string& role,
                         std::uint64_t max_bytes, AccuracyDumpRecording& out) {
  if (!ctx.device) return Error::infra("accuracy: on_device dumps need the device's agent, and none is connected");
  Result<std::string> bytes = ctx.device->fetch_file(src.as_written, max_bytes);
  if (!bytes) return bytes.error().within(fmt::format("[accuracy] {} {} on the device", role, src.as_written));
  out.source = "device:" + src.as_written;
  out.path = "accuracy/" + role + ".npz";
  const fs::path target = fs::path(ctx.artifact_dir) / out.path;
  std::error_code ec;
  fs::create_directories(target.parent_path(), ec);
  std::ofstream f(target, std::ios::binary);
  f.write(bytes->data(), static_cast<std::streamsize>(bytes->size()));
  if (!f) return Error::infra(fmt::format("accuracy dump {}: cannot be written", target.string()));
  f.close();
  return record(ctx, out.path, out);
}

}  // namespace

// The headers, sidecars and pairing of every set (`paths`: the reference
// first), and the shapes of every pair: bad input stops the run here (exit
// 2), before any tensor is streamed.
Status check_accuracy_dumps(const AccuracyConfig& cfg, const std::vector<std::string>& paths) {
  accuracy::LayerMap map;
  if (!cfg.map_path.empty()) {
    Result<accuracy::LayerMap> m = accuracy::read_layer_map(cfg.map_path);
    if (!m) return m.error();
    map = *m;
  }
  Result<std::vector<tensor::TensorInfo>> ref = tensor::list_tensor_set(paths[0]);
  if (!ref) return ref.error();
  for (std::size_t i = 1; i < paths.size(); ++i) {
    Result<std::vector<tensor::TensorInfo>> dev = tensor::list_tensor_set(paths[i]);
    if (!dev) return dev.error();
    Result<accuracy::Pairing> p = accuracy::pair_layers({*ref, *dev, paths[0], paths[i]}, map, cfg.map_path);
    if (!p) return p.error();
    for (const accuracy::LayerPair& lp : p->pairs)
      if (lp.reference.shape != lp.device.shape)
        return Error::input(fmt::format("layer '{}': shape {} in {} but {} in {}", lp.layer, lp.reference.shape_text(),
                                        lp.reference.origin, lp.device.shape_text(), lp.device.origin));
  }
  return ok();
}

Status check_accuracy_source(const AccuracyDumpSource& src, const std::string& role) {
  std::error_code ec;
  if (!fs::exists(fs::status(src.path, ec)))
    return Error::input(fmt::format("{}: [accuracy] {}: {}: {}", src.where, role, src.path,
                                    ec && ec != std::errc::no_such_file_or_directory ? ec.message()
                                                                                     : "no such file or directory"));
  return ok();
}

Status acquire_accuracy(const AcquireContext& ctx, AccuracyRecording& out) {
  if (!ctx.scenario.accuracy) return ok();
  const AccuracyConfig& cfg = *ctx.scenario.accuracy;
  struct Set {
    const char* role;
    const AccuracyDumpSource* source;
    bool fetched;  // from the device, else the user's files on the host
    AccuracyDumpRecording dump;
  };
  std::vector<Set> sets = {{"reference", &cfg.reference, false, {}}, {"device", &cfg.device, cfg.on_device, {}}};
  if (cfg.isolated) sets.push_back({"isolated", &*cfg.isolated, cfg.on_device, {}});
  std::vector<std::string> to_check;  // the user's files where they are on the host: errors name them
  for (Set& s : sets) {
    if (ctx.stop.stop_requested()) return interrupted_error();
    s.dump.role = s.role;
    if (s.fetched) {
      HARNESS_TRY(fetch_from_device(ctx, *s.source, s.role, cfg.max_fetch_bytes, s.dump));
      to_check.push_back((fs::path(ctx.artifact_dir) / s.dump.path).string());
      continue;
    }
    HARNESS_TRY(check_accuracy_source(*s.source, s.role));
    to_check.push_back(s.source->path);
  }
  HARNESS_TRY(check_accuracy_dumps(cfg, to_check));
  for (Set& s : sets) {
    if (ctx.stop.stop_requested()) return interrupted_error();
    if (!s.fetched) HARNESS_TRY(import_host(ctx, *s.source, s.role, s.dump));
    out.dumps.push_back(std::move(s.dump));
  }
  if (!cfg.map_path.empty()) {
    out.map = "accuracy/layer-map.txt";
    HARNESS_TRY(link_or_copy(cfg.map_path, fs::path(ctx.artifact_dir) / out.map));
  }
  return ok();
}

}  // namespace harness
