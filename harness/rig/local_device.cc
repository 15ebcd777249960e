#include "harness/rig/local_device.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <optional>
#include <cstring>
#include <fstream>

#include <fmt/format.h>

#include "probes/counters/session.h"
#include "probes/device_context.h"
#include "probes/workload/cpu_pinning.h"
#include "probes/workload/workload_runner.h"

namespace harness {
namespace {

// Iterations go back in batches, every 250 ms or every 65536 iterations
// (under 1 MB as the protocol encodes them, well inside a message's bound).
constexpr std::size_t kBatchMax = 65536;
constexpr std::uint64_t kBatchPeriodNs = 250'000'000;

std::string os_release(const std::string& path = "/etc/os-release") {
  std::ifstream in(path);
  if (!in) return fmt::format("unavailable: {}: {}", path, std::strerror(errno));
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("PRETTY_NAME=", 0) != 0) continue;
    std::string v = line.substr(12);
    if (v.size() >= 2 && (v.front() == '"' || v.front() == '\'')) v = v.substr(1, v.size() - 2);
    return v;
  }
  return "unavailable: no PRETTY_NAME in " + path;
}

}  // namespace

DeviceInfo describe_this_device(const std::vector<VersionCommand>& versions) {
  DeviceInfo info;
  info.harness_version = HARNESS_VERSION;
  info.context = host_context();
  info.context["os_release"] = os_release();
  collect_versions(versions, info.context);
  // counters.window: level 2 read at the edges of a workload window (IterationPlan::counters).
  info.capabilities = {"workload", "counters", "counters.window", "roofline", "load", "file", "stability"};
  if (find_executable("stress-ng")) {
    info.capabilities.push_back("stress-ng");
  } else {
    info.missing.push_back("stress-ng: not found in PATH (load conditions that run it will fail)");
  }
  std::ifstream paranoid("/proc/sys/kernel/perf_event_paranoid");
  int level = 0;
  if (paranoid >> level) {
    info.context["perf_event_paranoid"] = std::to_string(level);
    if (level > 2 && geteuid() != 0) {
      info.missing.push_back(fmt::format("perf_event: perf_event_paranoid is {} and the agent is not root: "
                                         "counters of the workload cannot be opened", level));
    } else {
      info.capabilities.push_back("perf_event");
    }
  } else {
    info.missing.push_back("perf_event: /proc/sys/kernel/perf_event_paranoid is unreadable: no perf_event support");
  }
  return info;
}

LocalDevice::LocalDevice(Clock& clock, const std::vector<VersionCommand>& versions, std::string stability_root)
    : clock_(clock), info_(describe_this_device(versions)), stability_root_(std::move(stability_root)) {}

LocalDevice::~LocalDevice() { stop_all_loads(); }

Result<WorkloadWindow> LocalDevice::run_workload(const Workload& workload, const IterationPlan& plan,
                                                 const IterationSink& sink, std::stop_token stop) {
  // Pinned first, so that a command the runner starts inherits the CPUs.
  Result<CpuPin> pinned = CpuPin::to(workload.cpus, workload.first_cpu);
  if (!pinned) return pinned.error();
  // Level 2 in this window: opened in this thread before the workload starts,
  // so that perf events count it and (following children) what it starts.
  std::optional<CounterSession> session;
  std::int64_t counter_windows = 0;
  if (plan.counters) {
    CounterSourceOptions options;
    options.follow_children = workload.kind == Workload::Kind::command;
    Result<CounterSession> opened = CounterSession::open(plan.counters->session_sources(), options);
    if (!opened) return opened.error();
    session = std::move(*opened);
    counter_windows = std::clamp<std::int64_t>(plan.counters->windows, 1, plan.iterations);
  }
  std::vector<std::int64_t> read_at;  // iterations done at each reading between windows
  Result<std::unique_ptr<WorkloadRunner>> made = make_workload_runner(workload, clock_);
  if (!made) return made.error();
  WorkloadRunner& runner = **made;
  runner.set_stop_token(stop);
  HARNESS_TRY(runner.start());
  struct StopOnExit {
    WorkloadRunner& r;
    ~StopOnExit() { r.stop(); }
  } stop_on_exit{runner};

  for (std::int64_t i = 0; i < plan.warmup; ++i) {
    if (stop.stop_requested()) return interrupted_error();
    Result<IterationSample> s = runner.next(plan.iteration_timeout_s);
    if (!s) return s.error();
  }
  WorkloadWindow window;
  if (session) session->read_before();  // the window's leading edge
  window.measuring_ns = clock_.now_ns();
  const std::uint64_t timeout_ns = static_cast<std::uint64_t>(plan.run_timeout_s * 1e9);
  const std::uint64_t min_ns = static_cast<std::uint64_t>(plan.min_duration_s * 1e9);
  std::uint64_t last_end = window.measuring_ns, last_flush = window.measuring_ns;
  IterationBatch batch;
  auto flush = [&] {
    if (batch.start_ns.empty()) return;
    sink(batch);
    batch.start_ns.clear();
    batch.end_ns.clear();
  };
  Status status = ok();
  const std::int64_t most = most_iterations(plan);
  while ((window.iterations < plan.iterations || last_end - window.measuring_ns < min_ns) && window.iterations < most) {
    if (stop.stop_requested()) {
      status = interrupted_error();
      break;
    }
    if (last_end - window.measuring_ns > timeout_ns) {  // the last iteration's end: no extra clock reading
      status = Error::infra(fmt::format("the measured window timed out after {:.3g} s with {} of {} iterations",
                                        plan.run_timeout_s, window.iterations, plan.iterations));
      break;
    }
    Result<IterationSample> s = runner.next(plan.iteration_timeout_s);
    if (!s) {
      status = s.error();
      break;
    }
    const auto latency_ns = static_cast<std::uint64_t>(s->latency_s * 1e9 + 0.5);
    batch.start_ns.push_back(s->end_ns - std::min(latency_ns, s->end_ns));
    batch.end_ns.push_back(s->end_ns);
    ++window.iterations;
    last_end = std::max(last_end, s->end_ns);
    const std::int64_t k = static_cast<std::int64_t>(read_at.size());
    if (session && k + 1 < counter_windows && window.iterations == window_end(plan.iterations, counter_windows, k)) {
      session->read_between(window.iterations);
      read_at.push_back(window.iterations);
    }
    if (batch.start_ns.size() >= kBatchMax || last_end - last_flush >= kBatchPeriodNs) {
      flush();
      last_flush = last_end;
    }
  }
  if (session && status) {  // the trailing edge, before the last batch goes out
    session->read_after();
    CountersRecording& c = window.counters.emplace();
    c.iterations = window.iterations;
    c.windows = static_cast<std::int64_t>(read_at.size()) + 1;
    for (std::size_t k = 0; k <= read_at.size(); ++k) {
      const std::int64_t end = k < read_at.size() ? read_at[k] : window.iterations;
      c.window_iterations.push_back(end - (k == 0 ? 0 : read_at[k - 1]));
    }
    for (const CounterGroup& g : plan.counters->groups) c.groups.push_back({g.name, g.path, g.sha256});
    c.readings = session->readings();
    if (c.readings.empty()) c.unavailable = "the counter groups define no counters";
  }
  flush();
  window.end_ns = last_end;
  if (!status) return status.error();
  return window;
}

