#include "harness/ddr/metrics.h"

#include <algorithm>
#include <bit>
#include <cmath>

#include "harness/ddr/synth.h"
#include "probes/capture/formats.h"

// The activity bins are popcounts: use the instruction (every x86-64 CPU
// since 2008 has it) rather than libgcc's fallback.
#if defined(__x86_64__)
#pragma GCC target("popcnt")
#endif

namespace harness::ddr {
namespace {
constexpr std::uint64_t kBin = 64;  // cycles per activity bin
constexpr std::size_t kMaxWindows = 10000;
}

std::optional<double> Histogram::percentile(double p) const {
  if (total == 0) return std::nullopt;
  const double h = (static_cast<double>(total) - 1) * p / 100.0;
  const auto lo_rank = static_cast<std::uint64_t>(std::floor(h));
  const std::uint64_t hi_rank = std::min<std::uint64_t>(lo_rank + 1, total - 1);
  std::optional<double> lo, hi;
  std::uint64_t seen = 0;
  for (const auto& [value, count] : counts) {
    if (!lo && lo_rank < seen + count) lo = static_cast<double>(value);
    if (!hi && hi_rank < seen + count) {
      hi = static_cast<double>(value);
      break;
    }
    seen += count;
  }
  return *lo + (h - std::floor(h)) * (*hi - *lo);
}

std::string unknown_because(const ProbeCoverage& c, Figure figure) {
  const std::uint16_t bank = kUnknownBank | kUnknownBankGroup;
  switch (figure) {
    case Figure::reads: return c.missing({Op::rd}, 0);
    case Figure::writes: return c.missing({Op::wr, Op::mwr}, 0);
    case Figure::read_bytes: return c.missing({Op::rd}, kUnknownBurst);
    case Figure::write_bytes: return c.missing({Op::wr, Op::mwr}, kUnknownBurst);
    case Figure::bytes:
    case Figure::command_activity: return c.missing({Op::rd, Op::wr, Op::mwr}, kUnknownBurst);
    // Column commands of one bank (and the row its ACT opened), back to back.
    case Figure::transactions: return c.missing({Op::act, Op::rd, Op::wr, Op::mwr}, kUnknownBurst | bank);
    case Figure::read_intervals: return c.missing({Op::rd}, 0);
    // Each bank followed through ACT, PRE (one or all), auto-precharge and refresh.
    case Figure::row_buffer:
      return c.missing({Op::act, Op::pre, Op::ref, Op::rd, Op::wr, Op::mwr},
                       bank | kUnknownAutoPrecharge | kUnknownAllBanks);
    case Figure::refreshes: return c.missing({Op::ref}, 0);
  }
  return {};
}

BusStatistics::BusStatistics(BusModel model)
    : model_(model),
      rl_(model.read_latency ? model.read_latency : default_read_latency(model.standard)),
      wl_(model.write_latency ? model.write_latency : default_write_latency(model.standard)) {}

// A command's statistics are a few dozen loads, stores and compares: the
// call per command (its prologue saving registers, and the fields reloaded
// after it) costs as much again, so the loop over a batch inlines it.
[[gnu::flatten]] void BusStatistics::on_commands(std::span<const Command> commands) {
  for (const Command& c : commands) on_command(c);
}

void BusStatistics::close_transaction() {
  if (!tx_.active) return;
  ++s_.transaction_bytes[tx_.bytes];
  ++s_.transactions;
  tx_.active = false;
}

BusStatistics::Bank& BusStatistics::bank_at(int key, int rank) {
  Bank& b = banks_[static_cast<std::size_t>(key)];
  const std::uint32_t epoch = epochs_[static_cast<std::size_t>(rank)];
  if (b.epoch != epoch) b = {BankState::closed, -1, false, false, epoch};
  return b;
}

void BusStatistics::on_command(const Command& c) {
  const bool suffixed = (is_column(c.op) && c.auto_precharge) || ((c.op == Op::pre || c.op == Op::ref) && c.all_banks);
  ++counts_[static_cast<int>(c.op)][suffixed];
  const int rank = std::clamp(c.rank, 0, kMaxRanks - 1);
  const int key = rank * kBanksPerRank + std::max(0, c.bank_group) % 4 * 64 + std::max(0, c.bank) % 64;
  switch (c.op) {
    case Op::act: {
      Bank& b = bank_at(key, rank);
      b.after_pre = b.state == BankState::closed && b.after_pre;
      b.state = BankState::open;
      b.row = c.row;
      b.accessed = false;
      return;
    }
    case Op::pre:
      if (c.all_banks) {
        ++epochs_[static_cast<std::size_t>(rank)];  // all of the rank's banks closed
      } else {
        Bank& b = bank_at(key, rank);
        b.after_pre = b.state == BankState::open;
        b.state = BankState::closed;
      }
      return;
    case Op::ref:
      ++s_.refreshes;
      if (c.all_banks) ++epochs_[static_cast<std::size_t>(rank)];  // all of the rank's banks closed
      else bank_at(key, rank).state = BankState::closed;
      return;
    case Op::unknown: ++s_.unknown_commands; return;
    default: break;
  }
  if (!is_column(c.op)) return;
  const bool read = is_read(c.op);
  const std::uint64_t bytes = burst_bytes(c.burst, model_.dq_width);
  if (c.burst != step_burst_) {  // bursts repeat: recompute the duration only on a change
    step_burst_ = c.burst;
    step_ = burst_cycles(model_.standard, c.burst, model_.wck_ratio);
  }
  const unsigned step = step_;
  Bank& b = bank_at(key, rank);
  // Row buffer.
  if (b.state == BankState::open) {
    if (b.accessed) ++s_.row_hits;
    else if (b.after_pre) ++s_.row_conflicts;
    else ++s_.row_misses;
    b.accessed = true;
  } else {
    ++s_.row_unknown;
  }
  const int row = b.state == BankState::open ? b.row : -1;
  if (c.auto_precharge) {
    b.state = BankState::closed;
    b.after_pre = false;
  }
  // Transactions.
  if (tx_.active && tx_.read == read && tx_.bank == key && tx_.row == row && c.cycle - tx_.last_cycle == tx_.step) {
    tx_.bytes += bytes;
  } else {
    close_transaction();
    tx_ = {true, read, key, row, c.cycle, bytes, step};
  }
  tx_.last_cycle = c.cycle;
  tx_.step = step;
  if (read) {
    ++s_.reads;
    s_.read_bytes += bytes;
    if (have_read_) {
      const double dt = c.time - last_read_time_;
      recent_ps_.add(static_cast<std::int64_t>(dt * 1e12 + 0.5), s_.read_interval_ps);  // dt >= 0: round half up
      recent_cycles_.add(static_cast<std::int64_t>(c.cycle - last_read_cycle_), s_.read_interval_cycles);
      // Keep an evenly strided sample for two-sample tests: when full, drop
      // every other value and double the stride.
      if (interval_skip_ == 0) {
        interval_skip_ = interval_stride_;
        interval_keep_.push_back(dt);
        if (interval_keep_.size() >= 2 * kIntervalSample) {
          std::vector<double> half;
          for (std::size_t i = 0; i < interval_keep_.size(); i += 2) half.push_back(interval_keep_[i]);
          interval_keep_ = std::move(half);
          interval_stride_ *= 2;
          interval_skip_ = interval_stride_;
        }
      }
      --interval_skip_;
    }
    have_read_ = true;
    last_read_cycle_ = c.cycle;
    last_read_time_ = c.time;
  } else {
    ++s_.writes;
    s_.write_bytes += bytes;
  }
  // Data-bus activity placed at the read/write latency: no later command's
  // data starts before this one's cycle plus the shorter latency.
  const std::uint64_t settled = c.cycle + std::min(rl_, wl_);
  if ((open_word_ + 1) * kBin <= settled) settle(settled);
  const std::uint64_t start = c.cycle + (read ? rl_ : wl_), end = start + step;
  if (start / kBin == (end - 1) / kBin && end <= (open_word_ + kRingWords) * kBin) {
    // The usual burst: inside one word of the ring.
    const auto n = static_cast<unsigned>(end - start);
    ring_[start / kBin % kRingWords] |= (n == 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << n) - 1) << (start % kBin);
    busy_until_ = std::max(busy_until_, end);
  } else if (start < end) {
    mark_burst(start, end);
  }
}

