#include "harness/levels/latency.h"

#include <algorithm>
#include <cmath>
#include <map>

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <nlohmann/json.hpp>

#include "harness/base/bounded_json.h"
#include "harness/base/stats.h"
#include "harness/base/units.h"
#include "harness/model/metric_catalogue.h"

namespace harness {

void to_json(nlohmann::json& j, const LatencyRecording& r) {
  nlohmann::json conditions = nlohmann::json::array();
  for (const LatencyCondition& c : r.conditions) {
    conditions.push_back({{"name", c.name},
                          {"load", c.load},
                          {"load_end", c.load_end},
                          {"load_output", c.load_output},
                          {"start_s", c.start_s},
                          {"latency_s", c.latency_s},
                          {"window_s", c.window_s},
                          {"origin_host_ns", c.origin_host_ns ? nlohmann::json(*c.origin_host_ns) : nlohmann::json()},
                          {"power",
                           {{"source", c.power.source},
                            {"quantity", c.power.quantity},
                            {"t_s", c.power.t_s},
                            {"value", c.power.value},
                            {"unavailable", c.power.unavailable}}}});
    if (!c.blocks.empty()) {
      nlohmann::json blocks = nlohmann::json::array();
      for (const PairedBlock& b : c.blocks) blocks.push_back({b.round, b.reference ? 1 : 0, b.first, b.count});
      conditions.back()["blocks"] = std::move(blocks);  // [round, reference?, first, count]
    }
  }
  j = {{"source", r.source}, {"conditions", conditions}, {"unavailable", r.unavailable}};
  if (!r.reference_source.empty()) {
    j["reference_source"] = r.reference_source;
    j["pairing"] = r.pairing;
  }
}

void from_json(const nlohmann::json& j, LatencyRecording& r) {
  r.source = j.at("source");
  r.unavailable = j.value("unavailable", "");
  r.reference_source = j.value("reference_source", "");
  r.pairing = j.value("pairing", "");
  r.conditions.clear();
  if (!j.contains("conditions")) {
    // The first format: one condition without load or power readings.
    LatencyCondition c;
    c.start_s = j.at("start_s").get<std::vector<double>>();
    c.latency_s = j.at("latency_s").get<std::vector<double>>();
    c.window_s = j.at("window_s");
    c.power.unavailable = j.value("power_unavailable", "no power source configured");
    r.conditions.push_back(std::move(c));
    return;
  }
  for (const nlohmann::json& e : j.at("conditions")) {
    LatencyCondition c;
    c.name = e.at("name");
    c.load = e.value("load", std::vector<std::string>{});
    c.load_end = e.value("load_end", "");
    c.load_output = e.value("load_output", "");
    c.start_s = e.at("start_s").get<std::vector<double>>();
    c.latency_s = e.at("latency_s").get<std::vector<double>>();
    c.window_s = e.at("window_s");
    if (auto o = e.find("origin_host_ns"); o != e.end() && !o->is_null()) c.origin_host_ns = json_integer<std::uint64_t>(*o);
    if (e.contains("power")) {
      const nlohmann::json& p = e["power"];
      c.power.source = p.value("source", "");
      c.power.quantity = p.value("quantity", "");
      c.power.t_s = p.value("t_s", std::vector<double>{});
      c.power.value = p.value("value", std::vector<double>{});
      c.power.unavailable = p.value("unavailable", "");
    }
    if (e.contains("blocks")) {
      for (const nlohmann::json& b : e.at("blocks")) {
        PairedBlock block{b.at(0).get<int>(), b.at(1).get<int>() != 0, b.at(2).get<std::size_t>(),
                          b.at(3).get<std::size_t>()};
        // A block outside its condition's iterations is a broken recording.
        if (block.first > c.latency_s.size() || block.count > c.latency_s.size() - block.first ||
            c.start_s.size() != c.latency_s.size())
          throw nlohmann::json::other_error::create(501, "a paired block lies outside its condition's iterations",
                                                    &b);
        c.blocks.push_back(block);
      }
    }
    r.conditions.push_back(std::move(c));
  }
}

std::string latency_condition_prefix(const LatencyConfig& config, std::size_t index) {
  if (index == 0 || index >= config.loads.size()) return "";
  return "load." + config.loads[index].name + ".";
}

namespace {

// Every metric one condition yields, in report order, with its unit and
// direction: the catalogue's level-4 condition table.
std::vector<std::string_view> condition_metric_names() {
  std::vector<std::string_view> names;
  for (const CatalogueEntry& e : latency_condition_catalogue())
    if (e.series != Series::samples) names.push_back(e.name);
  return names;
}

// Time spans [from, to) of the window in seconds, for one side's blocks.
using Spans = std::vector<std::pair<double, double>>;

// The readings as a piecewise-linear signal: its value at t (inside them).
double value_at(const PowerSeries& p, std::size_t n, double t) {
  auto it = std::upper_bound(p.t_s.begin(), p.t_s.begin() + static_cast<std::ptrdiff_t>(n), t);
  const std::size_t i = static_cast<std::size_t>(it - p.t_s.begin());
  if (i == 0) return p.value[0];
  if (i >= n) return p.value[n - 1];
  const double w = (t - p.t_s[i - 1]) / (p.t_s[i] - p.t_s[i - 1]);
  return p.value[i - 1] + w * (p.value[i] - p.value[i - 1]);
}

// The integral of that signal over [a, b] (trapezoids between the readings
// inside and the values at the ends).
double integral(const PowerSeries& p, std::size_t n, double a, double b) {
  double area = 0, t = a, v = value_at(p, n, a);
  for (std::size_t i = 0; i < n; ++i) {
    if (p.t_s[i] <= a) continue;
    if (p.t_s[i] >= b) break;
    area += (p.t_s[i] - t) * (p.value[i] + v) / 2;
    t = p.t_s[i];
    v = p.value[i];
  }
  return area + (b - t) * (value_at(p, n, b) + v) / 2;
}

// Mean power over `spans` (one side's blocks of a run with a reference):
// energy counters by their difference across each span, power readings by
// the integral over each; every span must lie within the readings.
std::optional<double> mean_power_over(const PowerSeries& p, std::size_t n, const Spans& spans, std::string& why) {
  double energy = 0, time = 0;
  for (const auto& [a, b] : spans) {
    if (n < 2 || a < p.t_s[0] || b > p.t_s[n - 1]) {
      why = fmt::format("{}: the readings ({} from {:.3f} s to {:.3f} s) do not cover the side's blocks", p.source, n,
                        n ? p.t_s[0] : 0.0, n ? p.t_s[n - 1] : 0.0);
      return std::nullopt;
    }
    energy += p.quantity == "energy" ? value_at(p, n, b) - value_at(p, n, a) : integral(p, n, a, b);
    time += b - a;
  }
  if (!(time > 0)) {
    why = "the side's blocks take no time";
    return std::nullopt;
  }
  return energy / time;
}

// Mean power over the readings: energy counters by difference, power
// readings by the trapezoid rule (a single reading stands for the window);
// over one side's spans only when given.
std::optional<double> mean_power(const PowerSeries& p, std::string& why, const Spans& spans = {}) {
  if (!p.unavailable.empty()) {
    why = p.unavailable;
    return std::nullopt;
  }
  const std::size_t n = std::min(p.t_s.size(), p.value.size());
  if (!spans.empty() && (p.quantity == "energy" || p.quantity == "power")) return mean_power_over(p, n, spans, why);
  if (p.quantity == "energy") {
    if (n < 2 || !(p.t_s[n - 1] > p.t_s[0])) {
      why = fmt::format("{}: needs two energy readings at least, got {}", p.source, n);
      return std::nullopt;
    }
    return (p.value[n - 1] - p.value[0]) / (p.t_s[n - 1] - p.t_s[0]);
  }
  if (p.quantity == "power") {
    if (n == 0) {
      why = fmt::format("{}: no power reading", p.source);
      return std::nullopt;
    }
    if (n == 1 || !(p.t_s[n - 1] > p.t_s[0])) return p.value[0];
    double area = 0;
    for (std::size_t i = 1; i < n; ++i) area += (p.t_s[i] - p.t_s[i - 1]) * (p.value[i] + p.value[i - 1]) / 2;
    return area / (p.t_s[n - 1] - p.t_s[0]);
  }
  why = fmt::format("{}: unknown power quantity \"{}\"", p.source, p.quantity);
  return std::nullopt;
}

void analyse_condition(const Scenario& scenario, const LatencyRecording& rec, const LatencyCondition& c,
                       const std::string& prefix, Provenance measured, Analysis& out, const Spans& spans = {}) {
  const LatencyConfig& cfg = *scenario.latency;
  const double tokens = scenario.workload.tokens_per_iteration;
  const std::string under = c.load.empty() ? "" : fmt::format(" under load \"{}\"", fmt::join(c.load, " "));
  auto put = [&](std::string_view name, double value, const std::string& how, std::string_view unit = {}) {
    out.metrics.push_back(catalogued_metric(Level::latency, prefix + std::string(name), value, measured,
                                            fmt::format("{}{}: {}", rec.source, under, how), {}, unit));
  };
  auto missing = [&](std::string_view name, const std::string& why) {
    out.metrics.push_back(catalogued_missing(Level::latency, prefix + std::string(name), why));
  };

  const std::size_t n = c.latency_s.size();
  if (n == 0) {
    std::string why = rec.unavailable.empty() ? "no latency samples recorded" + under : rec.unavailable;
    for (std::string_view name : condition_metric_names()) missing(name, why);
    return;
  }
  std::vector<double> sorted = c.latency_s;
  std::sort(sorted.begin(), sorted.end());
  const double conf = cfg.confidence;
  const int conf_pct = static_cast<int>(std::lround(conf * 100));

  put("iterations", static_cast<double>(n), "measured iterations (warm-up excluded)");
  std::optional<double> p50, p95;
  for (int p : {50, 90, 95, 99}) {
    const std::string name = fmt::format("latency_p{}", p);
    const double q = p / 100.0;
    const std::size_t need = min_samples_for_quantile(q, conf);
    if (n < need) {
      std::string why = fmt::format("p{} needs at least {} iterations for a distribution-free {} % confidence "
                                    "interval, got {}", p, need, conf_pct, n);
      missing(name, why);
      if (p == 50 || p == 95) {
        missing(name + "_ci_low", why);
        missing(name + "_ci_high", why);
      }
      continue;
    }
    const double value = percentile_sorted(sorted, p);
    put(name, value, fmt::format("p{} of {} iterations", p, n));
    if (p == 50 || p == 95) {
      (p == 50 ? p50 : p95) = value;
      std::optional<QuantileInterval> ci = quantile_interval_sorted(sorted, q, conf);
      std::string how = fmt::format("{} % interval of p{}: order statistics {} and {} of {} (coverage {:.4f})",
                                    conf_pct, p, ci->lower_rank, ci->upper_rank, n, ci->coverage);
      put(name + "_ci_low", ci->low, how);
      put(name + "_ci_high", ci->high, how);
    }
  }
  put("latency_max", sorted.back(), fmt::format("max of {} iterations", n));
  put("latency_mean", mean(sorted), fmt::format("mean of {} iterations", n));
  if (n >= 2) {
    put("latency_stddev", stddev(sorted), fmt::format("sample standard deviation of {} iterations", n));
  } else {
    missing("latency_stddev", "needs two iterations at least, got 1");
  }
  if (p50 && p95 && *p50 > 0) {
    put("latency_p95_over_p50", *p95 / *p50, "p95 / p50");
  } else {
    const Metric* m = out.find_metric(prefix + (p50 ? "latency_p95" : "latency_p50"));
    missing("latency_p95_over_p50", m && !m->unavailable.empty() ? m->unavailable : "p50 is zero");
  }

  std::optional<double> throughput;
  if (c.window_s > 0) {
    throughput = static_cast<double>(n) / c.window_s;
    put("throughput", *throughput, fmt::format("{} iterations / {} measured window", n, format_quantity(c.window_s, "s")));
  } else {
    missing("throughput", "the measured window has no duration");
  }
  std::optional<double> token_throughput;
  if (tokens > 0 && throughput) {
    token_throughput = *throughput * tokens;
    put("token_throughput", *token_throughput,
        fmt::format("iterations/s x {:g} tokens per iteration (declared)", tokens));
  } else {
    missing("token_throughput", tokens > 0 ? "no throughput" : "the workload declares no tokens_per_iteration");
  }

  std::string why;
  std::optional<double> power = mean_power(c.power, why, spans);
  if (power) {
    put("power_mean", *power, "");
    out.metrics.back().source = fmt::format("{}{}: mean over {} {} readings", c.power.source, under,
                                            c.power.t_s.size(), c.power.quantity);
    if (throughput) {
      put("energy_per_iteration", *power / *throughput, "power_mean / throughput");
      if (*power > 0) {
        if (token_throughput) {
          put("efficiency", *token_throughput / *power, "token_throughput / power_mean", "token/J");
        } else {
          put("efficiency", *throughput / *power, "throughput / power_mean");
        }
      } else {
        missing("efficiency", "the mean power is not positive");
      }
    } else {
      missing("energy_per_iteration", "no throughput");
      missing("efficiency", "no throughput");
    }
  } else {
    missing("power_mean", why);
    missing("energy_per_iteration", "needs power: " + why);
    missing("efficiency", "needs power: " + why);
  }

  out.samples.push_back(
      catalogued_samples(Level::latency, prefix + "latency", measured, rec.source + under, c.latency_s));
}

// The blocks of one side in the order they ran.
std::vector<const PairedBlock*> blocks_of(const LatencyCondition& c, bool reference) {
  std::vector<const PairedBlock*> out;
  for (const PairedBlock& b : c.blocks)
    if (b.reference == reference && b.count > 0) out.push_back(&b);
  std::sort(out.begin(), out.end(), [](const PairedBlock* a, const PairedBlock* b) { return a->first < b->first; });
  return out;
}

// A block's time span: its first iteration's start to its last one's end.
std::pair<double, double> span_of(const LatencyCondition& c, const PairedBlock& b) {
  const std::size_t last = b.first + b.count - 1;
  return {c.start_s[b.first], c.start_s[last] + c.latency_s[last]};
}

// One side of a condition with blocks as a condition of its own: its
// iterations in order, its measured time the sum of its blocks' spans (the
// spans themselves for its power).
LatencyCondition side_condition(const LatencyCondition& c, bool reference, Spans& spans) {
  LatencyCondition side = c;
  side.blocks.clear();
  side.start_s.clear();
  side.latency_s.clear();
  side.window_s = 0;
  for (const PairedBlock* b : blocks_of(c, reference)) {
    side.start_s.insert(side.start_s.end(), c.start_s.begin() + static_cast<std::ptrdiff_t>(b->first),
                        c.start_s.begin() + static_cast<std::ptrdiff_t>(b->first + b->count));
    side.latency_s.insert(side.latency_s.end(), c.latency_s.begin() + static_cast<std::ptrdiff_t>(b->first),
                          c.latency_s.begin() + static_cast<std::ptrdiff_t>(b->first + b->count));
    spans.push_back(span_of(c, *b));
    side.window_s += spans.back().second - spans.back().first;
  }
  return side;
}

// A paired statistic of one block, or nothing where the block cannot give it.
std::optional<double> block_statistic(std::string_view name, const LatencyCondition& c, const PairedBlock& b) {
  std::vector<double> v(c.latency_s.begin() + static_cast<std::ptrdiff_t>(b.first),
                        c.latency_s.begin() + static_cast<std::ptrdiff_t>(b.first + b.count));
  if (name == "latency_mean") return mean(v);
  const auto [from, to] = span_of(c, b);
  if (name == "throughput") return to > from ? std::optional<double>(double(b.count) / (to - from)) : std::nullopt;
  if (name == "power_mean") {
    std::string why;
    return mean_power(c.power, why, Spans{{from, to}});
  }
  std::sort(v.begin(), v.end());
  if (name == "latency_p50") return percentile_sorted(v, 50);
  if (name == "latency_p90") return v.size() >= 10 ? std::optional<double>(percentile_sorted(v, 90)) : std::nullopt;
  return std::nullopt;
}

// The per-round ratios candidate / reference of each paired statistic, as
// sample sets "vs_reference.<prefix><name>" in round order, and their
// geometric means as metrics of the same name.
void paired_ratios(const LatencyCondition& c, const std::string& prefix, const std::string& source,
                   Provenance measured, Analysis& out) {
  std::map<int, std::pair<const PairedBlock*, const PairedBlock*>> rounds;  // round -> (candidate, reference)
  for (const PairedBlock& b : c.blocks) {
    if (b.count == 0) continue;
    auto& slot = rounds[b.round];
    (b.reference ? slot.second : slot.first) = &b;
  }
  for (std::string_view stat : kPairedLatencyStatistics) {
    const std::string name = "vs_reference." + prefix + std::string(stat);
    std::vector<double> ratios;
    for (const auto& [round, pair] : rounds) {
      if (!pair.first || !pair.second) continue;
      std::optional<double> cand = block_statistic(stat, c, *pair.first);
      std::optional<double> ref = block_statistic(stat, c, *pair.second);
      if (cand && ref && *cand > 0 && *ref > 0 && std::isfinite(*cand / *ref)) ratios.push_back(*cand / *ref);
    }
    if (ratios.empty()) {
      out.metrics.push_back(catalogued_missing(Level::latency, name, "no round gave both sides' figure"));
      continue;
    }
    double log_sum = 0;
    for (double r : ratios) log_sum += std::log(r);
    const std::string how = fmt::format("{}: geometric mean of {} rounds' {} candidate / reference", source,
                                        ratios.size(), stat);
    out.metrics.push_back(catalogued_metric(Level::latency, name, std::exp(log_sum / double(ratios.size())), measured,
                                            how));
    out.samples.push_back(catalogued_samples(Level::latency, name, measured, how, std::move(ratios)));
  }
}

// A condition of a run with a same-run reference: the candidate's metrics
// under their usual names, the reference's paired ones as "reference.<name>",
// and the rounds' ratios.
void analyse_paired_condition(const Scenario& scenario, const LatencyRecording& rec, const LatencyCondition& c,
                              const std::string& prefix, Provenance measured, Analysis& out) {
  Spans candidate_spans, reference_spans;
  analyse_condition(scenario, rec, side_condition(c, false, candidate_spans), prefix, measured, out, candidate_spans);
  Analysis reference;
  LatencyRecording as_reference = rec;
  as_reference.source = "reference " + rec.reference_source;
  analyse_condition(scenario, as_reference, side_condition(c, true, reference_spans), prefix, measured, reference,
                    reference_spans);
  for (Metric& m : reference.metrics) {
    if (!is_paired_latency_statistic(std::string_view(m.name).substr(prefix.size()))) continue;
    Metric renamed = m.value ? catalogued_metric(Level::latency, "reference." + m.name, *m.value, m.provenance,
                                                 m.source, {}, m.unit)
                             : catalogued_missing(Level::latency, "reference." + m.name, m.unavailable);
    out.metrics.push_back(std::move(renamed));
  }
  paired_ratios(c, prefix, rec.source + " vs " + as_reference.source, measured, out);
}

}  // namespace

std::vector<double> side_latencies(const LatencyCondition& c, bool reference) {
  if (c.blocks.empty()) return reference ? std::vector<double>{} : c.latency_s;
  Spans spans;
  return side_condition(c, reference, spans).latency_s;
}

void analyse_latency(const Scenario& scenario, const LatencyRecording* rec, Provenance measured, Analysis& out) {
  if (!scenario.latency) {
    for (std::string_view name : condition_metric_names())
      out.metrics.push_back(
          catalogued_missing(Level::latency, std::string(name), "the scenario has no [latency] section"));
    return;
  }
  const LatencyConfig& cfg = *scenario.latency;
  LatencyRecording empty;
  empty.unavailable = "no latency samples recorded";
  if (!rec) rec = &empty;
  for (std::size_t i = 0; i < cfg.loads.size(); ++i) {
    // Conditions are matched by name: an aborted run may lack the later ones.
    const LatencyCondition* found = nullptr;
    for (const LatencyCondition& c : rec->conditions)
      if (c.name == cfg.loads[i].name) found = &c;
    LatencyCondition absent;
    absent.name = cfg.loads[i].name;
    absent.load = cfg.loads[i].argv;
    const LatencyCondition& c = found ? *found : absent;
    if (c.blocks.empty()) analyse_condition(scenario, *rec, c, latency_condition_prefix(cfg, i), measured, out);
    else analyse_paired_condition(scenario, *rec, c, latency_condition_prefix(cfg, i), measured, out);
  }
  // The effect of each load on the tail, for people reading the report.
  const Metric* first = out.find_metric("latency_p95");
  for (std::size_t i = 1; i < cfg.loads.size() && first && first->value && *first->value > 0; ++i) {
    const Metric* loaded = out.find_metric(latency_condition_prefix(cfg, i) + "latency_p95");
    if (!loaded || !loaded->value) continue;
    auto label = [](const std::vector<std::string>& argv) {
      return argv.empty() ? std::string("none") : fmt::format("{}", fmt::join(argv, " "));
    };
    out.hints.push_back(fmt::format("latency: p95 under load \"{}\" is {:.3g}x that of \"{}\" ({} vs {})",
                                    label(cfg.loads[i].argv), *loaded->value / *first->value,
                                    label(cfg.loads[0].argv),
                                    format_quantity(*loaded->value, "s"), format_quantity(*first->value, "s")));
  }
  // Judged by compare against a baseline (evaluate_latency_baseline).
  out.metrics.push_back(catalogued_missing(Level::latency, "efficiency_gain", "needs a baseline"));
  out.metrics.push_back(catalogued_missing(Level::latency, "power_over_baseline", "needs a baseline"));
}

std::vector<Verdict> evaluate_latency_baseline(const LatencyConfig& config, const Analysis& baseline,
                                               const Analysis& current) {
  std::vector<Verdict> out;
  // ratio = current / baseline of one metric; unavailable when either lacks it.
  auto judge = [&](const Expectation& e, const char* metric, const char* expected) {
    Verdict v;
    v.level = Level::latency;
    v.check = "latency.expect." + e.key;
    v.expected = expected;
    const Metric* cur = current.find_metric(metric);
    const Metric* base = baseline.find_metric(metric);
    auto reason = [](const Metric* m) { return m ? m->unavailable : std::string("not produced"); };
    if (!cur || !cur->value) {
      v.measured = fmt::format("unavailable: {} of this run: {}", metric, reason(cur));
    } else if (!base || !base->value) {
      v.measured = fmt::format("unavailable: {} of the baseline: {}", metric, reason(base));
    } else if (!(*base->value > 0)) {
      v.measured = fmt::format("unavailable: {} of the baseline is not positive", metric);
    } else {
      const double ratio = *cur->value / *base->value;
      const bool pass = e.bound == Bound::min ? ratio >= e.number : ratio <= e.number;
      v.status = pass ? VerdictStatus::pass : VerdictStatus::fail;
      v.measured = fmt::format("{:.3g}x ({} vs {})", ratio, format_quantity(*cur->value, cur->unit),
                               format_quantity(*base->value, base->unit));
      if (!pass) v.detail = fmt::format("{} is {:.3g}x the baseline, expected {} ({})", metric, ratio, v.expected, e.where);
      return v;
    }
    v.status = VerdictStatus::unavailable;
    return v;
  };
  if (config.efficiency_gain_min) {
    out.push_back(judge(*config.efficiency_gain_min, "efficiency",
                        fmt::format(">= {:g}x baseline", config.efficiency_gain_min->number).c_str()));
  }
  if (config.power_not_above_baseline) {
    out.push_back(judge(*config.power_not_above_baseline, "power_mean", "<= 1x baseline"));
  }
  return out;
}

}  // namespace harness
