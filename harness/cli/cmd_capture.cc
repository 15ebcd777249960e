// harness capture info|convert|synth|decode: logic-analyzer captures and the
// DDR command-bus decoder outside of a run.
#include <chrono>
#include <cstdio>
#include <fstream>
#include <map>
#include <memory>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "harness/base/cpu_time.h"
#include "harness/base/units.h"
#include "harness/cli/commands.h"
#include "harness/ddr/export.h"
#include "harness/ddr/metrics.h"
#include "harness/ddr/synth.h"
#include "probes/capture/formats.h"
#include "probes/capture/readers.h"

namespace harness {
namespace {

struct CaptureArgs {
  std::string input, output, format, samplerate_text, sr_reader = "direct", standard = "lpddr4", pattern = "stream", trace;
  std::vector<std::string> map, clock_stops, reader_limits, channels, probed;
  std::string organisation;
  std::string csv, drampower, commands_json, truth_out;
  bool in_memory = false, read_only = false, bank_groups = false, cke = false, list_formats = false;
  unsigned spc = 8, jitter = 0, dqs = 1, dq = 0, dq_width = 16, wck_ratio = 4, ranks = 1, jobs = 0, dqs_preamble = 0;
  unsigned decode_threads = 0;  // 0: two where the host has cores to spare
  std::string tck_text = "10 ns";
  std::uint64_t cycles = 20000, seed = 1;
  unsigned chunk_mib = 64;  // .sr chunk entries written (the threads inflate one entry each)
  // The strobe's impairments and the stream pattern's shape (synth).
  unsigned dqs_jitter = 0, dqs_duty = 50, row_transactions = 4;
  double dqs_skew = 0, dqs_glitches = 0;
  bool dqs_park_high = false;
  std::string stream_gap = "2-5";
};

Result<ReadOptions> read_options(const CaptureArgs& a) {
  ReadOptions r;
  r.format = a.format;
  r.sr_reader = a.sr_reader;
  r.jobs = a.jobs;
  if (!a.samplerate_text.empty()) {
    Result<double> hz = parse_quantity(a.samplerate_text, Dimension::frequency);
    if (!hz) return hz.error().within("--samplerate");
    r.samplerate = *hz;
  }
  if (!a.channels.empty()) r.plan_channels = plan_named_channels(a.channels);
  for (const std::string& l : a.reader_limits) {
    Status s = set_reader_limit(r.limits, l);
    if (!s) return s.error().within("--reader-limit");
  }
  return r;
}

std::string reader_limit_help() {
  std::string out;
  const ReaderLimits defaults;
  for (const ReaderLimit& l : reader_limit_table())
    out += fmt::format("{}{}={} ({})", out.empty() ? "" : "; ", l.name, defaults.*l.field, l.what);
  return out;
}

// "CS_n 120, CA3 4 samples x/z or no data (held at the last known level)"
std::string unknown_text(const std::map<std::string, std::uint64_t>& unknown) {
  std::string list;
  for (const auto& [name, n] : unknown) list += fmt::format("{}{} {}", list.empty() ? "" : ", ", name, n);
  return list + " samples x/z or no data (held at the last known level)";
}

Result<ddr::Standard> standard_of(const std::string& s) {
  std::optional<ddr::Standard> st = ddr::standard_from_name(s);
  if (!st) return Error::input(fmt::format("--standard: unknown '{}' (ddr4, lpddr4, lpddr5)", s));
  return *st;
}

// The writer of the format an output file names (its extension), from the
// format table; a name without a known extension gets the first writer (.sr).
Result<std::unique_ptr<CaptureSink>> open_writer(const std::string& output, unsigned chunk_mib) {
  Result<const CaptureFormat*> named = recognise_output(output);
  if (!named) return named.error();
  return (*named)->write(output, std::size_t{chunk_mib} << 20);
}

Result<ExitCode> info(const CaptureArgs& a, const GlobalOptions& g, Io io) {
  if (a.list_formats) {
    io.out << capture_format_table_text();
    return ExitCode::ok;
  }
  if (a.input.empty()) return Error::input("capture info: name a capture file (or --formats for the formats known)");
  Result<ReadOptions> r = read_options(a);
  if (!r) return r.error();
  CaptureSummary summary;
  HARNESS_TRY(read_capture(a.input, *r, summary));
  const CaptureHeader& h = summary.header();
  const double duration = h.samplerate > 0 ? summary.sample_count() / h.samplerate : 0;
  std::map<std::string, std::uint64_t> unknown;
  for (std::size_t c = 0; c < h.unknown_samples.size() && c < h.channels.size(); ++c)
    if (h.unknown_samples[c]) unknown[h.channels[c]] = h.unknown_samples[c];
  if (g.json) {
    nlohmann::json j{{"file", a.input},          {"format", h.format},
                     {"channels", h.channels},   {"samplerate_hz", h.samplerate},
                     {"samples", summary.sample_count()}, {"duration_s", duration},
                     {"bytes_per_sample", h.unitsize}};
    if (!unknown.empty()) j["unknown_samples"] = unknown;
    io.out << j.dump(2) << "\n";
    return ExitCode::ok;
  }
  print_text(io.out, fmt::format("file:        {}\nformat:      {}\nchannels:    {} ({})\nsample rate: {}\nsamples:     {}\n"
                        "duration:    {}\n",
                        a.input, h.format, h.channels.size(), fmt::join(h.channels, ", "),
                        samplerate_text(h.samplerate), summary.sample_count(), format_quantity(duration, "s")));
  if (!unknown.empty()) print_text(io.out, "x/z samples: " + unknown_text(unknown) + "\n");
  return ExitCode::ok;
}

Result<ExitCode> convert(const CaptureArgs& a, Io io) {
  Result<ReadOptions> r = read_options(a);
  if (!r) return r.error();
  Result<std::unique_ptr<CaptureSink>> writer = open_writer(a.output, a.chunk_mib);
  if (!writer) return writer.error();
  HARNESS_TRY(read_capture(a.input, *r, **writer));
  io.err << fmt::format("harness: wrote {}\n", a.output);
  return ExitCode::ok;
}

Result<ddr::SynthOptions> synth_options(const CaptureArgs& a, ddr::Standard standard) {
  ddr::SynthOptions o;
  o.standard = standard;
  o.samples_per_clock = a.spc;
  Result<double> tck = parse_quantity(a.tck_text, Dimension::time);
  if (!tck) return tck.error().within("--tck");
  o.tck = *tck;
  o.jitter = a.jitter;
  o.seed = a.seed;
  o.dqs_channels = a.dqs;
  o.dq_channels = a.dq;
  o.dq_width = a.dq_width;
  o.wck_ratio = a.wck_ratio;
  o.ranks = a.ranks;
  o.cke = a.cke;
  o.organisation = a.organisation;
  o.probed = a.probed;
  o.dqs_preamble = a.dqs_preamble;
  if (!o.probed.empty()) {
    // The probed roles checked as decode checks them: a name the standard has no pin for is refused.
    ddr::SynthOptions every_pin = o;
    every_pin.probed.clear();
    Result<ddr::BusLayout> layout = ddr::make_layout(standard, ddr::synth_channels(every_pin), {}, {a.organisation, a.probed});
    if (!layout) return layout.error();
  }
  o.dqs_jitter = a.dqs_jitter;
  o.dqs_skew = a.dqs_skew;
  o.dqs_duty = a.dqs_duty;
  o.dqs_glitches = a.dqs_glitches;
  o.dqs_park_high = a.dqs_park_high;
  for (const std::string& s : a.clock_stops) {
    std::size_t colon = s.find(':');
    try {
      if (colon == std::string::npos) throw std::invalid_argument(s);
      o.clock_stops.push_back({std::stoull(s.substr(0, colon)), std::stoull(s.substr(colon + 1))});
    } catch (...) {
      return Error::input(fmt::format("--clock-stop '{}': expected <after cycle>:<cycles>", s));
    }
  }
  return o;
}

// The trace: a command list, or generated traffic.
Result<std::vector<ddr::Command>> synth_trace(const CaptureArgs& a, ddr::Standard standard) {
  if (!a.trace.empty()) {
    Result<std::string> text = read_file_bytes(a.trace);
    if (!text) return text.error();
    return ddr::parse_command_csv(*text, a.trace);
  }
  ddr::StreamShape shape;
  shape.row_transactions = a.row_transactions;
  unsigned lo = 0, hi = 0;
  char dash = 0, extra = 0;
  if (std::sscanf(a.stream_gap.c_str(), "%u%c%u%c", &lo, &dash, &hi, &extra) != 3 || dash != '-')
    return Error::input(fmt::format("--stream-gap '{}': expected MIN-MAX cycles (e.g. 2-5)", a.stream_gap));
  shape.gap_min = lo;
  shape.gap_max = hi;
  return ddr::generate_traffic(standard, a.pattern, a.cycles, a.seed, a.wck_ratio, a.cke,
                               a.organisation == "x16" ? 2 : 0, shape);
}

Result<ExitCode> synth(const CaptureArgs& a, Io io) {
  Result<ddr::Standard> st = standard_of(a.standard);
  if (!st) return st.error();
  Result<ddr::SynthOptions> o = synth_options(a, *st);
  if (!o) return o.error();
  Result<std::vector<ddr::Command>> trace = synth_trace(a, *st);
  if (!trace) return trace.error();
  if (!a.csv.empty()) {
    std::ofstream out(a.csv);
    ddr::CommandCsvWriter w(out);
    w.on_commands(*trace);
    if (!out) return Error::infra(a.csv + ": write failed");
  }
  Result<std::unique_ptr<CaptureSink>> writer = open_writer(a.output, a.chunk_mib);
  if (!writer) return writer.error();
  ddr::SynthTruth truth;
  HARNESS_TRY(ddr::synthesize(*trace, *o, **writer, &truth));
  if (!a.truth_out.empty()) {
    std::ofstream out(a.truth_out);
    out << nlohmann::json{{"capture", a.output},
                          {"samples", truth.samples},
                          {"samplerate_hz", truth.samplerate},
                          {"samples_per_clock", truth.samples_per_clock},
                          {"data_cycles", truth.data_cycles},
                          {"strobe_cycles", truth.strobe_cycles},
                          {"strobe_bursts", truth.bursts},
                          {"dq_active_ratio", truth.dq_active_ratio()}}
               .dump(2)
        << "\n";
    if (!out) return Error::infra(a.truth_out + ": write failed");
  }
  io.err << fmt::format("harness: wrote {} ({} commands, {} at {} samples per clock; ground truth: DQ active {:.2f} %)\n",
                        a.output, trace->size(), a.standard, a.spc, 100 * truth.dq_active_ratio());
  return ExitCode::ok;
}

// What `capture decode` reads and how it decodes, from its arguments.
struct DecodeSetup {
  ReadOptions read;
  ddr::DecodeOptions options;
  ddr::BusModel model;
};

Result<DecodeSetup> decode_setup(const CaptureArgs& a) {
  Result<ReadOptions> r = read_options(a);
  if (!r) return r.error();
  Result<ddr::Standard> st = standard_of(a.standard);
  if (!st) return st.error();
  DecodeSetup setup{std::move(*r), {}, {}};
  ddr::DecodeOptions& d = setup.options;
  d.standard = *st;
  d.bank_groups = a.bank_groups;
  d.probes = {a.organisation, a.probed};
  d.dqs_preamble = a.dqs_preamble;
  d.two_threads = ddr::decode_on_two_threads(a.decode_threads, a.jobs);
  for (const std::string& m : a.map) {
    std::size_t eq = m.find('=');
    if (eq == std::string::npos) return Error::input(fmt::format("--map '{}': expected ROLE=CHANNEL", m));
    d.roles[m.substr(0, eq)] = m.substr(eq + 1);
  }
  // Files with more channels than a capture holds: only those the roles can use.
  setup.read.plan_channels = [d](const std::vector<std::string>& channels) -> Result<ChannelPlan> {
    return ddr::plan_bus_channels(d.standard, d.roles, channels);
  };
  setup.model.standard = *st;
  setup.model.dq_width = a.dq_width;
  setup.model.wck_ratio = a.wck_ratio;
  return setup;
}

// The command stream fanned out to the statistics and the exports asked for.
class DecodeSinks : public ddr::CommandSink {
 public:
  explicit DecodeSinks(const ddr::BusModel& model) : stats(model) { sinks_.push_back(&stats); }
  Status open_exports(const CaptureArgs& a) {
    if (!a.csv.empty()) {
      csv_file_.open(a.csv);
      if (!csv_file_) return Error::input(a.csv + ": cannot write");
      csv_ = std::make_unique<ddr::CommandCsvWriter>(csv_file_);
      sinks_.push_back(csv_.get());
    }
    if (!a.drampower.empty()) {
      dp_file_.open(a.drampower);
      if (!dp_file_) return Error::input(a.drampower + ": cannot write");
      dp_ = std::make_unique<ddr::DramPowerWriter>(dp_file_);
      sinks_.push_back(dp_.get());
    }
    return ok();
  }
  void on_commands(std::span<const ddr::Command> c) override {
    for (auto* s : sinks_) s->on_commands(c);
  }
  void finish(const ddr::BusTiming& timing) {
    if (dp_) dp_->finish(timing.cycles);
  }
  ddr::BusStatistics stats;

