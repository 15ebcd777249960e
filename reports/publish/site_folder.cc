#include "reports/publish/site_folder.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>

#include <fmt/format.h>

namespace harness {
namespace {

constexpr int kFolderFlags = O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC;

void close_fd(int fd) {
  if (fd >= 0) ::close(fd);
}

// `name` in the folder open as `parent` (AT_FDCWD: a path), opened as a
// folder without following a symlink; made first with `create`. -1 when
// absent and not made.
Result<int> open_folder(int parent, const std::string& name, const std::string& shown, bool create) {
  if (create && ::mkdirat(parent, name.c_str(), 0755) != 0 && errno != EEXIST) {
    return Error::infra(fmt::format("{}: cannot create the folder: {}", shown, std::strerror(errno)));
  }
  int fd = ::openat(parent, name.c_str(), kFolderFlags);
  if (fd >= 0) return fd;
  const int e = errno;
  if (e == ENOENT && !create) return -1;
  struct stat st {};
  if (::fstatat(parent, name.c_str(), &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISLNK(st.st_mode)) {
    return Error::input(fmt::format("{}: is a symbolic link, not a folder (publish writes only inside its folder "
                                    "and follows no symlink there)", shown));
  }
  if (e == ENOTDIR) return Error::input(fmt::format("{}: not a folder", shown));
  return Error::infra(fmt::format("{}: cannot open the folder: {}", shown, std::strerror(e)));
}

bool is_file_name(std::string_view name) {
  return !name.empty() && name != "." && name != ".." && name.find('/') == std::string_view::npos &&
         name.find('\0') == std::string_view::npos;
}

}  // namespace

Result<SiteFolder> SiteFolder::open(const std::string& dir_text, bool create) {
  // "site/" would follow a symlink named site despite O_NOFOLLOW.
  std::string dir = dir_text;
  while (dir.size() > 1 && dir.back() == '/') dir.pop_back();
  if (create) {
    std::error_code ec;
    const std::filesystem::path parent = std::filesystem::path(dir).parent_path();
    if (!parent.empty()) std::filesystem::create_directories(parent, ec);
  }
  Result<int> top = open_folder(AT_FDCWD, dir, dir, create);
  if (!top) return top.error();
  if (*top < 0) return Error::input(fmt::format("{}: no such folder", dir));
  Result<int> metrics = open_folder(*top, "metrics", dir + "/metrics", create);
  if (!metrics) {
    close_fd(*top);
    return metrics.error();
  }
  Result<int> runs = open_folder(*top, "runs", dir + "/runs", create);
  if (!runs) {
    close_fd(*top);
    close_fd(*metrics);
    return runs.error();
  }
  return SiteFolder(dir, *top, *metrics, *runs);
}

SiteFolder::SiteFolder(SiteFolder&& other) noexcept
    : dir_(std::move(other.dir_)), dir_fd_(other.dir_fd_), metrics_fd_(other.metrics_fd_), runs_fd_(other.runs_fd_) {
  other.dir_fd_ = other.metrics_fd_ = other.runs_fd_ = -1;
}

SiteFolder::~SiteFolder() {
  close_fd(dir_fd_);
  close_fd(metrics_fd_);
  close_fd(runs_fd_);
}

std::optional<std::pair<int, std::string>> SiteFolder::locate(const std::string& rel) const {
  const std::size_t slash = rel.find('/');
  if (slash == std::string::npos) {
    if (!is_file_name(rel)) return std::nullopt;
    return std::pair{dir_fd_, rel};
  }
  const std::string_view folder = std::string_view(rel).substr(0, slash);
  const std::string name = rel.substr(slash + 1);
  const int fd = folder == "metrics" ? metrics_fd_ : folder == "runs" ? runs_fd_ : -1;
  if (fd < 0 || !is_file_name(name)) return std::nullopt;
  return std::pair{fd, name};
}

Status SiteFolder::write(const std::string& rel, std::string_view text, Flush flush) const {
  const auto at = locate(rel);
  if (!at) return Error::infra(fmt::format("{}/{}: not a file of the published site", dir_, rel));
  return write_file_atomically_at(at->first, at->second, text, flush, dir_ + "/" + rel);
}

std::optional<std::uint64_t> SiteFolder::regular_file_size(const std::string& rel) const {
  const auto at = locate(rel);
  struct stat st {};
  if (!at || ::fstatat(at->first, at->second.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0 || !S_ISREG(st.st_mode)) {
    return std::nullopt;
  }
  return static_cast<std::uint64_t>(st.st_size);
}

bool SiteFolder::remove_regular_file(const std::string& rel) const {
  if (!regular_file_size(rel)) return false;
  const auto at = locate(rel);
  return ::unlinkat(at->first, at->second.c_str(), 0) == 0;
}

}  // namespace harness
