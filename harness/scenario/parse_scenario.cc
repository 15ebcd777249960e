#include <cerrno>
#include <cstring>
#include <fstream>
#include <regex>
#include <sstream>

#include <fmt/format.h>

#include "harness/scenario/scenario.h"
#include "harness/scenario/sections.h"

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

}  // namespace

Rig read_rig_section(TableReader& r) {
  Rig rig;
  rig.name = r.required_string("name");
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
      if (value.is_string() && value.as_string()->get() == "measure") {
        c.measure = true;
      } else if (auto q = cr.quantity(name.str(), dimension)) {
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
  return w;
}

Result<Scenario> parse_scenario(std::string text, std::string path) {
  ParseContext context{path, std::nullopt};
  toml::parse_result parsed = toml::parse(text, path);
  if (!parsed) {
    const toml::parse_error& e = parsed.error();
    return Error::input(fmt::format("{}: {}", context.where(e.source()), e.description()));
  }
  const toml::table& root = parsed.table();
  Scenario s;
  s.path = path;
  TableReader top(context, root, "top level");

  auto required = [&](std::string_view key) -> const toml::table* {
    bool present = root.contains(key);
    const toml::table* t = top.table(key);
    if (!present && top.ok()) context.fail_file(fmt::format("missing required section [{}]", key));
    return t;
  };

  if (const toml::table* t = required("scenario")) {
    TableReader r(context, *t, "scenario");
    s.name = r.required_string("name");
    s.description = r.string("description").value_or("");
    (void)r.finish();
  }
  if (const toml::table* t = required("rig")) {
    TableReader r(context, *t, "rig");
    s.rig = read_rig_section(r);
    (void)r.finish();
  }
  if (const toml::table* t = required("workload")) {
    TableReader r(context, *t, "workload");
    s.workload = read_workload_section(r);
    (void)r.finish();
  }
  s.roofline = read_optional_section(top, "roofline", &read_roofline_section);
  s.counters = read_optional_section(top, "counters", &read_counters_section);
  s.ddr = read_optional_section(top, "ddr", &read_ddr_section);
  s.latency = read_optional_section(top, "latency", &read_latency_section);
  s.compare = read_optional_section(top, "compare", &read_compare_section);
  HARNESS_TRY(top.finish());
  if (context.error) return *context.error;
  s.text = std::move(text);
  return s;
}

Result<Scenario> load_scenario(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    return Error::input(fmt::format("{}: cannot open scenario: {}", path, std::strerror(errno)));
  }
  std::ostringstream buffer;
  buffer << in.rdbuf();
  return parse_scenario(buffer.str(), path);
}

}  // namespace harness
