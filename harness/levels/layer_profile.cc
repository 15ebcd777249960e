#include "harness/levels/layer_profile.h"

#include <algorithm>
#include <cmath>
#include <map>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "harness/levels/roofline.h"
#include "harness/model/metric_catalogue.h"

namespace harness {
namespace {

// Units and directions come from the catalogue (harness/model/metric_catalogue.cc).
Metric metric(const std::string& name, double value, Provenance p, const std::string& source,
              const std::string& text = "") {
  return catalogued_metric(Level::roofline, name, value, p, source, text);
}
Metric missing(const std::string& name, const std::string& why) {
  return catalogued_missing(Level::roofline, name, why);
}

std::string ms(double seconds) { return fmt::format("{:.3g} ms", seconds * 1e3); }

ProfileReadOptions read_options(const LayerProfileConfig& c, const std::string& format) {
  ProfileReadOptions o;
  o.format = format;
  o.element_bytes = c.element_bytes;
  o.clock_hz = c.clock_hz;
  o.runs = c.runs;
  return o;
}

// What the analysis of the whole profile needs from each layer.
struct Placed {
  const ProfileLayer* layer;
  std::string bound;  // "memory", "compute", or empty: not placed
};

struct Totals {
  double time = 0, predicted = 0, measured_of_predicted = 0, copy_time = 0;
  std::vector<std::string> bandwidth_bound, copies, unplaced;
  std::vector<Placed> placed;
};

std::string no_work_reason(const ProfileLayer& l) {
  if (!l.flops && !l.bytes) return "the profile gives no flops and no bytes for this layer";
  if (!l.flops) return "the profile gives no flops for this layer";
  return "the profile gives no bytes (nor shapes) for this layer";
}

// One layer's metrics; returns which roof binds it (empty: not placed).
std::string analyse_layer(const ProfileLayer& l, const ProfileCeilings& c, bool placeable, Provenance time_p,
                          double total, Totals& t, Analysis& out) {
  const std::string pre = "layer." + l.name + ".";
  out.metrics.push_back(metric(pre + "time", l.time_s, time_p, l.where));
  if (total > 0) out.metrics.push_back(metric(pre + "time_share", l.time_s / total, time_p, "layer time / profile total"));
  else out.metrics.push_back(missing(pre + "time_share", "total time is 0"));
  const Provenance work_p = l.flops && l.bytes ? weakest(l.flops_provenance, l.bytes_provenance) : Provenance::model;
  if (l.flops && l.bytes && *l.bytes > 0) {
    out.metrics.push_back(metric(pre + "intensity", *l.flops / *l.bytes, work_p,
                                 fmt::format("flops ({}) / bytes ({})", l.flops_source, l.bytes_source)));
  } else {
    out.metrics.push_back(missing(pre + "intensity", l.flops && l.bytes ? "bytes are 0" : no_work_reason(l)));
  }
  // Where the report plots the layer on the roofline: flops / its time.
  if (l.flops && l.time_s > 0)
    out.metrics.push_back(metric(pre + "achieved", *l.flops / l.time_s, weakest(time_p, l.flops_provenance),
                                 "flops / time (profile)"));
  else
    out.metrics.push_back(missing(pre + "achieved", !l.flops ? no_work_reason(l) : "measured time is 0"));
  std::string why;
  if (!placeable) why = c.missing;
  else if (!l.flops || !l.bytes) why = no_work_reason(l);
  if (!why.empty()) {
    for (const char* name : {"predicted_time", "prediction_error", "attainable", "bound"})
      out.metrics.push_back(missing(pre + name, why));
    return "";
  }
  // Roofline time: the slower of computing at the peak and streaming at the
  // bandwidth, i.e. flops / min(P, B * AI).
  const double compute_time = *l.flops / *c.peak, memory_time = *l.bytes / *c.bandwidth;
  const double predicted = std::max(compute_time, memory_time);
  const bool memory_bound = memory_time >= compute_time;
  const Provenance model_p = weakest(c.provenance, work_p);
  t.predicted += predicted;
  t.measured_of_predicted += l.time_s;
  out.metrics.push_back(metric(pre + "predicted_time", predicted, Provenance::model,
                               fmt::format("max(flops / {}, bytes / {})", c.peak_name, c.bandwidth_name)));
  if (l.time_s > 0)
    out.metrics.push_back(metric(pre + "prediction_error", (predicted - l.time_s) / l.time_s, model_p,
                                 "(predicted - measured) / measured"));
  else
    out.metrics.push_back(missing(pre + "prediction_error", "measured time is 0"));
  if (predicted > 0)
    out.metrics.push_back(metric(pre + "attainable", *l.flops / predicted, model_p,
                                 fmt::format("min({}, {} x intensity)", c.peak_name, c.bandwidth_name)));
  else
    out.metrics.push_back(missing(pre + "attainable", "no flops and no bytes: nothing to place"));
  out.metrics.push_back(metric(pre + "bound", memory_bound ? 0 : 1, model_p,
                               fmt::format("binding ceiling: {}", memory_bound ? c.bandwidth_name : c.peak_name),
                               memory_bound ? "memory" : "compute"));
  if (memory_bound) t.bandwidth_bound.push_back(l.name);
  return memory_bound ? "memory" : "compute";
}

void analyse_top(const Totals& t, const LayerProfileConfig& config, Provenance time_p, Analysis& out) {
  std::vector<const Placed*> by_time;
  for (const Placed& p : t.placed) by_time.push_back(&p);
  std::stable_sort(by_time.begin(), by_time.end(),
                   [](const Placed* a, const Placed* b) { return a->layer->time_s > b->layer->time_s; });
  by_time.resize(std::min<std::size_t>(by_time.size(), static_cast<std::size_t>(config.top)));
  double top_time = 0;
  std::vector<std::string> names;
  for (const Placed* p : by_time) {
    top_time += p->layer->time_s;
    names.push_back(fmt::format("{} {} {}", p->layer->name, ms(p->layer->time_s),
                                p->bound.empty() ? "not placed" : p->bound + "-bound"));
  }
  if (t.time <= 0) {
    out.metrics.push_back(missing("profile.top_time_share", "total time is 0"));
    out.metrics.push_back(missing("profile.copy_time_share", "total time is 0"));
    return;
  }
  out.metrics.push_back(metric("profile.top_time_share", top_time / t.time, time_p,
                               fmt::format("share of total time in the top {} layers", by_time.size()),
                               fmt::format("{:.1f} % in {}", 100 * top_time / t.time, fmt::join(names, ", "))));
  out.metrics.push_back(metric("profile.copy_time_share", t.copy_time / t.time, time_p,
                               "time in permute/transpose/copy-like ops / total",
                               fmt::format("{:.1f} % in {}", 100 * t.copy_time / t.time,
                                           t.copies.empty() ? "no copy-like op" : fmt::format("{}", fmt::join(t.copies, ", ")))));
}

// Idle gaps: time between one kernel's end and the next one's start within
// a run, in start order; overlapping kernels leave no gap (CPU fallback and
// sync waits show up as gaps). Per inference: the runs' sum / runs.
void analyse_idle(const LayerProfile& p, Provenance time_p, Analysis& out) {
  if (!p.has_start || p.kernels.empty()) {
    for (const char* name : {"profile.idle_time", "profile.idle_gaps", "profile.idle_gap_max"})
      out.metrics.push_back(missing(name, "the profile has no start timestamps"));
    return;
  }
  std::vector<const KernelInterval*> order;
  for (const KernelInterval& k : p.kernels) order.push_back(&k);
  std::stable_sort(order.begin(), order.end(), [](const KernelInterval* a, const KernelInterval* b) {
    return a->run != b->run ? a->run < b->run : a->start_s < b->start_s;
  });
  double idle = 0, largest = 0, end = 0;
  int gaps = 0;
  std::string largest_text = "none";
  const KernelInterval* previous = nullptr;
  auto name = [&](const KernelInterval* k) {
    return k->layer < p.layers.size() ? p.layers[k->layer].name : std::string("?");
  };
  for (const KernelInterval* k : order) {
    if (previous && previous->run == k->run) {
      const double gap = k->start_s - end;
      if (gap > 0) {
        idle += gap;
        ++gaps;
        if (gap > largest) {
          largest = gap;
          largest_text = fmt::format("{} between {} and {}", ms(gap), name(previous), name(k));
        }
      }
    }
    if (!previous || previous->run != k->run || k->end_s >= end) {
      end = !previous || previous->run != k->run ? k->end_s : std::max(end, k->end_s);
      previous = k;
    }
  }
  const double runs = p.runs;
  const std::string per = runs > 1 ? fmt::format(" per inference ({} runs)", p.runs) : "";
  out.metrics.push_back(metric("profile.idle_time", idle / runs, time_p, "sum of gaps between kernels" + per));
  out.metrics.push_back(metric("profile.idle_gaps", gaps / runs, time_p, "gaps between kernels" + per));
  out.metrics.push_back(metric("profile.idle_gap_max", largest, time_p, "largest gap between kernels", largest_text));
}

void analyse_devices(const LayerProfile& p, double total, Provenance time_p, Analysis& out) {
  if (!p.device_known) {
    out.metrics.push_back(missing("profile.cpu_fallback_share",
                                  p.format == "vela" ? "Vela lists only the NPU's operators"
                                                     : "the profile does not say where each layer ran"));
    return;
  }
  if (total <= 0) {
    out.metrics.push_back(missing("profile.cpu_fallback_share", "total time is 0"));
    return;
  }
  double cpu = 0;
  std::map<std::string, double> by_device;
  bool accelerator = false;
  for (const ProfileLayer& l : p.layers) {
    if (l.device == LayerDevice::cpu) cpu += l.time_s;
    accelerator = accelerator || l.device == LayerDevice::accelerator;
    by_device[l.device_text] += l.time_s;
  }
  std::vector<std::string> parts;
  for (const auto& [device, time] : by_device) parts.push_back(fmt::format("{} {:.1f} %", device, 100 * time / total));
  out.metrics.push_back(metric("profile.cpu_fallback_share", cpu / total, time_p,
                               "time of layers on the CPU / total",
                               fmt::format("{}{}", fmt::join(parts, ", "),
                                           accelerator ? "" : " (no accelerator in this profile)")));
}

}  // namespace

Result<LayerProfile> read_configured_profile(const LayerProfileConfig& config, const std::string& text,
                                             const std::string& path, const std::string* work_text,
                                             const std::string* work_path) {
  Result<LayerProfile> p = read_layer_profile(text, path, read_options(config, config.format));
  if (!p || !work_text) return p;
  Result<LayerProfile> work = read_layer_profile(*work_text, work_path ? *work_path : config.work_path,
                                                 read_options(config, config.work_format));
  if (!work) return work.error();
  std::vector<std::string> unmatched = join_layer_work(*p, *work);
  if (!unmatched.empty()) {
    p->notes.push_back(fmt::format("{} layers of {} match no profile layer: {}", unmatched.size(), config.work_written,
                                   fmt::join(unmatched.begin(), unmatched.begin() + std::min<std::size_t>(unmatched.size(), 5), ", ")));
  }
  return p;
}

void analyse_layer_profile(const LayerProfile& profile, const LayerProfileConfig& config,
                           const ProfileCeilings& ceilings, Provenance measured, Analysis& out) {
  const std::string source = fmt::format("profile {} ({})", config.written, profile.format);
  const bool placeable = ceilings.peak && ceilings.bandwidth && *ceilings.peak > 0 && *ceilings.bandwidth > 0;
  const Provenance time_p = profile.time_provenance == Provenance::model ? Provenance::model : measured;
  Totals t;
  for (const ProfileLayer& l : profile.layers) t.time += l.time_s;
  for (const ProfileLayer& l : profile.layers) {
    if (is_copy_like(l.op)) {
      t.copy_time += l.time_s;
      t.copies.push_back(l.name);
    }
    std::string bound = analyse_layer(l, ceilings, placeable, time_p, t.time, t, out);
    if (bound.empty() && (!l.flops || !l.bytes)) t.unplaced.push_back(l.name);
    t.placed.push_back({&l, bound});
  }
  out.metrics.push_back(metric("profile.layers", static_cast<double>(profile.layers.size()), time_p, source));
  out.metrics.push_back(metric("profile.runs", profile.runs, time_p, source + ": inferences the profile covers"));
  out.metrics.push_back(metric("profile.total_time", t.time, time_p, source + ": sum of layer times per inference"));
  out.metrics.push_back(metric("profile.unplaced", static_cast<double>(t.unplaced.size()), time_p,
                               "layers timed but without flops or bytes: not placed",
                               t.unplaced.empty() ? "none" : fmt::format("{}", fmt::join(t.unplaced, ", "))));
  if (placeable && t.predicted > 0) {
    const Provenance model_p = ceilings.provenance;
    out.metrics.push_back(metric(
        "profile.bandwidth_bound", static_cast<double>(t.bandwidth_bound.size()), model_p, "layers below the ridge",
        fmt::format("{} of {}: {}", t.bandwidth_bound.size(), profile.layers.size(),
                    t.bandwidth_bound.empty() ? "none" : fmt::format("{}", fmt::join(t.bandwidth_bound, ", ")))));
    out.metrics.push_back(
        metric("profile.predicted_time", t.predicted, Provenance::model, "sum of placed layers' roofline times"));
    // The factor that recalibrates the model: measured / predicted over the
    // layers the model could place (seed 001: the model must be calibrated).
    out.metrics.push_back(metric("profile.calibration", t.measured_of_predicted / t.predicted, model_p,
                                 "measured / predicted time over placed layers"));
  } else {
    const std::string why = placeable ? "no layer has both flops and bytes" : ceilings.missing;
    for (const char* name : {"profile.bandwidth_bound", "profile.predicted_time", "profile.calibration"})
      out.metrics.push_back(missing(name, why));
  }
  analyse_top(t, config, time_p, out);
  analyse_idle(profile, time_p, out);
  if (profile.sync_time_s) {
    out.metrics.push_back(metric("profile.sync_time", *profile.sync_time_s, time_p,
                                 fmt::format("{} synchronisation events (fences) / {} runs", profile.sync_events,
                                             profile.runs)));
  } else {
    out.metrics.push_back(missing("profile.sync_time", "the profile marks no synchronisation apart from kernels"));
  }
  analyse_devices(profile, t.time, time_p, out);
  for (const std::string& note : profile.notes) out.hints.push_back(fmt::format("profile {}: {}", config.written, note));
}

}  // namespace harness
