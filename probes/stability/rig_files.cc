#include "probes/stability/rig_files.h"

#include <dirent.h>
#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <charconv>
#include <cstring>
#include <set>

#include <fmt/format.h>

namespace harness {
namespace {

constexpr std::size_t kMaxFileBytes = 1 << 20;  // /proc/stat of a machine with many CPUs fits

std::string_view trim(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return s;
}

// A small file's text (sysfs and procfs files report a size of 0 or 4096,
// so the read goes to the end rather than to the size).
Probed<std::string> read_text(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) return Probed<std::string>::missing(fmt::format("{}: {}", path, std::strerror(errno)));
  std::string text;
  char buffer[8192];
  for (;;) {
    const ssize_t n = ::read(fd, buffer, sizeof buffer);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      const int err = errno;
      ::close(fd);
      return Probed<std::string>::missing(fmt::format("{}: {}", path, std::strerror(err)));
    }
    if (n == 0) break;
    text.append(buffer, static_cast<std::size_t>(n));
    if (text.size() > kMaxFileBytes) {
      ::close(fd);
      return Probed<std::string>::missing(fmt::format("{}: longer than {} bytes", path, kMaxFileBytes));
    }
  }
  ::close(fd);
  return Probed<std::string>::known(std::move(text));
}

template <class T>
std::optional<T> parse_number(std::string_view s) {
  T v{};
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || end != s.data() + s.size()) return std::nullopt;
  return v;
}

// A file holding one integer, scaled ("2100000" kHz -> 2.1e9 Hz).
Probed<double> read_scaled(const std::string& path, double scale) {
  Probed<std::string> text = read_text(path);
  if (!text) return Probed<double>::missing(text.unavailable);
  const std::string_view s = trim(*text.value);
  std::optional<std::int64_t> v = parse_number<std::int64_t>(s);
  if (!v) return Probed<double>::missing(fmt::format("{}: not a number: \"{}\"", path, s.substr(0, 40)));
  return Probed<double>::known(static_cast<double>(*v) * scale);
}

Probed<std::string> read_word(const std::string& path) {
  Probed<std::string> text = read_text(path);
  if (!text) return text;
  const std::string_view s = trim(*text.value);
  if (s.empty() || s.find_first_of(" \t\n") != std::string_view::npos)
    return Probed<std::string>::missing(fmt::format("{}: not one word: \"{}\"", path, s.substr(0, 40)));
  return Probed<std::string>::known(std::string(s));
}

// The names in a folder, or why it cannot be listed.
Probed<std::vector<std::string>> list_folder(const std::string& path) {
  DIR* dir = ::opendir(path.c_str());
  if (!dir) return Probed<std::vector<std::string>>::missing(fmt::format("{}: {}", path, std::strerror(errno)));
  std::vector<std::string> names;
  while (const dirent* e = ::readdir(dir)) {
    const std::string name = e->d_name;
    if (name != "." && name != "..") names.push_back(name);
  }
  ::closedir(dir);
  std::sort(names.begin(), names.end());
  return Probed<std::vector<std::string>>::known(std::move(names));
}

// "thermal_zone10" after "thermal_zone9".
bool numbered_before(const std::string& a, const std::string& b) {
  if (a.size() != b.size()) return a.size() < b.size();
  return a < b;
}

Probed<std::map<std::string, std::uint64_t>> read_throttles(const std::string& root, int cpu) {
  using Counts = Probed<std::map<std::string, std::uint64_t>>;
  const std::string dir = under_root(root, fmt::format("/sys/devices/system/cpu/cpu{}/thermal_throttle", cpu));
  Probed<std::vector<std::string>> names = list_folder(dir);
  if (!names) return Counts::missing(names.unavailable);
  constexpr std::string_view kSuffix = "_throttle_count";
  std::map<std::string, std::uint64_t> counts;
  for (const std::string& name : *names.value) {
    if (name.size() <= kSuffix.size() || name.compare(name.size() - kSuffix.size(), kSuffix.size(), kSuffix) != 0)
      continue;
    const std::string path = dir + "/" + name;
    Probed<std::string> text = read_text(path);
    if (!text) return Counts::missing(text.unavailable);
    std::optional<std::uint64_t> v = parse_number<std::uint64_t>(trim(*text.value));
    if (!v) return Counts::missing(fmt::format("{}: not a count: \"{}\"", path, trim(*text.value).substr(0, 40)));
    counts[name.substr(0, name.size() - kSuffix.size())] = *v;
  }
  if (counts.empty()) return Counts::missing(fmt::format("{}: no *_throttle_count files", dir));
  return Counts::known(std::move(counts));
}

