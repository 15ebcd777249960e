// Controlling false alarms when many metrics are judged at once.
//  - Holm (1979) step-down: controls the family-wise error rate (the chance
//    of even one false "regressed") under any dependence between metrics.
//    The default, because one false alarm in a nightly gate costs an
//    engineer's morning.
//  - Benjamini-Hochberg (1995) step-up: controls the false discovery rate
//    (the expected share of false alarms among the flagged metrics); more
//    power when many metrics really moved.
//  - none: each metric on its own at alpha.
#pragma once

#include <optional>
#include <span>
#include <string_view>
#include <vector>

namespace harness {

enum class Correction { holm, bh, none };
std::string_view correction_name(Correction c);  // "holm", "bh", "none"
std::string_view correction_description(Correction c);
std::optional<Correction> correction_from_name(std::string_view name);

// Adjusted p-values in the input order: reject hypothesis i at level alpha
// when adjusted[i] < alpha. Each adjusted value is in [p_i, 1].
std::vector<double> adjust_p_values(std::span<const double> p, Correction method);

}  // namespace harness