void BusStatistics::settle(std::uint64_t upto) {
  for (; (open_word_ + 1) * kBin <= upto; ++open_word_) {
    std::uint64_t& w = ring_[open_word_ % kRingWords];
    if (!w) continue;
    while (bins_.size() <= open_word_) bins_.push_back(0);  // words settle in order: one more, or a few after a gap
    const auto n = static_cast<std::uint32_t>(std::popcount(w));
    bins_[open_word_] += n;
    active_cycles_ += n;
    w = 0;
  }
}

void BusStatistics::mark_burst(std::uint64_t start, std::uint64_t end) {
  // A burst longer than the ring (it never is: latency + burst < 64 words)
  // settles what it must first.
  if (end > (open_word_ + kRingWords) * kBin) settle(end - kRingWords * kBin);
  for (std::uint64_t k = start; k < end;) {
    const std::uint64_t word = k / kBin, stop = std::min(end, (word + 1) * kBin);
    const unsigned from = static_cast<unsigned>(k % kBin), n = static_cast<unsigned>(stop - k);
    const std::uint64_t bits = n == 64 ? ~std::uint64_t{0} : ((std::uint64_t{1} << n) - 1) << from;
    ring_[word % kRingWords] |= bits;
    k = stop;
  }
  busy_until_ = std::max(busy_until_, end);
}