std::string cpufreq_file(const std::string& root, int cpu, std::string_view name) {
  return under_root(root, fmt::format("/sys/devices/system/cpu/cpu{}/cpufreq/{}", cpu, name));
}

// Splits on blanks.
std::vector<std::string_view> words(std::string_view s) {
  std::vector<std::string_view> out;
  std::size_t i = 0;
  while (i < s.size()) {
    while (i < s.size() && (s[i] == ' ' || s[i] == '\t')) ++i;
    const std::size_t start = i;
    while (i < s.size() && s[i] != ' ' && s[i] != '\t' && s[i] != '\n') ++i;
    if (i > start) out.push_back(s.substr(start, i - start));
    if (i < s.size() && s[i] == '\n') break;
  }
  return out;
}

// /proc/stat's "cpuN user nice system idle iowait irq softirq steal ..." lines.
std::string read_proc_stat(const std::string& root, std::map<int, CpuTicks>& out) {
  const std::string path = under_root(root, "/proc/stat");
  Probed<std::string> text = read_text(path);
  if (!text) return text.unavailable;
  std::string_view rest = *text.value;
  int line_no = 0;
  while (!rest.empty()) {
    const std::size_t nl = rest.find('\n');
    const std::string_view line = rest.substr(0, nl);
    rest = nl == std::string_view::npos ? std::string_view{} : rest.substr(nl + 1);
    ++line_no;
    if (line.size() < 4 || line.substr(0, 3) != "cpu" || !std::isdigit(static_cast<unsigned char>(line[3]))) continue;
    std::vector<std::string_view> w = words(line);
    std::optional<int> cpu = parse_number<int>(w[0].substr(3));
    std::vector<std::uint64_t> f;
    for (std::size_t i = 1; i < w.size() && i <= 8; ++i)
      if (std::optional<std::uint64_t> v = parse_number<std::uint64_t>(w[i])) f.push_back(*v);
    if (!cpu || f.size() < 8) return fmt::format("{}:{}: not a cpu line with 8 counters: \"{}\"", path, line_no, line.substr(0, 60));
    // user nice system idle iowait irq softirq steal
    out[*cpu] = {f[0] + f[1] + f[2] + f[5] + f[6] + f[7], f[7]};
  }
  if (out.empty()) return fmt::format("{}: no cpuN lines", path);
  return {};
}

// /proc/<pid>/stat: "pid (comm) state ppid ... utime stime cutime cstime ... starttime ...".
// Empty: parsed; "gone": the process ended meanwhile; else why it is malformed.
std::string read_process(const std::string& path, ProcessTicks& p) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return errno == ENOENT || errno == ESRCH ? "gone" : fmt::format("{}: {}", path, std::strerror(errno));
  char buffer[1024];
  ssize_t n;
  do n = ::read(fd, buffer, sizeof buffer - 1);
  while (n < 0 && errno == EINTR);
  const int err = errno;
  ::close(fd);
  if (n < 0) return err == ESRCH ? "gone" : fmt::format("{}: {}", path, std::strerror(err));
  const std::string_view s(buffer, static_cast<std::size_t>(n));
  const std::size_t open = s.find('('), close = s.rfind(')');
  auto malformed = [&] { return fmt::format("{}: not a process stat line: \"{}\"", path, trim(s.substr(0, 60))); };
  if (open == std::string_view::npos || close == std::string_view::npos || close < open) return malformed();
  std::optional<int> pid = parse_number<int>(trim(s.substr(0, open)));
  std::vector<std::string_view> f = words(s.substr(close + 1));
  // f[0] is field 3 (state): ppid is field 4, utime..cstime 14..17, starttime 22.
  if (!pid || f.size() < 20) return malformed();
  std::optional<int> ppid = parse_number<int>(f[1]);
  std::optional<std::uint64_t> utime = parse_number<std::uint64_t>(f[11]), stime = parse_number<std::uint64_t>(f[12]);
  // cutime and cstime are signed in the kernel's format (long).
  std::optional<std::int64_t> cutime = parse_number<std::int64_t>(f[13]), cstime = parse_number<std::int64_t>(f[14]);
  std::optional<std::uint64_t> start = parse_number<std::uint64_t>(f[19]);
  if (!ppid || !utime || !stime || !cutime || !cstime || !start) return malformed();
  p.pid = *pid;
  p.ppid = *ppid;
  p.name = std::string(s.substr(open + 1, close - open - 1));
  p.used = *utime + *stime;
  p.reaped = static_cast<std::uint64_t>(std::max<std::int64_t>(0, *cutime + *cstime));
  p.start = *start;
  return {};
}

}  // namespace

std::string under_root(const std::string& root, std::string_view path) {
  std::string base = root;
  while (!base.empty() && base.back() == '/') base.pop_back();
  return base + std::string(path);
}

