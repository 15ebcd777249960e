#include <algorithm>
#include <filesystem>

#include <fmt/format.h>

#include "harness/model/metric_catalogue.h"
#include "harness/scenario/sections.h"
#include "probes/profile/profile.h"
#include "probes/vendor_figures.h"

namespace harness {
namespace {

// The expect tables' keys come from the catalogue's level-1 entries.
const std::vector<ExpectableMetric>& kernel_expectables() {
  static const std::vector<ExpectableMetric> k = catalogue_expectables(Level::roofline, "[[roofline.kernels]] expect");
  return k;
}

const std::vector<ExpectableMetric>& profile_expectables() {
  static const std::vector<ExpectableMetric> k = catalogue_expectables(Level::roofline, "[roofline.profile.expect]");
  return k;
}

const std::vector<ExpectableMetric>& ceiling_expectables() {
  static const std::vector<ExpectableMetric> k = catalogue_expectables(Level::roofline, "");
  return k;
}

// "model", "declared", "counters", "counters:<name>" or "ddr".
void read_bytes_source(TableReader& r, RooflineKernel& k) {
  const bool declared = k.bytes.has_value();
  std::optional<std::string> text = r.string("bytes_source");
  if (!text) {
    if (declared) k.bytes_source = {BytesSource::Kind::declared, "", 1, "declared"};
    return;
  }
  BytesSource s;
  s.written = *text;
  if (*text == "model") {
    s.kind = BytesSource::Kind::model;
    if (!k.builtin && r.ok()) r.fail_at("bytes_source", "\"model\" needs a built-in kernel (builtin = ...)");
  } else if (*text == "declared") {
    s.kind = BytesSource::Kind::declared;
    if (!declared && r.ok()) r.fail_at("bytes_source", "\"declared\" needs 'bytes'");
  } else if (*text == "counters" || text->rfind("counters:", 0) == 0) {
    s.kind = BytesSource::Kind::counters;
    std::string name = *text == "counters" ? "bytes" : text->substr(9);
    if (name.empty() && r.ok()) r.fail_at("bytes_source", "\"counters:\" needs a counter name after the colon");
    s.metric = "counter." + name;
  } else if (*text == "ddr") {
    s.kind = BytesSource::Kind::ddr;
    s.metric = "ddr.bytes";
  } else if (r.ok()) {
    r.fail_at("bytes_source", fmt::format("expected \"model\", \"declared\", \"counters[:<name>]\" or \"ddr\", got \"{}\"",
                                          *text));
  }
  if (declared && s.kind != BytesSource::Kind::declared && r.ok()) {
    r.fail_at("bytes_source", "'bytes' is declared: remove it or set bytes_source = \"declared\"");
  }
  if (auto n = r.number("bytes_per_count")) {
    if (*n <= 0) r.fail_at("bytes_per_count", "must be positive");
    if (s.kind != BytesSource::Kind::counters && r.ok()) {
      r.fail_at("bytes_per_count", "only applies to bytes_source = \"counters:<name>\"");
    }
    s.per_count = *n;
  }
  k.bytes_source = s;
}

// A kernel's baseline-relative keys: the catalogue's <kernel>.intensity row
// (intensity_gain_min = ratio, intensity_increased = true).
void read_baseline_expectations(TableReader& er, const std::string& kernel,
                                std::vector<KernelBaselineExpectation>& out) {
  const CatalogueEntry* row = nullptr;
  for (const CatalogueEntry& e : metric_catalogue(Level::roofline))
    if (e.name == "<kernel>.intensity") row = &e;
  const std::string stem(row->expect), metric = instance_name(row->name, {kernel});
  const std::string gain = stem + "_gain_min", increased = stem + "_increased";
  if (er.has(gain)) {
    const toml::node* n = er.node(gain);
    if (auto v = er.number(gain)) {
      if (*v <= 0) er.fail_at(gain, "must be positive (a ratio to the baseline)");
      out.push_back({kernel, gain, metric, *v, false, er.context().where(n->source())});
    }
  }
  if (er.has(increased)) {
    const toml::node* n = er.node(increased);
    if (auto v = er.boolean(increased)) {
      if (!*v) er.fail_at(increased, "only 'true' is meaningful (drop the key otherwise)");
      out.push_back({kernel, increased, metric, 1, true, er.context().where(n->source())});
    }
  }
}

// A kernel's same-run reference: "same" (the kernel alternated with itself,
// an A/A night) or a table of a built-in kernel's keys (the last known-good
// shape or build). Only a kernel the harness runs can be alternated.
void read_kernel_reference(TableReader& r, RooflineKernel& k) {
  const toml::node* n = r.node("reference");
  if (!n) return;
  k.reference_where = r.where("reference");
  if (!k.builtin || k.time) {
    r.fail_at("reference", "only a built-in kernel the harness times (builtin = ..., no 'time') can be "
                           "alternated with a reference");
    return;
  }
  if (const toml::table* t = n->as_table()) {
    TableReader rr(r.context(), *t, fmt::format("{}.reference", r.name()));
    if (!rr.has("builtin")) {
      rr.fail_missing("builtin", "a kernel's reference is a built-in kernel (builtin = ... and its shape keys)");
    } else {
      k.reference = read_builtin_kernel(rr);
    }
    (void)rr.finish();
  } else if (n->value<std::string>() == "same") {
    k.reference = *k.builtin;
  } else {
    r.fail_at("reference", "takes \"same\" (the kernel itself, an A/A night) or a table of a built-in kernel's "
                           "keys ([roofline.kernels.reference] builtin = ..., shape keys)");
  }
}

RooflineKernel read_kernel(TableReader& r, RooflineConfig& c) {
  RooflineKernel k;
  k.name = r.required_string("name");
  k.where = r.context().where(r.table().source());
  if (r.has("builtin")) {
    k.builtin = read_builtin_kernel(r);
  }
  if (auto f = r.number("flops")) {
    if (*f <= 0) r.fail_at("flops", "must be positive");
    k.flops = *f;
  }
  if (auto b = r.quantity("bytes", Dimension::size)) {
    if (*b <= 0) r.fail_at("bytes", "must be positive");
    k.bytes = *b;
  }
  if (auto t = r.quantity("time", Dimension::time)) {
    if (*t <= 0) r.fail_at("time", "must be positive");
    k.time = *t;
  }
  read_bytes_source(r, k);
  const bool bytes_known = k.bytes || k.builtin || k.bytes_source.kind == BytesSource::Kind::counters ||
                           k.bytes_source.kind == BytesSource::Kind::ddr;
  if (r.ok() && !k.builtin && !(k.flops && bytes_known)) {
    r.context().fail(r.table().source(),
                     fmt::format("[{}] kernel '{}' needs 'builtin' or both 'flops' and 'bytes' (or bytes_source)",
                                 r.name(), k.name));
  }
  read_kernel_reference(r, k);
  k.precision = r.string("precision").value_or(k.builtin ? k.builtin->precision : "fp32");
  k.memory = r.string("memory").value_or("dram");
  if (const toml::table* t = r.table("expect")) {
    TableReader er(r.context(), *t, fmt::format("{}.expect", r.name()));
    for (Expectation e : read_expectations(er, Level::roofline, kernel_expectables())) {
      e.metric = instance_name(e.metric, {k.name});  // "<kernel>.intensity"
      c.expectations.push_back(std::move(e));
    }
    read_baseline_expectations(er, k.name, c.baseline_expectations);
    (void)er.finish();
  }
  return k;
}

VendorTool read_vendor(TableReader& r) {
  VendorTool v;
  v.name = r.required_string("name");
  v.argv = r.string_array("command").value_or(std::vector<std::string>{});
  if (r.ok() && v.argv.empty()) {
    if (r.has("command")) r.fail_at("command", "the command must not be empty");
    else r.fail_missing("command", "an argv array");
  }
  if (auto t = r.quantity("timeout", Dimension::time)) v.timeout_s = *t;
  const toml::table* figures = r.table("figures");
  if (!figures && r.ok()) r.fail_missing("figures", "a table of figures: metric = { pattern, unit }");
  if (!figures) return v;
  TableReader fr(r.context(), *figures, r.name() + ".figures");
  for (auto&& [key, node] : *figures) {
    std::string metric(key.str());
    fr.allow(metric);
    VendorFigure f;
    f.metric = metric;
    f.where = r.context().where(node.source());
    if (metric.rfind("bandwidth.", 0) == 0 && metric.size() > 10) {
      f.dimension = Dimension::bandwidth;
    } else if (metric.rfind("compute.", 0) == 0 && metric.size() > 8) {
      f.dimension = Dimension::compute;
    } else {
      fr.fail_at(metric, "a figure's name must start with \"bandwidth.\" or \"compute.\"");
      break;
    }
    if (!node.is_table()) {
      fr.fail_at(metric, fmt::format("expected a table {{ pattern = '...', unit = \"...\" }}, got {}",
                                     toml_type_noun(node.type())));
      break;
    }
    TableReader one(r.context(), *node.as_table(), fmt::format("{}.\"{}\"", fr.name(), metric));
    f.pattern = one.required_string("pattern");
    f.unit = one.required_string("unit");
    if (one.ok()) {
      if (Status s = check_vendor_pattern(f.pattern); !s) one.fail_at("pattern", s.error().message);
    }
    if (one.ok()) {
      if (Result<double> q = parse_quantity("1 " + f.unit, f.dimension); !q) one.fail_at("unit", q.error().message);
    }
    (void)one.finish();
    v.figures.push_back(std::move(f));
  }
  (void)fr.finish();
  return v;
}

// A file of [roofline.profile], resolved against the scenario's folder.
std::string resolve_profile_file(TableReader& r, const std::string& written) {
  std::filesystem::path file(written);
  if (file.is_relative()) file = std::filesystem::path(r.context().path).parent_path() / file;
  return file.lexically_normal().string();
}

std::string read_profile_format(TableReader& r, const char* key) {
  return r.choice(key, profile_format_names()).value_or("auto");
}

LayerProfileConfig read_profile(TableReader& r, std::vector<Expectation>& expectations) {
  LayerProfileConfig p;
  p.where = r.context().where(r.table().source());
  p.written = r.required_string("file");
  if (r.ok()) p.path = resolve_profile_file(r, p.written);
  p.format = read_profile_format(r, "format");
  if (auto f = r.quantity("clock", Dimension::frequency)) {
    if (*f <= 0) r.fail_at("clock", "must be positive");
    p.clock_hz = *f;
  }
  if (auto n = r.integer("runs", 1, 1000000)) p.runs = static_cast<int>(*n);
  if (auto w = r.string("work")) {
    p.work_written = *w;
    p.work_path = resolve_profile_file(r, *w);
  }
  p.work_format = read_profile_format(r, "work_format");
  if (r.has("work_format") && p.work_written.empty() && r.ok()) r.fail_at("work_format", "needs 'work' (the file it reads)");
  p.precision = r.string("precision").value_or(p.precision);
  p.memory = r.string("memory").value_or(p.memory);
  if (auto n = r.integer("top", 1, 1000)) p.top = static_cast<int>(*n);
  if (auto b = r.number("element_bytes")) {
    if (*b <= 0) r.fail_at("element_bytes", "must be positive");
    p.element_bytes = *b;
  }
  if (const toml::table* t = r.table("expect")) {
    TableReader er(r.context(), *t, "roofline.profile.expect");
    for (Expectation& e : read_expectations(er, Level::roofline, profile_expectables())) {
      expectations.push_back(std::move(e));
    }
    (void)er.finish();
  }
  return p;
}

}  // namespace

RooflineConfig read_roofline_section(TableReader& r) {
  RooflineConfig c;
  if (auto n = r.integer("repetitions", 1, 1000)) c.repetitions = static_cast<int>(*n);
  if (auto b = r.quantity("buffer", Dimension::size)) {
    if (*b < 1 << 20) r.fail_at("buffer", "must be at least 1 MiB");
    c.buffer_bytes = static_cast<std::int64_t>(*b);
  }
  if (auto h = r.boolean("host_benchmarks")) c.host_benchmarks = *h;
  if (auto t = r.integer("threads", 0, 1024)) c.threads = static_cast<int>(*t);
  if (auto b = r.quantity("random_reads", Dimension::size)) {
    if (*b < 64 << 10) r.fail_at("random_reads", "must be at least 64 KiB");
    c.random_bytes = static_cast<std::int64_t>(*b);
  }
  if (r.has("bursts")) {
    c.bursts.clear();
    for (const std::string& s : r.string_array("bursts").value_or(std::vector<std::string>{})) {
      Result<double> q = parse_quantity(s, Dimension::size);
      if (!q) { r.fail_at("bursts", q.error().message); break; }
      auto bytes = static_cast<std::int64_t>(*q);
      if (bytes < 64 || bytes % 64 != 0 || bytes > c.buffer_bytes) {
        r.fail_at("bursts", fmt::format("\"{}\": a burst must be a multiple of 64 B no larger than the buffer", s));
        break;
      }
      c.bursts.push_back(bytes);
    }
  }
  if (auto n = r.integer("fma_iterations", 1000, std::int64_t{1} << 34)) c.fma_iterations = static_cast<std::uint64_t>(*n);
  if (const toml::array* kernels = r.table_array("kernels")) {
    std::size_t i = 0;
    for (const toml::node& node : *kernels) {
      TableReader kr(r.context(), *node.as_table(), fmt::format("roofline.kernels[{}]", i++));
      RooflineKernel k = read_kernel(kr, c);
      // Metric names are "<kernel>.<metric>": they must not collide with the
      // level's own families or with another kernel.
      static const std::vector<std::string> reserved = {"bandwidth", "compute", "ceiling", "ridge",
                                                        "layer",     "profile", "counter", "ddr",
                                                        "latency",   "reference", "vs_reference"};
      if (kr.ok() && k.name.empty()) kr.fail_at("name", "a kernel needs a name (its metrics are <name>.time, ...)");
      if (kr.ok() && std::find(reserved.begin(), reserved.end(), k.name) != reserved.end()) {
        kr.fail_at("name", fmt::format("\"{}\" is reserved for the level's own metrics", k.name));
      }
      for (const RooflineKernel& other : c.kernels) {
        if (kr.ok() && other.name == k.name) {
          kr.fail_at("name", fmt::format("a kernel named \"{}\" is already declared at {}", k.name, other.where));
        }
      }
      c.kernels.push_back(std::move(k));
      (void)kr.finish();
    }
  }
  if (const toml::array* tools = r.table_array("vendor")) {
    std::size_t i = 0;
    for (const toml::node& node : *tools) {
      TableReader vr(r.context(), *node.as_table(), fmt::format("roofline.vendor[{}]", i++));
      c.vendor.push_back(read_vendor(vr));
      (void)vr.finish();
    }
  }
  if (const toml::table* t = r.table("profile")) {
    TableReader pr(r.context(), *t, "roofline.profile");
    c.profile = read_profile(pr, c.expectations);
    (void)pr.finish();
  }
  if (const toml::table* t = r.table("expect")) {
    TableReader er(r.context(), *t, "roofline.expect");
    auto e = read_expectations(er, Level::roofline, ceiling_expectables());
    c.expectations.insert(c.expectations.end(), e.begin(), e.end());
    (void)er.finish();
  }
  return c;
}

}  // namespace harness
