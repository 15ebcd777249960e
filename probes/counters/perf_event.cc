#include "probes/counters/perf_event.h"

#include <linux/perf_event.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <charconv>
#include <cstring>
#include <fstream>
#include <sstream>

#include <fmt/format.h>

#include "harness/base/closest_match.h"

namespace harness {
namespace {

struct NamedEvent {
  const char* name;
  std::uint32_t type;
  std::uint64_t config;
};

// perf's own names (tools/perf/util/parse-events.c) for generic events.
constexpr NamedEvent kGenericEvents[] = {
    {"cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES},
    {"cpu-cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES},
    {"instructions", PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS},
    {"cache-references", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CACHE_REFERENCES},
    {"cache-misses", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CACHE_MISSES},
    {"branch-instructions", PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_INSTRUCTIONS},
    {"branches", PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_INSTRUCTIONS},
    {"branch-misses", PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_MISSES},
    {"bus-cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_BUS_CYCLES},
    {"stalled-cycles-frontend", PERF_TYPE_HARDWARE, PERF_COUNT_HW_STALLED_CYCLES_FRONTEND},
    {"stalled-cycles-backend", PERF_TYPE_HARDWARE, PERF_COUNT_HW_STALLED_CYCLES_BACKEND},
    {"ref-cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_REF_CPU_CYCLES},
    {"cpu-clock", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_CLOCK},
    {"task-clock", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK},
    {"page-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS},
    {"faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS},
    {"context-switches", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CONTEXT_SWITCHES},
    {"cs", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CONTEXT_SWITCHES},
    {"cpu-migrations", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_MIGRATIONS},
    {"migrations", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_MIGRATIONS},
    {"minor-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS_MIN},
    {"major-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS_MAJ},
    {"alignment-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_ALIGNMENT_FAULTS},
    {"emulation-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_EMULATION_FAULTS},
};

struct CacheWord {
  const char* name;
  std::uint64_t id;
};
constexpr CacheWord kCaches[] = {{"L1-dcache", PERF_COUNT_HW_CACHE_L1D}, {"L1-icache", PERF_COUNT_HW_CACHE_L1I},
                                 {"LLC", PERF_COUNT_HW_CACHE_LL},        {"dTLB", PERF_COUNT_HW_CACHE_DTLB},
                                 {"iTLB", PERF_COUNT_HW_CACHE_ITLB},     {"branch", PERF_COUNT_HW_CACHE_BPU},
                                 {"node", PERF_COUNT_HW_CACHE_NODE}};
struct CacheOp {
  const char* plural;    // "loads": all accesses
  const char* singular;  // "load-misses": misses
  std::uint64_t id;
};
constexpr CacheOp kCacheOps[] = {{"loads", "load", PERF_COUNT_HW_CACHE_OP_READ},
                                 {"stores", "store", PERF_COUNT_HW_CACHE_OP_WRITE},
                                 {"prefetches", "prefetch", PERF_COUNT_HW_CACHE_OP_PREFETCH}};

// "<cache>-<op>s" counts accesses, "<cache>-<op>-misses" misses, as perf names them.
std::vector<NamedEvent> all_named_events() {
  static std::vector<std::string> storage = [] {
    std::vector<std::string> names;
    for (const CacheWord& c : kCaches) {
      for (const CacheOp& op : kCacheOps) {
        names.push_back(fmt::format("{}-{}", c.name, op.plural));
        names.push_back(fmt::format("{}-{}-misses", c.name, op.singular));
      }
    }
    return names;
  }();
  std::vector<NamedEvent> out(std::begin(kGenericEvents), std::end(kGenericEvents));
  std::size_t i = 0;
  for (const CacheWord& c : kCaches) {
    for (const CacheOp& op : kCacheOps) {
      std::uint64_t base = c.id | (op.id << 8);
      out.push_back({storage[i++].c_str(), PERF_TYPE_HW_CACHE, base | (PERF_COUNT_HW_CACHE_RESULT_ACCESS << 16)});
      out.push_back({storage[i++].c_str(), PERF_TYPE_HW_CACHE, base | (PERF_COUNT_HW_CACHE_RESULT_MISS << 16)});
    }
  }
  return out;
}

const std::vector<NamedEvent>& named_events() {
  static const std::vector<NamedEvent> events = all_named_events();
  return events;
}

template <class T>
std::optional<T> parse_number(std::string_view s, int base_hint = 0) {
  if (s.empty()) return std::nullopt;
  int base = 10;
  if (base_hint == 16) {
    base = 16;
  } else if (s.size() > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
    base = 16;
    s.remove_prefix(2);
  }
  T v{};
  auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), v, base);
  if (ec != std::errc() || ptr != s.data() + s.size()) return std::nullopt;
  return v;
}

std::string trim(std::string s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.pop_back();
  std::size_t b = 0;
  while (b < s.size() && std::isspace(static_cast<unsigned char>(s[b]))) ++b;
  return s.substr(b);
}

Result<std::string> read_small_file(const std::string& path) {
  std::ifstream in(path);
  if (!in) return Error::infra(fmt::format("cannot read {}: {}", path, std::strerror(errno)));
  std::ostringstream s;
  s << in.rdbuf();
  return trim(s.str());
}

std::string errno_text(int e) {
  const char* name = strerrorname_np(e);
  return fmt::format("{} ({})", std::strerror(e), name ? name : std::to_string(e));
}

long perf_event_open(perf_event_attr* attr, pid_t pid, int cpu, int group_fd, unsigned long flags) {
  return syscall(SYS_perf_event_open, attr, pid, cpu, group_fd, flags);
}

class PerfEventSource final : public CounterSource {
 public:
  PerfEventSource(std::string name, bool user_only) : name_(std::move(name)), user_only_(user_only) {}
  ~PerfEventSource() override {
    for (const Slot& s : slots_)
      if (s.fd >= 0) close(s.fd);
  }

  void add_refused(std::string reason) { slots_.push_back({-1, std::move(reason), false}); }
  void add_open(int fd, bool leader) { slots_.push_back({fd, "", leader}); }

  // Starts every group (each leader with its members) counting.
  Status enable() {
    for (const Slot& s : slots_) {
      if (s.fd < 0 || !s.leader) continue;
      if (ioctl(s.fd, PERF_EVENT_IOC_ENABLE, PERF_IOC_FLAG_GROUP) != 0) {
        return Error::infra(fmt::format("perf_event source {}: enabling the counters failed: {}", name_,
                                        errno_text(errno)));
      }
    }
    return ok();
  }
  void set_user_only() { user_only_ = true; }

  std::vector<CounterSample> read() override {
    std::vector<CounterSample> out;
    for (const Slot& s : slots_) {
      if (s.fd < 0) {
        out.push_back(CounterSample::missing(s.refused));
        continue;
      }
      std::uint64_t buf[3] = {0, 0, 0};
      ssize_t n = ::read(s.fd, buf, sizeof buf);
      if (n != static_cast<ssize_t>(sizeof buf)) {
        out.push_back(CounterSample::missing(
            n < 0 ? fmt::format("reading the perf event failed: {}", errno_text(errno))
                  : fmt::format("reading the perf event returned {} bytes, expected {}", n, sizeof buf)));
        continue;
      }
      CounterSample sample;
      sample.value = buf[0];
      sample.enabled_ns = buf[1];
      sample.running_ns = buf[2];
      out.push_back(sample);
    }
    return out;
  }

  std::string describe() const override {
    return user_only_ ? fmt::format("perf_event:{} (user space only)", name_) : fmt::format("perf_event:{}", name_);
  }

 private:
  struct Slot {
    int fd = -1;
    std::string refused;
    bool leader = false;
  };
  std::string name_;
  bool user_only_ = false;
  std::vector<Slot> slots_;
};

}  // namespace

const std::vector<std::string>& perf_event_names() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> out;
    for (const NamedEvent& e : named_events()) out.emplace_back(e.name);
    return out;
  }();
  return names;
}

Result<PerfEventCode> parse_perf_event_name(std::string_view name) {
  for (const NamedEvent& e : named_events()) {
    if (name == e.name) return PerfEventCode{e.type, e.config, "", ""};
  }
  if (auto slash = name.find('/'); slash != std::string_view::npos) {
    std::string_view left = name.substr(0, slash);
    std::string_view right = name.substr(slash + 1);
    if (!right.empty() && right.back() == '/') right.remove_suffix(1);  // "msr/tsc/" as perf writes it
    if (left.empty() || right.empty()) {
      return Error::input(fmt::format("perf event '{}': expected <type>/<config> or <pmu>/<event>", name));
    }
    auto type = parse_number<std::uint32_t>(left);
    auto config = parse_number<std::uint64_t>(right);
    if (type && config) return PerfEventCode{*type, *config, "", ""};
    if (type) return Error::input(fmt::format("perf event '{}': config '{}' is not a number", name, right));
    return PerfEventCode{0, 0, std::string(left), std::string(right)};
  }
  if (name.size() > 1 && name[0] == 'r') {
    if (auto config = parse_number<std::uint64_t>(name.substr(1), 16)) {
      return PerfEventCode{PERF_TYPE_RAW, *config, "", ""};
    }
  }
  std::string message = fmt::format("unknown perf event '{}'", name);
  if (auto near = closest_match(name, perf_event_names())) message += fmt::format("; did you mean '{}'?", *near);
  return Error::input(message);
}

Result<PerfEventCode> resolve_pmu_event(const PerfEventCode& code, const std::string& pmu_root) {
  if (code.pmu.empty()) return code;
  const std::string dir = fmt::format("{}/{}", pmu_root, code.pmu);
  Result<std::string> type_text = read_small_file(dir + "/type");
  if (!type_text) return Error::infra(fmt::format("no PMU '{}': {}", code.pmu, type_text.error().message));
  auto type = parse_number<std::uint32_t>(*type_text);
  if (!type) return Error::infra(fmt::format("PMU '{}': bad type '{}' in {}/type", code.pmu, *type_text, dir));
  PerfEventCode out{*type, 0, code.pmu, code.pmu_event};
  if (auto config = parse_number<std::uint64_t>(code.pmu_event)) {
    out.config = *config;
    return out;
  }
  Result<std::string> terms = read_small_file(fmt::format("{}/events/{}", dir, code.pmu_event));
  if (!terms) return Error::infra(fmt::format("PMU '{}' has no event '{}': {}", code.pmu, code.pmu_event,
                                              terms.error().message));
  // "event=0x3c,umask=0x01": each term's bits are placed by format/<term>,
  // "config:0-7" or "config:21"; only the config field is supported.
  std::stringstream list(*terms);
  std::string term;
  while (std::getline(list, term, ',')) {
    term = trim(term);
    if (term.empty()) continue;
    std::size_t eq = term.find('=');
    std::string key = trim(term.substr(0, eq));
    std::uint64_t value = 1;
    if (eq != std::string::npos) {
      auto v = parse_number<std::uint64_t>(trim(term.substr(eq + 1)));
      if (!v) return Error::infra(fmt::format("PMU event {}/{}: bad term '{}'", code.pmu, code.pmu_event, term));
      value = *v;
    }
    Result<std::string> format = read_small_file(fmt::format("{}/format/{}", dir, key));
    if (!format) return Error::infra(fmt::format("PMU event {}/{}: term '{}': {}", code.pmu, code.pmu_event, key,
                                                 format.error().message));
    if (format->rfind("config:", 0) != 0) {
      return Error::infra(fmt::format("PMU event {}/{}: term '{}' is placed in '{}'; only config is supported",
                                      code.pmu, code.pmu_event, key, *format));
    }
    std::string bits = format->substr(7);
    std::size_t dash = bits.find('-');
    auto lo = parse_number<unsigned>(bits.substr(0, dash));
    auto hi = dash == std::string::npos ? lo : parse_number<unsigned>(bits.substr(dash + 1));
    if (!lo || !hi || *hi < *lo || *hi > 63) {
      return Error::infra(fmt::format("PMU event {}/{}: term '{}' has an unsupported format '{}'", code.pmu,
                                      code.pmu_event, key, *format));
    }
    unsigned width = *hi - *lo + 1;
    std::uint64_t mask = width == 64 ? ~std::uint64_t{0} : ((std::uint64_t{1} << width) - 1);
    out.config |= (value & mask) << *lo;
  }
  return out;
}

Result<std::unique_ptr<CounterSource>> make_perf_event_source(const CounterSourceSpec& spec,
                                                              const std::vector<CounterSpec>& counters,
                                                              const CounterSourceOptions& options) {
  auto source = std::make_unique<PerfEventSource>(spec.name, false);
  // Counters are opened as one group, so the kernel schedules them together
  // and their ratios come from the same instants. A refused leader cannot
  // hold members, and a member the group cannot take (a hardware event next
  // to software ones on some PMUs) is retried on its own: each refused event
  // carries its own errno.
  int leader = -1;
  for (const CounterSpec& c : counters) {
    Result<PerfEventCode> code = parse_perf_event_name(c.event);
    if (code) code = resolve_pmu_event(*code, options.pmu_root);
    if (!code) {
      source->add_refused(code.error().message);
      continue;
    }
    perf_event_attr attr;
    std::memset(&attr, 0, sizeof attr);
    attr.size = sizeof attr;
    attr.type = code->type;
    attr.config = code->config;
    attr.read_format = PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING;
    attr.inherit = options.follow_children ? 1 : 0;
    // No exclude_* bits by default: PMUs such as msr refuse any of them
    // (EINVAL); exclude_kernel is set only when the kernel asks for it.
    // Events that happen only inside the kernel read 0 forever when the
    // kernel allows user-space counting only: refused rather than zero.
    const bool kernel_only = code->type == PERF_TYPE_SOFTWARE &&
                             (code->config == PERF_COUNT_SW_CONTEXT_SWITCHES ||
                              code->config == PERF_COUNT_SW_CPU_MIGRATIONS);
    std::string user_only_refusal;
    auto open = [&](int group) -> int {
      // A leader starts disabled and the whole group is enabled at once
      // below: members opened into a running software group are otherwise
      // not scheduled in until the next context switch (task-clock then
      // reads 0 with time_running 0).
      attr.disabled = group < 0 ? 1 : 0;
      long fd = perf_event_open(&attr, 0, -1, group, PERF_FLAG_FD_CLOEXEC);
      if (fd < 0 && (errno == EACCES || errno == EPERM) && !attr.exclude_kernel) {
        // perf_event_paranoid >= 2 lets unprivileged users count user space only.
        if (kernel_only) {
          user_only_refusal = fmt::format(
              "the kernel refused perf event '{}': {}; it happens only in the kernel, which this user may not "
              "count (perf_event_paranoid), so user-space counting would always read 0",
              c.event, errno_text(errno));
          return -1;
        }
        const int denied = errno;
        attr.exclude_kernel = 1;
        fd = perf_event_open(&attr, 0, -1, group, PERF_FLAG_FD_CLOEXEC);
        if (fd >= 0) source->set_user_only();
        // A PMU that takes no exclude bits (msr) says EINVAL to the retry:
        // the reason that matters is the first one.
        if (fd < 0 && errno == EINVAL) errno = denied;
      }
      return static_cast<int>(fd);
    };
    int fd = open(leader);
    if (fd < 0 && leader >= 0) fd = open(-1);
    if (fd < 0 && !user_only_refusal.empty()) {
      source->add_refused(user_only_refusal);
      continue;
    }
    if (fd < 0) {
      source->add_refused(fmt::format("the kernel refused perf event '{}': {}", c.event, errno_text(errno)));
      continue;
    }
    if (leader < 0) leader = fd;
    source->add_open(fd, attr.disabled != 0);
  }
  if (Status enabled = source->enable(); !enabled) return enabled.error();
  return std::unique_ptr<CounterSource>(std::move(source));
}

}  // namespace harness
