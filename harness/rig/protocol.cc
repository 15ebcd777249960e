#include "harness/rig/protocol.h"

#include <sched.h>

#include <optional>
#include <tuple>
#include <vector>

#include <fmt/format.h>

#include "harness/base/base64.h"
#include "harness/base/bounded_json.h"
#include "harness/base/input_limits.h"
#include "harness/levels/stability.h"

namespace harness::protocol {
namespace {

using nlohmann::json;

// ---- One description per message ----------------------------------------
// Each message's fields are listed once, in Wire<T>::fields(): the key on
// the wire and the member it is (a member of a member for a nested struct),
// and, for a field not always sent, when it is. encode() and decode() below
// walk that list, so both directions come from it: a field added to a
// message is one line in its table. A field decoded is checked as json_read
// checks (integers in range); what a message must satisfy beyond its types
// is its table's check(), run on a message nested in another too.

// A field on the wire when `when(message)` holds; a decoder that finds it
// absent asks `when` of what it has read so far: absent and not due is the
// default, absent and due is an error.
template <class Get, class When>
struct Field {
  const char* key;
  Get get;  // (auto& message) -> auto&: the member, const or not as the message is
  When when;
};

struct Always {
  template <class S>
  bool operator()(const S&) const { return true; }
};

template <class S, class T, class When = Always>
constexpr auto field(const char* key, T S::*member, When when = {}) {
  auto get = [member](auto& s) -> auto& { return s.*member; };
  return Field<decltype(get), When>{key, get, when};
}
template <class S, class A, class T>
constexpr auto field(const char* key, A S::*outer, T A::*inner) {
  auto get = [outer, inner](auto& s) -> auto& { return (s.*outer).*inner; };
  return Field<decltype(get), Always>{key, get, {}};
}

// Names of an enumeration on the wire; an unknown one refuses the message.
struct Refused {
  std::string why;
};
template <class E>
struct Names;
template <>
struct Names<Workload::Kind> {
  static std::string name(Workload::Kind k) { return k == Workload::Kind::builtin ? "builtin" : "command"; }
  static Workload::Kind from(const std::string& n) {
    if (n == "builtin") return Workload::Kind::builtin;
    if (n == "command") return Workload::Kind::command;
    throw Refused{"unknown workload kind " + n};
  }
};
template <>
struct Names<Level> {
  static std::string name(Level l) { return std::string(level_name(l)); }
  static Level from(const std::string& n) {
    if (std::optional<Level> l = level_from_name(n)) return *l;
    throw Refused{"a step event of an unknown level"};
  }
};

template <class T>
struct Wire;  // a message's table: static fields(), and optionally static check(const T&) -> Status

template <class T>
concept Message = requires { Wire<T>::fields(); };
template <class T>
concept Named = requires(T v) { Names<T>::name(v); };
template <class T>
struct is_optional : std::false_type {};
template <class T>
struct is_optional<std::optional<T>> : std::true_type {};
template <class T>
struct is_messages : std::false_type {};  // a list of messages
template <Message T>
struct is_messages<std::vector<T>> : std::true_type {};

template <Message T>
json encode(const T& message);
template <Message T>
void decode(const json& j, T& message);

template <class T>
json encode_value(const T& v) {
  if constexpr (Message<T>) {
    return encode(v);
  } else if constexpr (Named<T>) {
    return Names<T>::name(v);
  } else if constexpr (is_optional<T>::value) {  // sent only when it holds one (its field's `when`)
    return encode_value(*v);
  } else if constexpr (is_messages<T>::value) {
    json a = json::array();
    for (const auto& e : v) a.push_back(encode_value(e));
    return a;
  } else {
    return json(v);
  }
}

// A message, nested or not, that its table's check() refuses.
struct Unchecked {
  std::string message;
};

template <class T>
void decode_value(const json& j, T& out) {
  if constexpr (Message<T>) {
    decode(j, out);
    if constexpr (requires { Wire<T>::check(out); }) {
      if (Status checked = Wire<T>::check(out); !checked) throw Unchecked{checked.error().message};
    }
  } else if constexpr (Named<T>) {
    out = Names<T>::from(j.get<std::string>());
  } else if constexpr (is_optional<T>::value) {
    decode_value(j, out.emplace());
  } else if constexpr (is_messages<T>::value) {
    if (!j.is_array()) throw json::type_error::create(302, "type must be an array, but is " + j.dump(), &j);
    out.clear();
    for (const json& e : j) decode_value(e, out.emplace_back());
  } else {
    json_read(j, out);  // integers range-checked
  }
}

template <Message T>
json encode(const T& message) {
  json j = json::object();
  std::apply([&](const auto&... f) { ((f.when(message) ? void(j[f.key] = encode_value(f.get(message))) : void()), ...); },
             Wire<T>::fields());
  return j;
}

template <Message T>
void decode(const json& j, T& message) {
  std::apply(
      [&](const auto&... f) {
        auto one = [&](const auto& f) {
          if (j.contains(f.key)) decode_value(j.at(f.key), f.get(message));
          else if (f.when(message)) (void)j.at(f.key);  // due: the library's "key not found"
        };
        (one(f), ...);
      },
      Wire<T>::fields());
}

// A message decoded and checked; its malformations one Error of `code`
// (exit 2 for the agent reading a request, 3 for the host reading a reply).
template <Message T>
Result<T> from_wire(const json& j, const char* what, ExitCode code) {
  try {
    T message;
    decode_value(j, message);
    return message;
  } catch (const json::exception& e) {
    return Error{fmt::format("agent protocol: malformed {}: {}", what, e.what()), code};
  } catch (const Refused& r) {
    return Error{"agent protocol: " + r.why, code};
  } catch (const Unchecked& u) {
    return Error{u.message, code};
  }
}

// ---- The tables ------------------------------------------------------------

template <>
struct Wire<BuiltinKernel> {
  static constexpr auto fields() {
    using K = BuiltinKernel;
    return std::tuple{field("kind", &K::kind),         field("precision", &K::precision), field("elements", &K::elements),
                      field("m", &K::m),               field("n", &K::n),                 field("k", &K::k),
                      field("rows", &K::rows),         field("cols", &K::cols),           field("batch", &K::batch),
                      field("channels", &K::channels), field("height", &K::height),       field("width", &K::width),
                      field("filters", &K::filters),   field("kernel_h", &K::kernel_h),   field("kernel_w", &K::kernel_w),
                      field("slowdown", &K::slowdown)};
  }
};

template <>
struct Wire<Workload> {
  static constexpr auto fields() {
    using W = Workload;
    return std::tuple{field("kind", &W::kind),
                      field("name", &W::name),
                      field("command", &W::command),
                      field("pattern", &W::report, &LatencyReport::pattern),
                      field("json_field", &W::report, &LatencyReport::json_field),
                      field("unit_s", &W::report, &LatencyReport::unit_s),
                      field("timeout_s", &W::timeout_s),
                      field("tokens_per_iteration", &W::tokens_per_iteration),
                      field("builtin", &W::builtin, [](const W& w) { return w.kind == W::Kind::builtin; }),
                      // absent when unpinned: the requests of before
                      field("cpus", &W::cpus, [](const W& w) { return !w.cpus.empty(); }),
                      field("first_cpu", &W::first_cpu, [](const W& w) { return w.first_cpu; })};
  }
  static Status check(const Workload& w) {
    if (w.kind == Workload::Kind::command && w.command.empty()) return Error::input("agent protocol: empty command");
    return ok();
  }
};

template <>
struct Wire<CounterSourceSpec> {
  static constexpr auto fields() {
    using S = CounterSourceSpec;
    return std::tuple{field("name", &S::name),       field("kind", &S::kind),   field("path", &S::path),
                      field("command", &S::command), field("deltas", &S::deltas), field("timeout_s", &S::timeout_s),
                      field("width", &S::width),     field("where", &S::where)};
  }
};

template <>
struct Wire<CounterSpec> {
  static constexpr auto fields() {
    using C = CounterSpec;
    return std::tuple{field("name", &C::name),       field("source", &C::source), field("event", &C::event),
                      field("key", &C::key),         field("pattern", &C::pattern), field("scale", &C::scale),
                      field("width", &C::width),     field("unit", &C::unit),     field("where", &C::where)};
  }
};

// A group's formulas stay on the host: the device reads counters only.
template <>
struct Wire<CounterGroup> {
  static constexpr auto fields() {
    using G = CounterGroup;
    return std::tuple{field("name", &G::name), field("path", &G::path), field("sha256", &G::sha256),
                      field("sources", &G::sources), field("counters", &G::counters)};
  }
};

// The reference of level 2 (the windows alternate with its) and of level 1
// (each kernel with a reference is timed with it once a round), in rounds of
// the drawn order. An agent older than it measures the candidate alone: its
// recording has no window sides or reference times, so the host analyses it
// as a run without a reference.
template <>
struct Wire<ReferenceConfig> {
  static constexpr auto fields() {
    using R = ReferenceConfig;
    return std::tuple{field("workload", &R::workload), field("rounds", &R::rounds), field("order", &R::order),
                      field("seed", &R::seed, [](const R& r) { return r.seed.has_value(); }),
                      field("first_round", &R::first_round, [](const R& r) { return r.first_round != 0; })};
  }
  static Status check(const ReferenceConfig& r) {
    if (r.rounds < 1) return Error::input("agent protocol: paired rounds need at least one round");
    if (r.first_round < 0) return Error::input("agent protocol: paired rounds cannot start before round 0");
    if (r.order != "random" && r.order != "abba")
      return Error::input("agent protocol: unknown order of paired rounds " + r.order);
    return ok();
  }
};

template <>
struct Wire<CountersConfig> {
  static constexpr auto fields() {
    using C = CountersConfig;
    return std::tuple{field("groups", &C::groups), field("iterations", &C::iterations), field("windows", &C::windows),
                      field("paired_with", &C::paired_with, [](const C& c) { return c.paired_with.has_value(); })};
  }
  static Status check(const CountersConfig& c) {
    if (c.iterations < 1) return Error::input("agent protocol: counters need at least one iteration");
    if (c.windows < 1 || c.windows > c.iterations)
      return Error::input("agent protocol: counters need 1 to iterations windows");
    return ok();
  }
};

template <>
struct Wire<RooflineKernel> {
  static constexpr auto fields() {
    using K = RooflineKernel;
    return std::tuple{field("name", &K::name), field("builtin", &K::builtin, [](const K& k) { return k.builtin.has_value(); }),
                      field("reference", &K::reference, [](const K& k) { return k.reference.has_value(); })};
  }
};

template <>
struct Wire<VendorTool> {
  static constexpr auto fields() {
    return std::tuple{field("name", &VendorTool::name), field("argv", &VendorTool::argv),
                      field("timeout_s", &VendorTool::timeout_s)};
  }
};

template <>
struct Wire<RooflineConfig> {
  static constexpr auto fields() {
    using C = RooflineConfig;
    return std::tuple{field("repetitions", &C::repetitions), field("buffer_bytes", &C::buffer_bytes),
                      field("host_benchmarks", &C::host_benchmarks), field("threads", &C::threads),
                      field("random_bytes", &C::random_bytes), field("bursts", &C::bursts),
                      field("fma_iterations", &C::fma_iterations), field("kernels", &C::kernels),
                      field("vendor", &C::vendor),
                      field("paired_with", &C::paired_with, [](const C& c) { return c.paired_with.has_value(); })};
  }
  static Status check(const RooflineConfig& c) {
    if (c.repetitions < 1 || c.buffer_bytes < 4096 || c.random_bytes < 1) {
      return Error::input("agent protocol: roofline repetitions, buffer and random bytes must be positive");
    }
    for (const RooflineKernel& k : c.kernels)
      if (!k.builtin) return Error::input("agent protocol: roofline kernel " + k.name + " without its builtin");
    return ok();
  }
};

template <>
struct Wire<IterationPlan> {
  static constexpr auto fields() {
    using P = IterationPlan;
    return std::tuple{field("warmup", &P::warmup), field("iterations", &P::iterations),
                      field("min_duration_s", &P::min_duration_s), field("run_timeout_s", &P::run_timeout_s),
                      field("iteration_timeout_s", &P::iteration_timeout_s),
                      field("counters", &P::counters, [](const P& p) { return p.counters.has_value(); })};
  }
  static Status check(const IterationPlan& p) {
    if (p.warmup < 0 || p.iterations < 1) return Error::input("agent protocol: a plan needs iterations >= 1");
    if (p.counters && (p.counters->iterations != p.iterations || p.counters->paired_with))
      return Error::input("agent protocol: a window's counters are read over its own iterations, unpaired");
    return ok();
  }
};

template <>
struct Wire<StabilityPlan> {
  static constexpr auto fields() {
    using P = StabilityPlan;
    return std::tuple{field("cpus", &P::cpus), field("first_cpu", &P::first_cpu), field("interval_s", &P::interval_s)};
  }
  static Status check(const StabilityPlan& p) {
    for (int cpu : p.cpus)
      if (cpu < 0 || cpu >= CPU_SETSIZE) return Error::input(fmt::format("agent protocol: no CPU {}", cpu));
    // At least a second apart: every reading scans the device's processes.
    if (!(p.interval_s == 0 || (p.interval_s >= 1 && p.interval_s <= 86400)))
      return Error::input("agent protocol: a stability interval is 0 or from 1 s to a day");
    return ok();
  }
};

template <>
struct Wire<DeviceInfo> {
  static constexpr auto fields() {
    using I = DeviceInfo;
    return std::tuple{field("protocol", &I::protocol), field("harness_version", &I::harness_version),
                      field("capabilities", &I::capabilities), field("context", &I::context),
                      field("missing", &I::missing)};
  }
};

// A level's step (levels 1 and 2); "id" and "event" are the envelope's.
template <>
struct Wire<ProgressEvent> {
  static constexpr auto fields() {
    using E = ProgressEvent;
    return std::tuple{field("level", &E::level),      field("step", &E::text),       field("index", &E::step_index),
                      field("count", &E::step_count), field("done", &E::done),       field("planned", &E::planned),
                      field("counted", &E::counted)};
  }
  static Status check(const ProgressEvent& e) {
    if (e.step_index < 1 || e.step_index > e.step_count || e.done < 0 || e.planned < 0)
      return Error::infra("agent protocol: a step event out of its bounds");
    return ok();
  }
};

}  // namespace

json to_wire(const Workload& w) { return encode(w); }
Result<Workload> workload_from_wire(const json& j) { return from_wire<Workload>(j, "workload", ExitCode::bad_input); }

json to_wire(const CountersConfig& c) {
  json j = encode(c);
  // For an agent older than `windows`, which reads around the run or after every iteration.
  j["read_each_iteration"] = c.windows == c.iterations && c.iterations > 1;
  return j;
}

Result<CountersConfig> counters_from_wire(const json& j) {
  if (j.is_object() && !j.contains("windows") && j.contains("read_each_iteration") && j.contains("iterations")) {
    json older = j;  // a host older than `windows`: one window, or one per iteration
    older["windows"] = older["read_each_iteration"] == true ? older["iterations"] : json(1);
    return from_wire<CountersConfig>(older, "counters", ExitCode::bad_input);
  }
  return from_wire<CountersConfig>(j, "counters", ExitCode::bad_input);
}

json to_wire(const RooflineConfig& c) {
  RooflineConfig on_device = c;  // only kernels the device runs: built in, and not timed elsewhere
  std::erase_if(on_device.kernels, [](const RooflineKernel& k) { return !k.builtin || k.time; });
  return encode(on_device);
}
Result<RooflineConfig> roofline_from_wire(const json& j) {
  return from_wire<RooflineConfig>(j, "roofline", ExitCode::bad_input);
}

json to_wire(const IterationPlan& p) { return encode(p); }
Result<IterationPlan> plan_from_wire(const json& j) { return from_wire<IterationPlan>(j, "plan", ExitCode::bad_input); }

json to_wire(const StabilityPlan& p) { return encode(p); }
Result<StabilityPlan> stability_plan_from_wire(const json& j) {
  return from_wire<StabilityPlan>(j, "stability plan", ExitCode::bad_input);
}

// The readings' own JSON (harness/levels/stability.h) inside the reply.
Result<std::vector<StabilityReading>> stability_readings_from_wire(const json& j) {
  try {
    return j.at("readings").get<std::vector<StabilityReading>>();
  } catch (const json::exception& e) {
    return Error::input(fmt::format("agent protocol: malformed stability readings: {}", e.what()));
  }
}

json to_wire(const DeviceInfo& i) { return encode(i); }
Result<DeviceInfo> device_info_from_wire(const json& j) {
  return from_wire<DeviceInfo>(j, "hello", ExitCode::infrastructure);
}

json encode_step(const json& id, const ProgressEvent& e) {
  json j = encode(e);
  j["id"] = id;
  j["event"] = "step";
  return j;
}

Result<ProgressEvent> decode_step(const json& m) {
  Result<ProgressEvent> e = from_wire<ProgressEvent>(m, "step event", ExitCode::infrastructure);
  if (e) e->kind = ProgressEvent::Kind::step;
  return e;
}

json encode_iterations(const json& id, const IterationBatch& b) {
  std::vector<std::int64_t> gap, dur;
  gap.reserve(b.start_ns.size());
  dur.reserve(b.start_ns.size());
  std::uint64_t previous_end = b.start_ns.empty() ? 0 : b.start_ns.front();
  for (std::size_t i = 0; i < b.start_ns.size(); ++i) {
    gap.push_back(static_cast<std::int64_t>(b.start_ns[i] - previous_end));
    dur.push_back(static_cast<std::int64_t>(b.end_ns[i] - b.start_ns[i]));
    previous_end = b.end_ns[i];
  }
  return {{"id", id}, {"event", "iterations"}, {"first_ns", b.start_ns.empty() ? 0 : b.start_ns.front()},
          {"gap_ns", gap}, {"dur_ns", dur}};
}

Result<IterationBatch> decode_iterations(const json& e, std::size_t most) {
  try {
    const std::uint64_t first = json_integer<std::uint64_t>(e.at("first_ns"));
    const json& gap = e.at("gap_ns");
    const json& dur = e.at("dur_ns");
    if (!gap.is_array() || !dur.is_array() || gap.size() != dur.size()) {
      return Error::infra("agent protocol: an iterations event whose gap_ns and dur_ns differ in length");
    }
    // Counted before anything is allocated for them.
    if (gap.size() > most) {
      return Error::infra(fmt::format("agent protocol: an iterations event of {} iterations, more than the {} the "
                                      "plan leaves", gap.size(), most));
    }
    IterationBatch b;
    b.start_ns.reserve(gap.size());
    b.end_ns.reserve(gap.size());
    // A gap may be negative (a pipelined stream's iteration starts before
    // the previous one ended), a duration may not; every time stays on the
    // clock. Whether the times lie inside the op is the host's to check.
    const auto past_end = [] { return Error::infra("agent protocol: an iteration past the end of the device's clock"); };
    if (first > kMaxClockNs) return past_end();
    std::uint64_t previous_end = first;
    for (std::size_t i = 0; i < gap.size(); ++i) {
      const std::int64_t g = json_integer<std::int64_t>(gap[i]), d = json_integer<std::int64_t>(dur[i]);
      if (d < 0) return Error::infra(fmt::format("agent protocol: an iteration with a negative duration ({} ns)", d));
      if (g < 0 && static_cast<std::uint64_t>(-(g + 1)) >= previous_end) {
        return Error::infra(fmt::format("agent protocol: an iteration before the device's clock began (a gap of {} ns)", g));
      }
      const std::uint64_t start = g < 0 ? previous_end - static_cast<std::uint64_t>(-(g + 1)) - 1
                                        : previous_end + static_cast<std::uint64_t>(g);
      if (start > kMaxClockNs || static_cast<std::uint64_t>(d) > kMaxClockNs - start) return past_end();
      b.start_ns.push_back(start);
      b.end_ns.push_back(start + static_cast<std::uint64_t>(d));
      previous_end = b.end_ns.back();
    }
    return b;
  } catch (const json::exception& ex) {
    return Error::infra(fmt::format("agent protocol: malformed iterations event: {}", ex.what()));
  }
}

Result<json> parse_line(const std::string& line) {
  if (line.size() > kMaxMessageBytes) {
    return Error::infra(fmt::format("agent protocol: a message of {} bytes, over the limit of {}", line.size(),
                                    kMaxMessageBytes));
  }
  JsonLimits limits;
  limits.bytes = kMaxMessageBytes;
  Result<json> j = parse_bounded_json(line, "agent protocol: a message", limits);
  if (!j) return Error::infra(j.error().message);
  if (!j->is_object()) {
    std::string shown = line.size() > 120 ? line.substr(0, 120) + "..." : line;
    return Error::infra(fmt::format("agent protocol: not a JSON object{}: {}", j ? "" : " (" + j.error().message + ")",
                                    shown));
  }
  return j;
}

std::string base64_encode(const std::string& bytes) { return harness::base64_encode(bytes); }

Result<std::string> base64_decode(const std::string& text) {
  if (text.size() % 4 != 0) return Error::infra("agent protocol: base64 length is not a multiple of 4");
  std::optional<std::string> bytes = harness::base64_decode(text);
  if (!bytes) return Error::infra("agent protocol: invalid base64");
  return *std::move(bytes);
}

}  // namespace harness::protocol
