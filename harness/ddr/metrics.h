// Bus statistics from a decoded command stream, accumulated as the commands
// stream past (a capture may hold tens of millions of them): counts, bytes,
// transactions, read-to-read intervals, data-bus activity and row-buffer
// behaviour.
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "harness/ddr/decoder.h"

namespace harness::ddr {

struct BusModel {
  Standard standard = Standard::lpddr4;
  unsigned dq_width = 16;       // bits of the data bus behind the command bus
  unsigned wck_ratio = 4;       // LPDDR5 WCK:CK
  unsigned read_latency = 0;    // tCK; 0: the standard's default
  unsigned write_latency = 0;
  double window = 1e-6;         // s, utilisation timeline windows
};

// Value -> count, for exact percentiles in bounded memory.
struct Histogram {
  std::map<std::int64_t, std::uint64_t> counts;
  std::uint64_t total = 0;
  void add(std::int64_t v, std::uint64_t n = 1) {
    counts[v] += n;
    total += n;
  }
  // Linear interpolation between order statistics (as stats.h).
  std::optional<double> percentile(double p) const;
};

// Counts on their way to a Histogram (one value per read command on a busy
// bus): intervals repeat, so a small direct-mapped table counts recent
// values in place and hands a value's count to the map only when another
// value takes its slot, or at flush. A hit is one load, compare and
// increment: no map node, and no branch on whether this interval repeats
// the last (they alternate).
class RecentCounts {
 public:
  void add(std::int64_t v, Histogram& into) {
    Slot& slot = slots_[static_cast<std::uint64_t>(v) * 0x9E3779B97F4A7C15ull >> 58];
    if (slot.value == v) {  // an empty slot (count 0) holds value 0: counting it there is right
      ++slot.count;
      return;
    }
    if (slot.count) into.add(slot.value, slot.count);
    slot = {v, 1};
  }
  // Every count into the histogram (and the table empty).
  void flush(Histogram& into) {
    for (Slot& slot : slots_)
      if (slot.count) into.add(slot.value, slot.count);
    slots_ = {};
  }

 private:
  struct Slot {
    std::int64_t value = 0;
    std::uint64_t count = 0;
  };
  std::array<Slot, 64> slots_{};
};

struct BusSummary {
  std::map<std::string, std::uint64_t> command_counts;  // "RD", "RDA", "PREA"...
  std::uint64_t reads = 0, writes = 0;
  std::uint64_t read_bytes = 0, write_bytes = 0;
  std::uint64_t bytes() const { return read_bytes + write_bytes; }
  std::map<std::uint64_t, std::uint64_t> transaction_bytes;  // bytes -> transactions
  std::uint64_t transactions = 0;
  std::optional<std::uint64_t> burst_bytes_mode;
  Histogram read_interval_ps;      // RD to next RD
  Histogram read_interval_cycles;
  std::vector<double> read_interval_sample;  // up to kIntervalSample values (s), evenly strided
  double dq_active_ratio = 0;      // the DQS estimate when a strobe was probed, else the command one
  bool dq_from_dqs = false;        // else from command timing
  std::optional<double> dq_active_ratio_dqs;  // strobe toggles (when a strobe was probed): timing.strobes says how
  std::optional<double> dq_active_ratio_dqs_uncertainty;  // +- one toggle per burst
  double dq_active_ratio_commands = 0;        // bursts placed at read/write latency
  std::vector<double> timeline;    // active fraction per window
  double window = 0;               // s
  std::uint64_t row_hits = 0, row_misses = 0, row_conflicts = 0, row_unknown = 0;
  std::uint64_t refreshes = 0;
  std::uint64_t unknown_commands = 0;
  BusTiming timing;
};

constexpr std::size_t kIntervalSample = 10000;

// The figures of a summary and what each needs of the commands: one table
// (figure_needs in metrics.cc) for the run's metrics and `capture decode`.
enum class Figure {
  reads, writes, read_bytes, write_bytes, bytes,  // bytes: also bandwidth
  transactions,         // also their histogram and the burst-bytes mode
  read_intervals,
  command_activity,     // DQ activity from command timing
  row_buffer,           // hit, miss and conflict rates
  refreshes,
};
// Why the probed pins do not determine a figure ("A12 not probed"); empty
// when they do.
std::string unknown_because(const ProbeCoverage& coverage, Figure figure);

class BusStatistics : public CommandSink {
 public:
  explicit BusStatistics(BusModel model);
  void on_commands(std::span<const Command> commands) override;
  BusSummary finish(const BusTiming& timing);

 private:
  void on_command(const Command& c);
  void close_transaction();

  BusModel model_;
  unsigned rl_, wl_;
  std::uint16_t step_burst_ = 0;  // burst length whose duration step_ holds
  unsigned step_ = 0;
  BusSummary s_;
  std::array<std::array<std::uint64_t, 2>, kOpCount> counts_{};
  // Transactions: back-to-back column commands to one bank and row.
  struct Open {
    bool active = false;
    bool read = false;
    int bank = 0, row = -1;
    std::uint64_t last_cycle = 0, bytes = 0;
    unsigned step = 0;
  } tx_;
  // Row buffer per bank (rank * 256 + bank group * 64 + bank).
  static constexpr int kMaxRanks = 4, kBanksPerRank = 256;
  enum class BankState : std::uint8_t { unknown, closed, open };
  struct Bank {
    BankState state = BankState::unknown;
    int row = -1;
    bool accessed = false;
    bool after_pre = false;  // opened right after a single-bank PRE: a conflict
    std::uint32_t epoch = 0; // a bank of an older epoch than its rank's is closed
  };
  std::array<Bank, kMaxRanks * kBanksPerRank> banks_{};
  // PREA and REFA close all banks of a rank by starting a new epoch.
  std::array<std::uint32_t, kMaxRanks> epochs_{};
  Bank& bank_at(int key, int rank);
  // Read intervals.
  bool have_read_ = false;
  std::uint64_t last_read_cycle_ = 0;
  double last_read_time_ = 0;
  RecentCounts recent_ps_, recent_cycles_;  // into s_.read_interval_ps and _cycles
  std::vector<double> interval_keep_;
  std::uint64_t interval_stride_ = 1, interval_skip_ = 0;  // keep one interval in `stride`
  // Data-bus activity from command timing: the union of the bursts, one bit
  // per cycle in a ring of 64 words (a word is a bin of 64 cycles). Bursts
  // arrive out of order by at most |RL - WL| cycles: a word is counted once
  // no later command can reach it.
  void settle(std::uint64_t upto);
  void mark_burst(std::uint64_t start, std::uint64_t end);
  static constexpr std::size_t kRingWords = 64;
  std::array<std::uint64_t, kRingWords> ring_{};
  std::uint64_t open_word_ = 0;  // first word not yet counted
  std::uint64_t busy_until_ = 0, active_cycles_ = 0;
  std::vector<std::uint32_t> bins_;
};

// The whole pipeline for a capture file: decode and summarise.
Result<BusSummary> summarise_capture(const std::string& path, const ReadOptions& read, const DecodeOptions& decode,
                                     const BusModel& model);

}  // namespace harness::ddr
