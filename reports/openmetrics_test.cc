// The Prometheus text exposition of stored runs, checked by a strict parser
// of the format's rules written here from the format's description (and by
// promtool, Prometheus's own checker, where Debian's prometheus package is
// installed: scripts/install-deps --prometheus).
#include "reports/openmetrics.h"

#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <sstream>

#include <fmt/format.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "harness/model/metric_catalogue.h"
#include "probes/process.h"
#include "tests/support/scratch_dir.h"

namespace harness {
namespace {

using ::testing::HasSubstr;

// One sample line: name{labels} value, with the labels unescaped.
struct Sample {
  std::string name;
  std::map<std::string, std::string> labels;
  double value = 0;
};

// The rules of the text format 0.0.4 that a scraper enforces: names and
// label names of the allowed characters, label values quoted with \\ \" \n
// as the only escapes, a float value and no timestamp (the textfile
// collector refuses them), HELP and TYPE at most once per family and before
// its samples, a family's samples together, no series twice.
Result<std::vector<Sample>> parse_strictly(const std::string& text) {
  static const std::regex name("[a-zA-Z_:][a-zA-Z0-9_:]*");
  static const std::regex label_name("[a-zA-Z_][a-zA-Z0-9_]*");
  std::vector<Sample> out;
  std::set<std::string> helped, typed, closed, series;
  std::string current;
  std::istringstream in(text);
  int n = 0;
  for (std::string line; std::getline(in, line);) {
    ++n;
    auto fail = [&](const std::string& why) { return Error::input(fmt::format("line {}: {}: {}", n, why, line)); };
    if (line.empty()) continue;
    if (line.starts_with("# HELP ") || line.starts_with("# TYPE ")) {
      std::istringstream words(line.substr(7));
      std::string family, rest;
      words >> family;
      if (!std::regex_match(family, name)) return fail("bad family name");
      if (closed.count(family) || (current == family && !out.empty() && out.back().name == family)) return fail("after its samples");
      if (!(line[2] == 'H' ? helped : typed).insert(family).second) return fail("twice");
      if (line[2] == 'T') {
        std::getline(words, rest);
        if (rest != " gauge") return fail("not a gauge");
      }
      continue;
    }
    if (line[0] == '#') continue;
    Sample s;
    std::size_t at = 0;
    while (at < line.size() && line[at] != '{' && line[at] != ' ') ++at;
    s.name = line.substr(0, at);
    if (!std::regex_match(s.name, name)) return fail("bad metric name");
    if (s.name != current) {
      if (!current.empty()) closed.insert(current);
      if (closed.count(s.name)) return fail("family not together");
      current = s.name;
    }
    if (line[at] == '{') {
      ++at;
      while (line[at] != '}') {
        std::size_t eq = line.find('=', at);
        if (eq == std::string::npos) return fail("label without =");
        std::string key = line.substr(at, eq - at);
        if (!std::regex_match(key, label_name) || s.labels.count(key)) return fail("bad or repeated label name");
        if (line[eq + 1] != '"') return fail("label value not quoted");
        std::string value;
        std::size_t i = eq + 2;
        for (; i < line.size() && line[i] != '"'; ++i) {
          if (line[i] == '\\') {
            char e = line[++i];
            if (e == 'n') value += '\n';
            else if (e == '\\' || e == '"') value += e;
            else return fail("bad escape");
          } else {
            value += line[i];
          }
        }
        if (i >= line.size()) return fail("unterminated label value");
        s.labels[key] = value;
        at = i + 1;
        if (line[at] == ',') ++at;
        else if (line[at] != '}') return fail("labels not separated by ,");
      }
      ++at;
    }
    if (line[at] != ' ') return fail("no blank before the value");
    std::string value = line.substr(at + 1);
    if (value.find(' ') != std::string::npos) return fail("a timestamp or a second value");
    std::size_t used = 0;
    try {
      s.value = std::stod(value, &used);
    } catch (...) {
      return fail("not a number");
    }
    if (used != value.size()) return fail("not a number");
    std::string key = s.name;
    for (const auto& [k, v] : s.labels) key += "|" + k + "=" + v;
    if (!series.insert(key).second) return fail("the same series twice");
    out.push_back(std::move(s));
  }
  return out;
}

RunRecord example_run() {
  RunRecord r;
  r.id = 7;
  r.scenario_name = "nightly \"big\" \\ board";
  r.rig = "lab-3";
  r.status = RunStatus::failed;
  r.started_at = "2024-05-01T02:00:00Z";
  r.analysis.metrics = {
      Metric::known(Level::latency, "latency_p95", 0.0012, "s", Provenance::measured, "builtin:gemm"),
      Metric::known(Level::latency, "load.stress-ng-cpu-1.latency_p95", 0.0019, "s", Provenance::measured, "builtin:gemm"),
      Metric::known(Level::roofline, "ceiling.memory.dram", 5e10, "B/s", Provenance::declared, "scenario"),
      Metric::known(Level::roofline, "vector_add.bound", 0, "", Provenance::model, "model", Better::none, "memory"),
      Metric::missing(Level::latency, "power_mean", "W", "no power source on this host"),
  };
  r.analysis.metrics[3].value.reset();  // categorical: text only
  Verdict v;
  v.level = Level::latency;
  v.check = "latency.expect.p95_over_p50_max";
  v.status = VerdictStatus::fail;
  r.analysis.verdicts = {v};
  return r;
}

TEST(OpenMetrics, OneGaugePerMetricWithItsLabelsAndTheVerdictsAsStateSets) {
  const std::string text = render_openmetrics({example_run()});
  Result<std::vector<Sample>> samples = parse_strictly(text);
  ASSERT_TRUE(samples) << samples.error().message << "\n" << text;
  EXPECT_THAT(text, HasSubstr("# TYPE harness_latency_p95 gauge\nharness_latency_p95{rig=\"lab-3\",scenario=\"nightly "
                              "\\\"big\\\" \\\\ board\",level=\"latency\",provenance=\"measured\"} 0.0012\n"));
  EXPECT_THAT(text, HasSubstr("harness_load_stress_ng_cpu_1_latency_p95{"));
  EXPECT_THAT(text, HasSubstr("provenance=\"declared\"} 50000000000\n"));
  EXPECT_THAT(text, ::testing::Not(HasSubstr("power_mean")));       // unavailable: no number, never 0
  EXPECT_THAT(text, ::testing::Not(HasSubstr("vector_add_bound")));  // categorical
  std::map<std::string, double> verdict, status;
  for (const Sample& s : *samples) {
    if (s.name == "harness_verdict") verdict[s.labels.at("harness_verdict")] = s.value;
    if (s.name == "harness_run_status") status[s.labels.at("harness_run_status")] = s.value;
    EXPECT_EQ(s.labels.at("scenario"), "nightly \"big\" \\ board");
  }
  EXPECT_EQ(verdict, (std::map<std::string, double>{{"cannot tell", 0}, {"fail", 1}, {"pass", 0}, {"unavailable", 0}}));
  EXPECT_EQ(status, (std::map<std::string, double>{{"aborted", 0}, {"failed", 1}, {"passed", 0}}));
  EXPECT_THAT(text, HasSubstr("harness_run_start_timestamp_seconds{rig=\"lab-3\",scenario=\"nightly \\\"big\\\" \\\\ "
                              "board\"} 1714528800\n"));
  // No earlier night: no judgement, and a comment says why.
  EXPECT_THAT(text, HasSubstr("# not judged: run 7 of 'nightly \"big\" \\ board' on rig 'lab-3': no judgement\n"));
  EXPECT_THAT(text, ::testing::Not(HasSubstr("harness_judgement")));
}

// A night that cannot be told is exported as such, with why: never as a
// pass nor as a regression.
TEST(OpenMetrics, TheRunsJudgementIsAStateSetOfItsFourOutcomesWithWhy) {
  CompareReport judged;
  judged.current_run = 7;
  MetricComparison p95;
  p95.name = "latency_p95";
  p95.level = Level::latency;
  p95.baseline = 0.0011;
  p95.current = 0.0012;
  p95.verdict = Change::cannot_tell;
  p95.reason = "the spread between nights is too wide for the \"5 %\" threshold";
  MetricComparison power = p95;
  power.name = "power_mean";
  power.baseline = power.current = std::nullopt;
  power.baseline_text = power.current_text = "unavailable: no power source";
  power.reason = "unavailable in both runs: no power source";
  judged.comparison.metrics = {p95, power};
  MetricComparison paired = p95;
  paired.verdict = Change::unchanged;
  judged.reference = Comparison{};
  judged.reference->metrics = {paired};
  const std::string text = render_openmetrics({JudgedRun(example_run(), judged)});
  Result<std::vector<Sample>> samples = parse_strictly(text);
  ASSERT_TRUE(samples) << samples.error().message << "\n" << text;
  std::map<std::string, double> outcome, nights, reference;
  std::string why;
  for (const Sample& s : *samples) {
    if (s.name == "harness_judgement") outcome[s.labels.at("harness_judgement")] = s.value;
    if (s.name == "harness_judgement_info") why = s.labels.at("why");
    if (s.name != "harness_metric_judgement") continue;
    EXPECT_EQ(s.labels.at("metric"), "latency_p95");  // power_mean tells nothing: no source in either run
    (s.labels.at("against") == "nights" ? nights : reference)[s.labels.at("harness_metric_judgement")] = s.value;
  }
  EXPECT_EQ(outcome, (std::map<std::string, double>{{"cannot tell", 1}, {"improved", 0}, {"regressed", 0}, {"unchanged", 0}}));
  EXPECT_EQ(why, "1 metric cannot tell: latency_p95 (the spread between nights is too wide for the \"5 %\" threshold)");
  EXPECT_EQ(nights, (std::map<std::string, double>{
                        {"cannot tell", 1}, {"changed", 0}, {"improved", 0}, {"regressed", 0}, {"unchanged", 0}}));
  EXPECT_EQ(reference["unchanged"], 1);
  EXPECT_EQ(text.find("# not judged"), std::string::npos);
}

TEST(OpenMetrics, TwoRigsShareAFamilyAndANameThatCollidesIsLeftOutWithAComment) {
  RunRecord a = example_run(), b = example_run();
  b.rig = "lab-4";
  b.analysis.metrics.push_back(Metric::known(Level::latency, "latency.p95", 1, "s", Provenance::measured, "x"));
  const std::string text = render_openmetrics({a, b});
  ASSERT_TRUE(parse_strictly(text)) << text;
  EXPECT_THAT(text, HasSubstr("# left out: latency.p95 (its family harness_latency_p95 is latency_p95's)\n"));
  EXPECT_THAT(text, HasSubstr("harness_latency_p95{rig=\"lab-4\""));
}

TEST(OpenMetrics, TheStrictParserRefusesWhatAScraperRefuses) {
  for (const char* bad : {"1abc 1\n", "a{b=\"c} 1\n", "a{b=\"\\x\"} 1\n", "a 1 1714528800000\n", "a one\n",
                          "a 1\nb 1\na 2\n", "a{x=\"1\"} 1\na{x=\"1\"} 2\n", "a 1\n# TYPE a gauge\n"})
    EXPECT_FALSE(parse_strictly(bad)) << bad;
}

// Every name the catalogue has (a pattern's placeholders filled in) is a
// family Prometheus accepts; promtool, where installed, lints them all.
RunRecord every_catalogued_metric() {
  RunRecord r = example_run();
  r.rig = "catalogue";
  r.analysis.metrics.clear();
  std::set<std::string> families;
  for (Level level : kAllLevels)
    for (const CatalogueEntry& e : metric_catalogue(level)) {
      std::string name(e.name);
      for (std::size_t at; (at = name.find('<')) != std::string::npos;) name.replace(at, name.find('>') - at + 1, "x1");
      if (families.insert(openmetrics_family(name)).second)
        r.analysis.metrics.push_back(Metric::known(level, name, 1, "1", Provenance::measured, "test"));
    }
  return r;
}

TEST(OpenMetrics, FamilyNamesFollowPrometheusRules) {
  EXPECT_EQ(openmetrics_family("load.stress-ng-cpu-1.latency_p95"), "harness_load_stress_ng_cpu_1_latency_p95");
  EXPECT_EQ(openmetrics_family("counter.MEM_STALL_CYCLES"), "harness_counters_MEM_STALL_CYCLES");
  EXPECT_EQ(openmetrics_family("x.summary"), "harness_x_summarys");
  const std::string text = render_openmetrics({every_catalogued_metric()});
  Result<std::vector<Sample>> samples = parse_strictly(text);
  ASSERT_TRUE(samples) << samples.error().message;
  EXPECT_GT(samples->size(), 100u);
  EXPECT_EQ(text.find("# left out"), std::string::npos) << text;
}

TEST(OpenMetrics, PromtoolChecksIt) {
  if (!find_executable("promtool")) GTEST_SKIP() << "no promtool (scripts/install-deps --prometheus installs it)";
  auto dir = testing_support::fresh_test_dir("harness-openmetrics");
  std::ofstream(dir / "runs.prom") << render_openmetrics({example_run(), every_catalogued_metric()});
  Result<CommandResult> r = run_command({"sh", "-c", "promtool check metrics < \"$0\"", (dir / "runs.prom").string()});
  std::filesystem::remove_all(dir);
  ASSERT_TRUE(r);
  EXPECT_TRUE(r->succeeded()) << r->out << r->err;
}

}  // namespace
}  // namespace harness
