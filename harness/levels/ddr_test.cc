#include "harness/levels/ddr.h"

#include <filesystem>

#include <gtest/gtest.h>

#include "harness/base/digest.h"
#include "harness/ddr/export.h"
#include "harness/ddr/metrics.h"
#include "harness/ddr/synth.h"
#include "probes/capture/readers.h"
#include "probes/capture/sigrok.h"

namespace harness {
namespace {

const std::string kFixtures = std::string(HARNESS_SOURCE_DIR) + "/fixtures/captures/";

std::string scenario_text(const std::string& capture, const std::string& expect) {
  return "[scenario]\nname = \"t\"\n[rig]\nname = \"r\"\n[workload]\nname = \"w\"\nbuiltin = \"gemm\"\n"
         "m = 8\nn = 8\nk = 8\n[ddr]\nstandard = \"lpddr4\"\ncapture = \"" +
         capture + "\"\n[ddr.expect]\n" + expect;
}

Scenario parse(const std::string& text) {
  Result<Scenario> s = parse_scenario(text, std::string(HARNESS_SOURCE_DIR) + "/scenarios/t.toml");
  EXPECT_TRUE(s.ok()) << s.error().message;
  return s.ok() ? *s : Scenario{};
}

// The error of a scenario text that must not parse (as t.toml).
std::string parse_error(const std::string& text) {
  Result<Scenario> s = parse_scenario(text, "t.toml");
  EXPECT_FALSE(s.ok()) << "parsed, but an error was expected";
  return s.ok() ? "" : s.error().message;
}

// `text` with `key_line` added to its [ddr] table (line 13).
std::string with_ddr_key(std::string text, const std::string& key_line) {
  text.insert(text.find("capture = "), key_line);
  return text;
}

DdrRecording record(const std::string& file) {
  DdrRecording r;
  r.capture = kFixtures + file;
  r.sha256 = *sha256_file(r.capture);
  return r;
}

std::vector<ddr::Command> trace_of(const std::string& file) {
  Result<std::string> text = read_file_bytes(kFixtures + file);
  EXPECT_TRUE(text.ok());
  Result<std::vector<ddr::Command>> t = ddr::parse_command_csv(*text, file);
  EXPECT_TRUE(t.ok()) << t.error().message;
  return *t;
}

double metric(const Analysis& a, const std::string& name) {
  const Metric* m = a.find_metric(name);
  EXPECT_TRUE(m && m->value) << name << (m ? ": " + m->unavailable : " missing");
  return m && m->value ? *m->value : -1;
}

TEST(DdrAnalysis, MetricsOfTheFixtureMatchItsGroundTruthTrace) {
  Scenario s = parse(scenario_text("../fixtures/captures/lpddr4-stream.sr", "burst_bytes_mode = 128\n"));
  DdrRecording rec = record("lpddr4-stream.sr");
  Analysis a;
  analyse_ddr(s, &rec, "", Provenance::replayed, a);
  std::vector<ddr::Command> trace = trace_of("lpddr4-stream.trace.csv");
  std::uint64_t reads = 0, bytes = 0, refreshes = 0;
  for (const ddr::Command& c : trace) {
    if (c.op == ddr::Op::rd) {
      ++reads;
      bytes += ddr::burst_bytes(c.burst, 16);
    }
    if (c.op == ddr::Op::ref) ++refreshes;
  }
  EXPECT_EQ(metric(a, "ddr.reads"), static_cast<double>(reads));
  EXPECT_EQ(metric(a, "ddr.bytes"), static_cast<double>(bytes));
  EXPECT_EQ(metric(a, "ddr.refreshes"), static_cast<double>(refreshes));
  EXPECT_EQ(metric(a, "ddr.clock_stops"), 1);
  EXPECT_NEAR(metric(a, "ddr.clock_frequency"), 100e6, 1);
  EXPECT_EQ(a.find_metric("ddr.burst_bytes_mode")->text, "128");
  EXPECT_EQ(a.find_metric("ddr.bytes")->unit, "B");
  EXPECT_EQ(a.find_metric("ddr.bytes")->provenance, Provenance::replayed);
  // DQS was sampled: the ratio is measured, not modelled.
  EXPECT_EQ(a.find_metric("ddr.dq_active_ratio")->provenance, Provenance::replayed);
  // The scenario's expectation is evaluated by analyse(): check the shape here.
  ASSERT_EQ(s.ddr->expectations.size(), 1u);
  EXPECT_EQ(s.ddr->expectations[0].text, "128");
}

TEST(DdrAnalysis, RefusesACaptureThatChangedSinceItWasRecorded) {
  Scenario s = parse(scenario_text("../fixtures/captures/lpddr4-stream.sr", ""));
  DdrRecording rec = record("lpddr4-stream.sr");
  rec.sha256 = std::string(64, '0');
  Analysis a;
  analyse_ddr(s, &rec, "", Provenance::replayed, a);
  const Metric* m = a.find_metric("ddr.bytes");
  ASSERT_TRUE(m);
  EXPECT_FALSE(m->value);
  EXPECT_EQ(m->unavailable, "capture " + rec.capture + " changed since it was recorded (sha256 " +
                                *sha256_file(rec.capture) + " , recorded " + rec.sha256 + ")");
}

TEST(DdrAnalysis, BaselineRelativeReadInterval) {
  Scenario s = parse(scenario_text("../fixtures/captures/lpddr4-stream.sr",
                                   "read_interval_p50_vs_baseline = \"shorter\"\n"));
  Analysis before, after;
  DdrRecording random = record("lpddr4-random.sr"), stream = record("lpddr4-stream.sr");
  analyse_ddr(s, &random, "", Provenance::replayed, before);
  analyse_ddr(s, &stream, "", Provenance::replayed, after);
  std::vector<Verdict> v = evaluate_ddr_baseline(*s.ddr, before, after);
  ASSERT_EQ(v.size(), 1u);
  EXPECT_EQ(v[0].check, "ddr.expect.read_interval_p50_vs_baseline");
  EXPECT_EQ(v[0].status, VerdictStatus::pass) << v[0].detail;
  v = evaluate_ddr_baseline(*s.ddr, after, before);
  ASSERT_EQ(v.size(), 1u);
  EXPECT_EQ(v[0].status, VerdictStatus::fail);
  EXPECT_NE(v[0].detail.find("expected lower"), std::string::npos) << v[0].detail;
}

TEST(DdrScenario, RejectsABaselineKeyForAnUnknownMetric) {
  EXPECT_EQ(parse_error(scenario_text("x.sr", "read_gap_vs_baseline = \"lower\"\n")),
            "t.toml:15:24: [ddr.expect] read_gap_vs_baseline: no metric 'read_gap' to compare with the baseline");
}

TEST(DdrScenario, BankGroupModeIsAnLpddr5Setting) {
  std::string text = with_ddr_key(scenario_text("x.sr", ""), "bank_groups = true\n");
  EXPECT_EQ(parse_error(text),
            "t.toml:13:15: [ddr] bank_groups: bank_groups is an LPDDR5 mode (DDR4 always decodes its bank groups; "
            "LPDDR4 has none)");
  text.replace(text.find("\"lpddr4\""), 8, "\"lpddr5\"");
  Result<Scenario> s = parse_scenario(text, "t.toml");
  ASSERT_TRUE(s.ok()) << s.error().message;
  EXPECT_TRUE(s->ddr->bank_groups);
}

// [ddr] jobs and [ddr.reader_limits] reach the reader: a capture beyond a
// lowered limit is not decodable, and says which limit.
TEST(DdrScenario, ReaderLimitsAndJobsReachTheAnalysis) {
  std::string text = scenario_text("../fixtures/captures/lpddr4-stream.sr", "") + "[ddr.reader_limits]\nsamples = 1000\n";
  Scenario s = parse(with_ddr_key(text, "jobs = 2\n"));
  ASSERT_TRUE(s.ddr);
  EXPECT_EQ(s.ddr->jobs, 2u);
  EXPECT_EQ(s.ddr->reader_limits.samples, 1000u);
  DdrRecording rec = record("lpddr4-stream.sr");
  Analysis a;
  analyse_ddr(s, &rec, "", Provenance::replayed, a);
  const Metric* m = a.find_metric("ddr.bytes");
  ASSERT_TRUE(m);
  EXPECT_FALSE(m->value);
  EXPECT_EQ(m->unavailable, "capture not decodable: " + rec.capture +
                                ": the chunk entries hold 49836 samples, more than the reader limit samples = 1000 "
                                "samples");
  Result<Scenario> bad = parse_scenario(scenario_text("x.sr", "") + "[ddr.reader_limits]\nsample = 5\n", "t.toml");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.error().message.find("sample"), std::string::npos) << bad.error().message;
  EXPECT_NE(bad.error().message.find("samples"), std::string::npos) << bad.error().message;
}

// The bus statistics of `cs` on an LPDDR4 bus of 100 cycles of 10 ns.
ddr::BusSummary lpddr4_statistics(const std::vector<ddr::Command>& cs) {
  ddr::BusModel model;
  model.standard = ddr::Standard::lpddr4;
  ddr::BusStatistics stats(model);
  stats.on_commands(cs);
  ddr::BusTiming t;
  t.tck = 10e-9;
  t.cycles = 100;
  t.duration = 1e-6;
  return stats.finish(t);
}

TEST(BusStatistics, GroupsBackToBackBurstsAndClassifiesRowAccesses) {
  using namespace ddr;
  auto cmd = [](std::uint64_t cycle, Op op, int bank, int row, int col) {
    Command c;
    c.cycle = cycle;
    c.time = cycle * 10e-9;
    c.op = op;
    c.bank = bank;
    c.row = op == Op::act ? row : -1;
    c.column = col;
    if (is_column(op)) c.burst = 16;
    return c;
  };
  std::vector<Command> cs = {
      cmd(0, Op::rd, 1, 0, 0),         // bank state unknown: not classified
      cmd(10, Op::act, 0, 5, -1),
      cmd(20, Op::rd, 0, 0, 0),        // miss, transaction A starts
      cmd(28, Op::rd, 0, 0, 16),       // hit, back to back (BL16 = 8 tCK): A = 64 B
      cmd(40, Op::rd, 0, 0, 32),       // hit, a gap: transaction B = 32 B
      cmd(50, Op::pre, 0, 0, -1),
      cmd(60, Op::act, 0, 6, -1),
      cmd(70, Op::wr, 0, 0, 0),        // conflict (PRE then ACT): transaction C = 32 B
  };
  BusSummary s = lpddr4_statistics(cs);
  EXPECT_EQ(s.row_hits, 2u);
  EXPECT_EQ(s.row_misses, 1u);
  EXPECT_EQ(s.row_conflicts, 1u);
  EXPECT_EQ(s.row_unknown, 1u);
  EXPECT_EQ(s.transactions, 4u);  // the first unknown-bank read is one too
  EXPECT_EQ(s.transaction_bytes, (std::map<std::uint64_t, std::uint64_t>{{32, 3}, {64, 1}}));
  EXPECT_EQ(*s.burst_bytes_mode, 32u);
  EXPECT_EQ(*s.read_interval_cycles.percentile(50), 12);  // intervals 20, 8, 12
  EXPECT_FALSE(s.dq_from_dqs);
}

TEST(BusStatistics, KeepsEachRanksBanksApart) {
  using namespace ddr;
  auto cmd = [](std::uint64_t cycle, Op op, int rank) {
    Command c;
    c.cycle = cycle;
    c.time = cycle * 10e-9;
    c.op = op;
    c.rank = rank;
    c.bank = op == Op::pre ? -1 : 2;
    c.all_banks = op == Op::pre;
    c.row = op == Op::act ? 7 : -1;
    if (is_column(op)) c.burst = 16, c.column = 0;
    return c;
  };
  std::vector<Command> cs = {
      cmd(0, Op::pre, 0), cmd(4, Op::pre, 1),     // both ranks: all banks closed
      cmd(10, Op::act, 0), cmd(20, Op::act, 1),   // bank 2 of each rank opens row 7
      cmd(30, Op::rd, 0),                          // miss in rank 0
      cmd(40, Op::pre, 0),                         // closes rank 0 only
      cmd(50, Op::rd, 1),                          // rank 1's row is still open: miss (first access)
      cmd(60, Op::rd, 1),                          // hit
      cmd(70, Op::rd, 0),                          // rank 0's bank is closed: unknown row
  };
  BusSummary s = lpddr4_statistics(cs);
  EXPECT_EQ(s.row_misses, 2u);
  EXPECT_EQ(s.row_hits, 1u);
  EXPECT_EQ(s.row_unknown, 1u);
}

// A DDR4 x8 bus probed on ten pins: no BG1 (the part has it), no A12 (BC_n).
TEST(DdrAnalysis, AReducedProbeSetMakesOnlyTheMetricsThatNeedAMissingPinUnavailable) {
  const std::vector<std::string> probed = {"CK", "CS_n", "ACT_n", "RAS_n", "CAS_n", "WE_n", "BG0", "BA0", "BA1", "A10"};
  Result<std::vector<ddr::Command>> trace = ddr::generate_traffic(ddr::Standard::ddr4, "random", 6000, 4);
  ASSERT_TRUE(trace.ok());
  ddr::SynthOptions o;
  o.standard = ddr::Standard::ddr4;
  o.probed = probed;
  o.dqs_channels = 0;
  const std::string path = (std::filesystem::temp_directory_path() / "harness_ddr_probed.sr").string();
  {
    SrWriter writer(path);
    Status s = ddr::synthesize(*trace, o, writer);
    ASSERT_TRUE(s.ok()) << s.error().message;
  }
  std::string list;
  for (const std::string& p : probed) list += (list.empty() ? "\"" : ", \"") + p + "\"";
  Scenario s = parse("[scenario]\nname = \"t\"\n[rig]\nname = \"r\"\n[workload]\nname = \"w\"\nbuiltin = \"gemm\"\n"
                     "m = 8\nn = 8\nk = 8\n[ddr]\nstandard = \"ddr4\"\norganisation = \"x8\"\ncapture = \"" + path +
                     "\"\nprobed = [" + list + "]\n");
  ASSERT_TRUE(s.ddr);
  EXPECT_EQ(s.ddr->probed, probed);
  DdrRecording rec;
  rec.capture = path;
  rec.sha256 = *sha256_file(path);
  Analysis a;
  analyse_ddr(s, &rec, "", Provenance::replayed, a);
  std::filesystem::remove(path);
  std::uint64_t reads = 0, writes = 0;
  for (const ddr::Command& c : *trace) {
    reads += c.op == ddr::Op::rd;
    writes += c.op == ddr::Op::wr;
  }
  EXPECT_EQ(metric(a, "ddr.reads"), static_cast<double>(reads));
  EXPECT_EQ(metric(a, "ddr.writes"), static_cast<double>(writes));
  EXPECT_GT(metric(a, "ddr.read_interval_p50"), 0);
  auto why = [&](const std::string& name) {
    const Metric* m = a.find_metric(name);
    EXPECT_TRUE(m) << name;
    return m && !m->value ? m->unavailable : std::string("(available)");
  };
  EXPECT_EQ(why("ddr.bytes"), "A12 not probed");
  EXPECT_EQ(why("ddr.bandwidth"), "A12 not probed");
  EXPECT_EQ(why("ddr.transactions"), "BG1, A12 not probed");
  EXPECT_EQ(why("ddr.burst_bytes_mode"), "BG1, A12 not probed");
  EXPECT_EQ(why("ddr.row_hit_rate"), "BG1 not probed");
  EXPECT_EQ(why("ddr.dq_active_ratio"), "A12 not probed (burst durations unknown) and no DQS probed");
  EXPECT_EQ(why("ddr.refreshes"), "(available)");
  for (const SampleSet& set : a.samples) EXPECT_NE(set.name, "ddr.dq_active_timeline");
  const std::vector<std::string> want_hints = {
      "ddr: bank group unknown: BG1 not probed", "ddr: row unknown: A0-A9, A11-A13, A17 not probed",
      "ddr: column unknown: A0-A9 not probed", "ddr: burst length unknown: A12 not probed",
      "ddr: operand unknown: A0-A9, A11-A13 not probed"};
  EXPECT_EQ(a.hints, want_hints);
}

// [ddr] decode_threads: 1 or 2 (0: the default); the level's figures are
// the same on two threads as on one.
TEST(DdrScenario, DecodeThreadsGiveTheSameFigures) {
  const std::string text = scenario_text("../fixtures/captures/lpddr4-stream.sr", "");
  DdrRecording rec = record("lpddr4-stream.sr");
  Analysis one, two;
  Scenario s1 = parse(with_ddr_key(text, "decode_threads = 1\n"));
  ASSERT_TRUE(s1.ddr);
  EXPECT_EQ(s1.ddr->decode_threads, 1u);
  analyse_ddr(s1, &rec, "", Provenance::replayed, one);
  Scenario s2 = parse(with_ddr_key(text, "decode_threads = 2\n"));
  analyse_ddr(s2, &rec, "", Provenance::replayed, two);
  for (const char* name : {"ddr.reads", "ddr.bytes", "ddr.refreshes", "ddr.clock_stops", "ddr.dq_active_ratio",
                           "ddr.row_hit_rate", "ddr.read_interval_p50"})
    EXPECT_EQ(metric(two, name), metric(one, name)) << name;
  const std::string error = parse_error(with_ddr_key(text, "decode_threads = 3\n"));
  EXPECT_NE(error.find("decode_threads"), std::string::npos) << error;
}

TEST(DdrScenario, ReadsTheDeclaredDqsPreamble) {
  std::string text = with_ddr_key(scenario_text("x.sr", ""), "dqs_preamble = 2\n");
  Result<Scenario> s = parse_scenario(text, "t.toml");
  ASSERT_TRUE(s.ok()) << s.error().message;
  EXPECT_EQ(s->ddr->dqs_preamble, 2u);
  text.replace(text.find("dqs_preamble = 2"), 16, "dqs_preamble = 9");
  const std::string error = parse_error(text);
  EXPECT_NE(error.find("dqs_preamble"), std::string::npos) << error;
}

TEST(DdrScenario, OrganisationIsADdr4SettingAndProbedIsAList) {
  EXPECT_EQ(parse_error(with_ddr_key(scenario_text("x.sr", ""), "organisation = \"x16\"\n")),
            "t.toml:13:16: [ddr] organisation: organisation is a DDR4 setting (x4, x8: BG0 and BG1; x16: BG0 only)");
}

}  // namespace
}  // namespace harness
