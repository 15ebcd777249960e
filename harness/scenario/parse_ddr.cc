#include <filesystem>

#include <fmt/format.h>

#include "harness/model/metric_catalogue.h"
#include "harness/scenario/sections.h"
#include "probes/capture/formats.h"

namespace harness {
namespace {

// The [ddr.expect] keys: the catalogue's level-3 entries that take bounds.
const std::vector<ExpectableMetric>& ddr_expectables() {
  static const std::vector<ExpectableMetric> k = catalogue_expectables(Level::ddr, "");
  return k;
}

void read_acquire(TableReader& r, DdrConfig& c) {
  DdrAcquireConfig a;
  a.driver = r.required_string("driver");
  a.connection = r.string("connection").value_or("");
  if (auto v = r.quantity("samplerate", Dimension::frequency)) a.samplerate = *v;
  if (auto v = r.integer("samples", 1, std::int64_t{1} << 40)) a.samples = static_cast<std::uint64_t>(*v);
  if (auto v = r.quantity("duration", Dimension::time)) a.duration = *v;
  a.trigger = r.string("trigger").value_or("");
  a.pattern = r.string("pattern").value_or("");
  if (r.ok() && a.samples == 0 && a.duration == 0) r.fail_missing("samples", "a sample limit (samples or duration)");
  c.acquire = a;
}

}  // namespace

DdrConfig read_ddr_section(TableReader& r) {
  DdrConfig c;
  c.standard = r.choice("standard", {"ddr4", "lpddr4", "lpddr4x", "lpddr5", "lpddr5x"}).value_or("");
  if (r.ok() && c.standard.empty()) r.fail_missing("standard", "the DRAM standard (ddr4, lpddr4, lpddr5)");
  c.capture = r.string("capture").value_or("");
  if (!c.capture.empty()) {
    std::filesystem::path p(c.capture);
    if (p.is_relative()) p = std::filesystem::path(r.context().path).parent_path() / p;
    c.capture_path = p.lexically_normal().string();
  }
  c.format = r.choice("format", capture_format_list()).value_or("");
  if (auto v = r.quantity("samplerate", Dimension::frequency)) c.samplerate = *v;
  if (auto v = r.integer("dq_width", 4, 64)) c.dq_width = static_cast<unsigned>(*v);
  if (auto v = r.integer("wck_ratio", 1, 8)) c.wck_ratio = static_cast<unsigned>(*v);
  if (auto v = r.boolean("bank_groups")) {
    c.bank_groups = *v;
    if (*v && c.standard.rfind("lpddr5", 0) != 0)
      r.fail_at("bank_groups", "bank_groups is an LPDDR5 mode (DDR4 always decodes its bank groups; LPDDR4 has none)");
  }
  if (auto v = r.choice("organisation", {"x4", "x8", "x16"})) {
    c.organisation = *v;
    if (c.standard != "ddr4")
      r.fail_at("organisation", "organisation is a DDR4 setting (x4, x8: BG0 and BG1; x16: BG0 only)");
  }
  if (auto v = r.string_array("probed")) {
    c.probed = *v;
    if (c.probed.empty()) r.fail_at("probed", "an empty probe set: list the roles probed, or leave the key out");
  }
  if (auto v = r.integer("dqs_preamble", 0, 4)) c.dqs_preamble = static_cast<unsigned>(*v);
  if (auto v = r.integer("read_latency", 1, 200)) c.read_latency = static_cast<unsigned>(*v);
  if (auto v = r.integer("write_latency", 1, 200)) c.write_latency = static_cast<unsigned>(*v);
  if (auto v = r.quantity("timeline_window", Dimension::time)) c.timeline_window = *v;
  if (auto v = r.integer("jobs", 0, 1024)) c.jobs = static_cast<unsigned>(*v);
  if (auto v = r.integer("decode_threads", 0, 2)) c.decode_threads = static_cast<unsigned>(*v);
  if (const toml::table* t = r.table("reader_limits")) {
    TableReader lr(r.context(), *t, "ddr.reader_limits");
    for (const ReaderLimit& l : reader_limit_table())
      if (auto v = lr.integer(l.name, 1, INT64_MAX)) c.reader_limits.*l.field = static_cast<std::uint64_t>(*v);
    (void)lr.finish();
  }
  if (const toml::table* t = r.table("channels")) {
    TableReader cr(r.context(), *t, "ddr.channels");
    for (const auto& [key, node] : *t) {
      std::string role(key.str());
      if (auto name = cr.string(role)) c.channels[role] = *name;
    }
    (void)cr.finish();
  }
  if (const toml::table* t = r.table("acquire")) {
    TableReader ar(r.context(), *t, "ddr.acquire");
    read_acquire(ar, c);
    (void)ar.finish();
  }
  if (r.ok() && c.capture.empty() && !c.acquire)
    r.fail_missing("capture", "a capture file (capture = \"...\") or a [ddr.acquire] table");
  if (const toml::table* t = r.table("expect")) {
    TableReader er(r.context(), *t, "ddr.expect");
    c.expectations = read_expectations(er, Level::ddr, ddr_expectables());
    // A transaction size in bytes, compared as the metric's text.
    const CatalogueEntry& mode = *find_catalogue_entry(Level::ddr, "ddr.burst_bytes_mode");
    const std::string mode_key(mode.expect);
    if (er.has(mode_key)) {
      const toml::node* n = er.node(mode_key);
      if (auto v = er.integer(mode_key, 1, 1 << 20)) {
        Expectation e;
        e.level = Level::ddr;
        e.key = mode_key;
        e.metric = std::string(mode.name);
        e.bound = Bound::equals;
        e.text = std::to_string(*v);
        e.unit.assign(1, 'B');  // not = "B": GCC 12 warns of an overlapping copy (-Wrestrict) it imagines
        e.where = n ? r.context().where(n->source()) : "";
        c.expectations.push_back(e);
      }
    }
    for (const auto& [key, node] : *t) {
      std::string k(key.str());
      const std::string suffix = "_vs_baseline";
      if (k.size() <= suffix.size() || k.compare(k.size() - suffix.size(), suffix.size(), suffix) != 0) continue;
      std::string stem = k.substr(0, k.size() - suffix.size());
      bool known = false;
      for (const CatalogueEntry& m : metric_catalogue(Level::ddr))
        if (m.forms & kExpectVsBaseline && m.expect == stem) {
          known = true;
          DdrBaselineExpectation b;
          b.key = k;
          b.metric = std::string(m.name);
          b.where = r.context().where(node.source());
          if (auto dir = er.choice(k, {"lower", "higher", "shorter", "longer"}))
            b.lower = *dir == "lower" || *dir == "shorter";
          c.baseline_expectations.push_back(b);
        }
      if (!known) er.fail_at(k, fmt::format("no metric '{}' to compare with the baseline", stem));
    }
    (void)er.finish();
  }
  return c;
}

}  // namespace harness
