#include <filesystem>
#include "harness/levels/ddr.h"

#include <set>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "harness/base/digest.h"
#include "harness/base/units.h"
#include "harness/ddr/metrics.h"
#include "harness/model/metric_catalogue.h"

namespace harness {
namespace {

// Units and directions come from the catalogue (harness/model/metric_catalogue.cc).
Metric make(const std::string& name, double value, Provenance p, const std::string& source) {
  return catalogued_metric(Level::ddr, name, value, p, source);
}

Metric missing_metric(const std::string& name, const std::string& why) {
  return catalogued_missing(Level::ddr, name, why);
}

// The level's metrics from one decoded capture, a group of figures per
// method; a figure the probed pins do not determine is unavailable naming
// the pins ("A12 not probed").
class DdrMetrics {
 public:
  DdrMetrics(const ddr::BusSummary& s, Provenance measured, std::string source, Analysis& out)
      : s_(s), t_(s.timing), cov_(s.timing.coverage), measured_(measured), source_(std::move(source)), out_(out) {}
  void clock();
  void commands();
  void traffic();
  void read_intervals();
  void dq_activity();
  void row_buffer();
  void hints(const DdrConfig& cfg);

 private:
  void add(const std::string& name, double v) { out_.metrics.push_back(make(name, v, measured_, source_)); }
  void missing(const std::string& name, const std::string& why) { out_.metrics.push_back(missing_metric(name, why)); }
  // A figure, or its reason for being unavailable.
  void add_if(const std::string& why, const std::string& name, double v) {
    if (why.empty()) add(name, v);
    else missing(name, why);
  }
  std::string because(ddr::Figure f) const { return ddr::unknown_because(cov_, f); }

