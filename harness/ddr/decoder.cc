#include "harness/ddr/decoder.h"

#include <algorithm>
#include <cmath>
#include <condition_variable>
#include <deque>
#include <mutex>
#include <system_error>
#include <thread>
#include <utility>

#include <fmt/format.h>

#include "harness/base/cpu_time.h"
#include "harness/base/stats.h"

namespace harness::ddr {
namespace {

// LPDDR5 bank-group mode: the bank number's top two bits are the group.
void split_bank_groups(std::span<Command> commands) {
  for (Command& c : commands)
    if (c.bank >= 0) {
      c.bank_group = c.bank >> 2;
      c.bank &= 3;
    } else if (c.unknown & kUnknownBank) {
      c.unknown |= kUnknownBankGroup;  // BG0/BG1 are bank bits BA2/BA3
    }
}

Status check_options(const DecodeOptions& o) {
  if (o.bank_groups && o.standard != Standard::lpddr5)
    return Error::input(fmt::format("bank-group mode is an LPDDR5 setting ({} is decoded as its standard defines)",
                                    standard_name(o.standard)));
  return ok();
}

}  // namespace

EdgeDecoder::EdgeDecoder(const BusLayout& layout, const DecodeOptions& options)
    : layout_(layout),
      bank_groups_(options.bank_groups),
      partial_(!layout.coverage.complete()),
      plain_(layout.chip_selects.size() <= 1 && !options.bank_groups && !partial_),
      assembler_(options.standard, layout.coverage) {}

void EdgeDecoder::mark_unknown(Command& c) const {
  const std::uint16_t u = layout_.coverage.unknown[static_cast<std::size_t>(c.op)];
  c.unknown = u;
  if (!u) return;
  if (u & kUnknownBankGroup) c.bank_group = -1;
  if (u & kUnknownBank) c.bank = -1;
  if (u & kUnknownRow) c.row = -1;
  if (u & kUnknownColumn) c.column = -1;
  if (u & kUnknownAutoPrecharge) c.auto_precharge = false;
  if (u & kUnknownAllBanks) c.all_banks = false;
  if (u & kUnknownBurst) c.burst = 0;
  if (u & kUnknownAddress) c.address = -1;
  if (u & kUnknownOperand) c.operand = -1;
}

void EdgeDecoder::add_with_rank_and_cke(std::uint64_t cycle, double time, std::uint64_t first, std::uint64_t second,
                                        CkeChange cke, std::vector<Command>& out) {
  const std::size_t from = out.size();
  auto event = [&](Op op) {
    Command& c = out.emplace_back();
    c.cycle = cycle;
    c.time = time;
    c.op = op;
  };
  if (cke == CkeChange::rose) {
    event(self_refresh_ ? Op::srx : Op::pdx);
    self_refresh_ = false;
  }
  if (cke == CkeChange::none || layout_.selected(first))
    assembler_.add(cycle, time, layout_.word(first, second), out);
  if (cke == CkeChange::fell) {
    if (layout_.standard == Standard::ddr4 && out.size() == from + 1 && out.back().op == Op::ref) {
      out.pop_back();
      event(Op::sre);
      self_refresh_ = true;
    } else {
      event(Op::pde);
    }
  }
  if (layout_.chip_selects.size() > 1) {
    const int rank = layout_.rank_of(first);
    for (std::size_t i = from; i < out.size(); ++i) out[i].rank = rank;
  }
  if (partial_)
    for (std::size_t i = from; i < out.size(); ++i) mark_unknown(out[i]);
  if (bank_groups_) split_bank_groups(std::span<Command>(out).subspan(from));
}

[[gnu::flatten]] void EdgeDecoder::add(std::span<const EdgeGroup> groups, double period, std::vector<Command>& out) {
  if (plain_ && layout_.contiguous && assembler_.has_word_table()) {
    // The usual case: the assembler reads the words from the groups itself.
    const ContiguousPins pins = layout_.contiguous_pins();
    for (std::size_t at = 0; at < groups.size();) {
      at += assembler_.add(groups.subspan(at), period, pins, out);
      if (at == groups.size()) break;
      const EdgeGroup& g = groups[at++];  // a CKE change
      add_with_rank_and_cke(g.cycle, static_cast<double>(g.sample) * period, g.first, g.second, g.cke, out);
    }
    return;
  }
  if (groups.size() > words_capacity_) {
    words_capacity_ = groups.size();
    words_.reset(new TimedWord[words_capacity_]);
  }
  std::size_t n = 0;  // plain words waiting
  auto flush = [&] {
    if (n) assembler_.add(std::span<const TimedWord>(words_.get(), n), out);
    n = 0;
  };
  for (const EdgeGroup& g : groups) {
    const double time = static_cast<double>(g.sample) * period;
    if (plain_ && g.cke == CkeChange::none) {
      words_[n++] = {g.cycle, time, layout_.word(g.first, g.second)};
      continue;
    }
    flush();
    add_with_rank_and_cke(g.cycle, time, g.first, g.second, g.cke, out);
  }
  flush();
}

// The second stage of a decode on two threads: batches of edge groups in,
// in order; commands out to the sink, on this thread. At most
// kBatchesWaiting batches wait, so memory stays bounded when the sink is the
// slower stage.
class BusDecoder::CommandThread {
 public:
  CommandThread(EdgeDecoder& edges, CommandSink& sink, double period)
      : edges_(edges), sink_(sink), period_(period), thread_([this] { run(); }) {}
  // A decode stopped by an error: the batches still waiting are dropped.
  ~CommandThread() {
    {
      std::lock_guard<std::mutex> lock(m_);
      waiting_.clear();
    }
    close();
  }
  // Hands the groups over; `groups` comes back empty (with a spare batch's room).
  void push(std::vector<EdgeGroup>& groups) {
    std::unique_lock<std::mutex> lock(m_);
    room_.wait(lock, [&] { return waiting_.size() < kBatchesWaiting; });
    waiting_.push_back(std::move(groups));
    groups.clear();
    if (!spare_.empty()) {
      groups.swap(spare_.back());
      spare_.pop_back();
    }
    work_.notify_one();
  }
  // Every batch through the sink; then the thread's CPU seconds.
  double close() {
    {
      std::lock_guard<std::mutex> lock(m_);
      closed_ = true;
    }
    work_.notify_one();
    if (thread_.joinable()) thread_.join();
    return cpu_seconds_;
  }