// measure_counters and measure_roofline: measure_counters.cc, measure_roofline.cc.

Result<int> LocalDevice::start_load(const std::vector<std::string>& argv) {
  Result<std::unique_ptr<BackgroundLoad>> started = BackgroundLoad::start(argv);
  if (!started) return started.error();
  std::lock_guard lock(loads_mutex_);
  int id = next_load_++;
  loads_[id] = std::move(*started);
  return id;
}

Status LocalDevice::check_load(int id) {
  std::lock_guard lock(loads_mutex_);
  auto it = loads_.find(id);
  if (it == loads_.end()) return Error::infra(fmt::format("no load {} on the device", id));
  return it->second->check_alive();
}

Result<LoadStopped> LocalDevice::stop_load(int id) {
  std::unique_ptr<BackgroundLoad> load;
  {
    std::lock_guard lock(loads_mutex_);
    auto it = loads_.find(id);
    if (it == loads_.end()) return Error::infra(fmt::format("no load {} on the device", id));
    load = std::move(it->second);
    loads_.erase(it);
  }
  LoadOutcome o = load->stop();
  return LoadStopped{o.end.describe(), o.output};
}

void LocalDevice::stop_all_loads() {
  std::map<int, std::unique_ptr<BackgroundLoad>> loads;
  {
    std::lock_guard lock(loads_mutex_);
    loads.swap(loads_);
  }
  for (auto& [id, load] : loads) (void)load->stop(1);
}

Status LocalDevice::begin_stability(const StabilityPlan& plan) {
  StabilityProbeOptions options;
  options.root = stability_root_;
  options.cpus = plan.cpus;
  if (plan.cpus.empty() && plan.first_cpu) {
    const std::vector<int> allowed = allowed_cpus();
    if (!allowed.empty()) options.cpus = {allowed.front()};
  }
  std::lock_guard lock(stability_mutex_);
  stability_.reset();  // an earlier series left open ends here
  stability_ = std::make_unique<StabilitySampler>(std::move(options), clock_, canary_, plan.interval_s);
  return ok();
}

Result<std::vector<StabilityReading>> LocalDevice::end_stability() {
  std::lock_guard lock(stability_mutex_);
  if (!stability_) return Error::infra("stability readings: none were begun");
  std::vector<StabilityReading> readings = stability_->finish();
  stability_.reset();
  return readings;
}

Result<std::string> LocalDevice::fetch_file(const std::string& path, std::uint64_t max_bytes) {
  // Only a regular file: a FIFO or a device node would block or never end.
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) return Error::input(fmt::format("device file {}: {}", path, std::strerror(errno)));
  struct Closer {
    int fd;
    ~Closer() { ::close(fd); }
  } closer{fd};
  struct stat st{};
  if (fstat(fd, &st) != 0) return Error::infra(fmt::format("device file {}: {}", path, std::strerror(errno)));
  if (!S_ISREG(st.st_mode)) return Error::input(fmt::format("device file {}: not a regular file", path));
  if (static_cast<std::uint64_t>(st.st_size) > max_bytes) {
    return Error::input(fmt::format("device file {}: {} bytes, over the limit of {} bytes", path, st.st_size,
                                    max_bytes));
  }
  std::string data(static_cast<std::size_t>(st.st_size), '\0');
  std::size_t got = 0;
  while (got < data.size()) {
    ssize_t n = ::read(fd, data.data() + got, data.size() - got);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return Error::infra(fmt::format("device file {}: {}", path, std::strerror(errno)));
    if (n == 0) break;
    got += static_cast<std::size_t>(n);
  }
  data.resize(got);
  return data;
}

}  // namespace harness
