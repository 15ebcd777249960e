#include "harness/rig/protocol.h"

#include <openssl/evp.h>
#include <sched.h>

#include <fmt/format.h>

#include "harness/base/bounded_json.h"
#include "harness/base/input_limits.h"
#include "harness/levels/stability.h"

namespace harness::protocol {
namespace {

using nlohmann::json;

// nlohmann's exceptions (a missing key, a wrong type) become one Error.
template <class F>
auto guarded(const char* what, F&& f) -> decltype(f()) {
  try {
    return f();
  } catch (const json::exception& e) {
    return Error::input(fmt::format("agent protocol: malformed {}: {}", what, e.what()));
  }
}

json kernel_to_wire(const BuiltinKernel& k) {
  return {{"kind", k.kind},         {"precision", k.precision}, {"elements", k.elements}, {"m", k.m},
          {"n", k.n},               {"k", k.k},                 {"rows", k.rows},         {"cols", k.cols},
          {"batch", k.batch},       {"channels", k.channels},   {"height", k.height},     {"width", k.width},
          {"filters", k.filters},   {"kernel_h", k.kernel_h},   {"kernel_w", k.kernel_w}, {"slowdown", k.slowdown}};
}

BuiltinKernel kernel_from_wire(const json& j) {
  BuiltinKernel k;
  json_read(j.at("kind"), k.kind);
  json_read(j.at("precision"), k.precision);
  for (auto [key, field] : {std::pair{"elements", &k.elements}, {"m", &k.m}, {"n", &k.n}, {"k", &k.k},
                            {"rows", &k.rows}, {"cols", &k.cols}, {"batch", &k.batch}, {"channels", &k.channels},
                            {"height", &k.height}, {"width", &k.width}, {"filters", &k.filters},
                            {"kernel_h", &k.kernel_h}, {"kernel_w", &k.kernel_w}}) {
    json_read(j.at(key), *field);
  }
  json_read(j.at("slowdown"), k.slowdown);
  return k;
}

}  // namespace

json to_wire(const Workload& w) {
  json j = {{"kind", w.kind == Workload::Kind::builtin ? "builtin" : "command"},
            {"name", w.name},
            {"command", w.command},
            {"pattern", w.report.pattern},
            {"json_field", w.report.json_field},
            {"unit_s", w.report.unit_s},
            {"timeout_s", w.timeout_s},
            {"tokens_per_iteration", w.tokens_per_iteration}};
  if (w.kind == Workload::Kind::builtin) j["builtin"] = kernel_to_wire(w.builtin);
  if (!w.cpus.empty()) j["cpus"] = w.cpus;  // absent when unpinned: the requests of before
  if (w.first_cpu) j["first_cpu"] = true;
  return j;
}

Result<Workload> workload_from_wire(const json& j) {
  return guarded("workload", [&]() -> Result<Workload> {
    Workload w;
    std::string kind = j.at("kind").get<std::string>();
    if (kind != "builtin" && kind != "command") return Error::input("agent protocol: unknown workload kind " + kind);
    w.kind = kind == "builtin" ? Workload::Kind::builtin : Workload::Kind::command;
    json_read(j.at("name"), w.name);
    json_read(j.at("command"), w.command);
    json_read(j.at("pattern"), w.report.pattern);
    json_read(j.at("json_field"), w.report.json_field);
    json_read(j.at("unit_s"), w.report.unit_s);
    json_read(j.at("timeout_s"), w.timeout_s);
    json_read(j.at("tokens_per_iteration"), w.tokens_per_iteration);
    if (w.kind == Workload::Kind::builtin) w.builtin = kernel_from_wire(j.at("builtin"));
    if (j.contains("cpus")) json_read(j.at("cpus"), w.cpus);
    if (j.contains("first_cpu")) json_read(j.at("first_cpu"), w.first_cpu);
    if (w.kind == Workload::Kind::command && w.command.empty()) return Error::input("agent protocol: empty command");
    return w;
  });
}

json to_wire(const CountersConfig& c) {
  json groups = json::array();
  for (const CounterGroup& g : c.groups) {
    json sources = json::array(), counters = json::array();
    for (const CounterSourceSpec& s : g.sources) {
      sources.push_back({{"name", s.name}, {"kind", s.kind}, {"path", s.path}, {"command", s.command},
                         {"deltas", s.deltas}, {"timeout_s", s.timeout_s}, {"width", s.width}, {"where", s.where}});
    }
    for (const CounterSpec& k : g.counters) {
      counters.push_back({{"name", k.name}, {"source", k.source}, {"event", k.event}, {"key", k.key},
                          {"pattern", k.pattern}, {"scale", k.scale}, {"width", k.width}, {"unit", k.unit},
                          {"where", k.where}});
    }
    groups.push_back({{"name", g.name}, {"path", g.path}, {"sha256", g.sha256}, {"sources", sources},
                      {"counters", counters}});
  }
  // read_each_iteration for an agent older than `windows`, which reads
  // around the run or after every iteration.
  json j = {{"groups", groups},
            {"iterations", c.iterations},
            {"windows", c.windows},
            {"read_each_iteration", c.windows == c.iterations && c.iterations > 1}};
  // An agent older than it counts the candidate alone: its recording has no
  // window sides, so the host analyses it as a run without a reference.
  if (const std::optional<ReferenceConfig>& r = c.paired_with) {
    j["paired_with"] = {{"workload", to_wire(r->workload)},
                        {"rounds", r->rounds},
                        {"order", r->order},
                        {"seed", r->seed.value_or(0)}};
  }
  return j;
}

Result<CountersConfig> counters_from_wire(const json& j) {
  return guarded("counters", [&]() -> Result<CountersConfig> {
    CountersConfig c;
    json_read(j.at("iterations"), c.iterations);
    if (j.contains("windows")) {
      json_read(j.at("windows"), c.windows);
    } else {  // a host older than `windows`
      bool each = false;
      json_read(j.at("read_each_iteration"), each);
      c.windows = each ? c.iterations : 1;
    }
    if (c.iterations < 1) return Error::input("agent protocol: counters need at least one iteration");
    if (c.windows < 1 || c.windows > c.iterations)
      return Error::input("agent protocol: counters need 1 to iterations windows");
    if (j.contains("paired_with")) {
      const json& p = j.at("paired_with");
      ReferenceConfig r;
      Result<Workload> w = workload_from_wire(p.at("workload"));
      if (!w) return w.error();
      r.workload = std::move(*w);
      json_read(p.at("rounds"), r.rounds);
      json_read(p.at("order"), r.order);
      r.seed.emplace();
      json_read(p.at("seed"), *r.seed);
      if (r.rounds < 1) return Error::input("agent protocol: paired counters need at least one round");
      if (r.order != "random" && r.order != "abba")
        return Error::input("agent protocol: unknown order of paired rounds " + r.order);
      c.paired_with = std::move(r);
    }
    for (const json& g : j.at("groups")) {
      CounterGroup group;
      json_read(g.at("name"), group.name);
      json_read(g.at("path"), group.path);
      json_read(g.at("sha256"), group.sha256);
      for (const json& s : g.at("sources")) {
        CounterSourceSpec spec;
        json_read(s.at("name"), spec.name);
        json_read(s.at("kind"), spec.kind);
        json_read(s.at("path"), spec.path);
        json_read(s.at("command"), spec.command);
        json_read(s.at("deltas"), spec.deltas);
        json_read(s.at("timeout_s"), spec.timeout_s);
        json_read(s.at("width"), spec.width);
        json_read(s.at("where"), spec.where);
        group.sources.push_back(std::move(spec));
      }
      for (const json& k : g.at("counters")) {
        CounterSpec spec;
        json_read(k.at("name"), spec.name);
        json_read(k.at("source"), spec.source);
        json_read(k.at("event"), spec.event);
        json_read(k.at("key"), spec.key);
        json_read(k.at("pattern"), spec.pattern);
        json_read(k.at("scale"), spec.scale);
        json_read(k.at("width"), spec.width);
        json_read(k.at("unit"), spec.unit);
        json_read(k.at("where"), spec.where);
        group.counters.push_back(std::move(spec));
      }
      c.groups.push_back(std::move(group));
    }
    return c;
  });
}

json to_wire(const RooflineConfig& c) {
  json kernels = json::array(), vendor = json::array();
  for (const RooflineKernel& k : c.kernels) {
    // Only kernels the device runs: built in, and not timed elsewhere.
    if (!k.builtin || k.time) continue;
    kernels.push_back({{"name", k.name}, {"builtin", kernel_to_wire(*k.builtin)}});
  }
  for (const VendorTool& t : c.vendor) {
    vendor.push_back({{"name", t.name}, {"argv", t.argv}, {"timeout_s", t.timeout_s}});
  }
  return {{"repetitions", c.repetitions},   {"buffer_bytes", c.buffer_bytes},
          {"host_benchmarks", c.host_benchmarks}, {"threads", c.threads},
          {"random_bytes", c.random_bytes}, {"bursts", c.bursts},
          {"fma_iterations", c.fma_iterations}, {"kernels", kernels},
          {"vendor", vendor}};
}

Result<RooflineConfig> roofline_from_wire(const json& j) {
  return guarded("roofline", [&]() -> Result<RooflineConfig> {
    RooflineConfig c;
    json_read(j.at("repetitions"), c.repetitions);
    json_read(j.at("buffer_bytes"), c.buffer_bytes);
    json_read(j.at("host_benchmarks"), c.host_benchmarks);
    json_read(j.at("threads"), c.threads);
    json_read(j.at("random_bytes"), c.random_bytes);
    json_read(j.at("bursts"), c.bursts);
    json_read(j.at("fma_iterations"), c.fma_iterations);
    if (c.repetitions < 1 || c.buffer_bytes < 4096 || c.random_bytes < 1) {
      return Error::input("agent protocol: roofline repetitions, buffer and random bytes must be positive");
    }
    for (const json& k : j.at("kernels")) {
      RooflineKernel kernel;
      json_read(k.at("name"), kernel.name);
      kernel.builtin = kernel_from_wire(k.at("builtin"));
      c.kernels.push_back(std::move(kernel));
    }
    for (const json& t : j.at("vendor")) {
      VendorTool tool;
      json_read(t.at("name"), tool.name);
      json_read(t.at("argv"), tool.argv);
      json_read(t.at("timeout_s"), tool.timeout_s);
      c.vendor.push_back(std::move(tool));
    }
    return c;
  });
}

json to_wire(const IterationPlan& p) {
  return {{"warmup", p.warmup},
          {"iterations", p.iterations},
          {"min_duration_s", p.min_duration_s},
          {"run_timeout_s", p.run_timeout_s},
          {"iteration_timeout_s", p.iteration_timeout_s}};
}

Result<IterationPlan> plan_from_wire(const json& j) {
  return guarded("plan", [&]() -> Result<IterationPlan> {
    IterationPlan p;
    json_read(j.at("warmup"), p.warmup);
    json_read(j.at("iterations"), p.iterations);
    json_read(j.at("min_duration_s"), p.min_duration_s);
    json_read(j.at("run_timeout_s"), p.run_timeout_s);
    json_read(j.at("iteration_timeout_s"), p.iteration_timeout_s);
    if (p.warmup < 0 || p.iterations < 1) return Error::input("agent protocol: a plan needs iterations >= 1");
    return p;
  });
}

json to_wire(const StabilityPlan& p) {
  return {{"cpus", p.cpus}, {"first_cpu", p.first_cpu}, {"interval_s", p.interval_s}};
}

Result<StabilityPlan> stability_plan_from_wire(const json& j) {
  return guarded("stability plan", [&]() -> Result<StabilityPlan> {
    StabilityPlan p;
    json_read(j.at("cpus"), p.cpus);
    p.first_cpu = j.at("first_cpu").get<bool>();
    p.interval_s = j.at("interval_s").get<double>();
    for (int cpu : p.cpus)
      if (cpu < 0 || cpu >= CPU_SETSIZE) return Error::input(fmt::format("agent protocol: no CPU {}", cpu));
    // At least a second apart: every reading scans the device's processes.
    if (!(p.interval_s == 0 || (p.interval_s >= 1 && p.interval_s <= 86400)))
      return Error::input("agent protocol: a stability interval is 0 or from 1 s to a day");
    return p;
  });
}

Result<std::vector<StabilityReading>> stability_readings_from_wire(const json& j) {
  return guarded("stability readings", [&]() -> Result<std::vector<StabilityReading>> {
    return j.at("readings").get<std::vector<StabilityReading>>();
  });
}

json to_wire(const DeviceInfo& i) {
  return {{"protocol", i.protocol},
          {"harness_version", i.harness_version},
          {"capabilities", i.capabilities},
          {"context", i.context},
          {"missing", i.missing}};
}

Result<DeviceInfo> device_info_from_wire(const json& j) {
  return guarded("hello", [&]() -> Result<DeviceInfo> {
    DeviceInfo i;
    json_read(j.at("protocol"), i.protocol);
    json_read(j.at("harness_version"), i.harness_version);
    json_read(j.at("capabilities"), i.capabilities);
    json_read(j.at("context"), i.context);
    json_read(j.at("missing"), i.missing);
    return i;
  });
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
  return guarded("iterations event", [&]() -> Result<IterationBatch> {
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
  });
}

json encode_step(const json& id, const ProgressEvent& e) {
  return {{"id", id},           {"event", "step"},          {"level", level_name(e.level)},
          {"step", e.text},     {"index", e.step_index},    {"count", e.step_count},
          {"done", e.done},     {"planned", e.planned},     {"counted", e.counted}};
}

Result<ProgressEvent> decode_step(const json& m) {
  return guarded("step event", [&]() -> Result<ProgressEvent> {
    ProgressEvent e;
    e.kind = ProgressEvent::Kind::step;
    std::optional<Level> level = level_from_name(m.at("level").get<std::string>());
    if (!level) return Error::infra("agent protocol: a step event of an unknown level");
    e.level = *level;
    e.text = m.at("step").get<std::string>();
    e.step_index = json_integer<int>(m.at("index"));
    e.step_count = json_integer<int>(m.at("count"));
    e.done = json_integer<std::int64_t>(m.at("done"));
    e.planned = json_integer<std::int64_t>(m.at("planned"));
    e.counted = m.at("counted").get<std::string>();
    if (e.step_index < 1 || e.step_index > e.step_count || e.done < 0 || e.planned < 0)
      return Error::infra("agent protocol: a step event out of its bounds");
    return e;
  });
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

std::string base64_encode(const std::string& bytes) {
  std::string out(4 * ((bytes.size() + 2) / 3), '\0');
  int n = EVP_EncodeBlock(reinterpret_cast<unsigned char*>(out.data()),
                          reinterpret_cast<const unsigned char*>(bytes.data()), static_cast<int>(bytes.size()));
  out.resize(static_cast<std::size_t>(n));
  return out;
}

Result<std::string> base64_decode(const std::string& text) {
  if (text.size() % 4 != 0) return Error::infra("agent protocol: base64 length is not a multiple of 4");
  std::string out(3 * (text.size() / 4), '\0');
  int n = EVP_DecodeBlock(reinterpret_cast<unsigned char*>(out.data()),
                          reinterpret_cast<const unsigned char*>(text.data()), static_cast<int>(text.size()));
  if (n < 0) return Error::infra("agent protocol: invalid base64");
  std::size_t pad = 0;
  if (!text.empty() && text.back() == '=') ++pad;
  if (text.size() > 1 && text[text.size() - 2] == '=') ++pad;
  out.resize(static_cast<std::size_t>(n) - pad);
  return out;
}

}  // namespace harness::protocol