 private:
  static constexpr std::size_t kBatchesWaiting = 3;
  void run() {
    std::vector<EdgeGroup> groups;
    std::vector<Command> commands;
    for (;;) {
      {
        std::unique_lock<std::mutex> lock(m_);
        if (groups.capacity()) {  // the last batch's room, for the caller's next
          groups.clear();
          spare_.push_back(std::exchange(groups, {}));
        }
        work_.wait(lock, [&] { return !waiting_.empty() || closed_; });
        if (waiting_.empty()) break;
        groups.swap(waiting_.front());
        waiting_.pop_front();
      }
      room_.notify_one();
      // The batch whole, as on one thread (slices of 2048 groups so that
      // the commands stayed in cache measured the same).
      commands.clear();
      edges_.add(groups, period_, commands);
      if (!commands.empty()) sink_.on_commands(commands);
    }
    cpu_seconds_ = thread_cpu_seconds();
  }

  EdgeDecoder& edges_;
  CommandSink& sink_;
  const double period_;
  std::mutex m_;
  std::condition_variable work_, room_;
  std::deque<std::vector<EdgeGroup>> waiting_;
  std::vector<std::vector<EdgeGroup>> spare_;
  bool closed_ = false;
  double cpu_seconds_ = 0;
  std::thread thread_;  // last: starts once the members it uses exist
};

bool decode_on_two_threads(unsigned requested, unsigned reader_jobs) {
  if (requested) return requested == 2;
  return reader_jobs != 1 && std::thread::hardware_concurrency() >= 4;
}

BusDecoder::BusDecoder(DecodeOptions options, CommandSink& commands)
    : options_(std::move(options)), sink_(commands) {}

BusDecoder::~BusDecoder() = default;

Status BusDecoder::begin(const CaptureHeader& header) {
  command_thread_.reset();  // a second capture: the last one's thread is done with edges_ first
  header_ = header;
  HARNESS_TRY(check_options(options_));
  if (header.samplerate <= 0) return Error::input("the capture has no sample rate");
  Result<BusLayout> layout = make_layout(options_.standard, header.channels, options_.roles, options_.probes);
  if (!layout) return layout.error();
  auto window = static_cast<std::uint64_t>(std::max(1.0, std::round(options_.window * header.samplerate)));
  sampler_ = std::make_unique<Sampler>(std::move(*layout), header.samplerate, window, options_.dqs_preamble);
  edges_ = std::make_unique<EdgeDecoder>(sampler_->layout(), options_);
  if (options_.two_threads) {
    try {
      command_thread_ = std::make_unique<CommandThread>(*edges_, sink_, 1 / header.samplerate);
    } catch (const std::system_error&) {
      // No thread to be had (a process or cgroup limit): one thread decodes the same.
    }
  }
  sampling_seconds_ = 0;
  stage_seconds_.reset();
  timing_ = {};
  timing_.standard = options_.standard;
  timing_.format = header.format;
  timing_.samplerate = header.samplerate;
  timing_.coverage = sampler_->layout().coverage;
  timing_.roles = sampler_->layout().roles;
  timing_.strobe_channels = sampler_->layout().dqs_names;
  if (!header.unknown_samples.empty()) {
    const BusLayout& l = sampler_->layout();
    std::vector<unsigned> used = {l.ck, l.cke};
    used.insert(used.end(), l.chip_selects.begin(), l.chip_selects.end());
    used.insert(used.end(), l.pins.begin(), l.pins.end());
    for (unsigned c = 0; c < 64; ++c)
      if ((l.dqs_mask >> c) & 1) used.push_back(c);
    for (unsigned c : used)
      if (c < header.unknown_samples.size() && header.unknown_samples[c] > 0)
        timing_.unknown_samples[header.channels[c]] = header.unknown_samples[c];
  }
  return ok();
}

Status BusDecoder::samples(const std::uint8_t* data, std::size_t count) {
  // On two threads, batches large enough that handing one over costs little.
  constexpr std::size_t kBatchGroups = std::size_t{1} << 14;
  const double period = 1 / header_.samplerate;
  const double t0 = command_thread_ ? thread_cpu_seconds() : 0;
  for (std::size_t at = 0; at < count; at += kDecodeSlice) {
    if (!command_thread_) groups_.clear();
    HARNESS_TRY(
        sampler_->feed(data + at * header_.unitsize, std::min(kDecodeSlice, count - at), header_.unitsize, groups_));
    if (command_thread_) {
      if (groups_.size() >= kBatchGroups) command_thread_->push(groups_);
      continue;
    }
    batch_.clear();
    edges_->add(groups_, period, batch_);
    if (!batch_.empty()) sink_.on_commands(batch_);
  }
  if (command_thread_) sampling_seconds_ += thread_cpu_seconds() - t0;
  return ok();
}

Status BusDecoder::end() {
  if (command_thread_) {
    const double t0 = thread_cpu_seconds();
    if (!groups_.empty()) command_thread_->push(groups_);
    Status sampled = sampler_->finish();
    const double commands_seconds = command_thread_->close();
    command_thread_.reset();
    if (!sampled) return sampled;
    stage_seconds_ = StageSeconds{sampling_seconds_ + thread_cpu_seconds() - t0, commands_seconds};
  } else {
    HARNESS_TRY(sampler_->finish());
  }
  batch_.clear();
  edges_->finish(batch_);
  if (!batch_.empty()) sink_.on_commands(batch_);
  const SamplerStats& s = sampler_->stats();
  const double rate = header_.samplerate;
  timing_.samples = s.samples;
  timing_.cycles = s.cycles;
  timing_.duration = static_cast<double>(s.samples) / rate;
  timing_.tck = s.tck_samples / rate;
  for (const ClockStopSamples& stop : s.stops)
    timing_.clock_stops.push_back({stop.after_cycle, static_cast<double>(stop.start) / rate,
                                   static_cast<double>(stop.length) / rate});
  timing_.dqs_sampled = s.dqs_sampled;
  timing_.strobes = s.strobes;
  if (s.dqs_sampled) {
    const double window = static_cast<double>(s.strobes.window_samples);
    timing_.window = window / rate;
    for (double active_tck : s.strobes.active_tck_per_window)
      timing_.dqs_timeline.push_back(std::min(1.0, active_tck * s.tck_samples / window));
  }
  return ok();
}

Result<BusTiming> decode_capture_file(const std::string& path, const ReadOptions& read, const DecodeOptions& options,
                                      CommandSink& commands) {
  BusDecoder decoder(options, commands);
  ReadOptions with_plan = read;
  if (!with_plan.plan_channels)
    with_plan.plan_channels = [&](const std::vector<std::string>& channels) -> Result<ChannelPlan> {
      return plan_bus_channels(options.standard, options.roles, channels);
    };
  Status s = read_capture(path, with_plan, decoder);
  // Reader errors name the file already; the decoder's do not.
  if (!s) return s.error().message.rfind(path, 0) == 0 ? s.error() : s.error().within(path);
  return decoder.timing();
}

Result<BusTiming> decode_state_listing(const StateListing& listing, const DecodeOptions& options,
                                       CommandSink& commands) {
  HARNESS_TRY(check_options(options));
  std::vector<std::string> channels = listing.channels;
  if (std::find(channels.begin(), channels.end(), "CK") == channels.end()) channels.push_back("CK");
  Result<BusLayout> layout = make_layout(options.standard, channels, options.roles, options.probes);
  if (!layout) return layout.error();
  const BusFormat& f = bus_format(options.standard);
  EdgeDecoder decoder(*layout, options);
  std::vector<Command> out;
  std::vector<double> periods;
  std::uint64_t cycle = 0;
  const auto& rows = listing.rows;
  double last_rise = -1;
  bool cke_high = true, cke_seen = false;
  for (std::size_t i = 0; i < rows.size(); ++i) {
    if (!rows[i].rising) continue;
    const std::uint64_t this_cycle = cycle++;
    if (last_rise >= 0) periods.push_back(rows[i].time - last_rise);
    last_rise = rows[i].time;
    // CKE as the sampler reads it: changes are events, low means unheard.
    CkeChange change = CkeChange::none;
    bool heard = true;
    if (layout->cke != kAbsent) {
      const bool now = (rows[i].bits >> layout->cke) & 1;
      if (!cke_seen) cke_high = now;
      cke_seen = true;
      if (now != cke_high) change = now ? CkeChange::rose : CkeChange::fell;
      heard = now || cke_high;
      cke_high = now;
    }
    const bool selected = heard && layout->selected(rows[i].bits);
    if (!selected && change == CkeChange::none) continue;
    const double time = rows[i].time - rows.front().time;
    std::uint64_t second = 0;
    out.clear();
    if (selected && f.edges == 2) {
      std::size_t k = i + 1;
      while (k < rows.size() && rows[k].rising == f.double_rate) ++k;  // LPDDR5: the next F; LPDDR4: the next R
      if (k >= rows.size()) break;
      second = rows[k].bits;
      if (!f.double_rate) {
        // The second cycle is consumed: skip it as a command start.
        decoder.add(this_cycle, time, rows[i].bits, second, change, out);
        commands.on_commands(out);
        i = k;
        ++cycle;
        periods.push_back(rows[k].time - last_rise);
        last_rise = rows[k].time;
        continue;
      }
    }
    decoder.add(this_cycle, time, rows[i].bits, second, change, out);
    commands.on_commands(out);
  }
  out.clear();
  decoder.finish(out);
  if (!out.empty()) commands.on_commands(out);
  BusTiming t;
  t.standard = options.standard;
  t.format = "state-listing";
  t.coverage = layout->coverage;
  t.roles = layout->roles;
  t.cycles = cycle;
  t.samples = rows.size();
  t.duration = rows.back().time - rows.front().time;
  if (!periods.empty()) {
    double tck = median(periods);
    double sum = 0;
    std::size_t n = 0;
    for (double p : periods) {
      if (p > 1.5 * tck) continue;
      sum += p;
      ++n;
    }
    t.tck = n ? sum / static_cast<double>(n) : tck;
    // Clock stops: rising edges further apart than 1.5 periods.
    std::uint64_t index = 0;
    double previous = -1;
    for (const StateRow& row : rows) {
      if (!row.rising) continue;
      if (previous >= 0 && row.time - previous > 1.5 * tck)
        t.clock_stops.push_back({index - 1, previous - rows.front().time, row.time - previous});
      previous = row.time;
      ++index;
    }
  }
  return t;
}

}  // namespace harness::ddr
