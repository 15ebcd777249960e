#include "probes/power/power_source.h"

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <regex>
#include <thread>

#include <boost/asio.hpp>
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <sstream>

#include "harness/base/units.h"
#include "probes/clock.h"
#include "probes/power/sigrok_power.h"
#include "probes/process.h"

namespace harness {
namespace {

namespace fs = std::filesystem;
using Steady = std::chrono::steady_clock;

double seconds_since(Steady::time_point t0) {
  return std::chrono::duration<double>(Steady::now() - t0).count();
}

// One integer from a sysfs file, or the OS error naming the file.
Result<unsigned long long> read_sysfs_integer(const fs::path& path) {
  std::ifstream in(path);
  if (!in) return Error::infra(fmt::format("cannot read {}: {}", path.string(), std::strerror(errno)));
  unsigned long long v = 0;
  if (!(in >> v)) return Error::infra(fmt::format("{}: not an integer", path.string()));
  return v;
}

// A sysfs source read on demand: cumulative joules or watts.
class SysfsReader {
 public:
  virtual ~SysfsReader() = default;
  virtual std::string quantity() const = 0;
  virtual Result<double> read() = 0;
};

class RaplReader final : public SysfsReader {
 public:
  struct Zone {
    fs::path dir;
    unsigned long long range = 0;
    unsigned long long last = 0;
    double joules = 0;
    bool primed = false;
  };
  explicit RaplReader(std::vector<Zone> zones) : zones_(std::move(zones)) {}
  std::string quantity() const override { return "energy"; }
  Result<double> read() override {
    double total = 0;
    for (Zone& z : zones_) {
      Result<unsigned long long> raw = read_sysfs_integer(z.dir / "energy_uj");
      if (!raw) return raw.error();
      if (z.primed) z.joules += static_cast<double>(counter_delta(z.last, *raw, z.range)) * 1e-6;
      z.last = *raw;
      z.primed = true;
      total += z.joules;
    }
    return total;
  }

 private:
  std::vector<Zone> zones_;
};

class HwmonReader final : public SysfsReader {
 public:
  HwmonReader(fs::path file, bool energy) : file_(std::move(file)), energy_(energy) {}
  std::string quantity() const override { return energy_ ? "energy" : "power"; }
  Result<double> read() override {
    Result<unsigned long long> raw = read_sysfs_integer(file_);
    if (!raw) return raw.error();
    return static_cast<double>(*raw) * 1e-6;  // uJ -> J, uW -> W
  }

 private:
  fs::path file_;
  bool energy_;
};

// Reads a SysfsReader at the window's start, every interval on an Asio
// timer, and at the window's end.
class PolledRecorder final : public PowerRecorder {
 public:
  PolledRecorder(std::unique_ptr<SysfsReader> reader, std::string source, double interval_s)
      : reader_(std::move(reader)), interval_(std::chrono::duration_cast<Steady::duration>(
                                         std::chrono::duration<double>(interval_s))) {
    trace_.source = std::move(source);
    trace_.quantity = reader_->quantity();
  }
  ~PolledRecorder() override { halt(); }
  const std::string& describe() const override { return trace_.source; }
  std::uint64_t covered_until_ns() override {
    std::lock_guard lock(mutex_);
    return trace_.t_s.empty() ? 0 : trace_.start_ns + static_cast<std::uint64_t>(trace_.t_s.back() * 1e9);
  }

  Status begin() override {
    halt();  // one recorder serves every condition's window in turn
    {
      std::lock_guard lock(mutex_);
      trace_.t_s.clear();
      trace_.value.clear();
      trace_.unavailable.clear();
    }
    io_.restart();
    stopping_ = false;
    trace_.start_ns = MonotonicClock().now_ns();
    start_ = Steady::now();
    sample();
    if (!trace_.unavailable.empty()) return ok();
    next_ = start_ + interval_;
    schedule();
    thread_ = std::thread([this] { io_.run(); });
    return ok();
  }

  PowerTrace end() override {
    halt();
    sample();
    return trace_;
  }

