#include "harness/ddr/synth.h"

#include <algorithm>
#include <cstring>
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

Status synthesize(const std::vector<Command>& trace, const SynthOptions& o, CaptureSink& sink) {
  const unsigned spc = o.samples_per_clock;
  if (spc < 4 || spc % 4 != 0) return Error::input(fmt::format("samples per clock must be a multiple of 4, got {}", spc));
  const BusFormat& f = bus_format(o.standard);
  const unsigned half = spc / 2, quarter = spc / 4;
  const unsigned max_jitter = f.double_rate ? quarter - 1 : half - 1;
  if (o.jitter > max_jitter)
    return Error::input(fmt::format("jitter {} samples would cross a sampling edge at {} samples per clock (max {})",
                                    o.jitter, spc, max_jitter));
  if (o.ranks < 1 || o.ranks > kMaxRanks) return Error::input(fmt::format("ranks must be 1 to {}, got {}", kMaxRanks, o.ranks));
  if (o.cke && o.standard == Standard::lpddr5)
    return Error::input("LPDDR5 has no CKE: its power-down and self refresh are commands");
  std::vector<std::string> channels = synth_channels(o);
  if (channels.size() > 64) return Error::input("more than 64 channels");
  CaptureHeader header;
  header.channels = channels;
  header.samplerate = spc / o.tck;
  header.unitsize = CaptureHeader::unitsize_for(channels.size());
  header.format = "synth";
  HARNESS_TRY(sink.begin(header));

  // Each role's bit in a sample (0: not rendered).
  auto bit_of = [&](const std::string& name) -> std::uint64_t {
    auto it = std::find(channels.begin(), channels.end(), name);
    return it == channels.end() ? 0 : std::uint64_t{1} << (it - channels.begin());
  };
  const std::uint64_t ck_bit = bit_of("CK");
  std::vector<std::uint64_t> rank_bits;  // chip select of each rank
  for (unsigned r = 0; r < o.ranks; ++r)
    rank_bits.push_back(bit_of(o.ranks <= 1 ? f.chip_select : chip_select_role(o.standard, r)));
  std::uint64_t cs_bits = 0;  // all chip selects
  for (std::uint64_t b : rank_bits) cs_bits |= b;
  std::vector<std::uint64_t> pin_bits;
  for (const std::string& pin : f.pins) pin_bits.push_back(bit_of(pin));
  const std::uint64_t cke_bit = o.cke ? bit_of("CKE") : 0;
  std::uint64_t dqs_mask = 0, dq_mask = 0;
  for (unsigned i = 0; i < o.dqs_channels; ++i) dqs_mask |= bit_of(fmt::format("DQS{}", i));
  for (unsigned i = 0; i < o.dq_channels; ++i) dq_mask |= bit_of(fmt::format("DQ{}", i));
  auto pins_of = [&](std::uint64_t edge_word) {
    std::uint64_t v = 0;
    for (unsigned p = 0; p < f.edge_width; ++p)
      if ((edge_word >> p) & 1) v |= pin_bits[p];
    return v;
  };
  // Idle bus: chip selects inactive; DDR4 also holds ACT_n/RAS_n/CAS_n/WE_n high.
  const std::uint64_t idle = f.chip_select_active_high ? 0 : (cs_bits | pins_of(0xF));
  // The chip-select bits of a command to `rank`, relative to idle.
  auto cs_on = [&](int rank) {
    const std::uint64_t bit = rank_bits[static_cast<std::size_t>(rank)];
    return f.chip_select_active_high ? bit : (cs_bits & ~bit);
  };
  if (o.standard == Standard::ddr4 && o.organisation == "x16")
    for (const Command& c : trace)
      if (c.bank_group > 1)
        return Error::input(fmt::format("trace: '{}' names bank group {}; an x16 part has bank groups 0 and 1",
                                        describe(c), c.bank_group));
  const unsigned rl = o.read_latency ? o.read_latency : default_read_latency(o.standard);
  const unsigned wl = o.write_latency ? o.write_latency : default_write_latency(o.standard);

  // Command words per cycle, filled as the renderer reaches each command.
  struct CycleValue {
    std::uint64_t rise, fall;
  };
  std::map<std::uint64_t, CycleValue> words;
  std::vector<std::uint8_t> dqs_ring(kRing, 0);
  std::uint64_t next_free = 0, last_busy = 0;
  std::size_t next_command = 0;
  // CKE level from each cycle on (DDR4/LPDDR4 power-down, DDR4 self refresh).
  std::map<std::uint64_t, bool> cke_from = {{0, true}};
  bool cke_high = true;
  auto expand = [&](const Command& c) -> Status {
    if (c.cycle < next_free)
      return Error::input(fmt::format("trace: command '{}' at cycle {} overlaps the previous command (busy until {})",
                                      describe(c), c.cycle, next_free));
    if (c.rank < 0 || static_cast<unsigned>(c.rank) >= o.ranks)
      return Error::input(fmt::format("trace: '{}' is for rank {}, the capture has {} rank(s)", describe(c), c.rank,
                                      o.ranks));
    // Commands that are CKE edges: DDR4 power-down and self refresh, LPDDR4 power-down.
    const bool by_cke = (o.standard == Standard::ddr4 && (c.op == Op::sre || c.op == Op::srx)) ||
                        (o.standard != Standard::lpddr5 && (c.op == Op::pde || c.op == Op::pdx));
    if (by_cke && !o.cke)
      return Error::input(fmt::format("trace: '{}' needs a CKE channel (synthesize with CKE)", describe(c)));
    if (!cke_high && !(by_cke && (c.op == Op::srx || c.op == Op::pdx)))
      return Error::input(fmt::format("trace: '{}' while CKE is low (power-down or self refresh)", describe(c)));
    if (by_cke) {
      const bool entry = c.op == Op::sre || c.op == Op::pde;
      if (entry != cke_high)
        return Error::input(fmt::format("trace: '{}' but CKE is already {}", describe(c), cke_high ? "high" : "low"));
      cke_high = !entry;
      cke_from[c.cycle] = cke_high;
      if (c.op == Op::sre) {  // DDR4 self refresh entry: a REF with CKE falling
        words[c.cycle] = {cs_on(c.rank) | pins_of(encode_word(o.standard, Part::ref, {})), 0};
      }
      next_free = c.cycle + 1;
      last_busy = std::max(last_busy, next_free);
      return ok();
    }
    std::vector<SubCommand> subs = split_command(o.standard, c);
    if (subs.empty())
      return Error::input(fmt::format("trace: {} has no {} encoding", command_label(c), standard_name(o.standard)));
    std::uint64_t cyc = c.cycle;
    for (const SubCommand& s : subs) {
      std::uint64_t w = encode_word(o.standard, s.part, s.fields);
      const std::uint64_t lo = w & ((std::uint64_t{1} << f.edge_width) - 1), hi = w >> f.edge_width;
      if (o.standard == Standard::lpddr4) {
        words[cyc++] = {cs_on(c.rank) | pins_of(lo), 0};
        words[cyc++] = {pins_of(hi), 0};
      } else if (o.standard == Standard::lpddr5) {
        words[cyc++] = {cs_on(c.rank) | pins_of(lo), cs_on(c.rank) | pins_of(hi)};
      } else {
        words[cyc++] = {cs_on(c.rank) | pins_of(lo), 0};
      }
    }
    next_free = cyc;
    last_busy = std::max(last_busy, cyc);
    if (is_column(c.op)) {
      std::uint64_t start = c.cycle + (is_read(c.op) ? rl : wl);
      unsigned n = burst_cycles(o.standard, c.burst, o.wck_ratio);
      if (start + n - c.cycle >= kRing) return Error::input("trace: latency plus burst longer than the DQS schedule");
      for (std::uint64_t k = start; k < start + n; ++k) dqs_ring[k % kRing] = 1;
      last_busy = std::max(last_busy, start + n);
    }
    return ok();
  };
  auto value_at = [&](std::uint64_t cycle) -> CycleValue {
    const std::uint64_t cke = o.cke && std::prev(cke_from.upper_bound(cycle))->second ? cke_bit : 0;
    auto it = words.find(cycle);
    if (it == words.end()) return {idle | cke, idle | cke};
    if (!f.double_rate) it->second.fall = it->second.rise;
    return {it->second.rise | cke, it->second.fall | cke};
  };
  // Stops sorted by cycle.
  std::vector<SynthClockStop> stops = o.clock_stops;
  std::sort(stops.begin(), stops.end(),
            [](const SynthClockStop& a, const SynthClockStop& b) { return a.after_cycle < b.after_cycle; });
  std::size_t next_stop = 0;

  Random rng{o.seed};
  const unsigned unit = header.unitsize;
  constexpr std::size_t kChunk = 1 << 16;
  std::vector<std::uint8_t> buffer;
  buffer.reserve(kChunk * unit);
  auto put = [&](std::uint64_t v) -> Status {
    std::size_t at = buffer.size();
    buffer.resize(at + unit);
    std::memcpy(buffer.data() + at, &v, unit);
    if (buffer.size() >= kChunk * unit) {
      HARNESS_TRY(sink.samples(buffer.data(), buffer.size() / unit));
      buffer.clear();
    }
    return ok();
  };
  std::uint64_t dq_value = 0;
  bool strobe_was_active = false;  // the previous cycle had a strobe pulse
  auto expand_upto = [&](std::uint64_t cycle) -> Status {
    while (next_command < trace.size() && trace[next_command].cycle <= cycle) HARNESS_TRY(expand(trace[next_command++]));
    return ok();
  };
  HARNESS_TRY(expand_upto(1));
  // Half a clock of CK low first, so that cycle 0's rising edge is an edge.
  CycleValue cur = value_at(0);
  for (unsigned k = 0; k < half; ++k) HARNESS_TRY(put(cur.rise));
  for (std::uint64_t n = 0;; ++n) {
    HARNESS_TRY(expand_upto(n + 2));
    if (next_command >= trace.size() && n > last_busy + o.tail_cycles) break;
    CycleValue nxt = value_at(n + 1);
    bool active = dqs_ring[n % kRing] != 0;
    if (!active && o.dqs_preamble) {
      // Data within the preamble's reach: a preamble pulse after an idle
      // cycle when the whole preamble fits, else the strobe toggles on.
      unsigned ahead = 0;
      for (unsigned k = 1; k <= o.dqs_preamble && !ahead; ++k)
        if (dqs_ring[(n + k) % kRing]) ahead = k;
      active = ahead && (strobe_was_active || ahead == o.dqs_preamble || n < o.dqs_preamble);
    }
    strobe_was_active = active;
    dqs_ring[n % kRing] = 0;
    // CA transitions, away from the rising (and for LPDDR5 falling) edges.
    const unsigned t1 = (f.double_rate ? quarter : half) + static_cast<unsigned>(rng.spread(o.jitter));
    const unsigned t2 = 3 * quarter + static_cast<unsigned>(rng.spread(f.double_rate ? o.jitter : 0));
    for (unsigned k = 0; k < spc; ++k) {
      std::uint64_t v;
      if (f.double_rate) v = k < t1 ? cur.rise : k < t2 ? cur.fall : nxt.rise;
      else v = k < t1 ? cur.rise : nxt.rise;
      if (k < half) v |= ck_bit;
      if (active) {
        if (k < half) v |= dqs_mask;
        if (k == 0 || k == half) dq_value = rng.next() & dq_mask;
        v |= dq_value;
      }
      HARNESS_TRY(put(v));
    }
    if (next_stop < stops.size() && stops[next_stop].after_cycle == n) {
      // Clock stopped low; the bus holds the next cycle's values.
      for (std::uint64_t k = 0; k < stops[next_stop].cycles * spc; ++k) HARNESS_TRY(put(nxt.rise));
      ++next_stop;
    }
    cur = nxt;
  }
  if (!buffer.empty()) HARNESS_TRY(sink.samples(buffer.data(), buffer.size() / unit));
  return sink.end();
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

Result<std::vector<Command>> generate_traffic(Standard s, const std::string& pattern, std::uint64_t cycles,
                                              std::uint64_t seed, unsigned wck_ratio, bool cke, unsigned bank_groups) {
  if (pattern != "stream" && pattern != "random" && pattern != "mixed")
    return Error::input(fmt::format("unknown traffic pattern '{}' (stream, random, mixed)", pattern));
  Limits lim = limits(s);
  if (s == Standard::ddr4 && bank_groups) lim.bank_groups = bank_groups;
  Random rng{seed};
  std::vector<Command> out;
  std::uint64_t at = 8;
  std::map<int, int> open;  // bank key -> open row
  auto key = [](const Command& c) { return c.bank_group * 64 + c.bank; };
  auto emit = [&](Command c, unsigned gap) {
    c.cycle = at;
    at += std::max(occupancy(s, c), gap);
    out.push_back(c);
  };
  auto bank_cmd = [&](Op op, int bg, int bank) {
    Command c;
    c.op = op;
    c.bank = bank;
    if (s == Standard::ddr4) c.bank_group = bg;
    return c;
  };
  auto refresh = [&]() {
    Command pa;
    pa.op = Op::pre;
    pa.all_banks = true;
    emit(pa, 4);
    Command r;
    r.op = Op::ref;
    r.all_banks = true;
    emit(r, 8);
    open.clear();
  };
  auto open_row = [&](int bg, int bank, int row) {
    Command act = bank_cmd(Op::act, bg, bank);
    act.row = row;
    auto it = open.find(key(act));
    if (it != open.end() && it->second == row) return;
    if (it != open.end()) emit(bank_cmd(Op::pre, bg, bank), 3);
    emit(act, 4);
    open[key(act)] = row;
  };
  std::uint64_t next_refresh = 2000;
  const int bg_count = static_cast<int>(lim.bank_groups);
  while (at < cycles) {
    if (at >= next_refresh) {
      refresh();
      next_refresh = at + 2000;
    }
    int bg = s == Standard::ddr4 ? static_cast<int>(rng.below(lim.bank_groups)) : -1;
    int bank = static_cast<int>(rng.below(lim.banks));
    if (pattern == "stream") {
      // 128-byte reads: consecutive columns of one row, bursts back to back.
      unsigned burst = s == Standard::lpddr5 ? 32 : lim.bursts[0];
      unsigned per = 128 / burst_bytes(burst, 16);
      unsigned step = burst_cycles(s, burst, wck_ratio);
      int row = static_cast<int>(rng.below(1u << 12));
      open_row(bg, bank, row);
      for (unsigned t = 0; t < 4 && at < cycles; ++t) {
        unsigned col0 = static_cast<unsigned>(rng.below(lim.columns / lim.column_step / per)) * per;
        for (unsigned i = 0; i < per; ++i) {
          Command c = bank_cmd(Op::rd, bg, bank);
          c.column = static_cast<int>((col0 + i) * lim.column_step) % static_cast<int>(lim.columns);
          c.burst = static_cast<std::uint16_t>(burst);
          emit(c, std::max(step, occupancy(s, c)));
        }
        at += 2 + rng.below(4);  // a gap ends the transaction
      }
      (void)bg_count;
      continue;
    }
    const bool mixed = pattern == "mixed";
    int row = static_cast<int>(rng.below(1u << lim.row_bits));
    open_row(bg, bank, row);
    unsigned n = 1 + static_cast<unsigned>(rng.below(2));
    for (unsigned i = 0; i < n; ++i) {
      Op op = rng.below(2) ? Op::rd : Op::wr;
      if (mixed && s != Standard::ddr4 && rng.below(5) == 0) op = Op::mwr;
      Command c = bank_cmd(op, bg, bank);
      c.burst = static_cast<std::uint16_t>(mixed ? lim.bursts[rng.below(2)] : lim.bursts[0]);
      if (op == Op::mwr && s == Standard::lpddr5) c.burst = 16;
      c.column = static_cast<int>(rng.below(lim.columns / lim.column_step) * lim.column_step);
      if (s == Standard::ddr4) c.column &= ~7;
      if (s == Standard::lpddr5 && c.burst == 32) c.column &= ~1;  // WR32 carries no C0
      c.auto_precharge = i + 1 == n && rng.below(3) == 0;
      emit(c, occupancy(s, c) + static_cast<unsigned>(rng.below(3)));
      if (c.auto_precharge) open.erase(key(c));
    }
    if (!mixed) continue;
    // Everything else the standard has, now and then.
    switch (rng.below(8)) {
      case 0: {
        Command m;
        if (s == Standard::ddr4) {
          m.op = Op::mrs;
          m.address = static_cast<int>(rng.below(7));
          m.operand = static_cast<int>(rng.below(1u << 14));
        } else {
          m.op = Op::mrw;
          m.address = static_cast<int>(rng.below(s == Standard::lpddr5 ? 128 : 64));
          m.operand = static_cast<int>(rng.below(256));
        }
        emit(m, 4);
        break;
      }
      case 1: {
        Command m;
        if (s == Standard::ddr4) {
          m.op = Op::zqc;
          m.operand = static_cast<int>(rng.below(2));
        } else {
          m.op = Op::mrr;
          m.address = static_cast<int>(rng.below(s == Standard::lpddr5 ? 128 : 64));
        }
        emit(m, 4);
        break;
      }
      case 2: {
        if (s == Standard::ddr4) break;
        Command m;
        m.op = Op::mpc;
        m.operand = static_cast<int>(rng.below(s == Standard::lpddr5 ? 256 : 128));
        emit(m, 4);
        break;
      }
      case 3: {
        // Per-bank refresh (LPDDR) closes that bank.
        if (s == Standard::ddr4) break;
        Command pb = bank_cmd(Op::pre, bg, bank);
        emit(pb, 3);
        Command r;
        r.op = Op::ref;
        r.bank = static_cast<int>(rng.below(8));
        open.erase(key(pb));
        open.erase(r.bank);
        emit(r, 6);
        break;
      }
      case 4: {
        if (s == Standard::ddr4) {
          Command m;
          m.op = Op::nop;
          emit(m, 2);
          break;
        }
        if (s == Standard::lpddr4) {
          for (Op op : {Op::mpc, Op::sre, Op::srx}) {
            Command m;
            m.op = op;
            if (op == Op::mpc) m.operand = 0;
            emit(m, 2);
          }
          break;
        }
        for (Op op : {Op::cas, Op::nop, Op::pde, Op::sre, Op::srx}) {
          Command m;
          m.op = op;
          if (op == Op::cas) m.operand = static_cast<int>(rng.below(1024));  // WS_*, DC0-3, WRX, WXSA, WXSB
          emit(m, 2);
        }
        break;
      }
      case 5: {
        // Power-down, and DDR4 self refresh, on CKE (all banks closed first).
        if (!cke || s == Standard::lpddr5) break;
        Command pa;
        pa.op = Op::pre;
        pa.all_banks = true;
        emit(pa, 4);
        open.clear();
        for (Op op : s == Standard::ddr4 ? std::vector<Op>{Op::pde, Op::pdx, Op::sre, Op::srx}
                                         : std::vector<Op>{Op::pde, Op::pdx}) {
          Command m;
          m.op = op;
          emit(m, op == Op::sre ? 24 : 8);
        }
        break;
      }
      default: break;
    }
  }
  return out;
}

}  // namespace harness::ddr
