#include "harness/levels/latency.h"

#include <algorithm>
#include <cmath>

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
  }
  j = {{"source", r.source}, {"conditions", conditions}, {"unavailable", r.unavailable}};
}

void from_json(const nlohmann::json& j, LatencyRecording& r) {
  r.source = j.at("source");
  r.unavailable = j.value("unavailable", "");
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

// Mean power over the readings: energy counters by difference, power
// readings by the trapezoid rule (a single reading stands for the window).
std::optional<double> mean_power(const PowerSeries& p, std::string& why) {
  if (!p.unavailable.empty()) {
    why = p.unavailable;
    return std::nullopt;
  }
  const std::size_t n = std::min(p.t_s.size(), p.value.size());
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
                       const std::string& prefix, Provenance measured, Analysis& out) {
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
  std::optional<double> power = mean_power(c.power, why);
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

}  // namespace

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
    analyse_condition(scenario, *rec, found ? *found : absent, latency_condition_prefix(cfg, i), measured, out);
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