void read_current_frequencies(const std::string& root, std::vector<CpuClock>& cpus) {
  for (CpuClock& c : cpus) c.cur_hz = read_scaled(cpufreq_file(root, c.cpu, "scaling_cur_freq"), 1e3);
}

std::vector<CpuClock> read_cpu_clocks(const std::string& root, const std::vector<int>& cpus) {
  std::vector<CpuClock> out;
  for (int cpu : cpus) {
    CpuClock c;
    c.cpu = cpu;
    c.max_hz = read_scaled(cpufreq_file(root, cpu, "cpuinfo_max_freq"), 1e3);
    c.governor = read_word(cpufreq_file(root, cpu, "scaling_governor"));
    c.throttles = read_throttles(root, cpu);
    out.push_back(std::move(c));
  }
  read_current_frequencies(root, out);
  return out;
}

Probed<std::vector<ThermalZone>> read_thermal_zones(const std::string& root) {
  using Zones = Probed<std::vector<ThermalZone>>;
  const std::string dir = under_root(root, "/sys/class/thermal");
  Probed<std::vector<std::string>> names = list_folder(dir);
  if (!names) return Zones::missing(names.unavailable);
  std::vector<std::string> zones;
  for (const std::string& n : *names.value)
    if (n.rfind("thermal_zone", 0) == 0) zones.push_back(n);
  if (zones.empty()) return Zones::missing(fmt::format("{}: no thermal_zone* entries", dir));
  std::sort(zones.begin(), zones.end(), numbered_before);
  std::vector<ThermalZone> out;
  for (const std::string& zone : zones) {
    ThermalZone z;
    z.zone = zone;
    z.type = read_word(dir + "/" + zone + "/type").value.value_or("");
    z.celsius = read_scaled(dir + "/" + zone + "/temp", 1e-3);
    out.push_back(std::move(z));
  }
  return Zones::known(std::move(out));
}

Probed<LoadAverage> read_load_average(const std::string& root) {
  const std::string path = under_root(root, "/proc/loadavg");
  Probed<std::string> text = read_text(path);
  if (!text) return Probed<LoadAverage>::missing(text.unavailable);
  std::vector<std::string_view> w = words(trim(*text.value));
  std::optional<double> a, b, c;
  if (w.size() >= 3) {
    a = parse_number<double>(w[0]);
    b = parse_number<double>(w[1]);
    c = parse_number<double>(w[2]);
  }
  if (!a || !b || !c)
    return Probed<LoadAverage>::missing(fmt::format("{}: not three load averages: \"{}\"", path, trim(*text.value).substr(0, 40)));
  return Probed<LoadAverage>::known({*a, *b, *c});
}

Probed<std::string> read_boost(const std::string& root) {
  const std::string boost = under_root(root, "/sys/devices/system/cpu/cpufreq/boost");
  const std::string no_turbo = under_root(root, "/sys/devices/system/cpu/intel_pstate/no_turbo");
  Probed<std::string> b = read_word(boost);
  if (b) {
    if (*b.value == "0" || *b.value == "1") return Probed<std::string>::known(*b.value == "1" ? "on" : "off");
    return Probed<std::string>::missing(fmt::format("{}: neither 0 nor 1: \"{}\"", boost, *b.value));
  }
  Probed<std::string> t = read_word(no_turbo);
  if (t) {
    if (*t.value == "0" || *t.value == "1") return Probed<std::string>::known(*t.value == "0" ? "on" : "off");
    return Probed<std::string>::missing(fmt::format("{}: neither 0 nor 1: \"{}\"", no_turbo, *t.value));
  }
  return Probed<std::string>::missing(b.unavailable + "; " + t.unavailable);
}

Probed<std::string> read_isolated(const std::string& root) {
  Probed<std::string> text = read_text(under_root(root, "/sys/devices/system/cpu/isolated"));
  if (!text) return text;
  const std::string_view s = trim(*text.value);
  return Probed<std::string>::known(s.empty() ? "none" : std::string(s));
}

CpuSnapshot take_cpu_snapshot(const std::string& root, std::uint64_t t_ns) {
  CpuSnapshot snap;
  snap.t_ns = t_ns;
  snap.unavailable = read_proc_stat(root, snap.cpus);
  if (!snap.unavailable.empty()) return snap;
  const std::string proc = under_root(root, "/proc");
  DIR* dir = ::opendir(proc.c_str());
  if (!dir) {
    snap.unavailable = fmt::format("{}: {}", proc, std::strerror(errno));
    return snap;
  }
  while (const dirent* e = ::readdir(dir)) {
    const std::string_view name = e->d_name;
    if (name.empty() || !std::all_of(name.begin(), name.end(), [](char c) { return c >= '0' && c <= '9'; })) continue;
    ProcessTicks p;
    const std::string why = read_process(proc + "/" + std::string(name) + "/stat", p);
    if (why == "gone") continue;
    if (!why.empty()) {
      snap.unavailable = why;
      break;
    }
    snap.processes[p.pid] = std::move(p);
  }
  ::closedir(dir);
  return snap;
}

