#include "probes/rig/agent_link.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <thread>

#include <fmt/format.h>

extern char** environ;

namespace harness {
namespace {

constexpr std::size_t kStderrTail = 4096;

ChildEnd end_from_status(int status) {
  ChildEnd e;
  if (WIFEXITED(status)) e.exit_code = WEXITSTATUS(status);
  if (WIFSIGNALED(status)) e.signal = WTERMSIG(status);
  return e;
}

}  // namespace

Result<std::unique_ptr<AgentLink>> AgentLink::start(const std::vector<std::string>& argv, std::size_t max_line) {
  if (argv.empty()) return Error::input("rig transport: empty command");
  Result<std::string> exe = find_executable(argv[0]);
  if (!exe) return exe.error().within("rig transport");
  int in[2], out[2], err[2];
  if (pipe2(in, O_CLOEXEC) != 0) return Error::infra(fmt::format("rig transport: pipe: {}", std::strerror(errno)));
  if (pipe2(out, O_CLOEXEC) != 0 || pipe2(err, O_CLOEXEC) != 0) {
    return Error::infra(fmt::format("rig transport: pipe: {}", std::strerror(errno)));
  }
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, in[0], 0);
  posix_spawn_file_actions_adddup2(&actions, out[1], 1);
  posix_spawn_file_actions_adddup2(&actions, err[1], 2);
  posix_spawnattr_t attr;
  posix_spawnattr_init(&attr);
  posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK);
  posix_spawnattr_setpgroup(&attr, 0);
  sigset_t none, defaults;
  sigemptyset(&none);
  posix_spawnattr_setsigmask(&attr, &none);
  sigemptyset(&defaults);
  for (int s : {SIGPIPE, SIGINT, SIGTERM, SIGHUP}) sigaddset(&defaults, s);
  posix_spawnattr_setsigdefault(&attr, &defaults);
  std::vector<char*> args;
  for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  auto link = std::unique_ptr<AgentLink>(new AgentLink());
  int rc = posix_spawn(&link->pid_, exe->c_str(), &actions, &attr, args.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  posix_spawnattr_destroy(&attr);
  ::close(in[0]);
  ::close(out[1]);
  ::close(err[1]);
  if (rc != 0) {
    ::close(in[1]);
    ::close(out[0]);
    ::close(err[0]);
    return Error::infra(fmt::format("rig transport: cannot start {}: {}", argv[0], std::strerror(rc)));
  }
  link->in_fd_ = in[1];
  link->out_fd_ = out[0];
  link->err_fd_ = err[0];
  fcntl(link->err_fd_, F_SETFL, O_NONBLOCK);
  link->max_line_ = max_line;
  return link;
}

AgentLink::~AgentLink() {
  if (pid_ > 0 && !end_) close(1);
  for (int fd : {in_fd_, out_fd_, err_fd_})
    if (fd >= 0) ::close(fd);
}

Status AgentLink::send(const std::string& line) {
  if (in_fd_ < 0) return Error::infra("the link to the agent is closed");
  // A write to a link whose reader is gone raises SIGPIPE, which would end
  // the harness: block it on this thread for the write, and take a pending
  // one back before unblocking. The write then fails with EPIPE, a value.
  sigset_t pipe_only, previous;
  sigemptyset(&pipe_only);
  sigaddset(&pipe_only, SIGPIPE);
  sigset_t pending;
  sigpending(&pending);
  const bool was_pending = sigismember(&pending, SIGPIPE);
  pthread_sigmask(SIG_BLOCK, &pipe_only, &previous);
  std::string data = line + "\n";
  int error = 0;
  for (std::size_t done = 0; done < data.size();) {
    ssize_t n = ::write(in_fd_, data.data() + done, data.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      error = errno;
      break;
    }
    done += static_cast<std::size_t>(n);
  }
  if (error == EPIPE && !was_pending) {
    const timespec zero{0, 0};
    while (sigtimedwait(&pipe_only, nullptr, &zero) < 0 && errno == EINTR) {
    }
  }
  pthread_sigmask(SIG_SETMASK, &previous, nullptr);
  if (error) return Error::infra(fmt::format("writing to the agent: {}", std::strerror(error)));
  return ok();
}

void AgentLink::drain_stderr() {
  char chunk[4096];
  for (;;) {
    ssize_t n = ::read(err_fd_, chunk, sizeof chunk);
    if (n <= 0) return;
    err_tail_.append(chunk, static_cast<std::size_t>(n));
    if (err_tail_.size() > kStderrTail) err_tail_.erase(0, err_tail_.size() - kStderrTail);
  }
}

Result<AgentLink::Got> AgentLink::receive(double timeout_s, std::string& line) {
  using Clock = std::chrono::steady_clock;
  const auto deadline = Clock::now() + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(timeout_s));
  for (;;) {
    std::size_t nl = buffer_.find('\n');
    if (nl != std::string::npos) {
      line = buffer_.substr(0, nl);
      buffer_.erase(0, nl + 1);
      return Got::line;
    }
    if (buffer_.size() > max_line_) {
      return Error::infra(fmt::format("the agent sent a line over {} bytes", max_line_));
    }
    if (out_fd_ < 0) return Got::closed;
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count();
    if (left < 0) return Got::timeout;
    pollfd fds[2] = {{out_fd_, POLLIN, 0}, {err_fd_, POLLIN, 0}};
    int n = ::poll(fds, 2, static_cast<int>(std::min<long long>(left, 1000)));
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return Error::infra(fmt::format("poll on the agent link: {}", std::strerror(errno)));
    if (fds[1].revents) drain_stderr();
    if (!(fds[0].revents & (POLLIN | POLLHUP | POLLERR))) continue;
    char chunk[65536];
    ssize_t got = ::read(out_fd_, chunk, sizeof chunk);
    if (got < 0 && errno == EINTR) continue;
    if (got <= 0) {
      ::close(out_fd_);
      out_fd_ = -1;
      drain_stderr();
      continue;  // a last line without newline is dropped; the next turn says closed
    }
    buffer_.append(chunk, static_cast<std::size_t>(got));
  }
}

std::optional<ChildEnd> AgentLink::wait_end(double seconds) {
  if (end_) return end_;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
  for (;;) {
    int status = 0;
    pid_t r = ::waitpid(pid_, &status, WNOHANG);
    if (r == pid_) {
      end_ = end_from_status(status);
      ::kill(-pid_, SIGKILL);  // whatever the transport left in its group
      return end_;
    }
    if (r < 0) {
      end_ = ChildEnd{};
      return end_;
    }
    if (std::chrono::steady_clock::now() >= deadline) return std::nullopt;
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
}

std::string AgentLink::stderr_tail() {
  if (err_fd_ >= 0) drain_stderr();
  std::string t = err_tail_;
  while (!t.empty() && (t.back() == '\n' || t.back() == '\r' || t.back() == ' ')) t.pop_back();
  return t;
}

ChildEnd AgentLink::close(double grace_s) {
  if (in_fd_ >= 0) {
    ::close(in_fd_);
    in_fd_ = -1;
  }
  if (auto e = wait_end(grace_s)) return *e;
  ::kill(-pid_, SIGTERM);
  if (auto e = wait_end(1)) return *e;
  ::kill(-pid_, SIGKILL);
  return wait_end(5).value_or(ChildEnd{});
}

}  // namespace harness
