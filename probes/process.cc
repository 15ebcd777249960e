#include "probes/process.h"

#include <fcntl.h>
#include <poll.h>
#include <spawn.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <sstream>
#include <thread>

#include <fmt/format.h>

extern char** environ;

namespace harness {
namespace {

// A started child: its pid and the read ends of its stdout and stderr.
struct Spawned {
  pid_t pid = -1;
  int out = -1, err = -1;
};

// posix_spawn (plain POSIX, so that the static device agent needs no
// process library): stdin from /dev/null or a file, stdout and stderr into pipes; in a
// process group of its own (pgid = its pid) when asked, so that signals to
// the group reach everything it forks (stress-ng's workers).
Result<Spawned> spawn(const std::string& exe, const std::vector<std::string>& argv, bool own_group,
                      const std::string& stdin_path = "") {
  int out[2], err[2];
  if (::pipe2(out, O_CLOEXEC) != 0) return Error::infra(fmt::format("command '{}': pipe: {}", argv[0], std::strerror(errno)));
  if (::pipe2(err, O_CLOEXEC) != 0) {
    int e = errno;
    ::close(out[0]);
    ::close(out[1]);
    return Error::infra(fmt::format("command '{}': pipe: {}", argv[0], std::strerror(e)));
  }
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 0, stdin_path.empty() ? "/dev/null" : stdin_path.c_str(), O_RDONLY, 0);
  posix_spawn_file_actions_adddup2(&actions, out[1], 1);
  posix_spawn_file_actions_adddup2(&actions, err[1], 2);
  posix_spawnattr_t attr;
  posix_spawnattr_init(&attr);
  if (own_group) {
    posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETPGROUP);
    posix_spawnattr_setpgroup(&attr, 0);
  }
  std::vector<char*> args;
  for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  Spawned s;
  int rc = ::posix_spawn(&s.pid, exe.c_str(), &actions, &attr, args.data(), environ);
  posix_spawnattr_destroy(&attr);
  posix_spawn_file_actions_destroy(&actions);
  ::close(out[1]);
  ::close(err[1]);
  if (rc != 0) {
    ::close(out[0]);
    ::close(err[0]);
    return Error::infra(fmt::format("command '{}': cannot start: {}", argv[0], std::strerror(rc)));
  }
  s.out = out[0];
  s.err = err[0];
  return s;
}

// Reads what is there; false at the end of the stream (or on an error).
bool read_some(int fd, std::string& chunk) {
  char buf[4096];
  while (true) {
    ssize_t n = ::read(fd, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    chunk.assign(buf, static_cast<std::size_t>(n));
    return true;
  }
}

pid_t wait_pid(pid_t pid, int* status, int flags) {
  pid_t r;
  do {
    r = ::waitpid(pid, status, flags);
  } while (r < 0 && errno == EINTR);
  return r;
}

}  // namespace

std::string CommandResult::describe_end() const {
  if (timed_out) return fmt::format("timed out after {:.3g} s and was killed", seconds);
  if (signal != 0) return fmt::format("killed by signal {} ({})", signal, strsignal(signal));
  return fmt::format("exit status {}", exit_code);
}

Result<std::string> find_executable(const std::string& name) {
  if (name.empty()) return Error::input("empty command name");
  if (name.find('/') != std::string::npos) {
    if (access(name.c_str(), X_OK) != 0) {
      return Error::input(fmt::format("command '{}': {}", name, std::strerror(errno)));
    }
    return name;
  }
  const char* path = std::getenv("PATH");
  std::string dirs = path ? path : "/usr/local/bin:/usr/bin:/bin";
  std::size_t from = 0;
  while (from <= dirs.size()) {
    std::size_t colon = std::min(dirs.find(':', from), dirs.size());
    std::string dir = dirs.substr(from, colon - from);
    std::string candidate = (dir.empty() ? std::string(".") : dir) + "/" + name;
    std::error_code ec;
    if (std::filesystem::is_regular_file(candidate, ec) && ::access(candidate.c_str(), X_OK) == 0) return candidate;
    from = colon + 1;
  }
  return Error::input(fmt::format("command '{}': not found in PATH", name));
}

