#include <sched.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <regex>
#include <sstream>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "harness/base/files.h"
#include "harness/base/input_limits.h"
#include "harness/model/metric_catalogue.h"

#include "harness/scenario/scenario.h"
#include "harness/scenario/notify_config.h"
#include "harness/scenario/scenario_problems.h"
#include "harness/scenario/sections.h"
#include "probes/kernels.h"

namespace harness {
namespace {

// A level's section, read only when present.
template <class Config>
std::optional<Config> read_optional_section(TableReader& top, std::string_view key,
                                            Config (*read)(TableReader&)) {
  const toml::table* t = top.table(key);
  if (!t) return std::nullopt;
  TableReader reader(top.context(), *t, std::string(key));
  Config config = read(reader);
  (void)reader.finish();
  return config;
}

// [rig] transport and the keys its kind reads (capabilities as data: a key
// another kind reads is refused by name), the agent's timeouts and the
// measurement window.
void read_rig_transport(TableReader& r, Rig& rig) {
  TransportOptions& t = rig.transport;
  std::vector<std::string> kinds;
  for (const TransportKind& k : transport_kinds()) kinds.emplace_back(k.name);
  t.kind = r.choice("transport", kinds).value_or("local");
  const TransportKind* kind = *find_transport_kind(t.kind);
  std::vector<std::string> all_keys;
  for (const TransportKind& k : transport_kinds()) all_keys.insert(all_keys.end(), k.keys.begin(), k.keys.end());
  for (const std::string& key : all_keys) {
    if (!r.has(key)) continue;
    if (std::find(kind->keys.begin(), kind->keys.end(), key) == kind->keys.end()) {
      r.fail_at(key, fmt::format("does not apply to transport \"{}\"", t.kind));
      return;
    }
  }
  for (const std::string& key : kind->required_keys) {
    if (!r.has(key) && r.ok()) r.fail_missing(key, fmt::format("transport \"{}\" needs it", t.kind));
  }
  t.host = r.string("host").value_or("");
  t.user = r.string("user").value_or("");
  t.port = static_cast<int>(r.integer("port", 1, 65535).value_or(0));
  t.identity = r.string("identity").value_or("");
  t.ssh_options = r.string_array("ssh_options").value_or(std::vector<std::string>{});
  t.command = r.string_array("command", true).value_or(std::vector<std::string>{});
  t.agent = r.string_array("agent").value_or(std::vector<std::string>{});
  if (r.ok() && r.has("command") && t.command.empty()) r.fail_at("command", "the command must not be empty");
  if (r.ok() && r.has("agent") && t.agent.empty()) r.fail_at("agent", "the agent command must not be empty");
  if (auto v = r.quantity("heartbeat_timeout", Dimension::time)) rig.heartbeat_timeout_s = *v;
  if (auto v = r.quantity("connect_timeout", Dimension::time)) rig.connect_timeout_s = *v;
  if (auto v = r.quantity("clock_tolerance", Dimension::time)) rig.clock_tolerance_s = *v;
  if (rig.heartbeat_timeout_s < 2) r.fail_at("heartbeat_timeout", "must be at least 2 s (the agent beats every second)");
  for (const char* key : {"window", "window_condition"})
    if (const toml::node* n = r.has(key) ? r.node(key) : nullptr) rig.window.where = r.context().where(n->source());
  rig.window.level = r.choice("window", {"latency", "counters", "none"}).value_or("latency");
  rig.window.condition = r.string("window_condition").value_or("");
  if (r.ok() && !rig.window.condition.empty() && rig.window.level != "latency") {
    r.fail_at("window_condition", "only a \"latency\" window has load conditions");
  }
}

}  // namespace

Rig read_rig_section(TableReader& r) {
  Rig rig;
  rig.name = r.required_name("name");
  rig.description = r.string("description").value_or("");
  auto read_ceilings = [&](std::string_view key, Dimension dimension) {
    std::vector<Ceiling> out;
    const toml::table* t = r.table(key);
    if (!t) return out;
    TableReader cr(r.context(), *t, fmt::format("{}.{}", r.name(), key));
    for (auto&& [name, value] : *t) {
      Ceiling c;
      c.name = std::string(name.str());
      c.where = r.context().where(value.source());
      // The ceiling's metric is ceiling.<kind>.<name>: a name must be there.
      if (c.name.empty()) r.context().fail(value.source(), fmt::format("[{}.{}]: a ceiling needs a name", r.name(), key));
      if (value.is_string() && value.as_string()->get() == "measure") {
        c.measure = true;
      } else if (auto q = cr.quantity(name.str(), dimension)) {
        if (*q < kMinCeiling) cr.fail_at(name.str(), fmt::format("a ceiling below 1 {} is no ceiling", si_unit(dimension)));
        c.value = *q;
      }
      cr.allow(name.str());
      out.push_back(std::move(c));
    }
    (void)cr.finish();
    return out;
  };
  rig.compute = read_ceilings("compute", Dimension::compute);
  rig.memory = read_ceilings("memory", Dimension::bandwidth);
  if (const toml::table* t = r.table("versions")) {
    TableReader vr(r.context(), *t, fmt::format("{}.versions", r.name()));
    for (auto&& [name, value] : *t) {
      auto argv = vr.string_array(name.str());
      if (argv && argv->empty()) vr.fail_at(name.str(), "the command must not be empty");
      if (argv) rig.versions.push_back({std::string(name.str()), *argv});
    }
    (void)vr.finish();
  }
  if (const toml::table* t = r.table("stability")) {
    TableReader sr(r.context(), *t, fmt::format("{}.stability", r.name()));
    rig.stability = read_stability_section(sr);
    (void)sr.finish();
  }
  read_rig_transport(r, rig);
  return rig;
}

BuiltinKernel read_builtin_kernel(TableReader& r) {
  BuiltinKernel k;
  std::optional<std::string> kind =
      r.choice("builtin", {"vector_add", "gemm", "softmax", "conv2d"});
  if (!kind) return k;
  k.kind = *kind;
  k.precision = r.choice("precision", {"fp32"}).value_or("fp32");
  constexpr std::int64_t kMax = std::int64_t{1} << 32;
  auto need = [&](std::string_view key, std::int64_t& field) {
    bool present = r.has(key);
    if (auto v = r.integer(key, 1, kMax)) field = *v;
    if (!present && r.ok()) r.fail_missing(key, fmt::format("built-in kernel \"{}\" needs it", *kind));
  };
  if (*kind == "vector_add") {
    need("elements", k.elements);
  } else if (*kind == "gemm") {
    need("m", k.m);
    need("n", k.n);
    need("k", k.k);
  } else if (*kind == "softmax") {
    need("rows", k.rows);
    need("cols", k.cols);
  } else if (*kind == "conv2d") {
    need("batch", k.batch);
    need("channels", k.channels);
    need("height", k.height);
    need("width", k.width);
    need("filters", k.filters);
    need("kernel_h", k.kernel_h);
    need("kernel_w", k.kernel_w);
    if (r.ok() && (k.kernel_h > k.height || k.kernel_w > k.width)) {
      r.fail_at("kernel_h", "the filter must fit in the input (height/width)");
    }
  }
  if (auto s = r.number("slowdown")) {
    if (*s < 1 || *s > 100) r.fail_at("slowdown", "must be between 1 and 100");
    k.slowdown = *s;
  }
  // Each size fits, their products may not: the kernel's buffers and work.
  const KernelCost cost = kernel_cost(k);
  if (r.ok() && cost.model_bytes > kMaxKernelBytes) {
    r.fail_at("builtin", fmt::format("built-in kernel \"{}\" of these sizes needs {:.3g} bytes of buffers, more than "
                                     "any device has (at most {:.3g}: harness/base/input_limits.h)",
                                     k.kind, cost.model_bytes, kMaxKernelBytes));
  } else if (r.ok() && cost.flops > kMaxPlainNumber) {
    r.fail_at("builtin", fmt::format("built-in kernel \"{}\" of these sizes does {:.3g} operations an iteration, "
                                     "more than any device does in minutes (at most {:.3g}: "
                                     "harness/base/input_limits.h)", k.kind, cost.flops, kMaxPlainNumber));
  }
  return k;
}

// A long-running command's own latency reports: a regular expression with
// one capture group, or a JSON-lines field, in a declared time unit.
static LatencyReport read_latency_report(TableReader& r) {
  LatencyReport report;
  bool pattern = r.has("latency_pattern"), field = r.has("latency_field");
  if (!pattern && !field) {
    if (r.has("latency_unit")) r.fail_at("latency_unit", "needs 'latency_pattern' or 'latency_field'");
    return report;
  }
  if (pattern && field) {
    r.fail_at("latency_field", "give either 'latency_pattern' or 'latency_field', not both");
    return report;
  }
  if (pattern) {
    report.pattern = r.string("latency_pattern").value_or("");
    if (!r.ok()) return report;
    try {
      std::regex re(report.pattern, std::regex::ECMAScript);
      if (re.mark_count() != 1) {
        r.fail_at("latency_pattern", fmt::format("needs exactly one capture group around the number, has {}",
                                                 re.mark_count()));
      }
    } catch (const std::regex_error& e) {
      r.fail_at("latency_pattern", fmt::format("not a valid regular expression: {}", e.what()));
    }
  } else {
    report.json_field = r.string("latency_field").value_or("");
    if (r.ok() && report.json_field.empty()) r.fail_at("latency_field", "must not be empty");
  }
  if (!r.has("latency_unit")) {
    if (r.ok()) r.fail_missing("latency_unit", "the unit of the reported latencies: \"s\", \"ms\", \"us\" or \"ns\"");
    return report;
  }
  std::optional<std::string> unit = r.choice("latency_unit", {"s", "ms", "us", "ns"});
  if (unit) report.unit_s = *unit == "s" ? 1 : *unit == "ms" ? 1e-3 : *unit == "us" ? 1e-6 : 1e-9;
  return report;
}

// cpus = [0, 2]: distinct CPU numbers the workload is pinned to (whether the
// device has them is known on the device: the run fails there, naming the
// CPUs it may use); cpus = "first": the lowest-numbered one it may use.
static std::vector<int> read_cpus(TableReader& r, bool& first) {
  const toml::node* n = r.node("cpus");
  if (!n || !r.ok()) return {};
  if (const auto* word = n->as_string(); word && word->get() == "first") {
    first = true;
    return {};
  }
  const toml::array* a = n->as_array();
  if (!a || a->empty()) {
    r.fail_at("cpus", "must be a non-empty array of CPU numbers, e.g. [0] or [2, 3], or \"first\"");
    return {};
  }
  std::vector<int> cpus;
  for (const toml::node& e : *a) {
    const auto* v = e.as_integer();
    if (!v || v->get() < 0 || v->get() >= CPU_SETSIZE) {
      r.fail_at_node(e, fmt::format("cpus: each must be a CPU number from 0 to {}", CPU_SETSIZE - 1));
      return {};
    }
    const int cpu = static_cast<int>(v->get());
    if (std::find(cpus.begin(), cpus.end(), cpu) != cpus.end()) {
      r.fail_at_node(e, fmt::format("cpus: CPU {} is named twice", cpu));
      return {};
    }
    cpus.push_back(cpu);
  }
  return cpus;
}

Workload read_workload_section(TableReader& r) {
  Workload w;
  w.name = r.string("name").value_or("");
  bool has_builtin = r.has("builtin");
  bool has_command = r.has("command");
  if (has_builtin == has_command) {
    r.context().fail(r.table().source(),
                     fmt::format("[{}] needs exactly one of 'builtin' (a kernel run in-process) "
                                 "or 'command' (an argv array)", r.name()));
    return w;
  }
  if (has_builtin) {
    w.kind = Workload::Kind::builtin;
    w.builtin = read_builtin_kernel(r);
    if (w.name.empty()) w.name = w.builtin.kind;
  } else {
    w.kind = Workload::Kind::command;
    w.command = r.string_array("command").value_or(std::vector<std::string>{});
    if (r.ok() && w.command.empty()) r.fail_at("command", "the command must not be empty");
    if (w.name.empty() && !w.command.empty()) w.name = w.command.front();
    w.report = read_latency_report(r);
  }
  if (has_builtin) {
    for (std::string_view key : {"latency_pattern", "latency_field", "latency_unit"}) {
      if (r.has(key)) r.fail_at(key, "only a 'command' workload reports its own latency");
    }
  }
  if (auto t = r.quantity("timeout", Dimension::time)) w.timeout_s = *t;
  if (auto x = r.number("tokens_per_iteration")) {
    if (!(*x > 0)) r.fail_at("tokens_per_iteration", "must be positive");
    w.tokens_per_iteration = *x;
  }
  w.cpus = read_cpus(r, w.first_cpu);
  return w;
}

namespace {

// "path:12:5: ..." -> (12, 5); anything else sorts first.
std::pair<long, long> position_in(const std::string& message, const std::string& path) {
  if (!message.starts_with(path + ":")) return {0, 0};
  long line = 0, column = 0;
  if (std::sscanf(message.c_str() + path.size() + 1, "%ld:%ld", &line, &column) < 1) return {0, 0};
  return {line, column};
}

// The gating names that no paired metric of this scenario answers to ("names
// 'latncy_p50', which ..."), or "": a misspelt one would never add a round.
// Level 4's block statistics (each load condition's too), level 1's
// "<kernel>.achieved" of a kernel with a reference.
std::string unknown_gating(const Scenario& s) {
  std::vector<std::string> paired, unknown;
  if (s.latency)
    for (std::string_view stat : kPairedLatencyStatistics) paired.emplace_back(stat);
  if (s.roofline)
    for (const RooflineKernel& k : s.roofline->kernels)
      if (k.reference) paired.push_back(k.name + ".achieved");
  for (const std::string& g : s.compare->gating)
    if (std::find(paired.begin(), paired.end(), g) == paired.end()) unknown.push_back("'" + g + "'");
  if (unknown.empty()) return "";
  const bool by_default = s.compare->gating == CompareConfig{}.gating;
  return fmt::format("{}names {}, which no paired metric of this scenario is ({})", by_default ? "(by default) " : "",
                     fmt::join(unknown, ", "),
                     paired.empty() ? std::string("it has none") : "its paired metrics: " + fmt::format("{}", fmt::join(paired, ", ")));
}

}  // namespace

std::vector<Error> sorted_by_position(std::vector<Error> problems, const std::string& path) {
  std::stable_sort(problems.begin(), problems.end(), [&](const Error& a, const Error& b) {
    return position_in(a.message, path) < position_in(b.message, path);
  });
  return problems;
}

Error combined_problems(const std::string& path, const std::vector<Error>& problems) {
  if (problems.size() == 1) return problems.front();
  std::string message = fmt::format("{}: {} problems:", path, problems.size());
  ExitCode code = ExitCode::bad_input;
  for (const Error& e : problems) {
    message += "\n  " + e.message;
    if (e.code != ExitCode::bad_input) code = e.code;
  }
  return {message, code};
}

ScenarioProblems parse_scenario_problems(std::string text, std::string path, const BundleScope* bundle) {
  ScenarioProblems out;
  out.scenario.path = path;
  if (text.size() > kMaxScenarioBytes) {
    out.problems.push_back(Error::input(fmt::format("{}: {} bytes is more than the {} allowed for a scenario", path,
                                                    text.size(), kMaxScenarioBytes)));
    return out;
  }
  ParseContext context{path, std::nullopt, bundle, {}};
  toml::parse_result parsed = toml::parse(text, path);
  if (!parsed) {
    const toml::parse_error& e = parsed.error();
    out.problems.push_back(Error::input(fmt::format("{}: {}", context.where(e.source()), e.description())));
    return out;
  }
  const toml::table& root = parsed.table();
  Scenario& s = out.scenario;
  s.path = path;
  TableReader top(context, root, "top level");

  // A missing section beside a near miss of it: the error points at the misspelling.
  const std::vector<std::string> sections = {"scenario", "rig",     "workload", "reference", "roofline", "counters",
                                             "ddr",      "latency", "accuracy", "compare",   "notify"};
  auto required = [&](std::string_view key) -> const toml::table* {
    bool present = root.contains(key);
    const toml::table* t = top.table(key);
    if (present || !top.ok()) return t;
    std::vector<std::string> unknown;
    for (auto&& [k, v] : root)
      if (std::find(sections.begin(), sections.end(), k.str()) == sections.end()) unknown.emplace_back(k.str());
    if (std::optional<std::string> near = closest_match(key, unknown)) {
      top.allow(*near);
      context.fail(root.get(*near)->source(),
                   fmt::format("unknown section [{}]; did you mean [{}]? (a required section)", *near, key));
    } else {
      context.fail_file(fmt::format("missing required section [{}]", key));
    }
    return t;
  };
  // Each section is read on its own: an error in one does not hide another's.
  auto section = [&](std::string_view key, auto read) {
    if (const toml::table* t = required(key)) {
      TableReader r(context, *t, std::string(key));
      read(r);
      (void)r.finish();
    }
    if (context.error) out.failed_sections.emplace_back(key);
    context.end_section();
  };
  section("scenario", [&](TableReader& r) {
    s.name = r.required_name("name");
    s.description = r.string("description").value_or("");
  });
  section("rig", [&](TableReader& r) { s.rig = read_rig_section(r); });
  section("workload", [&](TableReader& r) { s.workload = read_workload_section(r); });
  // A level whose section has a problem is left out of the partial scenario.
  auto optional = [&](auto& field, std::string_view key, auto read) {
    field = read_optional_section(top, key, read);
    if (context.error) {
      out.failed_sections.emplace_back(key);
      field.reset();
    }
    context.end_section();
  };
  optional(s.reference, "reference", &read_reference_section);
  optional(s.roofline, "roofline", &read_roofline_section);
  optional(s.counters, "counters", &read_counters_section);
  optional(s.ddr, "ddr", &read_ddr_section);
  optional(s.latency, "latency", &read_latency_section);
  optional(s.accuracy, "accuracy", &read_accuracy_section);  // level 5
  optional(s.compare, "compare", &read_compare_section);
  // Checked here; its typed form is read from the text where it is used (notify_config.h).
  std::optional<NotifyConfig> notify;
  optional(notify, "notify", &read_notify_section);
  (void)top.finish();
  context.end_section();
  if (context.earlier.empty() && s.compare && s.compare->max_rounds > 0) {
    // More rounds when undecided: alpha is split over every look the run may take.
    const std::size_t first = s.reference ? static_cast<std::size_t>(s.reference->rounds) : 0;
    if (!s.reference || s.compare->max_rounds < first) {
      context.earlier.push_back(Error::input(fmt::format(
          "{}: [compare] max_rounds = {} {}", path, s.compare->max_rounds,
          s.reference ? fmt::format("is fewer than [reference] rounds = {}", first)
                      : std::string("needs a [reference] to add rounds of"))));
    } else {
      s.compare->looks = static_cast<int>((s.compare->max_rounds + first - 1) / first);
      if (std::string why = unknown_gating(s); !why.empty())
        context.earlier.push_back(Error::input(fmt::format("{}: [compare] gating {}", path, why)));
    }
  }
  if (context.earlier.empty() && s.roofline && !s.reference) {
    for (const RooflineKernel& k : s.roofline->kernels) {
      if (!k.reference) continue;
      context.earlier.push_back(Error::input(fmt::format(
          "{}: [[roofline.kernels]] '{}' names a reference, which is timed beside it in the rounds of the "
          "scenario's [reference]: add one (scenarios/README.md \"[reference]\")",
          k.reference_where, k.name)));
      break;
    }
  }
  if (context.earlier.empty() && !s.rig.window.condition.empty()) {
    std::vector<std::string> names;
    if (s.latency)
      for (const LoadCondition& c : s.latency->loads) names.push_back(c.name);
    if (std::find(names.begin(), names.end(), s.rig.window.condition) == names.end()) {
      std::string message = fmt::format("{}: [rig] window_condition \"{}\" is not a [latency] load condition",
                                        s.rig.window.where.empty() ? path : s.rig.window.where, s.rig.window.condition);
      if (!names.empty()) message += fmt::format(" (they are: {})", fmt::join(names, ", "));
      context.earlier.push_back(Error::input(message));
    }
  }
  out.problems = sorted_by_position(std::move(context.earlier), path);
  s.text = std::move(text);
  return out;
}

Result<Scenario> parse_scenario(std::string text, std::string path, const BundleScope* bundle) {
  ScenarioProblems parsed = parse_scenario_problems(std::move(text), path, bundle);
  if (!parsed.problems.empty()) return combined_problems(path, parsed.problems);
  return std::move(parsed.scenario);
}

std::string where_in_scenario(const Scenario& s, std::string_view dotted) {
  toml::parse_result parsed = toml::parse(s.text, s.path);
  if (!parsed) return s.path;
  toml::node_view<const toml::node> node = std::as_const(parsed.table()).at_path(dotted);
  if (!node) return s.path;
  const toml::source_region& r = node.node()->source();
  return fmt::format("{}:{}:{}", s.path, r.begin.line, r.begin.column);
}

Result<Scenario> load_scenario(const std::string& path) {
  // Refused by size before reading: the TOML tree costs many times the text.
  Result<std::string> text = read_regular_file(path, kMaxScenarioBytes, "scenario");
  if (!text) return text.error();
  return parse_scenario(std::move(*text), path);
}

}  // namespace harness
