#include "harness/base/multiple_testing.h"

#include <algorithm>
#include <numeric>

namespace harness {

namespace {

struct CorrectionRow {
  Correction correction;
  std::string_view name;
  std::string_view description;
};

constexpr CorrectionRow kCorrections[] = {
    {Correction::holm, "holm", "Holm step-down (family-wise error rate)"},
    {Correction::bh, "bh", "Benjamini-Hochberg (false discovery rate)"},
    {Correction::none, "none", "none (each metric tested alone)"},
};

const CorrectionRow* row_of(Correction c) {
  for (const CorrectionRow& row : kCorrections)
    if (row.correction == c) return &row;
  return nullptr;
}

}  // namespace

std::string_view correction_name(Correction c) {
  const CorrectionRow* row = row_of(c);
  return row ? row->name : "?";
}

std::string_view correction_description(Correction c) {
  const CorrectionRow* row = row_of(c);
  return row ? row->description : "?";
}

std::optional<Correction> correction_from_name(std::string_view name) {
  for (const CorrectionRow& row : kCorrections)
    if (row.name == name) return row.correction;
  return std::nullopt;
}

std::vector<double> adjust_p_values(std::span<const double> p, Correction method) {
  const std::size_t m = p.size();
  std::vector<double> out(p.begin(), p.end());
  if (m == 0 || method == Correction::none) return out;
  std::vector<std::size_t> order(m);
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return p[a] < p[b]; });
  const double md = static_cast<double>(m);
  if (method == Correction::holm) {
    // k-th smallest p times (m - k + 1), made monotone from the smallest up.
    double running = 0;
    for (std::size_t k = 0; k < m; ++k) {
      double v = std::min(1.0, (md - static_cast<double>(k)) * p[order[k]]);
      running = std::max(running, v);
      out[order[k]] = running;
    }
  } else {
    // k-th smallest p times m / k, made monotone from the largest down.
    double running = 1;
    for (std::size_t k = m; k-- > 0;) {
      double v = std::min(1.0, md / static_cast<double>(k + 1) * p[order[k]]);
      running = std::min(running, v);
      out[order[k]] = running;
    }
  }
  return out;
}

}  // namespace harness