Result<CommandResult> run_command(const std::vector<std::string>& argv, const CommandOptions& options) {
  if (argv.empty()) return Error::input("empty command");
  Result<std::string> exe = find_executable(argv[0]);
  if (!exe) return exe.error();
  CommandResult result;
  auto start = std::chrono::steady_clock::now();
  auto deadline = start + std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                              std::chrono::duration<double>(options.timeout_s));
  if (!options.stdin_path.empty() && ::access(options.stdin_path.c_str(), R_OK) != 0) {
    return Error::input(fmt::format("command '{}': its input {}: {}", argv[0], options.stdin_path, std::strerror(errno)));
  }
  Result<Spawned> child = spawn(*exe, argv, false, options.stdin_path);
  if (!child) return child.error();
  pollfd fds[2] = {{child->out, POLLIN, 0}, {child->err, POLLIN, 0}};
  std::string* sinks[2] = {&result.out, &result.err};
  int open = 2;
  std::string chunk;
  while (open > 0) {
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) {
      // Still reading: the child (or a grandchild holding the pipes)
      // outlived the timeout.
      result.timed_out = true;
      break;
    }
    int n = ::poll(fds, 2, static_cast<int>(std::min<long long>(left.count() + 1, 1000)));
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) break;
    for (int i = 0; i < 2; ++i) {
      if (fds[i].fd < 0 || !(fds[i].revents & (POLLIN | POLLHUP | POLLERR))) continue;
      // Keeps reading past the limit so that the child never blocks on a full pipe.
      if (read_some(fds[i].fd, chunk)) {
        std::string& sink = *sinks[i];
        if (sink.size() < options.max_output) sink.append(chunk, 0, std::min(chunk.size(), options.max_output - sink.size()));
        continue;
      }
      ::close(fds[i].fd);
      fds[i].fd = -1;
      --open;
    }
  }
  if (result.timed_out) ::kill(child->pid, SIGKILL);
  for (pollfd& p : fds) {
    if (p.fd >= 0) ::close(p.fd);
  }
  int status = 0;
  pid_t reaped = wait_pid(child->pid, &status, 0);
  result.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (!result.timed_out && reaped == child->pid) {
    if (WIFSIGNALED(status)) {
      result.signal = WTERMSIG(status);
    } else if (WIFEXITED(status)) {
      result.exit_code = WEXITSTATUS(status);
    }
  }
  return result;
}

}  // namespace harness

// ---------------------------------------------------------------------------
// ChildProcess

