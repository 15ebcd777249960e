#include "harness/ddr/synth.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <deque>
#include <iterator>
#include <map>

#include <fmt/format.h>

#include "harness/ddr/encoding.h"
#include "harness/ddr/sampler.h"

namespace harness::ddr {
namespace {

// Deterministic pseudo-random numbers (splitmix64): fixtures must not
// change between runs or machines.
struct Random {
  std::uint64_t state;
  std::uint64_t next() {
    std::uint64_t z = (state += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
  }
  std::uint64_t below(std::uint64_t n) { return n ? next() % n : 0; }
  int spread(unsigned j) { return j ? static_cast<int>(below(2 * j + 1)) - static_cast<int>(j) : 0; }
};

constexpr std::size_t kRing = 4096;  // cycles of DQS schedule ahead of the renderer
constexpr std::size_t kChunk = 1 << 16;  // samples handed to the sink at a time

}  // namespace

unsigned default_read_latency(Standard s) {
  switch (s) {
    case Standard::ddr4: return 16;    // DDR4-2400 CL16
    case Standard::lpddr4: return 14;  // LPDDR4-1600 RL14 (DBI off)
    case Standard::lpddr5: return 8;   // LPDDR5 low-speed bin, in CK
  }
  return 0;
}

unsigned default_write_latency(Standard s) {
  switch (s) {
    case Standard::ddr4: return 12;
    case Standard::lpddr4: return 8;
    case Standard::lpddr5: return 4;
  }
  return 0;
}

unsigned burst_cycles(Standard s, unsigned burst, unsigned wck_ratio) {
  if (s == Standard::lpddr5) return std::max(1u, burst / (2 * std::max(1u, wck_ratio)));
  return std::max(1u, burst / 2);
}

std::vector<std::string> synth_channels(const SynthOptions& o) {
  const BusFormat& f = bus_format(o.standard);
  std::vector<std::string> ch = {"CK"};
  if (o.ranks <= 1) ch.push_back(f.chip_select);
  for (unsigned r = 0; o.ranks > 1 && r < o.ranks; ++r) ch.push_back(chip_select_role(o.standard, r));
  ch.insert(ch.end(), f.pins.begin(), f.pins.end());
  if (o.cke) ch.push_back("CKE");
  for (unsigned i = 0; i < o.dqs_channels; ++i) ch.push_back(fmt::format("DQS{}", i));
  for (unsigned i = 0; i < o.dq_channels; ++i) ch.push_back(fmt::format("DQ{}", i));
  auto drop = [&](auto pred) { ch.erase(std::remove_if(ch.begin(), ch.end(), pred), ch.end()); };
  if (o.standard == Standard::ddr4 && o.organisation == "x16") drop([](const std::string& c) { return c == "BG1"; });
  if (!o.probed.empty())
    drop([&](const std::string& c) { return std::find(o.probed.begin(), o.probed.end(), c) == o.probed.end(); });
  return ch;
}

namespace {

Status check_options(const SynthOptions& o) {
  const unsigned spc = o.samples_per_clock;
  if (spc < 4 || spc % 4 != 0) return Error::input(fmt::format("samples per clock must be a multiple of 4, got {}", spc));
  const BusFormat& f = bus_format(o.standard);
  const unsigned max_jitter = f.double_rate ? spc / 4 - 1 : spc / 2 - 1;
  if (o.jitter > max_jitter)
    return Error::input(fmt::format("jitter {} samples would cross a sampling edge at {} samples per clock (max {})",
                                    o.jitter, spc, max_jitter));
  if (o.ranks < 1 || o.ranks > kMaxRanks) return Error::input(fmt::format("ranks must be 1 to {}, got {}", kMaxRanks, o.ranks));
  if (o.cke && o.standard == Standard::lpddr5)
    return Error::input("LPDDR5 has no CKE: its power-down and self refresh are commands");
  const long high = std::lround(spc * o.dqs_duty / 100.0);
  if (o.dqs_duty < 1 || o.dqs_duty > 99 || high < 1 || high > static_cast<long>(spc) - 1)
    return Error::input(fmt::format("strobe duty cycle {} % leaves no high or no low sample at {} samples per clock",
                                    o.dqs_duty, spc));
  // Edges moved by up to the jitter either way must stay in order.
  const long shortest = std::min<long>(high, static_cast<long>(spc) - high);
  if (2 * static_cast<long>(o.dqs_jitter) >= shortest)
    return Error::input(fmt::format("strobe jitter {} samples could swap edges of a {}-sample phase (at most {})",
                                    o.dqs_jitter, shortest, (shortest - 1) / 2));
  if (!(o.dqs_skew >= -0.5 && o.dqs_skew <= 0.5))
    return Error::input(fmt::format("strobe skew {} tCK: expected -0.5 to 0.5", o.dqs_skew));
  if (!(o.dqs_glitches >= 0 && o.dqs_glitches <= 1))
    return Error::input(fmt::format("strobe glitch chance {}: expected 0 to 1", o.dqs_glitches));
  return ok();
}

// A strobe channel's levels as a queue of toggles (absolute sample
// indices), and single samples flipped by ringing.
struct StrobeWave {
  std::uint64_t bit = 0;
  bool level = false;
  std::deque<std::uint64_t> toggles, flips;
  bool scheduled = false;
  std::uint64_t last = 0;  // the last toggle scheduled
  // A toggle at `at`, kept after `now` (the next sample written) and after
  // the toggles already scheduled.
  void toggle_at(std::uint64_t at, std::uint64_t now) {
    at = std::max(at, now);
    if (scheduled && at <= last) at = last + 1;
    toggles.push_back(at);
    last = at;
    scheduled = true;
  }
  // The level of sample `at` (called for every sample, in order).
  std::uint64_t sample(std::uint64_t at) {
    while (!toggles.empty() && toggles.front() <= at) {
      level = !level;
      toggles.pop_front();
    }
    bool v = level;
    while (!flips.empty() && flips.front() < at) flips.pop_front();
    if (!flips.empty() && flips.front() == at) v = !v;
    return v ? bit : 0;
  }
};

// Renders a trace cycle by cycle into a sink.
class Renderer {
 public:
  Renderer(const std::vector<Command>& trace, const SynthOptions& o, CaptureSink& sink)
      : trace_(trace), o_(o), f_(bus_format(o.standard)), sink_(sink), spc_(o.samples_per_clock),
        half_(spc_ / 2), quarter_(spc_ / 4), rng_{o.seed}, strobe_rng_{o.seed ^ 0x5354524f4245ull},
        dqs_ring_(kRing, 0) {}
  Status run(SynthTruth* truth);