 private:
  std::vector<ddr::CommandSink*> sinks_;
  std::ofstream csv_file_, dp_file_;
  std::unique_ptr<ddr::CommandCsvWriter> csv_;
  std::unique_ptr<ddr::DramPowerWriter> dp_;
};

// Times measured by a decode; a path that does not measure one leaves it
// out (never a 0 that looks like a figure).
struct DecodeTimes {
  std::optional<double> read_seconds, decode_seconds, decode_cpu_seconds, statistics_cpu_seconds;
  struct TwoThreads {
    double seconds;            // wall: decode + statistics on two threads
    ddr::StageSeconds stages;  // their CPU seconds each
  };
  std::optional<TwoThreads> two_threads;
};

using Clock = std::chrono::steady_clock;
double seconds_since(Clock::time_point from) { return std::chrono::duration<double>(Clock::now() - from).count(); }

// A reader's bare read (--sr-reader libsigrok: the benchmark's anchor).
Result<ExitCode> read_only(const CaptureArgs& a, const ReadOptions& r, Io io) {
  CaptureSummary summary;
  auto t0 = Clock::now();
  HARNESS_TRY(read_capture(a.input, r, summary));
  io.out << nlohmann::json{{"file", a.input}, {"samples", summary.sample_count()}, {"read_seconds", seconds_since(t0)}}
                .dump(2)
         << "\n";
  return ExitCode::ok;
}

// Load first, then decode from memory: the decoder's own speed, alone and
// with the statistics (and exports), as a run computes them.
Result<ddr::BusTiming> decode_in_memory(const CaptureArgs& a, const DecodeSetup& setup, ddr::CommandSink& sinks,
                                        DecodeTimes& times) {
  CaptureCollector collector(a.input, setup.read.limits);
  auto t0 = Clock::now();
  HARNESS_TRY(read_capture(a.input, setup.read, collector));
  times.read_seconds = seconds_since(t0);
  struct Counter : ddr::CommandSink {
    void on_commands(std::span<const ddr::Command> c) override { n += c.size(); }
    std::uint64_t n = 0;
  } counter;  // commands counted, not kept
  // One core's figures first, whatever --decode-threads says.
  ddr::DecodeOptions one_thread = setup.options;
  one_thread.two_threads = false;
  ddr::BusDecoder alone(one_thread, counter);
  double c0 = process_cpu_seconds();
  Status decoded = collector.capture().replay(alone, std::size_t{1} << 22);
  times.decode_cpu_seconds = process_cpu_seconds() - c0;
  if (!decoded) return decoded.error().within(a.input);
  ddr::BusDecoder decoder(one_thread, sinks);
  t0 = Clock::now();
  c0 = process_cpu_seconds();
  Status s = collector.capture().replay(decoder, std::size_t{1} << 22);
  times.statistics_cpu_seconds = process_cpu_seconds() - c0;
  times.decode_seconds = seconds_since(t0);
  if (!s) return s.error().within(a.input);
  // The same on two threads, into statistics of its own: wall time, and
  // what each stage would take on a core of its own.
  ddr::DecodeOptions two = setup.options;
  two.two_threads = true;
  ddr::BusStatistics statistics(setup.model);
  ddr::BusDecoder pipelined(two, statistics);
  t0 = Clock::now();
  s = collector.capture().replay(pipelined, std::size_t{1} << 22);
  const double two_seconds = seconds_since(t0);
  if (!s) return s.error().within(a.input);
  // No thread to be had: decoded on one, so nothing to report.
  if (std::optional<ddr::StageSeconds> stages = pipelined.stage_seconds()) times.two_threads = {two_seconds, *stages};
  return decoder.timing();
}

// What the probed pins leave open: each field, and why.
std::vector<std::pair<std::string, std::string>> unknown_fields(const ddr::ProbeCoverage& cov) {
  std::uint16_t open = 0;
  for (std::uint16_t u : cov.unknown) open |= u;
  std::vector<std::pair<std::string, std::string>> out;
  for (int b = 0; b < ddr::kUnknownFieldCount; ++b)
    if (open >> b & 1)
      out.emplace_back(std::string(ddr::unknown_field_name(b)),
                       ddr::compress_pin_list(cov.field_pins[static_cast<std::size_t>(b)]) + " not probed");
  return out;
}

// "roles:  by their names: CK, CS, CA0-CA5; by spelling: CS_n = CS#;
// strobes: DQS0_t" for the roles no one mapped; empty when all were.
std::string roles_text(const ddr::BusTiming& t) {
  std::vector<std::string> named;
  std::string spelled;
  for (const ddr::RoleMatch& m : t.roles) {
    if (m.how == ddr::RoleMatch::named) named.push_back(m.role);
    if (m.how == ddr::RoleMatch::spelled) spelled += fmt::format("{}{} = {}", spelled.empty() ? "" : ", ", m.role, m.channel);
  }
  std::string out;
  if (!named.empty()) out += "channels named by their role: " + ddr::compress_pin_list(named);
  if (!spelled.empty()) out += (out.empty() ? "" : "; ") + ("by their spelling: " + spelled);
  if (!t.strobe_channels.empty())
    out += fmt::format("{}strobes: {}", out.empty() ? "" : "; ", fmt::join(t.strobe_channels, ", "));
  return out;
}

nlohmann::json decode_json(const CaptureArgs& a, const ddr::BusTiming& timing, const ddr::BusSummary& s,
                           const DecodeTimes& times) {
  const ddr::ProbeCoverage& cov = timing.coverage;
  using ddr::Figure;
  auto because = [&](Figure f) { return ddr::unknown_because(cov, f); };
  nlohmann::json j = {{"file", a.input},
                      {"standard", a.standard},
                      {"cycles", timing.cycles},
                      {"tck_s", timing.tck},
                      {"duration_s", timing.duration},
                      {"clock_stops", timing.clock_stops.size()},
                      {"commands", s.command_counts},
                      {"reads", s.reads},
                      {"writes", s.writes},
                      {"bytes", s.bytes()},
                      {"transactions", s.transactions},
                      {"dq_active_ratio", s.dq_active_ratio},
                      {"dq_active_from", s.dq_from_dqs ? "DQS toggles" : "command timing"},
                      {"dq_active_ratio_dqs", s.dq_active_ratio_dqs ? nlohmann::json(*s.dq_active_ratio_dqs)
                                                                    : nlohmann::json(nullptr)},
                      {"dq_active_ratio_commands", s.dq_active_ratio_commands},
                      {"row_hits", s.row_hits},
                      {"row_misses", s.row_misses},
                      {"row_conflicts", s.row_conflicts},
                      {"refreshes", s.refreshes},
                      {"samples", timing.samples}};
  nlohmann::json roles = nlohmann::json::object();
  for (const ddr::RoleMatch& m : timing.roles) roles[m.role] = m.channel;
  j["roles"] = roles;
  j["strobes"] = timing.strobe_channels;
  if (timing.dqs_sampled) {
    const ddr::StrobeFigures& f = timing.strobes;
    j["dqs"] = {{"method", f.method()},
                {"toggles", f.toggles},
                {"bursts", f.bursts},
                {"pulses_per_tck", f.pulses_per_tck},
                {"pulses_per_tck_measured", f.rate_measured},
                {"glitch_filter_samples", f.min_width},
                {"glitches_removed", f.glitches},
                {"preamble_tck_left_out", f.preamble_tck}};
    if (s.dq_active_ratio_dqs_uncertainty) j["dq_active_ratio_dqs_uncertainty"] = *s.dq_active_ratio_dqs_uncertainty;
  }
  if (times.read_seconds) j["read_seconds"] = *times.read_seconds;
  if (times.decode_seconds) j["decode_seconds"] = *times.decode_seconds;
  if (times.decode_cpu_seconds) j["decode_cpu_seconds"] = *times.decode_cpu_seconds;
  if (times.statistics_cpu_seconds) j["decode_and_statistics_cpu_seconds"] = *times.statistics_cpu_seconds;
  if (times.two_threads)
    j["two_threads"] = {{"decode_and_statistics_seconds", times.two_threads->seconds},
                        {"sampling_cpu_seconds", times.two_threads->stages.sampling},
                        {"commands_and_statistics_cpu_seconds", times.two_threads->stages.commands}};
  if (!timing.unknown_samples.empty()) j["unknown_samples"] = timing.unknown_samples;
  if (s.burst_bytes_mode) j["burst_bytes_mode"] = *s.burst_bytes_mode;
  // What the probed pins leave open: the figures above that depend on it
  // are not known (null here, "unavailable" in the text output).
  nlohmann::json unknown = nlohmann::json::object();
  for (const auto& [field, why] : unknown_fields(cov)) unknown[field] = why;
  j["unknown_fields"] = unknown;
  j["ambiguous_commands"] = cov.ambiguous_names;
  const std::pair<Figure, const char*> figures[] = {
      {Figure::reads, "reads"},          {Figure::writes, "writes"},     {Figure::bytes, "bytes"},
      {Figure::transactions, "transactions"}, {Figure::row_buffer, "row_hits"}, {Figure::row_buffer, "row_misses"},
      {Figure::row_buffer, "row_conflicts"}, {Figure::refreshes, "refreshes"}};
  nlohmann::json why_null = nlohmann::json::object();
  for (const auto& [f, key] : figures)
    if (!because(f).empty()) {
      j[key] = nullptr;
      why_null[key] = because(f);
    }
  if (!because(Figure::transactions).empty()) j.erase("burst_bytes_mode");
  if (!because(Figure::command_activity).empty()) {
    if (!s.dq_from_dqs) j["dq_active_ratio"] = nullptr;
    j["dq_active_ratio_commands"] = nullptr;
    why_null["dq_active_ratio_commands"] = because(Figure::command_activity);
  }
  if (!timing.dqs_sampled) why_null["dq_active_ratio_dqs"] = "no DQS/RDQS channel in the capture";
  j["unavailable"] = why_null;
  return j;
}

std::string decode_text(const CaptureArgs& a, const ddr::BusTiming& timing, const ddr::BusSummary& s) {
  const ddr::ProbeCoverage& cov = timing.coverage;
  using ddr::Figure;
  // A figure or "unavailable: <why>".
  auto figure = [&](Figure f, const std::string& text) {
    const std::string why = ddr::unknown_because(cov, f);
    return why.empty() ? text : "unavailable: " + why;
  };
  auto p = [&](const ddr::Histogram& h, double q, double scale) {
    std::optional<double> v = h.percentile(q);
    return v ? fmt::format("{:.4g}", *v * scale) : std::string("unavailable");
  };
  std::string out = fmt::format("capture:      {} ({})\n", a.input, timing.format);
  if (const std::string roles = roles_text(timing); !roles.empty()) out += "roles:        " + roles + "\n";
  out += fmt::format("clock:        {} ({} cycles, {} clock stops)\n",
                     timing.tck > 0 ? format_quantity(1 / timing.tck, "Hz") : "unknown", timing.cycles,
                     timing.clock_stops.size());
  std::string counts;
  for (const auto& [label, n] : s.command_counts) counts += fmt::format(" {}={}", label, n);
  out += fmt::format("commands:    {}\n", counts);
  for (const std::string& group : cov.ambiguous_names)
    out += fmt::format("not told apart: {} ({} not probed): counted as UNKNOWN\n", group, cov.unprobed_command_pins());
  for (const auto& [field, why] : unknown_fields(cov)) out += fmt::format("unknown:      {} ({})\n", field, why);
  out += fmt::format("reads/writes: {} / {}, {}\n", figure(Figure::reads, std::to_string(s.reads)),
                     figure(Figure::writes, std::to_string(s.writes)),
                     figure(Figure::bytes, format_quantity(static_cast<double>(s.bytes()), "B") + " moved"));
  std::string hist;
  for (const auto& [bytes, n] : s.transaction_bytes) hist += fmt::format(" {}B:{}", bytes, n);
  out += fmt::format("transactions: {}\n",
                     figure(Figure::transactions,
                            fmt::format("{} (bytes:count{}), mode {}", s.transactions, hist,
                                        s.burst_bytes_mode ? std::to_string(*s.burst_bytes_mode) + " B" : "none")));
  out += fmt::format("read to read: {}\n",
                     figure(Figure::read_intervals,
                            fmt::format("p50 {} ns ({} tCK), p95 {} ns", p(s.read_interval_ps, 50, 1e-3),
                                        p(s.read_interval_cycles, 50, 1), p(s.read_interval_ps, 95, 1e-3))));
  const std::string ratio = fmt::format("{:.1f} % (from {})", 100 * s.dq_active_ratio,
                                        s.dq_from_dqs ? "DQS toggles" : "command timing");
  out += fmt::format("DQ active:    {}\n", s.dq_from_dqs ? ratio : figure(Figure::command_activity, ratio));
  if (s.dq_active_ratio_dqs) {
    const ddr::StrobeFigures& f = timing.strobes;
    out += fmt::format("              DQS toggles {:.2f} % +- {:.2f} % ({:.0f} bursts, {:g} pulse{} per tCK{}{}{}), "
                       "command timing {}\n",
                       100 * *s.dq_active_ratio_dqs, 100 * s.dq_active_ratio_dqs_uncertainty.value_or(0), f.bursts,
                       f.pulses_per_tck, f.pulses_per_tck == 1 ? "" : "s", f.rate_measured ? "" : " assumed",
                       f.glitches ? fmt::format(", {} glitches removed", f.glitches) : "",
                       f.preamble_tck > 0 ? fmt::format(", {:.0f} tCK of preamble left out", f.preamble_tck) : "",
                       figure(Figure::command_activity, fmt::format("{:.2f} %", 100 * s.dq_active_ratio_commands)));
  }
  out += fmt::format("row buffer:   {}; refreshes {}\n",
                     figure(Figure::row_buffer, fmt::format("{} hits, {} misses, {} conflicts, {} unknown", s.row_hits,
                                                            s.row_misses, s.row_conflicts, s.row_unknown)),
                     figure(Figure::refreshes, std::to_string(s.refreshes)));
  // Samples the file gave as x/z (or Saleae X) on the decoded channels: they
  // held the last known level (readers.h).
  if (!timing.unknown_samples.empty()) out += "x/z samples:  " + unknown_text(timing.unknown_samples) + "\n";
  return out;
}

Result<ExitCode> decode(const CaptureArgs& a, const GlobalOptions& g, Io io) {
  Result<DecodeSetup> setup = decode_setup(a);
  if (!setup) return setup.error();
  if (a.read_only) return read_only(a, setup->read, io);
  DecodeSinks sinks(setup->model);
  HARNESS_TRY(sinks.open_exports(a));
  DecodeTimes times;
  Result<ddr::BusTiming> timing = Error::input("not decoded");
  if (a.in_memory) {
    timing = decode_in_memory(a, *setup, sinks, times);
  } else {
    auto t0 = Clock::now();
    timing = ddr::decode_capture_file(a.input, setup->read, setup->options, sinks);
    times.decode_seconds = seconds_since(t0);
  }
  if (!timing) return timing.error();
  sinks.finish(*timing);
  const ddr::BusSummary s = sinks.stats.finish(*timing);
  if (g.json)
    io.out << decode_json(a, *timing, s, times).dump(2) << "\n";
  else
    print_text(io.out, decode_text(a, *timing, s));
  return ExitCode::ok;
}

}  // namespace

Action setup_capture(CLI::App& app, const GlobalOptions& global, Io io) {
  auto a = std::make_shared<CaptureArgs>();
  app.require_subcommand(1);
  auto input_options = [&](CLI::App* sub) {
    sub->add_option("--format", a->format,
                    "Input format (" + capture_format_names() + "); default: detect (capture info --formats)");
    sub->add_option("--samplerate", a->samplerate_text, "Sample rate for exports that do not state it (\"100 MHz\")");
    sub->add_option("--sr-reader", a->sr_reader, "How .sr files are read: direct or libsigrok")
        ->check(CLI::IsMember({"direct", "libsigrok"}))
        ->capture_default_str();
    sub->add_option("--jobs", a->jobs,
                    "Threads inflating a .sr's chunks, decoded in order on one more (0: one per core; 1: all on one "
                    "thread)")
        ->capture_default_str();
    sub->add_option("--reader-limit", a->reader_limits,
                    "Raise or lower a reader limit, NAME=N (N: a number, 8Gi, 2^33; repeatable). Names and "
                    "defaults: " + reader_limit_help())
        ->allow_extra_args(false);  // one NAME=N per flag: the capture after it is the capture
  };
  CLI::App* info_cmd = app.add_subcommand("info", "Channels, sample rate, samples and duration of a capture");
  info_cmd->add_option("capture", a->input, "Capture file (or Saleae binary export folder)");
  info_cmd->add_flag("--formats", a->list_formats,
                     "List the capture formats: how each is recognised, read, written, and its options");
  input_options(info_cmd);
  CLI::App* convert_cmd = app.add_subcommand("convert", "Write any capture as a sigrok session (.sr)");
  convert_cmd->add_option("capture", a->input, "Capture file")->required();
  convert_cmd->add_option("-o,--output", a->output, "Output .sr file")->required();
  input_options(convert_cmd);
  convert_cmd->add_option("--chunk-mib", a->chunk_mib,
                           "MiB of samples per .sr chunk entry (libsigrok rewrites the archive per entry: keep it "
                           "large)")
      ->check(CLI::Range(1u, 1024u))
      ->capture_default_str();
  for (CLI::App* sub : {info_cmd, convert_cmd})
    sub->add_option("--channels", a->channels,
                    "Read only these channels (VCD, Saleae CSV: files with more than 64 one-bit signals need it)")
        ->delimiter(',');
  CLI::App* synth_cmd = app.add_subcommand("synth", "Render a DDR command trace as a pin-level capture (.sr)");
  synth_cmd->add_option("-o,--output", a->output, "Output .sr file")->required();
  synth_cmd->add_option("--standard", a->standard, "ddr4, lpddr4 or lpddr5")->capture_default_str();
  synth_cmd->add_option("--trace", a->trace, "Command list CSV (as written by 'decode --csv'); default: --pattern");
  synth_cmd->add_option("--pattern", a->pattern, "Generated traffic: stream, random, mixed")->capture_default_str();
  synth_cmd->add_option("--cycles", a->cycles, "Clock cycles of generated traffic")->capture_default_str();
  synth_cmd->add_option("--seed", a->seed, "Seed of generated traffic and jitter")->capture_default_str();
  synth_cmd->add_option("--spc", a->spc, "Samples per clock (multiple of 4)")->capture_default_str();
  synth_cmd->add_option("--tck", a->tck_text, "Clock period")->capture_default_str();
  synth_cmd->add_option("--jitter", a->jitter, "Max samples a CA transition moves")->capture_default_str();
  synth_cmd->add_option("--dqs", a->dqs, "DQS channels")->capture_default_str();
  synth_cmd->add_option("--dqs-preamble", a->dqs_preamble,
                        "tCK of toggling DQS preamble before each burst after an idle gap")
      ->capture_default_str();
  synth_cmd->add_option("--dq", a->dq, "DQ channels with random data")->capture_default_str();
  synth_cmd->add_option("--clock-stop", a->clock_stops, "Stop CK: <after cycle>:<cycles> (repeatable)");
  synth_cmd->add_option("--wck-ratio", a->wck_ratio, "LPDDR5 WCK:CK")->capture_default_str();
  synth_cmd->add_option("--ranks", a->ranks, "Ranks: one chip select each (CS0, CS1.. / CS0_n..)")->capture_default_str();
  synth_cmd->add_flag("--cke", a->cke, "DDR4/LPDDR4: a CKE channel; --pattern mixed then adds power-down (and DDR4 self refresh)");
  synth_cmd->add_option("--trace-out", a->csv, "Also write the trace as a command list CSV");
  synth_cmd->add_option("--truth-out", a->truth_out,
                        "Also write the ground truth as JSON (data cycles, strobe cycles and bursts, DQ active ratio)");
  synth_cmd->add_option("--row-transactions", a->row_transactions,
                        "--pattern stream: 128-byte transactions per open row")
      ->capture_default_str();
  synth_cmd->add_option("--stream-gap", a->stream_gap, "--pattern stream: idle cycles after each transaction, MIN-MAX")
      ->capture_default_str();
  synth_cmd->add_option("--dqs-jitter", a->dqs_jitter, "Max samples each strobe edge moves either way (each edge drawn "
                        "on its own)")
      ->capture_default_str();
  synth_cmd->add_option("--dqs-skew", a->dqs_skew, "Constant delay of the strobe against CK, in tCK (-0.5 to 0.5)")
      ->capture_default_str();
  synth_cmd->add_option("--dqs-duty", a->dqs_duty, "Percent of each strobe period spent high (40: 40/60 distortion)")
      ->capture_default_str();
  synth_cmd->add_option("--dqs-glitches", a->dqs_glitches,
                        "Chance that a strobe edge rings: the sample after it bounces back (0 to 1)")
      ->capture_default_str();
  synth_cmd->add_flag("--dqs-park-high", a->dqs_park_high,
                      "Idle strobe held high, driven low a tCK before each burst (static preamble) and after it");
  synth_cmd->add_option("--chunk-mib", a->chunk_mib,
                        "MiB of samples per .sr chunk entry (libsigrok rewrites the archive per entry: keep it large)")
      ->check(CLI::Range(1u, 1024u))
      ->capture_default_str();
  auto probe_options = [&](CLI::App* sub, const char* probed_help) {
    sub->add_option("--organisation", a->organisation, "DDR4 device organisation: x4, x8 (BG0, BG1) or x16 (BG0 only)")
        ->check(CLI::IsMember({"x4", "x8", "x16"}));
    sub->add_option("--probed", a->probed, probed_help)->delimiter(',');
  };
  probe_options(synth_cmd, "Render only these channels (roles, comma separated: CK,CS_n,ACT_n,...,DQS0)");
  CLI::App* decode_cmd = app.add_subcommand("decode", "Decode the DDR command bus of a capture");
  decode_cmd->add_option("capture", a->input, "Capture file")->required();
  decode_cmd->add_option("--standard", a->standard, "ddr4, lpddr4 or lpddr5")->capture_default_str();
  decode_cmd->add_option("--map", a->map, "ROLE=CHANNEL, e.g. CK=D0 (repeatable)");
  decode_cmd->add_option("--csv", a->csv, "Write the commands as CSV");
  decode_cmd->add_option("--drampower", a->drampower, "Write a DRAMPower 5 command trace (CSV)");
  decode_cmd->add_flag("--in-memory", a->in_memory,
                       "Load the capture into memory first, then decode (benchmark); refused above the reader limit "
                       "in_memory_bytes (4 GiB)");
  decode_cmd->add_flag("--read-only", a->read_only, "Only read the capture, no decoding (benchmark anchor)");
  decode_cmd->add_option("--dq-width", a->dq_width, "Data bus width in bits")->capture_default_str();
  decode_cmd->add_option("--wck-ratio", a->wck_ratio, "LPDDR5 WCK:CK")->capture_default_str();
  decode_cmd->add_flag("--bank-groups", a->bank_groups, "LPDDR5 in bank-group mode: BA2/BA3 are BG0/BG1");
  decode_cmd->add_option("--dqs-preamble", a->dqs_preamble,
                         "tCK of toggling DQS preamble (mode register) that start each strobe burst: not data")
      ->capture_default_str();
  decode_cmd
      ->add_option("--decode-threads", a->decode_threads,
                   "Threads decoding: 1, or 2 (the bus sampled on one, commands and statistics made on the other; "
                   "the same results). 0: 2 where the host has 4 cores or more and --jobs is not 1")
      ->check(CLI::Range(0u, 2u))
      ->capture_default_str();
  probe_options(decode_cmd,
                "The roles probed (comma separated: CK,CS_n,ACT_n,...,DQS0); fields on the others are reported "
                "unknown. Default: every pin of the standard");
  input_options(decode_cmd);
  return [=, &global]() -> Result<ExitCode> {
    if (info_cmd->parsed()) return info(*a, global, io);
    if (convert_cmd->parsed()) return convert(*a, io);
    if (synth_cmd->parsed()) return synth(*a, io);
    if (decode_cmd->parsed()) return decode(*a, global, io);
    return Error::input("harness capture: expected info, convert, synth or decode");
  };
}

}  // namespace harness
