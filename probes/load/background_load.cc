#include "probes/load/background_load.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

namespace harness {
namespace {

std::string last_output(std::string tail) {
  while (!tail.empty() && (tail.back() == '\n' || tail.back() == ' ')) tail.pop_back();
  return tail.empty() ? "(none)" : tail;
}

}  // namespace

Result<std::unique_ptr<BackgroundLoad>> BackgroundLoad::start(const std::vector<std::string>& argv) {
  std::string command = fmt::format("{}", fmt::join(argv, " "));
  Result<std::unique_ptr<ChildProcess>> child = ChildProcess::start(argv, {}, 4096);
  if (!child) return child.error().within(fmt::format("load \"{}\"", command));
  return std::unique_ptr<BackgroundLoad>(new BackgroundLoad(command, std::move(*child)));
}

Status BackgroundLoad::check_alive() {
  if (std::optional<ChildEnd> end = child_->ended()) {
    child_->wait_output_closed(0.5);
    return Error::infra(fmt::format("load \"{}\" stopped during the measured window ({}); last output: {}",
                                    command_, end->describe(), last_output(child_->output_tail())));
  }
  return ok();
}

LoadOutcome BackgroundLoad::stop(double grace_s) {
  LoadOutcome out;
  out.command = command_;
  out.end = child_->stop(grace_s);
  out.output = child_->output_tail();
  return out;
}

Status check_load_command(const std::vector<std::string>& argv) {
  if (argv.empty()) return ok();
  Result<std::string> exe = find_executable(argv[0]);
  if (exe) return ok();
  std::string hint;
  if (argv[0] == "stress-ng") hint = "; install the Debian package stress-ng (scripts/install-deps)";
  return Error::input(exe.error().message + hint);
}

}  // namespace harness
