// Artifacts: files a run produced, kept beside the store with their sha256.
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>

#include <fmt/format.h>

#include "harness/base/digest.h"
#include "harness/base/files.h"
#include "harness/store/store.h"
#include "harness/store/store_internal.h"

namespace harness {

std::string Store::artifact_folder() const { return artifacts_; }

Result<Artifact> Store::keep_artifact(const std::string& source, const std::string& name, const std::string& kind,
                                      bool move) const {
  Result<std::string> sha = sha256_regular_file(source);
  if (!sha) return sha.error().within("artifact " + name);
  std::error_code ec;
  const std::uint64_t size = std::filesystem::file_size(source, ec);
  if (ec) return Error::infra(fmt::format("artifact {}: {}: {}", name, source, ec.message()));
  const std::filesystem::path folder = artifact_folder();
  std::filesystem::create_directories(folder, ec);
  if (ec) return Error::infra(fmt::format("store {}: cannot create {}: {}", path_, folder.string(), ec.message()));
  const std::string target = (folder / *sha).string();
  Artifact kept{name, target, size, *sha, kind};
  if (std::filesystem::exists(std::filesystem::symlink_status(target, ec))) {
    // The same bytes are stored already (another run, or this one again).
    HARNESS_TRY(verify_artifact(kept));
    if (move) std::filesystem::remove(source, ec);
    return kept;
  }
  // Into a private temporary first, so that `target` appears whole or not
  // at all; rename where the source is ours and on this filesystem.
  const std::string tmp = (folder / fmt::format(".{}.{}.tmp", *sha, ::getpid())).string();
  std::filesystem::remove(tmp, ec);
  bool renamed = move && std::rename(source.c_str(), tmp.c_str()) == 0;
  if (!renamed) {
    Status copied = copy_file_private(source, tmp);
    if (!copied) return copied.error().within("artifact " + name);
  }
  std::filesystem::permissions(tmp, std::filesystem::perms::owner_read | std::filesystem::perms::group_read |
                                        std::filesystem::perms::others_read, ec);
  // What was read and what is kept are the same bytes.
  Result<std::string> again = sha256_regular_file(tmp);
  if (!again || *again != *sha) {
    std::filesystem::remove(tmp, ec);
    return Error::infra(fmt::format("artifact {}: {} changed while it was stored", name, source));
  }
  if (std::rename(tmp.c_str(), target.c_str()) != 0) {
    int e = errno;
    std::filesystem::remove(tmp, ec);
    return Error::infra(fmt::format("artifact {}: cannot store {}: {}", name, target, std::strerror(e)));
  }
  if (move && !renamed) std::filesystem::remove(source, ec);
  return kept;
}

Status Store::verify_artifact(const Artifact& a) const {
  Result<std::string> sha = sha256_regular_file(a.path);
  if (!sha) return Error::infra(fmt::format("artifact {} of store {}: {}", a.name, path_, sha.error().message));
  if (*sha != a.sha256) {
    return Error::infra(fmt::format("artifact {} of store {}: {} has sha256 {}, but {} was stored (altered since it "
                                    "was stored)", a.name, path_, a.path, *sha, a.sha256));
  }
  return ok();
}

}  // namespace harness
