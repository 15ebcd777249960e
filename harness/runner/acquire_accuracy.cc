// Level 5's acquisition: the dumps join the run's artifacts, so that the
// recording (and its bundle) carries the tensors its analysis reads.
#include <filesystem>
#include <fstream>

#include <fmt/format.h>

#include "harness/accuracy/compare.h"
#include "harness/base/digest.h"
#include "harness/rig/device.h"
#include "harness/runner/acquire.h"

namespace harness {
namespace {

namespace fs = std::filesystem;

// A hard link where the file system allows (no copy of large dumps), else a copy.
Status link_or_copy(const fs::path& source, const fs::path& target) {
  std::error_code ec;
  fs::create_directories(target.parent_path(), ec);
  if (ec) return Error::infra(fmt::format("accuracy dump folder {}: {}", target.parent_path().string(), ec.message()));
  fs::remove(target, ec);
  fs::create_hard_link(source, target, ec);
  if (ec) {
    ec.clear();
    fs::copy_file(source, target, ec);
  }
  if (ec) return Error::input(fmt::format("accuracy dump {}: {}", source.string(), ec.message()));
  return ok();
}

Status record(const AcquireContext& ctx, const std::string& name, AccuracyDumpRecording& out) {
  const fs::path path = fs::path(ctx.artifact_dir) / name;
  Result<std::string> digest = sha256_file(path.string());
  if (!digest) return Error::infra("accuracy dump: " + digest.error().message);
  std::error_code ec;
  out.files.push_back({name, *digest, static_cast<std::uint64_t>(fs::file_size(path, ec))});
  return ok();
}

// Host dumps: a directory's regular files, or one archive (with its
// quantization companion "<archive>.json" when there is one).
Status import_host(const AcquireContext& ctx, const AccuracyDumpSource& src, const std::string& role,
                   AccuracyDumpRecording& out) {
  HARNESS_TRY(check_accuracy_source(src, role));
  std::error_code ec;
  const fs::file_status st = fs::status(src.path, ec);
  out.source = "file:" + src.as_written;
  if (fs::is_directory(st)) {
    out.path = "accuracy/" + role;
    std::vector<fs::path> files;
    for (const fs::directory_entry& e : fs::directory_iterator(src.path, ec))
      if (e.is_regular_file()) files.push_back(e.path());
    std::sort(files.begin(), files.end());
    for (const fs::path& f : files) {
      const std::string name = out.path + "/" + f.filename().string();
      HARNESS_TRY(link_or_copy(f, fs::path(ctx.artifact_dir) / name));
      HARNESS_TRY(record(ctx, name, out));
    }
    return ok();
  }
  const std::string ext = fs::path(src.path).extension().string();
  out.path = "accuracy/" + role + ext;
  HARNESS_TRY(link_or_copy(src.path, fs::path(ctx.artifact_dir) / out.path));
  HARNESS_TRY(record(ctx, out.path, out));
  if (fs::exists(src.path + ".json")) {
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

Status check_accuracy_source(const AccuracyDumpSource& src, const std::string& role) {
  std::error_code ec;
  if (!fs::exists(fs::status(src.path, ec)) || ec)
    return Error::input(fmt::format("{}: [accuracy] {}: {}: no such file or directory", src.where, role, src.path));
  return ok();
}

Status acquire_accuracy(const AcquireContext& ctx, AccuracyRecording& out) {
  if (!ctx.scenario.accuracy) return ok();
  const AccuracyConfig& cfg = *ctx.scenario.accuracy;
  struct Set {
    const char* role;
    const AccuracyDumpSource* source;
    bool device_side;
  };
  std::vector<Set> sets = {{"reference", &cfg.reference, false}, {"device", &cfg.device, true}};
  if (cfg.isolated) sets.push_back({"isolated", &*cfg.isolated, true});
  std::vector<std::string> to_check;  // the user's files where they are on the host: errors name them
  for (const Set& s : sets) {
    if (ctx.stop.stop_requested()) return interrupted_error();
    AccuracyDumpRecording d;
    d.role = s.role;
    if (s.device_side && cfg.on_device) {
      HARNESS_TRY(fetch_from_device(ctx, *s.source, s.role, cfg.max_fetch_bytes, d));
      to_check.push_back((fs::path(ctx.artifact_dir) / d.path).string());
    } else {
      HARNESS_TRY(import_host(ctx, *s.source, s.role, d));
      to_check.push_back(s.source->path);
    }
    out.dumps.push_back(std::move(d));
  }
  if (!cfg.map_path.empty()) {
    out.map = "accuracy/layer-map.txt";
    HARNESS_TRY(link_or_copy(cfg.map_path, fs::path(ctx.artifact_dir) / out.map));
  }
  // The headers, sidecars and pairing (of the user's files, which the copies link to): bad input
  // stops the run here (exit 2), before any tensor is streamed.
  return check_accuracy_dumps(cfg, to_check);
}

Status check_accuracy_dumps(const AccuracyConfig& cfg, const std::vector<std::string>& to_check) {
  accuracy::LayerMap map;
  if (!cfg.map_path.empty()) {
    Result<accuracy::LayerMap> m = accuracy::read_layer_map(cfg.map_path);
    if (!m) return m.error();
    map = *m;
  }
  Result<std::vector<tensor::TensorInfo>> ref = tensor::list_tensor_set(to_check[0]);
  if (!ref) return ref.error();
  for (std::size_t i = 1; i < to_check.size(); ++i) {
    Result<std::vector<tensor::TensorInfo>> dev = tensor::list_tensor_set(to_check[i]);
    if (!dev) return dev.error();
    Result<accuracy::Pairing> p = accuracy::pair_layers(*ref, *dev, map, cfg.map_path);
    if (!p) return p.error();
    for (const accuracy::LayerPair& lp : p->pairs)
      if (lp.reference.shape != lp.device.shape)
        return Error::input(fmt::format("layer '{}': shape {} in {} but {} in {}", lp.layer, lp.reference.shape_text(),
                                        lp.reference.origin, lp.device.shape_text(), lp.device.origin));
  }
  return ok();
}

}  // namespace harness
