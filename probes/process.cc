#include "probes/process.h"

#include <sys/wait.h>

#include <array>
#include <chrono>
#include <csignal>
#include <cstring>

#include <boost/asio.hpp>
#include <boost/process.hpp>
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