BusSummary BusStatistics::finish(const BusTiming& timing) {
  close_transaction();
  recent_ps_.flush(s_.read_interval_ps);
  recent_cycles_.flush(s_.read_interval_cycles);
  settle(busy_until_ + kBin);
  s_.timing = timing;
  for (int op = 0; op < kOpCount; ++op)
    for (int suffix = 0; suffix < 2; ++suffix) {
      if (!counts_[op][suffix]) continue;
      Command c;
      c.op = static_cast<Op>(op);
      c.auto_precharge = c.all_banks = suffix;
      s_.command_counts[command_label(c)] = counts_[op][suffix];
    }
  std::uint64_t best = 0;
  for (const auto& [bytes, n] : s_.transaction_bytes)
    if (n > best) {
      best = n;
      s_.burst_bytes_mode = bytes;
    }
  s_.read_interval_sample = interval_keep_;
  const double duration = timing.duration;
  s_.dq_active_ratio_commands = duration > 0 ? std::min(1.0, active_cycles_ * timing.tck / duration) : 0;
  if (timing.dqs_sampled && duration > 0) {
    s_.dq_active_ratio_dqs = std::min(1.0, timing.strobes.active_tck() * timing.tck / duration);
    s_.dq_active_ratio_dqs_uncertainty = timing.strobes.uncertainty_tck() * timing.tck / duration;
    s_.dq_from_dqs = true;
    s_.dq_active_ratio = *s_.dq_active_ratio_dqs;
    s_.timeline = timing.dqs_timeline;
    s_.window = timing.window;
  } else {
    s_.dq_active_ratio = duration > 0 ? std::min(1.0, active_cycles_ * timing.tck / duration) : 0;
    // Timeline windows of whole bins, in clocked time (clock stops excluded).
    const double bin_seconds = kBin * timing.tck;
    const std::uint64_t per = bin_seconds > 0 ? std::max<std::uint64_t>(1, std::llround(model_.window / bin_seconds)) : 1;
    const std::uint64_t total_bins = timing.cycles / kBin + 1;
    if (bins_.size() < total_bins) bins_.resize(total_bins, 0);
    for (std::size_t i = 0; i < bins_.size(); i += per) {
      std::uint64_t sum = 0, n = std::min<std::uint64_t>(per, bins_.size() - i);
      for (std::size_t k = i; k < i + n; ++k) sum += bins_[k];
      s_.timeline.push_back(static_cast<double>(sum) / static_cast<double>(n * kBin));
    }
    s_.window = per * bin_seconds;
  }
  // A timeline is for people and plots: past kMaxWindows, merge neighbours
  // (the last window may be partial; it is weighted like the others).
  while (s_.timeline.size() > kMaxWindows) {
    std::vector<double> merged;
    for (std::size_t i = 0; i < s_.timeline.size(); i += 2)
      merged.push_back(i + 1 < s_.timeline.size() ? (s_.timeline[i] + s_.timeline[i + 1]) / 2 : s_.timeline[i]);
    s_.timeline = std::move(merged);
    s_.window *= 2;
  }
  return s_;
}

Result<BusSummary> summarise_capture(const std::string& path, const ReadOptions& read, const DecodeOptions& decode,
                                     const BusModel& model) {
  BusStatistics stats(model);
  Result<BusTiming> timing = [&]() -> Result<BusTiming> {
    Result<const CaptureFormat*> format =
        read.format.empty() ? recognise_capture(path) : capture_format_named(read.format, "format");
    if (!format) return format.error();
    if ((*format)->read_edges) {  // a state listing: its rows are the clock edges
      Result<StateListing> listing = (*format)->read_edges(path, read.limits);
      if (!listing) return listing.error();
      return decode_state_listing(*listing, decode, stats);
    }
    return decode_capture_file(path, read, decode, stats);
  }();
  if (!timing) return timing.error();
  return stats.finish(*timing);
}

}  // namespace harness::ddr