namespace harness {
namespace {

ChildEnd end_from_status(int status) {
  ChildEnd e;
  if (WIFSIGNALED(status)) {
    e.signal = WTERMSIG(status);
  } else if (WIFEXITED(status)) {
    e.exit_code = WEXITSTATUS(status);
  }
  return e;
}

// True while a live (not zombie) process of the group exists. kill(-pgid, 0)
// alone would also count zombies that wait for a slow init to reap them.
bool group_alive(int pgid) {
  if (pgid <= 0 || ::kill(-pgid, 0) != 0) return false;
  std::error_code ec;
  for (const auto& e : std::filesystem::directory_iterator("/proc", ec)) {
    const std::string name = e.path().filename().string();
    if (name.find_first_not_of("0123456789") != std::string::npos) continue;
    std::ifstream in(e.path() / "stat");
    std::string stat((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    const std::size_t close = stat.rfind(')');  // the command name may hold spaces
    if (close == std::string::npos || close + 2 >= stat.size()) continue;
    std::istringstream rest(stat.substr(close + 2));
    std::string state;
    int ppid = 0, pgrp = 0;
    if (rest >> state >> ppid >> pgrp && pgrp == pgid && state != "Z" && state != "X") return true;
  }
  return false;
}

}  // namespace

std::string ChildEnd::describe() const {
  if (signal != 0) return fmt::format("killed by signal {} ({})", signal, strsignal(signal));
  return fmt::format("exit status {}", exit_code);
}

struct ChildProcess::State {
  Spawned child;
  int wake[2] = {-1, -1};  // written by the destructor: stop reading
  std::thread reader;
  LineHandler on_line;
  std::size_t tail_bytes = 0;
  std::string partial_line;  // only the reader thread touches it

  mutable std::mutex mutex;  // guards the fields below
  std::string tail;
  int open_streams = 2;
  std::optional<ChildEnd> end;

  ~State() {
    for (int fd : {child.out, child.err, wake[0], wake[1]}) {
      if (fd >= 0) ::close(fd);
    }
  }
  void keep(const std::string& data) {
    std::lock_guard lock(mutex);
    tail.append(data);
    if (tail.size() > tail_bytes) tail.erase(0, tail.size() - tail_bytes);
  }
  void lines(const std::string& data) {
    partial_line.append(data);
    std::size_t start = 0, nl;
    while ((nl = partial_line.find('\n', start)) != std::string::npos) {
      if (on_line) on_line(std::string_view(partial_line).substr(start, nl - start));
      start = nl + 1;
    }
    partial_line.erase(0, start);
  }
  void stream_ended(int& fd, bool is_stdout) {
    if (is_stdout && !partial_line.empty() && on_line) on_line(partial_line);
    if (is_stdout) partial_line.clear();
    ::close(fd);
    std::lock_guard lock(mutex);
    fd = -1;
    --open_streams;
  }
  // The reader thread: both streams until their ends, or until the
  // destructor wakes it (grandchildren that escaped the group could hold
  // the pipes open).
  void read_loop() {
    std::string chunk;
    while (true) {
      pollfd fds[3] = {{child.out, POLLIN, 0}, {child.err, POLLIN, 0}, {wake[0], POLLIN, 0}};
      if (fds[0].fd < 0 && fds[1].fd < 0) return;
      int n = ::poll(fds, 3, -1);
      if (n < 0 && errno == EINTR) continue;
      if (n < 0 || (fds[2].revents & POLLIN)) break;
      for (int i = 0; i < 2; ++i) {
        if (fds[i].fd < 0 || !(fds[i].revents & (POLLIN | POLLHUP | POLLERR))) continue;
        int& fd = i == 0 ? child.out : child.err;
        if (!read_some(fd, chunk)) {
          stream_ended(fd, i == 0);
          continue;
        }
        keep(chunk);
        if (i == 0) lines(chunk);
      }
    }
    if (child.out >= 0) stream_ended(child.out, true);
    if (child.err >= 0) stream_ended(child.err, false);
  }
  // Reaps the child if it has ended (without blocking).
  std::optional<ChildEnd> poll() {
    std::lock_guard lock(mutex);
    if (end) return end;
    int status = 0;
    if (wait_pid(child.pid, &status, WNOHANG) == child.pid) end = end_from_status(status);
    return end;
  }
};

ChildProcess::ChildProcess(std::unique_ptr<State> state) : state_(std::move(state)) {}

Result<std::unique_ptr<ChildProcess>> ChildProcess::start(const std::vector<std::string>& argv,
                                                          LineHandler on_stdout_line, std::size_t tail_bytes) {
  if (argv.empty()) return Error::input("empty command");
  Result<std::string> exe = find_executable(argv[0]);
  if (!exe) return exe.error();
  auto s = std::make_unique<State>();
  if (::pipe2(s->wake, O_CLOEXEC) != 0) {
    return Error::infra(fmt::format("command '{}': pipe: {}", argv[0], std::strerror(errno)));
  }
  s->on_line = std::move(on_stdout_line);
  s->tail_bytes = tail_bytes;
  Result<Spawned> child = spawn(*exe, argv, true);
  if (!child) return child.error();
  s->child = *child;
  State* raw = s.get();
  s->reader = std::thread([raw] { raw->read_loop(); });
  return std::unique_ptr<ChildProcess>(new ChildProcess(std::move(s)));
}

ChildProcess::~ChildProcess() {
  if (!state_) return;
  if (!state_->poll() || group_alive(state_->child.pid)) stop(1);
  [[maybe_unused]] ssize_t n = ::write(state_->wake[1], "x", 1);
  if (state_->reader.joinable()) state_->reader.join();
}

int ChildProcess::pid() const { return state_->child.pid; }

std::optional<ChildEnd> ChildProcess::ended() { return state_->poll(); }

std::optional<ChildEnd> ChildProcess::wait_for(double seconds) {
  auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
  while (true) {
    if (auto e = state_->poll()) return e;
    if (std::chrono::steady_clock::now() >= deadline) return std::nullopt;
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
}

ChildEnd ChildProcess::stop(double grace_s) {
  const int pgid = state_->child.pid;
  if (group_alive(pgid)) ::kill(-pgid, SIGTERM);
  auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(grace_s);
  // Wait for the child and then for the rest of its group to go.
  while (std::chrono::steady_clock::now() < deadline) {
    bool child_done = state_->poll().has_value();
    if (child_done && !group_alive(pgid)) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  if (group_alive(pgid)) ::kill(-pgid, SIGKILL);
  while (!state_->poll()) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  // SIGKILLed group members are reaped by init once the child is gone.
  auto kill_deadline = std::chrono::steady_clock::now() + std::chrono::seconds(1);
  while (group_alive(pgid) && std::chrono::steady_clock::now() < kill_deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  wait_output_closed(0.5);  // the last words of the group, for messages
  return *state_->poll();
}

std::string ChildProcess::output_tail() const {
  std::lock_guard lock(state_->mutex);
  return state_->tail;
}

bool ChildProcess::wait_output_closed(double seconds) const {
  auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
  while (!output_closed()) {
    if (std::chrono::steady_clock::now() >= deadline) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  return true;
}

bool ChildProcess::output_closed() const {
  std::lock_guard lock(state_->mutex);
  return state_->open_streams == 0;
}

}  // namespace harness
