#include "probes/workload/workload_runner.h"

#include <condition_variable>
#include <deque>
#include <mutex>
#include <regex>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "harness/base/bounded_json.h"
#include "probes/kernels.h"
#include "probes/process.h"
#include "probes/workload/timed_spawn.h"

namespace harness {
namespace {

constexpr std::size_t kTailBytes = 400;

std::string last_output(std::string text) {
  if (text.size() > kTailBytes) text = text.substr(text.size() - kTailBytes);
  while (!text.empty() && (text.back() == '\n' || text.back() == ' ')) text.pop_back();
  return text.empty() ? "(none)" : text;
}

// A built-in kernel, timed around each run. An in-process iteration cannot
// be interrupted: the per-iteration timeout, and a stop request, are
// checked once it returns (between iterations).
class BuiltinRunner final : public WorkloadRunner {
 public:
  BuiltinRunner(std::unique_ptr<KernelInstance> kernel, std::string source, Clock& clock)
      : kernel_(std::move(kernel)), source_(std::move(source)), clock_(clock) {}
  const std::string& source() const override { return source_; }
  Result<IterationSample> next(double timeout_s) override {
    const std::uint64_t t0 = clock_.now_ns();
    kernel_->run();
    const std::uint64_t t1 = clock_.now_ns();
    if (stop_.stop_requested()) return Error::infra("interrupted");
    const double latency = static_cast<double>(t1 - t0) * 1e-9;
    if (latency > timeout_s) {
      return Error::infra(fmt::format("workload {}: an iteration took {:.3g} s, over the per-iteration timeout of "
                                      "{:.3g} s", source_, latency, timeout_s));
    }
    return IterationSample{latency, t1};
  }

 private:
  std::unique_ptr<KernelInstance> kernel_;
  std::string source_;
  Clock& clock_;
};

// A command started once per iteration; its latency is the process's, from
// spawn to reap, as seen by the harness (timed_spawn.h says why not
// run_command here).
class CommandRunner final : public WorkloadRunner {
 public:
  CommandRunner(std::unique_ptr<TimedSpawner> spawner, std::string name, Clock& clock)
      : spawner_(std::move(spawner)), name_(std::move(name)), source_("command:" + name_), clock_(clock) {}
  const std::string& source() const override { return source_; }
  Result<IterationSample> next(double timeout_s) override {
    Result<TimedRun> r = spawner_->run(clock_, timeout_s, kTailBytes, stop_);
    if (!r) return r.error().within("workload");
    if (r->stopped) return Error::infra("interrupted");
    if (r->timed_out) {
      return Error::infra(fmt::format("workload {} did not finish within the per-iteration timeout of {:.3g} s and "
                                      "was killed; last output: {}", name_, timeout_s, last_output(r->output_tail)));
    }
    if (r->end.signal != 0 || r->end.exit_code != 0) {
      return Error::infra(fmt::format("workload {} {}; last output: {}", name_, r->end.describe(),
                                      last_output(r->output_tail)));
    }
    return IterationSample{static_cast<double>(r->end_ns - r->start_ns) * 1e-9, r->end_ns};
  }

 private:
  std::unique_ptr<TimedSpawner> spawner_;
  std::string name_;  // as the scenario writes it
  std::string source_;
  Clock& clock_;
};

// A long-running command printing one line per iteration; lines are read on
// the child's reader thread and handed over through a queue.
class StreamRunner final : public WorkloadRunner {
 public:
  StreamRunner(std::vector<std::string> argv, LatencyReport report, std::string name, Clock& clock)
      : argv_(std::move(argv)), report_(std::move(report)), name_(std::move(name)), source_("stream:" + name_),
        clock_(clock) {
    if (!report_.pattern.empty()) pattern_ = std::regex(report_.pattern, std::regex::ECMAScript);
  }
  ~StreamRunner() override { stop(); }
  const std::string& source() const override { return source_; }

  Status start() override {
    Result<std::unique_ptr<ChildProcess>> child =
        ChildProcess::start(argv_, [this](std::string_view line) { on_line(line); }, 4096);
    if (!child) return child.error().within("workload");
    child_ = std::move(*child);
    return ok();
  }

