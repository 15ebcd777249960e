#include "probes/process.h"

#include <sys/wait.h>

#include <array>
#include <chrono>
#include <csignal>
#include <cstring>

#include <boost/asio.hpp>
#include <boost/process.hpp>
#include <boost/process/extend.hpp>
#include <fmt/format.h>

namespace harness {
namespace {

namespace bp = boost::process;
namespace asio = boost::asio;

// Appends what a pipe delivers to `sink`, up to `limit` bytes; keeps reading
// past the limit so that the child never blocks on a full pipe.
class PipeReader {
 public:
  PipeReader(bp::async_pipe& pipe, std::string& sink, std::size_t limit)
      : pipe_(pipe), sink_(sink), limit_(limit) {}
  void start() {
    pipe_.async_read_some(asio::buffer(chunk_), [this](const boost::system::error_code& ec, std::size_t n) {
      if (n > 0 && sink_.size() < limit_) sink_.append(chunk_.data(), std::min(n, limit_ - sink_.size()));
      if (!ec) start();
    });
  }

 private:
  bp::async_pipe& pipe_;
  std::string& sink_;
  std::size_t limit_;
  std::array<char, 4096> chunk_{};
};

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
  boost::filesystem::path p = bp::search_path(name);
  if (p.empty()) return Error::input(fmt::format("command '{}': not found in PATH", name));
  return p.string();
}

Result<CommandResult> run_command(const std::vector<std::string>& argv, const CommandOptions& options) {
  if (argv.empty()) return Error::input("empty command");
  Result<std::string> exe = find_executable(argv[0]);
  if (!exe) return exe.error();

  asio::io_context io;
  bp::async_pipe out_pipe(io), err_pipe(io);
  CommandResult result;
  std::vector<std::string> args(argv.begin() + 1, argv.end());
  auto start = std::chrono::steady_clock::now();
  std::error_code launch_error;
  bp::child child(bp::exe = *exe, bp::args = args, bp::std_out > out_pipe, bp::std_err > err_pipe,
                  bp::std_in < bp::null, launch_error);
  if (launch_error) {
    return Error::infra(fmt::format("command '{}': cannot start: {}", argv[0], launch_error.message()));
  }
  PipeReader out_reader(out_pipe, result.out, options.max_output);
  PipeReader err_reader(err_pipe, result.err, options.max_output);
  out_reader.start();
  err_reader.start();

  auto deadline = start + std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                              std::chrono::duration<double>(options.timeout_s));
  io.run_until(deadline);
  if (!io.stopped()) {
    // Still reading: the child (or a grandchild holding the pipes) outlived
    // the timeout.
    result.timed_out = true;
    std::error_code ec;
    child.terminate(ec);
    out_pipe.close();
    err_pipe.close();
  }
  std::error_code wait_error;
  if (child.valid() && !result.timed_out) child.wait(wait_error);
  result.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  int status = child.native_exit_code();
  if (!result.timed_out) {
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

#include <sys/types.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

namespace harness {
namespace {

// Puts the child in a process group of its own (pgid = its pid), so that
// signals to the group reach everything it forks (stress-ng's workers).
struct NewProcessGroup : boost::process::extend::handler {
  template <class Executor>
  void on_exec_setup(Executor&) const {
    ::setpgid(0, 0);
  }
};

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
  asio::io_context io;
  bp::async_pipe out{io}, err{io};
  bp::child child;
  std::thread reader;
  LineHandler on_line;
  std::size_t tail_bytes = 0;
  int pid = 0;

  mutable std::mutex mutex;  // guards the fields below
  std::string tail;
  std::string partial_line;
  int open_streams = 2;
  std::optional<ChildEnd> end;

  std::array<char, 4096> out_chunk{}, err_chunk{};

  void keep(const char* data, std::size_t n) {
    std::lock_guard lock(mutex);
    tail.append(data, n);
    if (tail.size() > tail_bytes) tail.erase(0, tail.size() - tail_bytes);
  }
  void read_out() {
    out.async_read_some(asio::buffer(out_chunk), [this](const boost::system::error_code& ec, std::size_t n) {
      if (n > 0) {
        keep(out_chunk.data(), n);
        partial_line.append(out_chunk.data(), n);  // only this thread touches it
        std::size_t start = 0, nl;
        while ((nl = partial_line.find('\n', start)) != std::string::npos) {
          if (on_line) on_line(std::string_view(partial_line).substr(start, nl - start));
          start = nl + 1;
        }
        partial_line.erase(0, start);
      }
      if (!ec) return read_out();
      if (!partial_line.empty() && on_line) on_line(partial_line);
      partial_line.clear();
      std::lock_guard lock(mutex);
      --open_streams;
    });
  }
  void read_err() {
    err.async_read_some(asio::buffer(err_chunk), [this](const boost::system::error_code& ec, std::size_t n) {
      if (n > 0) keep(err_chunk.data(), n);
      if (!ec) return read_err();
      std::lock_guard lock(mutex);
      --open_streams;
    });
  }
  // Reaps the child if it has ended (without blocking).
  std::optional<ChildEnd> poll() {
    std::lock_guard lock(mutex);
    if (end) return end;
    std::error_code ec;
    if (child.valid() && !child.running(ec) && !ec) end = end_from_status(child.native_exit_code());
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
  s->on_line = std::move(on_stdout_line);
  s->tail_bytes = tail_bytes;
  std::vector<std::string> args(argv.begin() + 1, argv.end());
  std::error_code launch_error;
  s->child = bp::child(bp::exe = *exe, bp::args = args, bp::std_out > s->out, bp::std_err > s->err,
                       bp::std_in < bp::null, NewProcessGroup{}, launch_error);
  if (launch_error) {
    return Error::infra(fmt::format("command '{}': cannot start: {}", argv[0], launch_error.message()));
  }
  s->pid = s->child.id();
  s->read_out();
  s->read_err();
  State* raw = s.get();
  s->reader = std::thread([raw] { raw->io.run(); });
  return std::unique_ptr<ChildProcess>(new ChildProcess(std::move(s)));
}

ChildProcess::~ChildProcess() {
  if (!state_) return;
  if (!state_->poll() || group_alive(state_->pid)) stop(1);
  // Grandchildren that escaped the group could hold the pipes: close them.
  asio::post(state_->io, [s = state_.get()] {
    boost::system::error_code ec;
    s->out.close(ec);
    s->err.close(ec);
  });
  if (state_->reader.joinable()) state_->reader.join();
}

int ChildProcess::pid() const { return state_->pid; }

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
  const int pgid = state_->pid;
  if (group_alive(pgid)) ::kill(-pgid, SIGTERM);
  auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(grace_s);
  // Wait for the child and then for the rest of its group to go.
  while (std::chrono::steady_clock::now() < deadline) {
    bool child_done = state_->poll().has_value();
    if (child_done && !group_alive(pgid)) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  if (group_alive(pgid)) ::kill(-pgid, SIGKILL);
  if (!state_->poll()) {
    std::error_code ec;
    state_->child.wait(ec);
    std::lock_guard lock(state_->mutex);
    state_->end = end_from_status(state_->child.native_exit_code());
  }
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