 private:
  void schedule() {
    timer_.expires_at(next_);
    timer_.async_wait([this](const boost::system::error_code& ec) {
      // A cancel cannot recall a wait that already completed: the flag can.
      if (ec || stopping_) return;
      sample();
      next_ += interval_;  // stays aligned to the window's start
      schedule();
    });
  }
  void sample() {
    std::lock_guard lock(mutex_);
    if (!trace_.unavailable.empty()) return;
    Result<double> v = reader_->read();
    if (!v) {
      trace_.unavailable = v.error().message;
      return;
    }
    trace_.t_s.push_back(seconds_since(start_));
    trace_.value.push_back(*v);
  }
  void halt() {
    if (!thread_.joinable()) return;
    boost::asio::post(io_, [this] {
      stopping_ = true;
      timer_.cancel();
    });
    thread_.join();
  }

  std::unique_ptr<SysfsReader> reader_;
  Steady::duration interval_;
  boost::asio::io_context io_;
  boost::asio::steady_timer timer_{io_};
  std::thread thread_;
  bool stopping_ = false;  // touched on the timer's thread only (and before it starts)
  std::mutex mutex_;
  Steady::time_point start_, next_;
  PowerTrace trace_;
};

// A meter command running during the window, one reading per line.
class MeterRecorder final : public PowerRecorder {
 public:
  explicit MeterRecorder(const PowerConfig& c) : config_(c) {
    source_ = fmt::format("meter:{}", c.command.front());
  }
  const std::string& describe() const override { return source_; }
  std::uint64_t covered_until_ns() override {
    std::lock_guard lock(mutex_);
    return trace_.t_s.empty() ? 0 : trace_.start_ns + static_cast<std::uint64_t>(trace_.t_s.back() * 1e9);
  }

  Status begin() override {
    trace_ = PowerTrace{};
    trace_.source = source_;
    trace_.start_ns = MonotonicClock().now_ns();
    start_ = Steady::now();
    Result<std::unique_ptr<ChildProcess>> child =
        ChildProcess::start(config_.command, [this](std::string_view line) { on_line(line); });
    if (!child) return child.error().within("power meter");
    child_ = std::move(*child);
    return ok();
  }

  PowerTrace end() override {
    if (child_) {
      // A meter that already stopped on its own is fine if it reported.
      if (std::optional<ChildEnd> e = child_->ended(); e && (e->signal != 0 || e->exit_code != 0)) {
        child_->wait_output_closed(0.5);
        std::lock_guard lock(mutex_);
        if (trace_.unavailable.empty()) {
          trace_.unavailable = fmt::format("power meter {} ended during the window ({}); last output: {}",
                                           config_.command.front(), e->describe(), child_->output_tail());
        }
      }
      child_->stop(1);
      child_.reset();
    }
    std::lock_guard lock(mutex_);
    if (trace_.unavailable.empty() && trace_.value.empty()) {
      trace_.unavailable = fmt::format("power meter {} printed no reading during the window", config_.command.front());
    }
    return trace_;
  }

 private:
  void on_line(std::string_view raw) {
    const double t = seconds_since(start_);
    std::string line(raw);
    line.erase(0, line.find_first_not_of(" \t\r"));
    line.erase(line.find_last_not_of(" \t\r") + 1);
    if (line.empty()) return;
    std::string text = line;
    if (!config_.unit.empty() && line.find_first_not_of("0123456789.eE+-") == std::string::npos) {
      text += " " + config_.unit;
    }
    std::lock_guard lock(mutex_);
    if (!trace_.unavailable.empty()) return;
    Result<Quantity> q = parse_quantity(text);
    std::string quantity;
    if (q && q->dimension == Dimension::power) quantity = "power";
    if (q && q->dimension == Dimension::energy) quantity = "energy";
    if (quantity.empty()) {
      trace_.unavailable = fmt::format("power meter {}: cannot read watts or joules from the line \"{}\"",
                                       config_.command.front(), line);
      return;
    }
    if (trace_.quantity.empty()) trace_.quantity = quantity;
    if (trace_.quantity != quantity) {
      trace_.unavailable = fmt::format("power meter {}: the line \"{}\" changes from {} to {}",
                                       config_.command.front(), line, trace_.quantity, quantity);
      return;
    }
    trace_.t_s.push_back(t);
    trace_.value.push_back(q->value);
  }