std::vector<int> own_process_tree(const CpuSnapshot& snap, int own_pid) {
  auto self = snap.processes.find(own_pid);
  if (self == snap.processes.end()) return {own_pid};
  int top = own_pid;
  for (std::set<int> seen{own_pid};;) {
    auto me = snap.processes.find(top);
    auto parent = snap.processes.find(me->second.ppid);
    if (parent == snap.processes.end() || parent->second.name != self->second.name || !seen.insert(parent->first).second)
      break;
    top = parent->first;
  }
  std::multimap<int, int> children;
  for (const auto& [pid, p] : snap.processes) children.emplace(p.ppid, pid);
  std::vector<int> tree{top};
  for (std::size_t i = 0; i < tree.size(); ++i) {
    auto [from, to] = children.equal_range(tree[i]);
    for (auto it = from; it != to; ++it)
      if (it->second != tree[i]) tree.push_back(it->second);
  }
  return tree;
}

Probed<CpuUse> cpu_use_between(const CpuSnapshot& before, const CpuSnapshot& after, const std::vector<int>& cpus,
                               int own_pid, double ticks_per_second, std::size_t top) {
  if (!before.unavailable.empty()) return Probed<CpuUse>::missing(before.unavailable);
  if (!after.unavailable.empty()) return Probed<CpuUse>::missing(after.unavailable);
  const double tick = 1 / ticks_per_second;
  auto since = [](std::uint64_t then, std::uint64_t now) { return now > then ? now - then : 0; };
  CpuUse use;
  use.seconds = static_cast<double>(since(before.t_ns, after.t_ns)) * 1e-9;
  use.cpus = static_cast<int>(cpus.size());
  if (use.seconds <= 0 || cpus.empty()) return Probed<CpuUse>::missing("no time passed between the two readings");
  for (int cpu : cpus) {
    auto a = before.cpus.find(cpu), b = after.cpus.find(cpu);
    if (a == before.cpus.end() || b == after.cpus.end())
      return Probed<CpuUse>::missing(fmt::format("/proc/stat: no line for cpu{}", cpu));
    use.busy_s += static_cast<double>(since(a->second.busy, b->second.busy)) * tick;
    use.steal_s += static_cast<double>(since(a->second.steal, b->second.steal)) * tick;
  }
  // A process in both snapshots counts what it used since; one that started
  // meanwhile (or a pid reused) counts all it used.
  auto used_since = [&](const ProcessTicks& p, bool with_reaped) {
    const std::uint64_t now = p.used + (with_reaped ? p.reaped : 0);
    auto then = before.processes.find(p.pid);
    if (then == before.processes.end() || then->second.start != p.start) return now;
    return since(then->second.used + (with_reaped ? then->second.reaped : 0), now);
  };
  const std::vector<int> own = own_process_tree(after, own_pid);
  const std::set<int> own_set(own.begin(), own.end());
  for (int pid : own) {
    auto p = after.processes.find(pid);
    if (p != after.processes.end()) use.own_s += static_cast<double>(used_since(p->second, true)) * tick;
  }
  for (const auto& [pid, p] : after.processes) {
    if (own_set.count(pid)) continue;
    const std::uint64_t ticks = used_since(p, false);
    if (ticks > 0) use.busiest.push_back({pid, p.name, static_cast<double>(ticks) * tick});
  }
  std::sort(use.busiest.begin(), use.busiest.end(), [](const BusyProcess& a, const BusyProcess& b) {
    return a.cpu_s != b.cpu_s ? a.cpu_s > b.cpu_s : a.pid < b.pid;
  });
  if (use.busiest.size() > top) use.busiest.resize(top);
  return Probed<CpuUse>::known(std::move(use));
}

// Clamped to the capacity: on a virtual machine the kernel's ticks (steal
// above all) can add up to a little more than the wall time between two
// readings.
double CpuUse::other_share() const {
  const double capacity = seconds * cpus;
  return capacity > 0 ? std::clamp((busy_s - own_s) / capacity, 0.0, 1.0) : 0;
}

double CpuUse::steal_share() const {
  const double capacity = seconds * cpus;
  return capacity > 0 ? steal_s / capacity : 0;
}

}  // namespace harness
