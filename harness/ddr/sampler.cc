#include "harness/ddr/sampler.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>

#include <fmt/format.h>

#include "harness/base/stats.h"
#include "harness/base/units.h"
#include "harness/scenario/toml_reader.h"

namespace harness::ddr {
namespace {

constexpr std::size_t kEarlyIntervals = 32;  // rising-edge intervals used for the first period estimate
constexpr double kMinSamplesPerBit = 4;

}  // namespace

std::uint64_t BusLayout::word(std::uint64_t first, std::uint64_t second) const {
  const BusFormat& f = bus_format(standard);
  std::uint64_t w = 0;
  for (unsigned i = 0; i < pins.size(); ++i) {
    if (pins[i] == kAbsent) continue;
    w |= ((first >> pins[i]) & 1) << i;
    if (f.edges == 2) w |= ((second >> pins[i]) & 1) << (i + f.edge_width);
  }
  return w;
}

Result<BusLayout> make_layout(Standard standard, const std::vector<std::string>& channels,
                              const std::map<std::string, std::string>& roles) {
  const BusFormat& f = bus_format(standard);
  BusLayout l;
  l.standard = standard;
  auto find = [&](const std::string& role, bool required) -> Result<unsigned> {
    auto it = roles.find(role);
    const std::string& name = it == roles.end() ? role : it->second;
    for (unsigned i = 0; i < channels.size(); ++i)
      if (channels[i] == name) return i;
    if (!required) return kAbsent;
    std::string list;
    for (const std::string& c : channels) list += (list.empty() ? "" : ", ") + c;
    std::optional<std::string> close = closest_match(name, channels);
    return Error::input(fmt::format("the capture has no channel '{}' for {} {}{} (channels: {}); map roles to "
                                    "channels in [ddr.channels]",
                                    name, standard_name(standard), role,
                                    close ? fmt::format(" (did you mean '{}'?)", *close) : "", list));
  };
  Result<unsigned> ck = find("CK", true);
  if (!ck) return ck.error();
  l.ck = *ck;
  Result<unsigned> cs = find(f.chip_select, true);
  if (!cs) return cs.error();
  l.cs = *cs;
  for (const std::string& pin : f.pins) {
    // DDR4 parts with fewer rows leave the top address pins unconnected.
    bool optional = standard == Standard::ddr4 && (pin == "A17" || pin == "A13" || pin == "A12" || pin == "A11");
    Result<unsigned> p = find(pin, !optional);
    if (!p) return p.error();
    l.pins.push_back(*p);
  }
  auto is_strobe = [](const std::string& s) { return s.rfind("DQS", 0) == 0 || s.rfind("RDQS", 0) == 0; };
  for (const auto& [role, name] : roles) {
    if (!is_strobe(role)) continue;
    Result<unsigned> p = find(role, true);
    if (!p) return p.error();
    l.dqs_mask |= std::uint64_t{1} << *p;
    l.dqs_names.push_back(name);
  }
  if (l.dqs_mask == 0)
    for (unsigned i = 0; i < channels.size(); ++i)
      if (is_strobe(channels[i])) {
        l.dqs_mask |= std::uint64_t{1} << i;
        l.dqs_names.push_back(channels[i]);
      }
  return l;
}

Sampler::Sampler(BusLayout layout, double samplerate, std::uint64_t window_samples)
    : layout_(std::move(layout)), format_(bus_format(layout_.standard)), samplerate_(samplerate) {
  stats_.window_samples = std::max<std::uint64_t>(window_samples, 1);
  stats_.dqs_sampled = layout_.dqs_mask != 0;
}

Status Sampler::check_rate(double tck) {
  double per_bit = format_.double_rate ? tck / 2 : tck;
  if (per_bit >= kMinSamplesPerBit) return ok();
  double f_ck = samplerate_ / tck;
  double needed = kMinSamplesPerBit * (format_.double_rate ? 2 : 1) * f_ck;
  return Error::input(fmt::format(
      "capture undersampled: CK is about {} and {} samples/s give {:.3g} samples per CA bit period; decoding "
      "{} needs at least {:g}: capture at {} or more, or slow the bus clock down",
      format_quantity(f_ck, "Hz"), samplerate_text(samplerate_), per_bit, standard_name(layout_.standard),
      kMinSamplesPerBit, samplerate_text(std::ceil(needed / 1e6) * 1e6)));
}

void Sampler::count_interval(std::uint64_t interval, std::uint64_t cycle_before, std::uint64_t start) {
  if (interval > gap_threshold_) {
    stats_.stops.push_back({cycle_before, start, interval});
  } else {
    period_sum_ += static_cast<double>(interval);
    ++period_count_;
  }
}

Status Sampler::on_estimate() {
  std::vector<double> intervals;
  for (const Early& e : early_) intervals.push_back(static_cast<double>(e.interval));
  double tck = median(intervals);
  HARNESS_TRY(check_rate(tck));
  gap_threshold_ = 1.5 * tck;
  for (const Early& e : early_) count_interval(e.interval, e.cycle_before, e.start);
  early_.clear();
  return ok();
}

template <class T>
Status Sampler::feed_typed(const T* x, std::size_t count, std::vector<EdgeGroup>& out) {
  const unsigned ck_shift = layout_.ck;
  const T dqs = static_cast<T>(layout_.dqs_mask);
  const unsigned cs_shift = layout_.cs;
  const std::uint64_t cs_active = format_.chip_select_active_high ? 1 : 0;
  const bool second_is_fall = format_.double_rate;
  const bool second_is_next_rise = format_.edges == 2 && !format_.double_rate;
  const std::uint64_t base = stats_.samples;
  T prev = static_cast<T>(prev_);
  if (!started_ && count > 0) {
    prev = x[0];
    started_ = true;
  }
  for (std::size_t b = 0; b < count; b += 64) {
    const std::size_t n = std::min<std::size_t>(64, count - b);
    const T* s = x + b;
    std::uint64_t rise = 0, fall = 0, dqs_toggle = 0;
    // Branch-free so the compiler can vectorise it: one bit per sample.
    {
      T p = prev;
      for (std::size_t j = 0; j < n; ++j) {
        T v = s[j];
        std::uint64_t c = (v >> ck_shift) & 1, pc = (p >> ck_shift) & 1;
        rise |= (c & ~pc & 1) << j;
        fall |= (pc & ~c & 1) << j;
        dqs_toggle |= static_cast<std::uint64_t>(((v ^ p) & dqs) != 0) << j;
        p = v;
      }
    }
    prev = s[n - 1];
    if (pending_ && second_is_fall && fall) {
      pending_group_.second = s[std::countr_zero(fall)];
      out.push_back(pending_group_);
      pending_ = false;
    }
    int last_j = -1;
    for (std::uint64_t m = rise; m; m &= m - 1) {
      const int j = std::countr_zero(m);
      const std::uint64_t pos = base + b + static_cast<std::uint64_t>(j);
      const std::uint64_t cycle = stats_.cycles++;
      // DQS activity of the cycle that ends at this edge.
      std::uint64_t range = dqs_toggle & ((std::uint64_t{2} << j) - 1);
      if (last_j >= 0) range &= ~((std::uint64_t{2} << last_j) - 1);
      bool active = dqs_carry_ || range != 0;
      dqs_carry_ = false;
      if (have_rise_) {
        const std::uint64_t interval = pos - last_rise_;
        if (gap_threshold_ > 0) {
          count_interval(interval, cycle - 1, last_rise_);
        } else {
          early_.push_back({interval, cycle - 1, last_rise_});
          if (early_.size() == kEarlyIntervals) HARNESS_TRY(on_estimate());
        }
        if (active) {
          ++stats_.dqs_active_cycles;
          std::uint64_t w = last_rise_ / stats_.window_samples;
          if (w >= stats_.dqs_active_per_window.size()) stats_.dqs_active_per_window.resize(w + 1, 0);
          ++stats_.dqs_active_per_window[w];
        }
      }
      have_rise_ = true;
      last_rise_ = pos;
      last_j = j;
      const std::uint64_t v = s[j];
      if (pending_ && second_is_next_rise) {
        // The second cycle of a two-cycle command cannot start another one.
        pending_group_.second = v;
        out.push_back(pending_group_);
        pending_ = false;
        continue;
      }
      if (((v >> cs_shift) & 1) != cs_active) continue;
      EdgeGroup g{cycle, pos, v, 0};
      if (second_is_fall) {
        std::uint64_t later = fall & ~((std::uint64_t{2} << j) - 1);
        if (later) {
          g.second = s[std::countr_zero(later)];
          out.push_back(g);
        } else {
          pending_ = true;
          pending_group_ = g;
        }
      } else if (second_is_next_rise) {
        pending_ = true;
        pending_group_ = g;
      } else {
        out.push_back(g);
      }
    }
    std::uint64_t after = last_j >= 0 ? dqs_toggle & ~((std::uint64_t{2} << last_j) - 1) : dqs_toggle;
    if (after) dqs_carry_ = true;
  }
  prev_ = prev;
  stats_.samples += count;
  return ok();
}

Status Sampler::feed(const std::uint8_t* data, std::size_t count, unsigned unitsize, std::vector<EdgeGroup>& out) {
  switch (unitsize) {
    case 1: return feed_typed(data, count, out);
    case 2: return feed_typed(reinterpret_cast<const std::uint16_t*>(data), count, out);
    case 4: return feed_typed(reinterpret_cast<const std::uint32_t*>(data), count, out);
    case 8: return feed_typed(reinterpret_cast<const std::uint64_t*>(data), count, out);
    default: return Error::input(fmt::format("unsupported sample size {} bytes", unitsize));
  }
}

Status Sampler::finish() {
  if (gap_threshold_ == 0) {
    if (early_.empty())
      return Error::input(fmt::format("no clock: fewer than two rising edges on CK in {} samples", stats_.samples));
    HARNESS_TRY(on_estimate());
  }
  stats_.tck_samples = period_count_ ? period_sum_ / static_cast<double>(period_count_) : 0;
  // Windows with no cycle at their end still belong to the timeline.
  std::uint64_t windows = (stats_.samples + stats_.window_samples - 1) / stats_.window_samples;
  if (stats_.dqs_active_per_window.size() < windows) stats_.dqs_active_per_window.resize(windows, 0);
  return ok();
}

}  // namespace harness::ddr
