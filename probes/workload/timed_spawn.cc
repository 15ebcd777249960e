#include "probes/workload/timed_spawn.h"

#include <fcntl.h>
#include <poll.h>
#include <spawn.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cmath>
#include <csignal>
#include <cstring>

#include <fmt/format.h>

extern char** environ;

namespace harness {

Result<std::unique_ptr<TimedSpawner>> TimedSpawner::create(std::vector<std::string> argv) {
  if (argv.empty()) return Error::input("empty command");
  std::unique_ptr<TimedSpawner> s(new TimedSpawner());
  s->argv_ = std::move(argv);
  for (std::string& a : s->argv_) s->argv_ptrs_.push_back(a.data());
  s->argv_ptrs_.push_back(nullptr);
  s->output_fd_ = memfd_create("harness-workload-output", MFD_CLOEXEC);
  if (s->output_fd_ < 0) return Error::infra(fmt::format("workload: memfd_create: {}", std::strerror(errno)));
  return s;
}

TimedSpawner::~TimedSpawner() {
  if (output_fd_ >= 0) ::close(output_fd_);
}

namespace {

// Waits for the pidfd or the stop eventfd; 0 on timeout, 1 when the child
// ended, 2 on a stop request.
int wait_child(int pidfd, int stopfd, int timeout_ms) {
  pollfd p[2] = {{pidfd, POLLIN, 0}, {stopfd, POLLIN, 0}};
  int ready;
  do {
    ready = ::poll(p, stopfd >= 0 ? 2 : 1, timeout_ms);
  } while (ready < 0 && errno == EINTR);
  if (ready <= 0) return 0;
  if (p[0].revents != 0) return 1;
  return 2;
}

}  // namespace

Result<TimedRun> TimedSpawner::run(Clock& clock, double timeout_s, std::size_t tail_bytes, std::stop_token stop) {
  // A fresh, empty output for this iteration.
  if (::ftruncate(output_fd_, 0) != 0 || ::lseek(output_fd_, 0, SEEK_SET) != 0) {
    return Error::infra(fmt::format("workload: cannot reset its output file: {}", std::strerror(errno)));
  }
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_adddup2(&actions, output_fd_, 1);
  posix_spawn_file_actions_adddup2(&actions, output_fd_, 2);
  posix_spawnattr_t attr;
  posix_spawnattr_init(&attr);
  posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETPGROUP);  // its own group, killed whole at a timeout
  posix_spawnattr_setpgroup(&attr, 0);

  TimedRun r;
  pid_t pid = 0;
  r.start_ns = clock.now_ns();
  int spawn_error = posix_spawn(&pid, argv_ptrs_[0], &actions, &attr, argv_ptrs_.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  posix_spawnattr_destroy(&attr);
  if (spawn_error != 0) {
    return Error::infra(fmt::format("command '{}': cannot start: {}", argv_[0], std::strerror(spawn_error)));
  }
  // glibc 2.36 declares pidfd_open without C linkage for C++: the syscall itself.
  int pidfd = static_cast<int>(::syscall(SYS_pidfd_open, pid, 0));
  if (pidfd < 0) {
    int e = errno;
    ::kill(pid, SIGKILL);
    ::waitpid(pid, nullptr, 0);
    return Error::infra(fmt::format("workload: pidfd_open: {}", std::strerror(e)));
  }
  // A stop request wakes the wait through an eventfd; without one
  // (eventfd failed) the request is noticed at the end of the iteration.
  int stopfd = stop.stop_possible() ? ::eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK) : -1;
  {
    std::stop_callback on_stop(stop, [stopfd] {
      if (stopfd < 0) return;
      std::uint64_t one = 1;
      ssize_t ignored = ::write(stopfd, &one, sizeof one);
      (void)ignored;
    });
    const int timeout_ms = static_cast<int>(std::min(std::ceil(timeout_s * 1000), 2e9));
    int woke = wait_child(pidfd, stopfd, timeout_ms);
    if (woke == 0) {
      r.timed_out = true;
      ::kill(-pid, SIGKILL);
    } else if (woke == 2) {
      r.stopped = true;
      ::kill(-pid, SIGTERM);
      if (wait_child(pidfd, -1, static_cast<int>(kStopGrace_s * 1000)) == 0) ::kill(-pid, SIGKILL);
    }
  }
  if (stopfd >= 0) ::close(stopfd);
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  r.end_ns = clock.now_ns();
  ::close(pidfd);
  if (WIFSIGNALED(status)) {
    r.end.signal = WTERMSIG(status);
  } else if (WIFEXITED(status)) {
    r.end.exit_code = WEXITSTATUS(status);
  }
  if (r.timed_out || r.end.signal != 0 || r.end.exit_code != 0) {
    struct stat st {};
    if (::fstat(output_fd_, &st) == 0 && st.st_size > 0) {
      const off_t from = st.st_size > static_cast<off_t>(tail_bytes) ? st.st_size - static_cast<off_t>(tail_bytes) : 0;
      r.output_tail.resize(static_cast<std::size_t>(st.st_size - from));
      ssize_t n = ::pread(output_fd_, r.output_tail.data(), r.output_tail.size(), from);
      r.output_tail.resize(n > 0 ? static_cast<std::size_t>(n) : 0);
    }
  }
  return r;
}

}  // namespace harness