 private:
  struct CycleValue {
    std::uint64_t rise, fall;
  };
  Status begin();
  std::uint64_t pins_of(std::uint64_t edge_word) const {
    std::uint64_t v = 0;
    for (unsigned p = 0; p < f_.edge_width; ++p)
      if ((edge_word >> p) & 1) v |= pin_bits_[p];
    return v;
  }
  // The chip-select bits of a command to `rank`, relative to idle.
  std::uint64_t cs_on(int rank) const {
    const std::uint64_t bit = rank_bits_[static_cast<std::size_t>(rank)];
    return f_.chip_select_active_high ? bit : (cs_bits_ & ~bit);
  }
  Status expand(const Command& c);
  Status expand_cke(const Command& c);
  Status expand_upto(std::uint64_t cycle) {
    while (next_command_ < trace_.size() && trace_[next_command_].cycle <= cycle)
      HARNESS_TRY(expand(trace_[next_command_++]));
    return ok();
  }
  CycleValue value_at(std::uint64_t cycle);
  bool strobe_active(std::uint64_t n);
  void schedule_strobe(std::uint64_t n, bool active, std::uint64_t start, std::uint64_t now);
  Status put(std::uint64_t v);
  Status render_cycle(std::uint64_t n, const CycleValue& cur, const CycleValue& nxt, std::uint64_t stop_samples);

