#include "harness/accuracy/metrics.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace harness::accuracy {

namespace {
constexpr std::size_t kBlock = 256;
constexpr std::size_t kLanes = 8;
}  // namespace

// One block: plain sums in independent lanes (the compiler vectorises them),
// then one compensated addition per sum. A non-finite value anywhere makes
// some lane non-finite; only then is the block walked element by element to
// count and skip the NaN/Inf pairs.
// AVX2 doubles the lanes per instruction where the CPU has it; the sums are
// the same (no FMA contraction: ISO C++ mode keeps -ffp-contract=off).
__attribute__((target_clones("avx2", "default"))) void ErrorAccumulator::flush_block(const double* r, const double* d,
                                                                                    std::size_t n) {
  double rr[kLanes] = {}, dd[kLanes] = {}, rd[kLanes] = {}, ee[kLanes] = {}, ae[kLanes] = {}, mx[kLanes] = {};
  double lo[kLanes], hi[kLanes];
  std::fill(lo, lo + kLanes, std::numeric_limits<double>::infinity());
  std::fill(hi, hi + kLanes, -std::numeric_limits<double>::infinity());
  // Element i into lane k: inlined into both loops, so the full blocks stay
  // vectorised and the tail shares the arithmetic.
  auto add = [&](std::size_t k, std::size_t i) __attribute__((always_inline)) {
    const double a = r[i], b = d[i], e = a - b, m = std::fabs(e);
    rr[k] += a * a;
    dd[k] += b * b;
    rd[k] += a * b;
    ee[k] += e * e;
    ae[k] += m;
    mx[k] = mx[k] < m ? m : mx[k];
    lo[k] = a < lo[k] ? a : lo[k];
    hi[k] = a > hi[k] ? a : hi[k];
  };
  std::size_t i = 0;
  for (; i + kLanes <= n; i += kLanes) {
    for (std::size_t k = 0; k < kLanes; ++k) add(k, i + k);
  }
  for (std::size_t k = 0; i < n; ++i, ++k) add(k, i);
  double srr = 0, sdd = 0, srd = 0, see = 0, sae = 0, smx = 0, slo = lo[0], shi = hi[0];
  for (std::size_t k = 0; k < kLanes; ++k) {
    srr += rr[k];
    sdd += dd[k];
    srd += rd[k];
    see += ee[k];
    sae += ae[k];
    smx = std::max(smx, mx[k]);
    slo = std::min(slo, lo[k]);
    shi = std::max(shi, hi[k]);
  }
  s_.elements += n;
  if (std::isfinite(srr) && std::isfinite(sdd) && std::isfinite(srd) && std::isfinite(see) && std::isfinite(sae)) {
    rr_.add(srr);
    dd_.add(sdd);
    rd_.add(srd);
    ee_.add(see);
    ae_.add(sae);
    s_.compared += n;
    s_.max_abs_error = std::max(s_.max_abs_error, smx);
    if (!any_ref_) {
      s_.ref_min = slo;
      s_.ref_max = shi;
      any_ref_ = true;
    } else {
      s_.ref_min = std::min(s_.ref_min, slo);
      s_.ref_max = std::max(s_.ref_max, shi);
    }
    return;
  }
  // Rare: a NaN/Inf (or an overflow of a square) in this block.
  for (std::size_t j = 0; j < n; ++j) {
    const double a = r[j], b = d[j];
    const bool fa = std::isfinite(a), fb = std::isfinite(b);
    if (!fa) ++(std::isnan(a) ? s_.ref_nan : s_.ref_inf);
    if (!fb) ++(std::isnan(b) ? s_.dev_nan : s_.dev_inf);
    if (!fa || !fb) continue;
    const double e = a - b;
    rr_.add(a * a);
    dd_.add(b * b);
    rd_.add(a * b);
    ee_.add(e * e);
    ae_.add(std::fabs(e));
    ++s_.compared;
    s_.max_abs_error = std::max(s_.max_abs_error, std::fabs(e));
    if (!any_ref_) {
      s_.ref_min = s_.ref_max = a;
      any_ref_ = true;
    } else {
      s_.ref_min = std::min(s_.ref_min, a);
      s_.ref_max = std::max(s_.ref_max, a);
    }
  }
}

// After flush_block: clang refuses a multiversioned function defined after its first use.
void ErrorAccumulator::add(const double* ref, const double* dev, std::size_t n) {
  for (std::size_t at = 0; at < n; at += kBlock) flush_block(ref + at, dev + at, std::min(kBlock, n - at));
}

ErrorStats ErrorAccumulator::finish() const {
  ErrorStats s = s_;
  s.sum_rr = rr_.value();
  s.sum_dd = dd_.value();
  s.sum_rd = rd_.value();
  s.sum_ee = ee_.value();
  s.sum_ae = ae_.value();
  return s;
}

LayerMetrics layer_metrics(const ErrorStats& s) {
  LayerMetrics m;
  const double inf = std::numeric_limits<double>::infinity();
  if (s.compared == 0) {
    const std::string why = s.elements == 0 ? "the tensors are empty" : "no pair of finite values to compare";
    m.cosine = m.psnr_db = m.sqnr_db = m.max_abs_error = m.mean_abs_error = m.relative_l2 = Figure::none(why);
    return m;
  }
  const double n = static_cast<double>(s.compared);
  m.max_abs_error = Figure::of(s.max_abs_error);
  m.mean_abs_error = Figure::of(s.sum_ae / n);
  if (s.sum_rr == 0 && s.sum_dd == 0) m.cosine = Figure::of(1.0);
  else if (s.sum_rr == 0) m.cosine = Figure::none("the reference is all zeros: no direction to compare");
  else if (s.sum_dd == 0) m.cosine = Figure::none("the device output is all zeros: no direction to compare");
  else m.cosine = Figure::of(s.sum_rd / (std::sqrt(s.sum_rr) * std::sqrt(s.sum_dd)));
  m.peak = s.ref_max - s.ref_min;
  const double mse = s.sum_ee / n;
  if (s.sum_ee == 0) m.psnr_db = Figure::of(inf);
  else if (m.peak == 0) m.psnr_db = Figure::none("the reference is constant: its range, the PSNR peak, is 0");
  else m.psnr_db = Figure::of(10.0 * std::log10(m.peak * m.peak / mse));
  if (s.sum_ee == 0) m.sqnr_db = Figure::of(inf);
  else if (s.sum_rr == 0) m.sqnr_db = Figure::none("the reference is all zeros: no signal power");
  else m.sqnr_db = Figure::of(10.0 * std::log10(s.sum_rr / s.sum_ee));
  if (s.sum_ee == 0) m.relative_l2 = Figure::of(0.0);
  else if (s.sum_rr == 0) m.relative_l2 = Figure::none("the reference is all zeros: no norm to divide by");
  else m.relative_l2 = Figure::of(std::sqrt(s.sum_ee / s.sum_rr));
  return m;
}

}  // namespace harness::accuracy