  PowerConfig config_;
  std::string source_;
  std::unique_ptr<ChildProcess> child_;
  std::mutex mutex_;
  Steady::time_point start_;
  PowerTrace trace_;
};

// A CSV power trace recorded by an external logger with wall-clock times:
// the rows inside the window are taken at its end.
class TraceRecorder final : public PowerRecorder {
 public:
  explicit TraceRecorder(std::string file) : file_(std::move(file)), source_("trace:" + file_) {}
  const std::string& describe() const override { return source_; }
  // The logger's rows are read at the window's end: nothing to wait for.
  std::uint64_t covered_until_ns() override { return UINT64_MAX; }
  Status begin() override {
    start_ns_ = MonotonicClock().now_ns();
    begin_ = unix_now();
    return ok();
  }
  PowerTrace end() override {
    const double end = unix_now();
    PowerTrace t;
    t.source = source_;
    t.quantity = "power";
    t.start_ns = start_ns_;
    std::ifstream in(file_);
    if (!in) {
      t.unavailable = fmt::format("cannot read power trace {}: {}", file_, std::strerror(errno));
      return t;
    }
    std::string line;
    int number = 0;
    while (std::getline(in, line)) {
      ++number;
      double when = 0, watts = 0;
      char comma = 0;
      std::istringstream row(line);
      if (!(row >> when >> comma >> watts) || comma != ',') {
        if (number == 1) continue;  // a header
        t.unavailable = fmt::format("{}:{}: expected \"unix_time_s,watts\", got \"{}\"", file_, number, line);
        return t;
      }
      if (when >= begin_ && when <= end) {
        t.t_s.push_back(when - begin_);
        t.value.push_back(watts);
      }
    }
    if (t.value.empty()) t.unavailable = fmt::format("power trace {} has no row inside the measured window", file_);
    return t;
  }