  const std::vector<Command>& trace_;
  const SynthOptions& o_;
  const BusFormat& f_;
  CaptureSink& sink_;
  const unsigned spc_, half_, quarter_;
  Random rng_, strobe_rng_;
  CaptureHeader header_;
  std::uint64_t ck_bit_ = 0, cs_bits_ = 0, cke_bit_ = 0, dq_mask_ = 0, idle_ = 0;
  std::vector<std::uint64_t> rank_bits_, pin_bits_;
  std::vector<StrobeWave> strobes_;
  unsigned rl_ = 0, wl_ = 0;
  // Command words per cycle, filled as the renderer reaches each command.
  std::map<std::uint64_t, CycleValue> words_;
  std::vector<std::uint8_t> dqs_ring_;  // data cycles ahead of the renderer
  std::uint64_t next_free_ = 0, last_busy_ = 0;
  std::size_t next_command_ = 0;
  // CKE level from each cycle on (DDR4/LPDDR4 power-down, DDR4 self refresh).
  std::map<std::uint64_t, bool> cke_from_ = {{0, true}};
  bool cke_high_ = true;
  std::vector<std::uint8_t> buffer_;
  std::uint64_t written_ = 0;  // samples put so far
  std::uint64_t dq_value_ = 0;
  bool strobe_was_active_ = false;  // the previous cycle had a strobe pulse
  bool strobe_low_ = false;         // a parked-high strobe is driven low (preamble to postamble)
  bool active_ = false;             // the strobe toggles in the cycle being rendered
  SynthTruth truth_;
};

Status Renderer::begin() {
  std::vector<std::string> channels = synth_channels(o_);
  if (channels.size() > 64) return Error::input("more than 64 channels");
  header_.channels = channels;
  header_.samplerate = spc_ / o_.tck;
  header_.unitsize = CaptureHeader::unitsize_for(channels.size());
  header_.format = "synth";
  // Each role's bit in a sample (0: not rendered).
  auto bit_of = [&](const std::string& name) -> std::uint64_t {
    auto it = std::find(channels.begin(), channels.end(), name);
    return it == channels.end() ? 0 : std::uint64_t{1} << (it - channels.begin());
  };
  ck_bit_ = bit_of("CK");
  for (unsigned r = 0; r < o_.ranks; ++r)
    rank_bits_.push_back(bit_of(o_.ranks <= 1 ? f_.chip_select : chip_select_role(o_.standard, r)));
  for (std::uint64_t b : rank_bits_) cs_bits_ |= b;
  for (const std::string& pin : f_.pins) pin_bits_.push_back(bit_of(pin));
  cke_bit_ = o_.cke ? bit_of("CKE") : 0;
  for (unsigned i = 0; i < o_.dqs_channels; ++i)
    if (const std::uint64_t b = bit_of(fmt::format("DQS{}", i))) {
      strobes_.emplace_back().bit = b;
      strobes_.back().level = o_.dqs_park_high;
    }
  for (unsigned i = 0; i < o_.dq_channels; ++i) dq_mask_ |= bit_of(fmt::format("DQ{}", i));
  // Idle bus: chip selects inactive; DDR4 also holds ACT_n/RAS_n/CAS_n/WE_n high.
  idle_ = f_.chip_select_active_high ? 0 : (cs_bits_ | pins_of(0xF));
  if (o_.standard == Standard::ddr4 && o_.organisation == "x16")
    for (const Command& c : trace_)
      if (c.bank_group > 1)
        return Error::input(fmt::format("trace: '{}' names bank group {}; an x16 part has bank groups 0 and 1",
                                        describe(c), c.bank_group));
  rl_ = o_.read_latency ? o_.read_latency : default_read_latency(o_.standard);
  wl_ = o_.write_latency ? o_.write_latency : default_write_latency(o_.standard);
  buffer_.reserve(kChunk * header_.unitsize);
  return sink_.begin(header_);
}

// Commands that are CKE edges: DDR4 power-down and self refresh, LPDDR4
// power-down.
Status Renderer::expand_cke(const Command& c) {
  if (!o_.cke) return Error::input(fmt::format("trace: '{}' needs a CKE channel (synthesize with CKE)", describe(c)));
  const bool entry = c.op == Op::sre || c.op == Op::pde;
  if (entry != cke_high_)
    return Error::input(fmt::format("trace: '{}' but CKE is already {}", describe(c), cke_high_ ? "high" : "low"));
  cke_high_ = !entry;
  cke_from_[c.cycle] = cke_high_;
  if (c.op == Op::sre)  // DDR4 self refresh entry: a REF with CKE falling
    words_[c.cycle] = {cs_on(c.rank) | pins_of(encode_word(o_.standard, Part::ref, {})), 0};
  next_free_ = c.cycle + 1;
  last_busy_ = std::max(last_busy_, next_free_);
  return ok();
}

Status Renderer::expand(const Command& c) {
  if (c.cycle < next_free_)
    return Error::input(fmt::format("trace: command '{}' at cycle {} overlaps the previous command (busy until {})",
                                    describe(c), c.cycle, next_free_));
  if (c.rank < 0 || static_cast<unsigned>(c.rank) >= o_.ranks)
    return Error::input(fmt::format("trace: '{}' is for rank {}, the capture has {} rank(s)", describe(c), c.rank,
                                    o_.ranks));
  const bool by_cke = (o_.standard == Standard::ddr4 && (c.op == Op::sre || c.op == Op::srx)) ||
                      (o_.standard != Standard::lpddr5 && (c.op == Op::pde || c.op == Op::pdx));
  if (!cke_high_ && !(by_cke && (c.op == Op::srx || c.op == Op::pdx)))
    return Error::input(fmt::format("trace: '{}' while CKE is low (power-down or self refresh)", describe(c)));
  if (by_cke) return expand_cke(c);
  std::vector<SubCommand> subs = split_command(o_.standard, c);
  if (subs.empty())
    return Error::input(fmt::format("trace: {} has no {} encoding", command_label(c), standard_name(o_.standard)));
  std::uint64_t cyc = c.cycle;
  for (const SubCommand& s : subs) {
    std::uint64_t w = encode_word(o_.standard, s.part, s.fields);
    const std::uint64_t lo = w & ((std::uint64_t{1} << f_.edge_width) - 1), hi = w >> f_.edge_width;
    if (o_.standard == Standard::lpddr4) {
      words_[cyc++] = {cs_on(c.rank) | pins_of(lo), 0};
      words_[cyc++] = {pins_of(hi), 0};
    } else if (o_.standard == Standard::lpddr5) {
      words_[cyc++] = {cs_on(c.rank) | pins_of(lo), cs_on(c.rank) | pins_of(hi)};
    } else {
      words_[cyc++] = {cs_on(c.rank) | pins_of(lo), 0};
    }
  }
  next_free_ = cyc;
  last_busy_ = std::max(last_busy_, cyc);
  if (is_column(c.op)) {
    std::uint64_t start = c.cycle + (is_read(c.op) ? rl_ : wl_);
    unsigned n = burst_cycles(o_.standard, c.burst, o_.wck_ratio);
    if (start + n - c.cycle >= kRing) return Error::input("trace: latency plus burst longer than the DQS schedule");
    for (std::uint64_t k = start; k < start + n; ++k) dqs_ring_[k % kRing] = 1;
    last_busy_ = std::max(last_busy_, start + n);
  }
  return ok();
}

Renderer::CycleValue Renderer::value_at(std::uint64_t cycle) {
  const std::uint64_t cke = o_.cke && std::prev(cke_from_.upper_bound(cycle))->second ? cke_bit_ : 0;
  auto it = words_.find(cycle);
  if (it == words_.end()) return {idle_ | cke, idle_ | cke};
  if (!f_.double_rate) it->second.fall = it->second.rise;
  return {it->second.rise | cke, it->second.fall | cke};
}

// Whether the strobe toggles in cycle n: data, or a declared toggling
// preamble (one pulse per cycle) before data that follows more than that
// many idle cycles; after a shorter gap the strobe toggles on through it
// (pre- and postamble overlap).
bool Renderer::strobe_active(std::uint64_t n) {
  const bool data = dqs_ring_[n % kRing] != 0;
  bool active = data;
  if (!active && o_.dqs_preamble) {
    unsigned ahead = 0;
    for (unsigned k = 1; k <= o_.dqs_preamble && !ahead; ++k)
      if (dqs_ring_[(n + k) % kRing]) ahead = k;
    active = ahead && (strobe_was_active_ || ahead == o_.dqs_preamble || n < o_.dqs_preamble);
  }
  truth_.data_cycles += data;
  truth_.strobe_cycles += active;
  truth_.bursts += active && !strobe_was_active_;
  strobe_was_active_ = active;
  dqs_ring_[n % kRing] = 0;
  return active;
}

// The strobe edges of cycle n (which starts at sample `start`; `now` is the
// next sample to be written): a pulse per active cycle, skewed, jittered,
// its high phase the duty cycle, an edge ringing now and then. A strobe
// parked high is driven low a cycle before a burst and returns high half a
// cycle after it unless another burst follows within two cycles.
void Renderer::schedule_strobe(std::uint64_t n, bool active, std::uint64_t start, std::uint64_t now) {
  const long skew = std::lround(o_.dqs_skew * spc_);
  const long high = std::lround(spc_ * o_.dqs_duty / 100.0);
  const auto at = [&](long offset) {
    const long v = static_cast<long>(start) + skew + offset;
    return static_cast<std::uint64_t>(std::max(0l, v));
  };
  for (StrobeWave& w : strobes_) {
    auto edge = [&](long offset) {
      const std::uint64_t e = at(offset + strobe_rng_.spread(o_.dqs_jitter));
      w.toggle_at(e, now);
      if (o_.dqs_glitches > 0 &&
          static_cast<double>(strobe_rng_.next() >> 11) * 0x1p-53 < o_.dqs_glitches)
        w.flips.push_back(w.last + 1);
    };
    if (o_.dqs_park_high) {
      if (active && !strobe_low_) edge(-static_cast<long>(spc_));  // static preamble: driven low
      if (!active && strobe_low_ && !dqs_ring_[(n + 1) % kRing] && !dqs_ring_[(n + 2) % kRing])
        edge(static_cast<long>(half_));  // back to the parked level after the postamble
    }
    if (active) {
      edge(0);
      edge(high);
    }
  }
  if (o_.dqs_park_high) {
    if (active) strobe_low_ = true;
    else if (!dqs_ring_[(n + 1) % kRing] && !dqs_ring_[(n + 2) % kRing]) strobe_low_ = false;
  }
}

Status Renderer::put(std::uint64_t v) {
  for (StrobeWave& w : strobes_) v |= w.sample(written_);
  ++written_;
  std::size_t at = buffer_.size();
  const unsigned unit = header_.unitsize;
  buffer_.resize(at + unit);
  std::memcpy(buffer_.data() + at, &v, unit);
  if (buffer_.size() >= kChunk * unit) {
    HARNESS_TRY(sink_.samples(buffer_.data(), buffer_.size() / unit));
    buffer_.clear();
  }
  return ok();
}

// One CK cycle: CA transitions away from the rising (and for LPDDR5
// falling) edges, CK high for the first half, data while the strobe
// toggles. The strobe of the next cycle is scheduled now (it may start
// early: a preamble, a negative skew); a clock stop of `stop_samples`
// follows this cycle.
Status Renderer::render_cycle(std::uint64_t n, const CycleValue& cur, const CycleValue& nxt,
                              std::uint64_t stop_samples) {
  const bool active = active_;
  active_ = strobe_active(n + 1);
  schedule_strobe(n + 1, active_, written_ + spc_ + stop_samples, written_);
  const unsigned t1 = (f_.double_rate ? quarter_ : half_) + static_cast<unsigned>(rng_.spread(o_.jitter));
  const unsigned t2 = 3 * quarter_ + static_cast<unsigned>(rng_.spread(f_.double_rate ? o_.jitter : 0));
  for (unsigned k = 0; k < spc_; ++k) {
    std::uint64_t v;
    if (f_.double_rate) v = k < t1 ? cur.rise : k < t2 ? cur.fall : nxt.rise;
    else v = k < t1 ? cur.rise : nxt.rise;
    if (k < half_) v |= ck_bit_;
    if (active) {
      if (k == 0 || k == half_) dq_value_ = rng_.next() & dq_mask_;
      v |= dq_value_;
    }
    HARNESS_TRY(put(v));
  }
  // Clock stopped low; the bus holds the next cycle's values.
  for (std::uint64_t k = 0; k < stop_samples; ++k) HARNESS_TRY(put(nxt.rise));
  return ok();
}

Status Renderer::run(SynthTruth* truth) {
  HARNESS_TRY(begin());
  // Stops sorted by cycle.
  std::vector<SynthClockStop> stops = o_.clock_stops;
  std::sort(stops.begin(), stops.end(),
            [](const SynthClockStop& a, const SynthClockStop& b) { return a.after_cycle < b.after_cycle; });
  std::size_t next_stop = 0;
  HARNESS_TRY(expand_upto(3));
  // Half a clock of CK low first, so that cycle 0's rising edge is an edge.
  CycleValue cur = value_at(0);
  active_ = strobe_active(0);
  schedule_strobe(0, active_, half_, 0);
  for (unsigned k = 0; k < half_; ++k) HARNESS_TRY(put(cur.rise));
  for (std::uint64_t n = 0;; ++n) {
    HARNESS_TRY(expand_upto(n + 3));
    if (next_command_ >= trace_.size() && n > last_busy_ + o_.tail_cycles) break;
    const CycleValue nxt = value_at(n + 1);
    std::uint64_t stop_samples = 0;
    if (next_stop < stops.size() && stops[next_stop].after_cycle == n) stop_samples = stops[next_stop++].cycles * spc_;
    HARNESS_TRY(render_cycle(n, cur, nxt, stop_samples));
    cur = nxt;
  }
  if (!buffer_.empty()) HARNESS_TRY(sink_.samples(buffer_.data(), buffer_.size() / header_.unitsize));
  if (truth) {
    *truth = truth_;
    truth->samples = written_;
    truth->samplerate = header_.samplerate;
    truth->samples_per_clock = spc_;
  }
  return sink_.end();
}

}  // namespace

Status synthesize(const std::vector<Command>& trace, const SynthOptions& o, CaptureSink& sink, SynthTruth* truth) {
  HARNESS_TRY(check_options(o));
  Renderer renderer(trace, o, sink);
  return renderer.run(truth);
}

namespace {

struct Limits {
  unsigned banks, bank_groups, row_bits, column_step, columns, bursts[2];
};

Limits limits(Standard s) {
  switch (s) {
    case Standard::ddr4: return {4, 4, 18, 8, 1024, {8, 4}};
    case Standard::lpddr4: return {8, 1, 17, 16, 1024, {16, 32}};
    case Standard::lpddr5: return {16, 1, 18, 1, 64, {16, 32}};
  }
  return {};
}

unsigned occupancy(Standard s, const Command& c) {
  return static_cast<unsigned>(split_command(s, c).size() * bus_format(s).cycles_per_word);
}

}  // namespace

namespace {

// Builds a trace of one pattern, command by command, keeping each bank's
// open row.
class TrafficGenerator {
 public:
  TrafficGenerator(Standard s, std::uint64_t seed, unsigned wck_ratio, bool cke, unsigned bank_groups,
                   const StreamShape& stream)
      : s_(s), lim_(limits(s)), rng_{seed}, wck_ratio_(wck_ratio), cke_(cke), stream_(stream) {
    if (s == Standard::ddr4 && bank_groups) lim_.bank_groups = bank_groups;
  }
  std::vector<Command> run(const std::string& pattern, std::uint64_t cycles);

