#include "probes/tensor/tensor_set.h"

#include <algorithm>
#include <filesystem>
#include <set>

#include <fmt/format.h>

#include "harness/base/files.h"
#include "probes/tensor/npy.h"
#include "probes/tensor/npz.h"
#include "probes/tensor/sidecar.h"

namespace harness::tensor {
namespace {

namespace fs = std::filesystem;

std::string normal(const std::string& path) { return fs::path(path).lexically_normal().string(); }

// One file standing for a set, by its extension.
Result<std::vector<TensorInfo>> list_tensor_file(const std::string& path) {
  if (path.ends_with(".npz")) return list_npz(path);
  if (!path.ends_with(".npy") && !path.ends_with(".json"))
    return Error::input(path + ": not a tensor set (a directory, an .npz archive, an .npy file or a .json sidecar)");
  Result<TensorInfo> t = path.ends_with(".npy") ? read_npy_file(path) : read_sidecar_tensor(path);
  if (!t) return t.error();
  return std::vector<TensorInfo>{std::move(*t)};
}

Result<std::vector<TensorInfo>> list_tensor_folder(const std::string& dir) {
  Result<std::vector<std::string>> files = tensor_folder_files(dir);
  if (!files) return files.error();
  std::vector<TensorInfo> out;
  std::set<std::string> claimed;
  for (const std::string& f : *files) {
    if (!f.ends_with(".json")) continue;
    Result<TensorInfo> t = read_sidecar_tensor(f);
    if (!t) return t.error();
    claimed.insert(normal(t->file));
    out.push_back(std::move(*t));
  }
  for (const std::string& f : *files) {
    if (!f.ends_with(".npy") || claimed.contains(normal(f))) continue;
    Result<TensorInfo> t = read_npy_file(f);
    if (!t) return t.error();
    out.push_back(std::move(*t));
  }
  std::sort(out.begin(), out.end(), [](const TensorInfo& a, const TensorInfo& b) { return a.name < b.name; });
  for (std::size_t i = 1; i < out.size(); ++i)
    if (out[i].name == out[i - 1].name)
      return Error::input(fmt::format("{}: two tensors named '{}' ({} and {})", dir, out[i].name, out[i - 1].origin,
                                      out[i].origin));
  if (out.empty()) return Error::input(dir + ": no tensors (.npy files or .json sidecars) in this directory");
  return out;
}

}  // namespace

Result<std::vector<std::string>> tensor_folder_files(const std::string& dir) {
  std::vector<std::string> files;
  std::error_code ec;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    const fs::file_status st = it->symlink_status(ec);
    if (ec) break;
    if (fs::is_directory(st)) continue;
    if (!fs::is_regular_file(st)) {
      Error refused = not_a_regular_file(it->path().string(), st.type());
      refused.message += " (a tensor folder holds regular files only)";
      return refused;
    }
    files.push_back(it->path().string());
  }
  if (ec) return Error::input(fmt::format("{}: {}", dir, ec.message()));
  std::sort(files.begin(), files.end());
  return files;
}

Result<std::vector<TensorInfo>> list_tensor_set(const std::string& path) {
  std::error_code ec;
  const fs::file_status st = fs::status(path, ec);
  if (!fs::exists(st)) {
    if (ec && ec != std::errc::no_such_file_or_directory) return Error::input(fmt::format("{}: {}", path, ec.message()));
    return Error::input(path + ": no such file or directory");
  }
  if (fs::is_directory(st)) return list_tensor_folder(path);
  // A device or a FIFO is refused by what it is, whatever its name.
  if (!fs::is_regular_file(st)) return not_a_regular_file(path, st.type());
  return list_tensor_file(path);
}

}  // namespace harness::tensor