 private:
  static double unix_now() {
    return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
  }
  std::string file_, source_;
  double begin_ = 0;
  std::uint64_t start_ns_ = 0;
};

Result<PowerOpen> open_rapl(const PowerConfig& c) {
  fs::path root = c.root.empty() ? fs::path("/sys/class/powercap") : fs::path(c.root);
  std::error_code ec;
  std::vector<fs::path> dirs;
  static const std::regex top_level_zone("(intel|amd)-rapl:[0-9]+");
  for (const fs::directory_entry& e : fs::directory_iterator(root, ec)) {
    if (std::regex_match(e.path().filename().string(), top_level_zone)) dirs.push_back(e.path());
  }
  if (dirs.empty()) return PowerOpen{nullptr, fmt::format("no powercap/RAPL zone under {}", root.string())};
  std::sort(dirs.begin(), dirs.end());
  std::vector<RaplReader::Zone> zones;
  std::vector<std::string> names;
  for (const fs::path& d : dirs) {
    RaplReader::Zone z;
    z.dir = d;
    Result<unsigned long long> range = read_sysfs_integer(d / "max_energy_range_uj");
    if (!range) return PowerOpen{nullptr, range.error().message};
    Result<unsigned long long> probe = read_sysfs_integer(d / "energy_uj");
    if (!probe) return PowerOpen{nullptr, probe.error().message};
    z.range = *range;
    zones.push_back(z);
    names.push_back(d.filename().string());
  }
  std::string source = fmt::format("rapl:{} ({})", root.string(), fmt::join(names, "+"));
  return PowerOpen{std::make_unique<PolledRecorder>(std::make_unique<RaplReader>(std::move(zones)), source,
                                                    c.interval_s), ""};
}

Result<PowerOpen> open_hwmon(const PowerConfig& c) {
  fs::path root = c.root.empty() ? fs::path("/sys/class/hwmon") : fs::path(c.root);
  static const std::regex energy_file("energy[0-9]+_input"), power_file("power[0-9]+_input");
  fs::path chosen;
  if (!c.sensor.empty()) {
    chosen = root / c.sensor;
    std::string name = chosen.filename().string();
    if (!std::regex_match(name, energy_file) && !std::regex_match(name, power_file)) {
      return Error::input(fmt::format("latency.power: sensor \"{}\" is neither an energy*_input nor a power*_input file",
                                      c.sensor));
    }
    if (!fs::exists(chosen)) return PowerOpen{nullptr, fmt::format("no hwmon sensor {}", chosen.string())};
  } else {
    std::vector<fs::path> energy, power;
    std::error_code ec;
    for (const fs::directory_entry& dev : fs::directory_iterator(root, ec)) {
      std::error_code ec2;
      for (const fs::directory_entry& f : fs::directory_iterator(dev.path(), ec2)) {
        std::string name = f.path().filename().string();
        if (std::regex_match(name, energy_file)) energy.push_back(f.path());
        if (std::regex_match(name, power_file)) power.push_back(f.path());
      }
    }
    std::sort(energy.begin(), energy.end());
    std::sort(power.begin(), power.end());
    if (!energy.empty()) {
      chosen = energy.front();  // a counter integrates between readings: preferred
    } else if (!power.empty()) {
      chosen = power.front();
    } else {
      return PowerOpen{nullptr, fmt::format("no hwmon power or energy sensor under {}", root.string())};
    }
  }
  bool is_energy = std::regex_match(chosen.filename().string(), energy_file);
  Result<unsigned long long> probe = read_sysfs_integer(chosen);
  if (!probe) return PowerOpen{nullptr, probe.error().message};
  return PowerOpen{std::make_unique<PolledRecorder>(std::make_unique<HwmonReader>(chosen, is_energy),
                                                    "hwmon:" + chosen.string(), c.interval_s), ""};
}

Result<PowerOpen> open_meter(const PowerConfig& c) {
  Result<std::string> exe = find_executable(c.command.front());
  if (!exe) return exe.error().within("latency.power meter");
  return PowerOpen{std::make_unique<MeterRecorder>(c), ""};
}

Result<PowerOpen> open_trace(const PowerConfig& c) {
  if (!fs::exists(c.file)) return Error::input(fmt::format("latency.power trace {}: no such file", c.file));
  return PowerOpen{std::make_unique<TraceRecorder>(c.file), ""};
}

Result<PowerOpen> open_auto(const PowerConfig& c) {
  PowerConfig rapl = c, hwmon = c;
  rapl.root = "";
  hwmon.root = "";
  if (!c.root.empty()) {  // a test tree with powercap/ and hwmon/ below it
    rapl.root = (fs::path(c.root) / "powercap").string();
    hwmon.root = (fs::path(c.root) / "hwmon").string();
  }
  Result<PowerOpen> r = open_rapl(rapl);
  if (!r || r->recorder) return r;
  Result<PowerOpen> h = open_hwmon(hwmon);
  if (!h || h->recorder) return h;
  return PowerOpen{nullptr, r->unavailable + "; " + h->unavailable};
}

struct PowerSourceEntry {
  std::string_view name;
  std::string_view description;
  Result<PowerOpen> (*open)(const PowerConfig&);
};

constexpr PowerSourceEntry kPowerSources[] = {
    {"auto", "rapl if present, else hwmon", &open_auto},
    {"rapl", "powercap/RAPL energy_uj counters of every package zone", &open_rapl},
    {"hwmon", "a hwmon energy*_input or power*_input sensor", &open_hwmon},
    {"meter", "an external command printing watts or joules per line", &open_meter},
    {"trace", "a CSV power trace recorded by an external logger", &open_trace},
    {"sigrok", "a libsigrok multimeter, power-supply or energy-meter driver's analog channels", &open_sigrok_power},
};

}  // namespace

Result<PowerOpen> open_power_source(const PowerConfig& config) {
  if (config.source == "none") return PowerOpen{nullptr, "no power source configured"};
  for (const PowerSourceEntry& e : kPowerSources) {
    if (e.name == config.source) return e.open(config);
  }
  return Error::input(fmt::format("latency.power: unknown source \"{}\"", config.source));
}

std::vector<std::string> power_source_names() {
  std::vector<std::string> out{"none"};
  for (const PowerSourceEntry& e : kPowerSources) out.emplace_back(e.name);
  return out;
}

}  // namespace harness
