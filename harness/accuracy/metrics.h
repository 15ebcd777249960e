// The error of one layer's device output against its reference, accumulated
// over the tensors streamed in chunks: cosine similarity, PSNR, SQNR, max and
// mean absolute error, relative L2 error, NaN/Inf counts.
//
// Sums are kept in double, in blocks of a few hundred elements summed plainly
// (exact for float32 products, which need 48 of double's 53 bits) and the
// block sums added with Neumaier's compensation, so a billion-element tensor
// keeps ~1e-15 relative error in its sums.
#pragma once

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>

namespace harness::accuracy {

// Σx with Neumaier's compensation.
class CompensatedSum {
 public:
  void add(double x) {
    const double t = sum_ + x;
    comp_ += std::fabs(sum_) >= std::fabs(x) ? (sum_ - t) + x : (x - t) + sum_;
    sum_ = t;
  }
  double value() const { return sum_ + comp_; }

 private:
  double sum_ = 0, comp_ = 0;
};

// A figure or the reason it has none (e.g. cosine of an all-zero tensor).
struct Figure {
  std::optional<double> value;  // may be +inf (PSNR, SQNR of identical tensors)
  std::string unavailable;
  static Figure of(double v) { return {v, {}}; }
  static Figure none(std::string why) { return {std::nullopt, std::move(why)}; }
};

struct ErrorStats {
  std::uint64_t elements = 0;       // pairs seen
  std::uint64_t compared = 0;       // pairs where both values are finite: the metrics' population
  std::uint64_t ref_nan = 0, ref_inf = 0, dev_nan = 0, dev_inf = 0;
  double ref_min = 0, ref_max = 0;  // over finite reference values
  double max_abs_error = 0;
  double sum_rr = 0, sum_dd = 0, sum_rd = 0, sum_ee = 0, sum_ae = 0;  // Σr², Σd², Σrd, Σ(r-d)², Σ|r-d|
};

// Accumulates chunks of (reference, device) pairs.
class ErrorAccumulator {
 public:
  void add(const double* ref, const double* dev, std::size_t n);
  ErrorStats finish() const;

 private:
  void flush_block(const double* ref, const double* dev, std::size_t n);
  CompensatedSum rr_, dd_, rd_, ee_, ae_;
  ErrorStats s_;
  bool any_ref_ = false;
};

// The metrics of a layer, from its accumulated statistics. Definitions
// (docs/parts/accuracy.md):
//   cosine    = Σrd / sqrt(Σr² Σd²); 1 when both tensors are all zeros
//   PSNR (dB) = 10 log10(peak² / MSE), peak = max(ref) - min(ref), the
//               reference's range; MSE = Σ(r-d)²/n; +inf when MSE = 0
//   SQNR (dB) = 10 log10(Σr² / Σ(r-d)²); +inf when Σ(r-d)² = 0
//   max_abs_error, mean_abs_error = max|r-d|, Σ|r-d|/n
//   relative_l2 = sqrt(Σ(r-d)² / Σr²); 0 when Σ(r-d)² = 0
// over the n pairs where both values are finite.
struct LayerMetrics {
  Figure cosine, psnr_db, sqnr_db, max_abs_error, mean_abs_error, relative_l2;
  double peak = 0;  // the PSNR peak used
};
LayerMetrics layer_metrics(const ErrorStats& s);

}  // namespace harness::accuracy