  Result<IterationSample> next(double timeout_s) override {
    const auto deadline = std::chrono::steady_clock::now() +
                          std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                              std::chrono::duration<double>(timeout_s));
    std::unique_lock lock(mutex_);
    while (queue_.empty() && !bad_line_) {
      if (child_->output_closed()) break;
      // Wake now and then to notice the end of output.
      if (ready_.wait_until(lock, std::min(deadline, std::chrono::steady_clock::now() + std::chrono::milliseconds(20)),
                            [&] { return !queue_.empty() || bad_line_; })) {
        break;
      }
      if (stop_.stop_requested()) {
        lock.unlock();
        child_->stop(1);
        return Error::infra("interrupted");
      }
      if (std::chrono::steady_clock::now() >= deadline) {
        lock.unlock();
        ChildEnd end = child_->stop(1);
        return Error::infra(fmt::format("workload {} reported no iteration within the per-iteration timeout of "
                                        "{:.3g} s and was stopped ({}); last output: {}",
                                        name_, timeout_s, end.describe(), last_output(child_->output_tail())));
      }
    }
    if (bad_line_) {
      std::string line = *bad_line_;
      lock.unlock();
      child_->stop(1);
      return Error::infra(fmt::format("workload {}: cannot read a latency from the line \"{}\" ({})", name_,
                                      line, report_.pattern.empty() ? "field " + report_.json_field
                                                                    : "pattern " + report_.pattern));
    }
    if (!queue_.empty()) {
      IterationSample s = queue_.front();
      queue_.pop_front();
      ++taken_;
      return s;
    }
    lock.unlock();
    // Output ended: the command ended or is about to.
    std::optional<ChildEnd> end = child_->wait_for(1);
    if (!end) end = child_->stop(1);
    child_->wait_output_closed(0.5);
    return Error::infra(fmt::format("workload {} ended after reporting {} iterations ({}); last output: {}",
                                    name_, taken_, end->describe(), last_output(child_->output_tail())));
  }

  void stop() override {
    if (child_ && !child_->ended()) child_->stop(1);
  }

 private:
  // Lines that are not reports pass by; a report whose number does not
  // parse ends the run, since the reports are then not what the scenario says.
  void on_line(std::string_view line) {
    const std::uint64_t now = clock_.now_ns();
    std::optional<double> value;
    bool bad = false;
    if (!report_.pattern.empty()) {
      std::match_results<std::string_view::const_iterator> m;
      if (std::regex_search(line.begin(), line.end(), m, pattern_)) {
        try {
          std::size_t used = 0;
          std::string number = m[1].str();
          value = std::stod(number, &used);
          if (used != number.size()) bad = true;
        } catch (const std::exception&) {
          bad = true;
        }
      }
    } else {
      // Log lines and other JSON objects pass by; the field, when present,
      // must hold a number.
      Result<nlohmann::json> parsed = parse_bounded_json(line, name_, {.bytes = kMaxWorkloadLineBytes});
      if (!parsed || !parsed->is_object() || !parsed->contains(report_.json_field)) return;
      const nlohmann::json& field = (*parsed)[report_.json_field];
      if (field.is_number()) {
        value = field.get<double>();
      } else {
        bad = true;
      }
    }
    std::lock_guard lock(mutex_);
    if (bad || (value && !(*value >= 0))) {
      if (!bad_line_) bad_line_ = std::string(line);
    } else if (value) {
      queue_.push_back({*value * report_.unit_s, now});
    }
    ready_.notify_all();
  }

  std::vector<std::string> argv_;
  LatencyReport report_;
  std::regex pattern_;
  std::string name_;
  std::string source_;
  Clock& clock_;
  std::unique_ptr<ChildProcess> child_;
  std::mutex mutex_;
  std::condition_variable ready_;
  std::deque<IterationSample> queue_;
  std::optional<std::string> bad_line_;
  std::int64_t taken_ = 0;
};

}  // namespace

Result<std::unique_ptr<WorkloadRunner>> make_workload_runner(const Workload& w, Clock& clock) {
  if (w.kind == Workload::Kind::builtin) {
    Result<std::unique_ptr<KernelInstance>> kernel = make_kernel(w.builtin);
    if (!kernel) return kernel.error().within("workload");
    return std::unique_ptr<WorkloadRunner>(
        std::make_unique<BuiltinRunner>(std::move(*kernel), "builtin:" + w.builtin.kind, clock));
  }
  if (w.command.empty()) return Error::input("workload: empty command");
  Result<std::string> exe = find_executable(w.command.front());
  if (!exe) return exe.error().within("workload");
  std::vector<std::string> argv = w.command;
  argv.front() = *exe;
  if (w.report.active()) {
    return std::unique_ptr<WorkloadRunner>(
        std::make_unique<StreamRunner>(argv, w.report, w.command.front(), clock));
  }
  Result<std::unique_ptr<TimedSpawner>> spawner = TimedSpawner::create(argv);
  if (!spawner) return spawner.error();
  return std::unique_ptr<WorkloadRunner>(
      std::make_unique<CommandRunner>(std::move(*spawner), w.command.front(), clock));
}

Status check_workload_command(const Workload& w) {
  if (w.kind != Workload::Kind::command || w.command.empty()) return ok();
  Result<std::string> exe = find_executable(w.command.front());
  if (!exe) return exe.error().within("workload");
  return ok();
}

}  // namespace harness