 private:
  static int key(const Command& c) { return c.bank_group * 64 + c.bank; }
  void emit(Command c, unsigned gap) {
    c.cycle = at_;
    at_ += std::max(occupancy(s_, c), gap);
    out_.push_back(c);
  }
  Command bank_cmd(Op op, int bg, int bank) const {
    Command c;
    c.op = op;
    c.bank = bank;
    if (s_ == Standard::ddr4) c.bank_group = bg;
    return c;
  }
  Command plain(Op op, int operand = -1) const {
    Command c;
    c.op = op;
    c.operand = operand;
    return c;
  }
  void close_all(unsigned gap) {
    Command pa = plain(Op::pre);
    pa.all_banks = true;
    emit(pa, gap);
    open_.clear();
  }
  void refresh() {
    close_all(4);
    Command r = plain(Op::ref);
    r.all_banks = true;
    emit(r, 8);
  }
  void open_row(int bg, int bank, int row) {
    Command act = bank_cmd(Op::act, bg, bank);
    act.row = row;
    auto it = open_.find(key(act));
    if (it != open_.end() && it->second == row) return;
    if (it != open_.end()) emit(bank_cmd(Op::pre, bg, bank), 3);
    emit(act, 4);
    open_[key(act)] = row;
  }
  void stream(int bg, int bank, std::uint64_t cycles);
  void column_commands(int bg, int bank, bool mixed);
  void everything_else(int bg, int bank);
  void mode_register_or_zq();
  void power_down();

