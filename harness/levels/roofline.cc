#include "harness/levels/roofline.h"

#include <cmath>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "harness/base/stats.h"
#include "probes/kernels.h"

namespace harness {

const CeilingSamples* RooflineRecording::find_ceiling(const std::string& name) const {
  for (const CeilingSamples& c : ceilings)
    if (c.name == name) return &c;
  return nullptr;
}

const KernelTiming* RooflineRecording::find_kernel(const std::string& name) const {
  for (const KernelTiming& k : kernels)
    if (k.name == name) return &k;
  return nullptr;
}

void to_json(nlohmann::json& j, const RooflineRecording& r) {
  j = nlohmann::json::object();
  j["ceilings"] = nlohmann::json::array();
  for (const CeilingSamples& c : r.ceilings) {
    j["ceilings"].push_back({{"name", c.name}, {"unit", c.unit}, {"source", c.source},
                             {"values", c.values}, {"unavailable", c.unavailable}});
  }
  j["kernels"] = nlohmann::json::array();
  for (const KernelTiming& k : r.kernels) {
    j["kernels"].push_back({{"name", k.name}, {"seconds", k.seconds}, {"unavailable", k.unavailable}});
  }
}

void from_json(const nlohmann::json& j, RooflineRecording& r) {
  for (const auto& c : j.at("ceilings")) {
    r.ceilings.push_back({c.at("name"), c.at("unit"), c.at("source"),
                          c.at("values").get<std::vector<double>>(), c.value("unavailable", "")});
  }
  for (const auto& k : j.at("kernels")) {
    r.kernels.push_back({k.at("name"), k.at("seconds").get<std::vector<double>>(),
                         k.value("unavailable", "")});
  }
}

RooflinePlacement place_on_roofline(double flops, double bytes, double peak, double bandwidth) {
  RooflinePlacement p;
  p.intensity = flops / bytes;
  p.ridge = peak / bandwidth;
  p.attainable = std::min(peak, bandwidth * p.intensity);
  p.memory_bound = p.intensity < p.ridge;
  p.ridge_distance_decades = std::log10(p.intensity / p.ridge);
  return p;
}

namespace {

// A ceiling's value as a metric: declared, measured (median of samples), or
// unavailable with the reason.
Metric ceiling_metric(const Ceiling& c, std::string_view kind, const RooflineRecording* rec,
                      Provenance measured, Analysis& out) {
  std::string name = fmt::format("ceiling.{}.{}", kind, c.name);
  std::string unit = kind == "compute" ? "op/s" : "B/s";
  if (!c.measure) {
    Metric m;
    m.level = Level::roofline;
    m.name = name;
    m.value = c.value;
    m.unit = unit;
    m.provenance = Provenance::declared;
    m.source = fmt::format("scenario {}", c.where);
    m.better = Better::higher;
    return m;
  }
  const CeilingSamples* s = rec ? rec->find_ceiling(fmt::format("{}.{}", kind, c.name)) : nullptr;
  if (!s) return Metric::missing(Level::roofline, name, unit, "not measured in this run", Better::higher);
  if (s->values.empty()) {
    return Metric::missing(Level::roofline, name, unit,
                           s->unavailable.empty() ? "no samples" : s->unavailable, Better::higher);
  }
  SampleSet samples{Level::roofline, name, unit, measured, s->source, Better::higher, s->values};
  out.samples.push_back(samples);
  Metric m;
  m.level = Level::roofline;
  m.name = name;
  m.value = median(s->values);
  m.unit = unit;
  m.provenance = measured;
  m.source = fmt::format("{} (median of {})", s->source, s->values.size());
  m.better = Better::higher;
  return m;
}

Provenance weakest(Provenance a, Provenance b) {
  auto rank = [](Provenance p) {
    switch (p) {
      case Provenance::measured: return 0;
      case Provenance::replayed: return 1;
      case Provenance::model: return 2;
      case Provenance::declared: return 3;
    }
    return 3;
  };
  return rank(a) >= rank(b) ? a : b;
}

Metric derived(const std::string& name, double value, const std::string& unit, Provenance p,
               const std::string& source, Better better) {
  Metric m;
  m.level = Level::roofline;
  m.name = name;
  m.value = value;
  m.unit = unit;
  m.provenance = p;
  m.source = source;
  m.better = better;
  return m;
}

}  // namespace

void analyse_roofline(const Scenario& scenario, const RooflineRecording* rec, Provenance measured,
                      Analysis& out) {
  if (!scenario.roofline) {
    out.metrics.push_back(Metric::missing(Level::roofline, "roofline", "",
                                          "the scenario has no [roofline] section"));
    return;
  }
  std::map<std::string, Metric> compute, memory;
  for (const Ceiling& c : scenario.rig.compute) {
    compute[c.name] = ceiling_metric(c, "compute", rec, measured, out);
    out.metrics.push_back(compute[c.name]);
  }
  for (const Ceiling& c : scenario.rig.memory) {
    memory[c.name] = ceiling_metric(c, "memory", rec, measured, out);
    out.metrics.push_back(memory[c.name]);
  }
  for (auto& [pname, p] : compute) {
    for (auto& [bname, b] : memory) {
      std::string name = fmt::format("ridge.{}.{}", pname, bname);
      if (p.value && b.value && *b.value > 0) {
        out.metrics.push_back(derived(name, *p.value / *b.value, "op/B", weakest(p.provenance, b.provenance),
                                      fmt::format("{} / {}", p.name, b.name), Better::none));
      } else {
        out.metrics.push_back(Metric::missing(Level::roofline, name, "op/B",
                                              fmt::format("needs {} and {}", p.name, b.name)));
      }
    }
  }

  for (const RooflineKernel& k : scenario.roofline->kernels) {
    const std::string pre = k.name + ".";
    double flops = 0, bytes = 0;
    Provenance flops_p = Provenance::declared, bytes_p = Provenance::declared;
    std::string bytes_source = "declared";
    if (k.flops) flops = *k.flops;
    if (k.bytes) bytes = *k.bytes;
    if (k.builtin && (!k.flops || !k.bytes)) {
      KernelCost cost = kernel_cost(*k.builtin);
      if (!k.flops) { flops = cost.flops; flops_p = Provenance::model; }
      if (!k.bytes) { bytes = cost.model_bytes; bytes_p = Provenance::model; bytes_source = "model: compulsory traffic"; }
    }
    out.metrics.push_back(derived(pre + "flops", flops, "op", flops_p,
                                  flops_p == Provenance::model ? "model: kernel formula" : "declared",
                                  Better::none));
    out.metrics.push_back(derived(pre + "bytes", bytes, "B", bytes_p, bytes_source, Better::none));
    double ai = flops / bytes;
    Provenance ai_p = weakest(flops_p, bytes_p);
    out.metrics.push_back(derived(pre + "intensity", ai, "op/B", ai_p, "flops / bytes", Better::higher));

    const KernelTiming* timing = rec ? rec->find_kernel(k.name) : nullptr;
    std::optional<double> seconds;
    if (timing && !timing->seconds.empty()) {
      seconds = median(timing->seconds);
      out.samples.push_back({Level::roofline, pre + "time", "s", measured, "kernel run", Better::lower,
                             timing->seconds});
      out.metrics.push_back(derived(pre + "time", *seconds, "s", measured,
                                    fmt::format("median of {} runs", timing->seconds.size()), Better::lower));
      out.metrics.push_back(derived(pre + "achieved", flops / *seconds, "op/s", weakest(measured, flops_p),
                                    "flops / time", Better::higher));
    } else {
      std::string why = !k.builtin ? "no timing source for a declared kernel"
                        : timing   ? timing->unavailable
                                   : "not run";
      out.metrics.push_back(Metric::missing(Level::roofline, pre + "time", "s", why, Better::lower));
      out.metrics.push_back(Metric::missing(Level::roofline, pre + "achieved", "op/s", why, Better::higher));
    }

    auto p_it = compute.find(k.precision);
    auto b_it = memory.find(k.memory);
    std::string missing;
    if (p_it == compute.end()) missing = fmt::format("the rig declares no compute ceiling '{}'", k.precision);
    else if (!p_it->second.value) missing = fmt::format("compute ceiling {}: {}", k.precision, p_it->second.unavailable);
    else if (b_it == memory.end()) missing = fmt::format("the rig declares no memory ceiling '{}'", k.memory);
    else if (!b_it->second.value) missing = fmt::format("memory ceiling {}: {}", k.memory, b_it->second.unavailable);
    if (!missing.empty()) {
      for (const char* name : {"attainable", "utilisation", "ridge_distance"}) {
        out.metrics.push_back(Metric::missing(Level::roofline, pre + name, "", missing));
      }
      out.metrics.push_back(Metric::missing(Level::roofline, pre + "bound", "", missing));
      continue;
    }
    const Metric& P = p_it->second;
    const Metric& B = b_it->second;
    RooflinePlacement place = place_on_roofline(flops, bytes, *P.value, *B.value);
    Provenance ceiling_p = weakest(P.provenance, B.provenance);
    out.metrics.push_back(derived(pre + "attainable", place.attainable, "op/s", weakest(ai_p, ceiling_p),
                                  fmt::format("min({}, {} x intensity)", P.name, B.name), Better::higher));
    out.metrics.push_back(derived(pre + "ridge_distance", place.ridge_distance_decades, "decades",
                                  weakest(ai_p, ceiling_p), "log10(intensity / ridge)", Better::none));
    Metric bound = derived(pre + "bound", place.memory_bound ? 0 : 1, "", weakest(ai_p, ceiling_p),
                           fmt::format("binding ceiling: {}", place.memory_bound ? B.name : P.name),
                           Better::none);
    bound.text = place.memory_bound ? "memory" : "compute";
    out.metrics.push_back(bound);
    if (seconds) {
      out.metrics.push_back(derived(pre + "utilisation", (flops / *seconds) / place.attainable, "1",
                                    weakest(measured, weakest(ai_p, ceiling_p)), "achieved / attainable",
                                    Better::higher));
    } else {
      out.metrics.push_back(Metric::missing(Level::roofline, pre + "utilisation", "1", "no measured time"));
    }
  }
}

}  // namespace harness
