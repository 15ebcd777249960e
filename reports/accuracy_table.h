// The per-layer accuracy table of `harness accuracy`: text, JSON and CSV.
//
// JSON cannot hold infinities: a PSNR or SQNR of identical tensors is the
// string "+inf" where a number would be; an unavailable figure is null with
// its reason in "<name>_unavailable". CSV writes "+inf" and leaves an
// unavailable cell empty.
#pragma once

#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "harness/accuracy/compare.h"

namespace harness {

// Thresholds of a quick check; a layer failing one, or with NaN/Inf in its
// device output, fails.
struct AccuracyThresholds {
  std::optional<double> cosine_min, psnr_min_db;
};

// Why a layer fails the check, or empty when it passes.
std::string accuracy_layer_failure(const accuracy::LayerAccuracy& l, const AccuracyThresholds& t);

std::string render_accuracy_text(const accuracy::AccuracyComparison& c, const AccuracyThresholds& t);
nlohmann::json accuracy_to_json(const accuracy::AccuracyComparison& c, const AccuracyThresholds& t);
std::string accuracy_to_csv(const accuracy::AccuracyComparison& c, const AccuracyThresholds& t);

// A figure in JSON: number, "+inf"/"-inf", or null.
nlohmann::json figure_json(const accuracy::Figure& f);

}  // namespace harness