  const ddr::BusSummary& s_;
  const ddr::BusTiming& t_;
  const ddr::ProbeCoverage& cov_;
  Provenance measured_;
  std::string source_;
  Analysis& out_;
};

void DdrMetrics::clock() {
  add("ddr.duration", t_.duration);
  add("ddr.clock_cycles", static_cast<double>(t_.cycles));
  if (t_.tck > 0)
    add("ddr.clock_frequency", 1.0 / t_.tck);
  else
    missing("ddr.clock_frequency", "no clock period in the capture");
  add("ddr.clock_stops", static_cast<double>(t_.clock_stops.size()));
}

// Commands the probed pins do not tell apart are not counted by name (their
// words are UNKNOWN); without A10 (LPDDR: the AP/AB pins) RD counts RD and
// RDA alike.
void DdrMetrics::commands() {
  using ddr::Op;
  auto needs = [&](std::initializer_list<Op> ops, std::uint16_t fields) { return cov_.missing(ops, fields); };
  std::set<std::string> unavailable_labels;
  for (int op = 0; op < ddr::kOpCount; ++op) {
    const Op o = static_cast<Op>(op);
    if (o == Op::unknown) continue;
    const std::string label(ddr::op_name(o));
    if (cov_.ambiguous(o)) {
      unavailable_labels.insert(label);
      if (ddr::is_column(o) || o == Op::pre || o == Op::ref) unavailable_labels.insert(label + "A");
      missing("ddr.commands." + label, needs({o}, 0));
      continue;
    }
    const std::uint16_t suffix = ddr::is_column(o) ? ddr::kUnknownAutoPrecharge
                                 : o == Op::pre || (o == Op::ref && t_.standard != ddr::Standard::ddr4)
                                     ? ddr::kUnknownAllBanks
                                     : 0;
    if (suffix && !needs({o}, suffix).empty()) {
      unavailable_labels.insert(label + "A");
      missing("ddr.commands." + label + "A", needs({o}, suffix) + " (counted as " + label + ")");
    }
  }
  for (const auto& [label, n] : s_.command_counts)
    if (!unavailable_labels.count(label)) add("ddr.commands." + label, static_cast<double>(n));
}

void DdrMetrics::traffic() {
  using ddr::Figure;
  add_if(because(Figure::reads), "ddr.reads", static_cast<double>(s_.reads));
  add_if(because(Figure::writes), "ddr.writes", static_cast<double>(s_.writes));
  add_if(because(Figure::read_bytes), "ddr.read_bytes", static_cast<double>(s_.read_bytes));
  add_if(because(Figure::write_bytes), "ddr.write_bytes", static_cast<double>(s_.write_bytes));
  // The level-1 roofline takes its byte count from here.
  const std::string bytes_known = because(Figure::bytes);
  add_if(bytes_known, "ddr.bytes", static_cast<double>(s_.bytes()));
  if (t_.duration > 0) add_if(bytes_known, "ddr.bandwidth", static_cast<double>(s_.bytes()) / t_.duration);
  const std::string tx_known = because(Figure::transactions);
  add_if(tx_known, "ddr.transactions", static_cast<double>(s_.transactions));
  if (!tx_known.empty()) {
    missing("ddr.burst_bytes_mode", tx_known);
  } else if (s_.burst_bytes_mode) {
    Metric m = make("ddr.burst_bytes_mode", static_cast<double>(*s_.burst_bytes_mode), measured_, source_);
    m.text = std::to_string(*s_.burst_bytes_mode);
    out_.metrics.push_back(m);
  } else {
    missing("ddr.burst_bytes_mode", "no RD/WR command in the capture");
  }
  if (tx_known.empty())
    for (const auto& [bytes, n] : s_.transaction_bytes)
      add(fmt::format("ddr.transactions.{}B", bytes), static_cast<double>(n));
}

void DdrMetrics::read_intervals() {
  const std::string reads_known = because(ddr::Figure::read_intervals);
  const std::string no_reads = reads_known.empty() ? "fewer than two RD commands in the capture" : reads_known;
  if (auto p50 = s_.read_interval_ps.percentile(50); p50 && reads_known.empty()) {
    add("ddr.read_interval_p50", *p50 * 1e-12);
    add("ddr.read_interval_p95", *s_.read_interval_ps.percentile(95) * 1e-12);
    add("ddr.read_interval_p50_tck", *s_.read_interval_cycles.percentile(50));
    out_.samples.push_back(catalogued_samples(
        Level::ddr, "ddr.read_interval", measured_,
        source_ + (s_.read_interval_ps.total > s_.read_interval_sample.size() ? " (evenly strided sample)" : ""),
        s_.read_interval_sample));
  } else {
    missing("ddr.read_interval_p50", no_reads);
    missing("ddr.read_interval_p95", no_reads);
    missing("ddr.read_interval_p50_tck", no_reads);
  }
}

// From DQS toggles it is a measurement (its source says how it was made);
// from command timing it rests on the declared read/write latencies and
// burst lengths: a model. Both are reported on their own, so that each can
// be checked against the other.
void DdrMetrics::dq_activity() {
  const std::string commands_known = because(ddr::Figure::command_activity);
  const std::string dqs_source = source_ + ": " + t_.strobes.method();
  const std::string command_source = source_ + ": command timing (bursts at read/write latency)";
  Metric ratio = make("ddr.dq_active_ratio", s_.dq_active_ratio, s_.dq_from_dqs ? measured_ : Provenance::model,
                      s_.dq_from_dqs ? dqs_source : command_source);
  if (!s_.dq_from_dqs && !commands_known.empty()) {
    ratio.value.reset();
    ratio.unavailable = commands_known + " (burst durations unknown) and no DQS probed";
  }
  out_.metrics.push_back(ratio);
  if (s_.dq_active_ratio_dqs) {
    out_.metrics.push_back(make("ddr.dq_active_ratio_dqs", *s_.dq_active_ratio_dqs, measured_, dqs_source));
    out_.metrics.push_back(make("ddr.dq_active_ratio_dqs_uncertainty", *s_.dq_active_ratio_dqs_uncertainty,
                                measured_, source_ + ": one strobe toggle per burst"));
  } else {
    missing("ddr.dq_active_ratio_dqs", "no DQS/RDQS channel probed");
  }
  if (commands_known.empty())
    out_.metrics.push_back(make("ddr.dq_active_ratio_commands", s_.dq_active_ratio_commands, Provenance::model,
                                command_source));
  else
    missing("ddr.dq_active_ratio_commands", commands_known + " (burst durations unknown)");
  if (t_.strobes.preamble_tck > 0) add("ddr.dqs_preamble_cycles", t_.strobes.preamble_tck);
  // No timeline when its estimate is unknown (burst lengths not probed).
  if (ratio.value)
    out_.samples.push_back(
        catalogued_samples(Level::ddr, "ddr.dq_active_timeline", ratio.provenance,
                           ratio.source + fmt::format(", windows of {}", format_quantity(s_.window, "s")), s_.timeline));
}

void DdrMetrics::row_buffer() {
  const std::uint64_t known = s_.row_hits + s_.row_misses + s_.row_conflicts;
  std::string why = because(ddr::Figure::row_buffer);
  if (why.empty() && !known) why = "no RD/WR to a bank whose state was known (no ACT seen before it)";
  if (!why.empty()) {
    missing("ddr.row_hit_rate", why);
    missing("ddr.row_miss_rate", why);
    missing("ddr.row_conflict_rate", why);
  } else {
    add("ddr.row_hit_rate", static_cast<double>(s_.row_hits) / known);
    add("ddr.row_miss_rate", static_cast<double>(s_.row_misses) / known);
    add("ddr.row_conflict_rate", static_cast<double>(s_.row_conflicts) / known);
  }
  add_if(because(ddr::Figure::refreshes), "ddr.refreshes", static_cast<double>(s_.refreshes));
}

// Which fields the probed pins leave unknown, and why.
void DdrMetrics::hints(const DdrConfig& cfg) {
  std::uint16_t open = 0;
  for (std::uint16_t u : cov_.unknown) open |= u;
  for (int b = 0; b < ddr::kUnknownFieldCount; ++b)
    if (open >> b & 1)
      out_.hints.push_back(fmt::format("ddr: {} unknown: {} not probed", ddr::unknown_field_name(b),
                                       ddr::compress_pin_list(cov_.field_pins[static_cast<std::size_t>(b)])));
  for (const std::string& group : cov_.ambiguous_names)
    out_.hints.push_back(fmt::format("ddr: {} not told apart ({} not probed): decoded as UNKNOWN", group,
                                     cov_.unprobed_command_pins()));
  if (s_.unknown_commands)
    out_.hints.push_back(fmt::format("ddr: {} command cycles matched no {} encoding (check the channel mapping)",
                                     s_.unknown_commands, cfg.standard));
}

void emit(const DdrConfig& cfg, const ddr::BusSummary& s, Provenance measured, const std::string& source,
          Analysis& out) {
  DdrMetrics m(s, measured, source, out);
  m.clock();
  m.commands();
  m.traffic();
  m.read_intervals();
  m.dq_activity();
  m.row_buffer();
  m.hints(cfg);
}

}  // namespace

void to_json(nlohmann::json& j, const DdrRecording& r) {
  j = {{"capture", r.capture}, {"sha256", r.sha256}, {"size", r.size},          {"format", r.format},
       {"source", r.source},   {"unavailable", r.unavailable}};
}

void from_json(const nlohmann::json& j, DdrRecording& r) {
  r.capture = j.value("capture", "");
  r.sha256 = j.value("sha256", "");
  r.size = j.value("size", std::uint64_t{0});
  r.format = j.value("format", "");
  r.source = j.value("source", "");
  r.unavailable = j.value("unavailable", "");
}

void analyse_ddr(const Scenario& scenario, const DdrRecording* rec, const std::string& base_dir, Provenance measured,
                 Analysis& out) {
  if (!scenario.ddr) {
    out.metrics.push_back(missing_metric("ddr", "the scenario has no [ddr] section (no logic-analyzer source)"));
    return;
  }
  auto unavailable = [&](const std::string& why) {
    for (const char* name : {"ddr.bytes", "ddr.dq_active_ratio", "ddr.burst_bytes_mode", "ddr.read_interval_p50"})
      out.metrics.push_back(missing_metric(name, why));
  };
  if (!rec || rec->capture.empty()) {
    unavailable(rec && !rec->unavailable.empty() ? rec->unavailable : "no capture was recorded");
    return;
  }
  const DdrConfig& cfg = *scenario.ddr;
  // The analysis reads the recorded capture, and only if it is the same bytes.
  const std::string path = std::filesystem::path(rec->capture).is_absolute() || base_dir.empty()
                               ? rec->capture
                               : (std::filesystem::path(base_dir) / rec->capture).string();
  Result<std::string> digest = sha256_file(path);
  if (!digest) {
    unavailable("capture unreadable: " + digest.error().message);
    return;
  }
  if (!rec->sha256.empty() && *digest != rec->sha256) {
    unavailable(fmt::format("capture {} changed since it was recorded (sha256 {} , recorded {})", rec->capture,
                            *digest, rec->sha256));
    return;
  }
  ddr::DecodeOptions decode;
  decode.standard = *ddr::standard_from_name(cfg.standard);
  decode.roles = cfg.channels;
  decode.window = cfg.timeline_window;
  decode.bank_groups = cfg.bank_groups;
  decode.probes = {cfg.organisation, cfg.probed};
  decode.dqs_preamble = cfg.dqs_preamble;
  decode.two_threads = ddr::decode_on_two_threads(cfg.decode_threads, cfg.jobs);
  ddr::BusModel model;
  model.standard = decode.standard;
  model.dq_width = cfg.dq_width;
  model.wck_ratio = cfg.wck_ratio;
  model.read_latency = cfg.read_latency;
  model.write_latency = cfg.write_latency;
  model.window = cfg.timeline_window;
  ReadOptions read;
  read.format = rec->format.empty() ? cfg.format : rec->format;
  read.samplerate = cfg.samplerate;
  read.jobs = cfg.jobs;
  read.limits = cfg.reader_limits;
  Result<ddr::BusSummary> summary = ddr::summarise_capture(path, read, decode, model);
  if (!summary) {
    unavailable("capture not decodable: " + summary.error().message);
    return;
  }
  emit(cfg, *summary, measured, "capture:" + rec->capture + " sha256:" + digest->substr(0, 12), out);
}

std::vector<Verdict> evaluate_ddr_baseline(const DdrConfig& config, const Analysis& baseline,
                                           const Analysis& current) {
  std::vector<Verdict> out;
  for (const DdrBaselineExpectation& e : config.baseline_expectations) {
    Verdict v;
    v.level = Level::ddr;
    v.check = "ddr.expect." + e.key;
    const Metric* b = baseline.find_metric(e.metric);
    const Metric* c = current.find_metric(e.metric);
    auto show = [](const Metric& m) {
      return m.unit.empty() || m.unit == "1" ? fmt::format("{:.4g}", *m.value) : format_quantity(*m.value, m.unit);
    };
    if (!b || !b->value) {
      v.status = VerdictStatus::unavailable;
      v.expected = e.lower ? "lower than the baseline" : "higher than the baseline";
      v.measured = "unavailable: the baseline has no " + e.metric + (b ? ": " + b->unavailable : "");
      out.push_back(v);
      continue;
    }
    v.expected = fmt::format("{} {}", e.lower ? "<" : ">", show(*b));
    if (!c || !c->value) {
      v.status = VerdictStatus::unavailable;
      v.measured = "unavailable: " + (c ? c->unavailable : "metric " + e.metric + " was not produced");
      out.push_back(v);
      continue;
    }
    v.measured = show(*c);
    bool pass = e.lower ? *c->value < *b->value : *c->value > *b->value;
    v.status = pass ? VerdictStatus::pass : VerdictStatus::fail;
    if (!pass)
      v.detail = fmt::format("{} is {}, baseline {}, expected {} ({})", e.metric, v.measured, show(*b),
                             e.lower ? "lower" : "higher", e.where);
    out.push_back(v);
  }
  return out;
}

}  // namespace harness