  Standard s_;
  Limits lim_;
  Random rng_;
  unsigned wck_ratio_;
  bool cke_;
  StreamShape stream_;
  std::vector<Command> out_;
  std::uint64_t at_ = 8;
  std::map<int, int> open_;  // bank key -> open row
};

// 128-byte reads: consecutive columns of one row, bursts back to back; a
// gap ends each transaction.
void TrafficGenerator::stream(int bg, int bank, std::uint64_t cycles) {
  const unsigned burst = s_ == Standard::lpddr5 ? 32 : lim_.bursts[0];
  const unsigned per = 128 / burst_bytes(burst, 16);
  const unsigned step = burst_cycles(s_, burst, wck_ratio_);
  open_row(bg, bank, static_cast<int>(rng_.below(1u << 12)));
  for (unsigned t = 0; t < stream_.row_transactions && at_ < cycles; ++t) {
    unsigned col0 = static_cast<unsigned>(rng_.below(lim_.columns / lim_.column_step / per)) * per;
    for (unsigned i = 0; i < per; ++i) {
      Command c = bank_cmd(Op::rd, bg, bank);
      c.column = static_cast<int>((col0 + i) * lim_.column_step) % static_cast<int>(lim_.columns);
      c.burst = static_cast<std::uint16_t>(burst);
      emit(c, std::max(step, occupancy(s_, c)));
    }
    at_ += stream_.gap_min + rng_.below(stream_.gap_max - stream_.gap_min + 1);
  }
}

// Small reads and writes to one row (of both burst lengths and masked
// writes when mixed), the last one closing it now and then.
void TrafficGenerator::column_commands(int bg, int bank, bool mixed) {
  open_row(bg, bank, static_cast<int>(rng_.below(1u << lim_.row_bits)));
  unsigned n = 1 + static_cast<unsigned>(rng_.below(2));
  for (unsigned i = 0; i < n; ++i) {
    Op op = rng_.below(2) ? Op::rd : Op::wr;
    if (mixed && s_ != Standard::ddr4 && rng_.below(5) == 0) op = Op::mwr;
    Command c = bank_cmd(op, bg, bank);
    c.burst = static_cast<std::uint16_t>(mixed ? lim_.bursts[rng_.below(2)] : lim_.bursts[0]);
    if (op == Op::mwr && s_ == Standard::lpddr5) c.burst = 16;
    c.column = static_cast<int>(rng_.below(lim_.columns / lim_.column_step) * lim_.column_step);
    if (s_ == Standard::ddr4) c.column &= ~7;
    if (s_ == Standard::lpddr5 && c.burst == 32) c.column &= ~1;  // WR32 carries no C0
    c.auto_precharge = i + 1 == n && rng_.below(3) == 0;
    emit(c, occupancy(s_, c) + static_cast<unsigned>(rng_.below(3)));
    if (c.auto_precharge) open_.erase(key(c));
  }
}

void TrafficGenerator::mode_register_or_zq() {
  Command m;
  if (s_ == Standard::ddr4) {
    m = plain(Op::zqc, static_cast<int>(rng_.below(2)));
  } else {
    m = plain(Op::mrr);
    m.address = static_cast<int>(rng_.below(s_ == Standard::lpddr5 ? 128 : 64));
  }
  emit(m, 4);
}

// Power-down, and DDR4 self refresh, on CKE (all banks closed first).
void TrafficGenerator::power_down() {
  if (!cke_ || s_ == Standard::lpddr5) return;
  close_all(4);
  for (Op op : s_ == Standard::ddr4 ? std::vector<Op>{Op::pde, Op::pdx, Op::sre, Op::srx}
                                    : std::vector<Op>{Op::pde, Op::pdx})
    emit(plain(op), op == Op::sre ? 24 : 8);
}

// Every other command the standard has, now and then.
void TrafficGenerator::everything_else(int bg, int bank) {
  switch (rng_.below(8)) {
    case 0: {
      Command m;
      if (s_ == Standard::ddr4) {
        m = plain(Op::mrs);
        m.address = static_cast<int>(rng_.below(7));
        m.operand = static_cast<int>(rng_.below(1u << 14));
      } else {
        m = plain(Op::mrw);
        m.address = static_cast<int>(rng_.below(s_ == Standard::lpddr5 ? 128 : 64));
        m.operand = static_cast<int>(rng_.below(256));
      }
      emit(m, 4);
      return;
    }
    case 1: return mode_register_or_zq();
    case 2:
      if (s_ != Standard::ddr4) emit(plain(Op::mpc, static_cast<int>(rng_.below(s_ == Standard::lpddr5 ? 256 : 128))), 4);
      return;
    case 3: {
      // Per-bank refresh (LPDDR) closes that bank.
      if (s_ == Standard::ddr4) return;
      Command pb = bank_cmd(Op::pre, bg, bank);
      emit(pb, 3);
      Command r = plain(Op::ref);
      r.bank = static_cast<int>(rng_.below(8));
      open_.erase(key(pb));
      open_.erase(r.bank);
      emit(r, 6);
      return;
    }
    case 4:
      if (s_ == Standard::ddr4) return emit(plain(Op::nop), 2);
      if (s_ == Standard::lpddr4) {
        for (Op op : {Op::mpc, Op::sre, Op::srx}) emit(plain(op, op == Op::mpc ? 0 : -1), 2);
        return;
      }
      for (Op op : {Op::cas, Op::nop, Op::pde, Op::sre, Op::srx})  // CAS: WS_*, DC0-3, WRX, WXSA, WXSB
        emit(plain(op, op == Op::cas ? static_cast<int>(rng_.below(1024)) : -1), 2);
      return;
    case 5: return power_down();
    default: return;
  }
}

std::vector<Command> TrafficGenerator::run(const std::string& pattern, std::uint64_t cycles) {
  std::uint64_t next_refresh = 2000;
  while (at_ < cycles) {
    if (at_ >= next_refresh) {
      refresh();
      next_refresh = at_ + 2000;
    }
    int bg = s_ == Standard::ddr4 ? static_cast<int>(rng_.below(lim_.bank_groups)) : -1;
    int bank = static_cast<int>(rng_.below(lim_.banks));
    if (pattern == "stream") {
      stream(bg, bank, cycles);
      continue;
    }
    column_commands(bg, bank, pattern == "mixed");
    if (pattern == "mixed") everything_else(bg, bank);
  }
  return std::move(out_);
}

}  // namespace

Result<std::vector<Command>> generate_traffic(Standard s, const std::string& pattern, std::uint64_t cycles,
                                              std::uint64_t seed, unsigned wck_ratio, bool cke, unsigned bank_groups,
                                              const StreamShape& stream) {
  if (pattern != "stream" && pattern != "random" && pattern != "mixed")
    return Error::input(fmt::format("unknown traffic pattern '{}' (stream, random, mixed)", pattern));
  if (stream.row_transactions < 1 || stream.gap_max < stream.gap_min)
    return Error::input(fmt::format("stream shape: {} transactions per row, gaps {}-{} cycles: expected at least one "
                                    "transaction and gap_min <= gap_max",
                                    stream.row_transactions, stream.gap_min, stream.gap_max));
  return TrafficGenerator(s, seed, wck_ratio, cke, bank_groups, stream).run(pattern, cycles);
}

}  // namespace harness::ddr
