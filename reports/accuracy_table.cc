#include "reports/accuracy_table.h"

#include <cmath>

#include <fmt/format.h>

namespace harness {

using accuracy::AccuracyComparison;
using accuracy::Figure;
using accuracy::LayerAccuracy;

namespace {

std::string cell(const Figure& f, const char* spec) {
  if (!f.value) return "n/a";
  if (std::isinf(*f.value)) return *f.value > 0 ? "+inf" : "-inf";
  return fmt::format(fmt::runtime(spec), *f.value);
}

std::string csv_cell(const Figure& f) {
  if (!f.value) return "";
  if (std::isinf(*f.value)) return *f.value > 0 ? "+inf" : "-inf";
  return fmt::format("{:.17g}", *f.value);
}

std::string csv_quote(const std::string& s) {
  if (s.find_first_of(",\"\n") == std::string::npos) return s;
  std::string q = "\"";
  for (char c : s) q += c == '"' ? std::string("\"\"") : std::string(1, c);
  return q + "\"";
}

struct Named {
  const char* name;
  const Figure& figure;
};

}  // namespace

nlohmann::json figure_json(const Figure& f) {
  if (!f.value) return nullptr;
  if (std::isinf(*f.value)) return *f.value > 0 ? "+inf" : "-inf";
  return *f.value;
}

std::string accuracy_layer_failure(const LayerAccuracy& l, const AccuracyThresholds& t) {
  const auto& s = l.stats;
  if (l.device_non_finite())
    return fmt::format("the device output holds {} NaN and {} Inf values", s.dev_nan, s.dev_inf);
  const auto& m = l.metrics;
  if (t.cosine_min) {
    if (!m.cosine.value) return "cosine unavailable: " + m.cosine.unavailable;
    if (*m.cosine.value < *t.cosine_min) return fmt::format("cosine {:.6f} < {}", *m.cosine.value, *t.cosine_min);
  }
  if (t.psnr_min_db) {
    if (!m.psnr_db.value) return "PSNR unavailable: " + m.psnr_db.unavailable;
    if (*m.psnr_db.value < *t.psnr_min_db)
      return fmt::format("PSNR {:.2f} dB < {} dB", *m.psnr_db.value, *t.psnr_min_db);
  }
  return {};
}

std::string render_accuracy_text(const AccuracyComparison& c, const AccuracyThresholds& t) {
  std::string out = fmt::format("accuracy: reference {} vs device {}\nmode: {} ({})\n{}\n\n", c.reference_path,
                                c.device_path, accuracy::dump_mode_name(c.mode), accuracy::dump_mode_meaning(c.mode),
                                accuracy::kPsnrPeakDefinition);
  std::size_t w = 5;
  for (const LayerAccuracy& l : c.layers) w = std::max(w, l.layer.size());
  out += fmt::format("{:<{}}  {:<16}  {:>9}  {:>9}  {:>9}  {:>10}  {:>10}  {:>10}  {:>9}  {}\n", "layer", w, "shape",
                     "cosine", "PSNR dB", "SQNR dB", "max |err|", "mean |err|", "rel L2", "NaN/Inf", "check");
  std::vector<std::string> notes;
  std::size_t failed = 0;
  for (const LayerAccuracy& l : c.layers) {
    const auto& m = l.metrics;
    std::string why = accuracy_layer_failure(l, t);
    failed += !why.empty();
    out += fmt::format("{:<{}}  {:<16}  {:>9}  {:>9}  {:>9}  {:>10}  {:>10}  {:>10}  {:>9}  {}\n", l.layer, w, l.shape,
                       cell(m.cosine, "{:.6f}"), cell(m.psnr_db, "{:.2f}"), cell(m.sqnr_db, "{:.2f}"),
                       cell(m.max_abs_error, "{:.4g}"), cell(m.mean_abs_error, "{:.4g}"),
                       cell(m.relative_l2, "{:.4g}"),
                       fmt::format("{}/{}", l.stats.dev_nan, l.stats.dev_inf), why.empty() ? "pass" : "FAIL: " + why);
    for (Named n : {Named{"cosine", m.cosine}, Named{"PSNR", m.psnr_db}, Named{"SQNR", m.sqnr_db},
                    Named{"relative L2", m.relative_l2}})
      if (!n.figure.value) notes.push_back(fmt::format("{}: {} unavailable: {}", l.layer, n.name, n.figure.unavailable));
  }
  if (!notes.empty()) out += "\n" + fmt::format("{}\n", fmt::join(notes, "\n"));
  out += "\nNaN/Inf: values in the device output (metrics are over the pairs where both values are finite)\n";
  if (!c.reference_only.empty() || !c.device_only.empty()) {
    out += "\nunpaired layers (not compared):\n";
    if (!c.reference_only.empty()) out += fmt::format("  reference only: {}\n", fmt::join(c.reference_only, ", "));
    if (!c.device_only.empty()) out += fmt::format("  device only: {}\n", fmt::join(c.device_only, ", "));
  }
  std::vector<const LayerAccuracy*> worst = accuracy::worst_first(c.layers);
  if (!worst.empty()) {
    std::vector<std::string> names;
    for (std::size_t i = 0; i < worst.size() && i < 3; ++i)
      names.push_back(fmt::format("{} (cosine {}, PSNR {} dB)", worst[i]->layer,
                                  cell(worst[i]->metrics.cosine, "{:.6f}"), cell(worst[i]->metrics.psnr_db, "{:.2f}")));
    out += fmt::format("\nworst layers: {}\n", fmt::join(names, "; "));
  }
  out += fmt::format("{} layers compared, {} failed\n", c.layers.size(), failed);
  return out;
}

nlohmann::json accuracy_to_json(const AccuracyComparison& c, const AccuracyThresholds& t) {
  nlohmann::json layers = nlohmann::json::array();
  for (const LayerAccuracy& l : c.layers) {
    const auto& m = l.metrics;
    const auto& s = l.stats;
    nlohmann::json j{{"layer", l.layer},
                     {"device_layer", l.device_layer},
                     {"reference", l.reference_origin},
                     {"device", l.device_origin},
                     {"shape", l.shape},
                     {"reference_dtype", l.reference_dtype},
                     {"device_dtype", l.device_dtype},
                     {"elements", s.elements},
                     {"compared", s.compared},
                     {"psnr_peak", m.peak},
                     {"reference_nan", s.ref_nan},
                     {"reference_inf", s.ref_inf},
                     {"device_nan", s.dev_nan},
                     {"device_inf", s.dev_inf}};
    for (Named n : {Named{"cosine", m.cosine}, Named{"psnr_db", m.psnr_db}, Named{"sqnr_db", m.sqnr_db},
                    Named{"max_abs_error", m.max_abs_error}, Named{"mean_abs_error", m.mean_abs_error},
                    Named{"relative_l2", m.relative_l2}}) {
      j[n.name] = figure_json(n.figure);
      if (!n.figure.value) j[std::string(n.name) + "_unavailable"] = n.figure.unavailable;
    }
    std::string why = accuracy_layer_failure(l, t);
    j["check"] = why.empty() ? "pass" : "fail";
    if (!why.empty()) j["failure"] = why;
    layers.push_back(std::move(j));
  }
  nlohmann::json worst = nlohmann::json::array();
  for (const LayerAccuracy* l : accuracy::worst_first(c.layers)) worst.push_back(l->layer);
  nlohmann::json th = nlohmann::json::object();
  if (t.cosine_min) th["cosine_min"] = *t.cosine_min;
  if (t.psnr_min_db) th["psnr_min_db"] = *t.psnr_min_db;
  return {{"reference", c.reference_path},
          {"device", c.device_path},
          {"mode", accuracy::dump_mode_name(c.mode)},
          {"mode_meaning", accuracy::dump_mode_meaning(c.mode)},
          {"psnr_definition", accuracy::kPsnrPeakDefinition},
          {"infinity", "PSNR/SQNR of identical tensors are the string \"+inf\"; unavailable figures are null"},
          {"thresholds", th},
          {"layers", layers},
          {"worst_first", worst},
          {"unpaired", {{"reference_only", c.reference_only}, {"device_only", c.device_only}}}};
}

std::string accuracy_to_csv(const AccuracyComparison& c, const AccuracyThresholds& t) {
  std::string out =
      "layer,device_layer,shape,elements,compared,cosine,psnr_db,sqnr_db,max_abs_error,mean_abs_error,relative_l2,"
      "psnr_peak,reference_nan,reference_inf,device_nan,device_inf,check,mode\n";
  for (const LayerAccuracy& l : c.layers) {
    const auto& m = l.metrics;
    const auto& s = l.stats;
    std::string why = accuracy_layer_failure(l, t);
    out += fmt::format("{},{},{},{},{},{},{},{},{},{},{},{:.17g},{},{},{},{},{},{}\n", csv_quote(l.layer),
                       csv_quote(l.device_layer), csv_quote(l.shape), s.elements, s.compared, csv_cell(m.cosine),
                       csv_cell(m.psnr_db), csv_cell(m.sqnr_db), csv_cell(m.max_abs_error),
                       csv_cell(m.mean_abs_error), csv_cell(m.relative_l2), m.peak, s.ref_nan, s.ref_inf, s.dev_nan,
                       s.dev_inf, why.empty() ? "pass" : "fail", accuracy::dump_mode_name(c.mode));
  }
  for (const std::string& n : c.reference_only)
    out += fmt::format("{},,,,,,,,,,,,,,,,unpaired (reference only),{}\n", csv_quote(n), accuracy::dump_mode_name(c.mode));
  for (const std::string& n : c.device_only)
    out += fmt::format(",{},,,,,,,,,,,,,,,unpaired (device only),{}\n", csv_quote(n), accuracy::dump_mode_name(c.mode));
  return out;
}

}  // namespace harness
