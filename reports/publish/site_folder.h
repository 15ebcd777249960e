// The folder `harness publish DIR` writes, held open: DIR and its two
// subfolders ("metrics", "runs") are opened as folders without following a
// symlink, and every file is written, checked and removed through those
// descriptors. So publish stays inside DIR whatever a subfolder has been
// replaced with (a symlink to another folder is refused, exit 2), and it
// removes a file only when it is a regular file in one of them.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "harness/base/files.h"
#include "harness/base/result.h"

namespace harness {

class SiteFolder {
 public:
  // DIR must be a folder (not a symlink to one). With `create`, DIR and
  // the subfolders are made when absent; without, an absent subfolder is
  // left absent (its files are then simply not there).
  static Result<SiteFolder> open(const std::string& dir, bool create);
  SiteFolder(SiteFolder&& other) noexcept;
  SiteFolder& operator=(SiteFolder&&) = delete;
  ~SiteFolder();

  // `rel` is a name publish makes: "index.html", "metrics/x.html",
  // "runs/3.html"; anything else (another folder, "..", a deeper path) is
  // not a file of the site: refused by write, absent to the others.
  Status write(const std::string& rel, std::string_view text, Flush flush) const;
  // The size of `rel` when it is a regular file (not a symlink) in the site.
  std::optional<std::uint64_t> regular_file_size(const std::string& rel) const;
  // Removes `rel` when it is a regular file in the site; true when removed.
  bool remove_regular_file(const std::string& rel) const;

  const std::string& dir() const { return dir_; }

 private:
  SiteFolder(std::string dir, int dir_fd, int metrics_fd, int runs_fd)
      : dir_(std::move(dir)), dir_fd_(dir_fd), metrics_fd_(metrics_fd), runs_fd_(runs_fd) {}
  // The folder's descriptor and the file's name in it, or nullopt.
  std::optional<std::pair<int, std::string>> locate(const std::string& rel) const;

  std::string dir_;
  int dir_fd_ = -1, metrics_fd_ = -1, runs_fd_ = -1;  // -1: absent (opened without create)
};

}  // namespace harness
