#include "harness/ddr/encoding.h"

#include <algorithm>
#include <bit>
#include <cstdlib>
#include <cstdio>
#include <map>
#include <span>

#include <fmt/format.h>

namespace harness::ddr {
namespace {

struct EncodingRow {
  std::string_view name;
  Part part;
  std::string_view pattern;  // pins of each edge, edges separated by '|'
};

// DDR4 command truth table (CS_n = L), pins ACT_n RAS_n CAS_n WE_n BG0 BG1
// BA0 BA1 A0..A13 A17. Source: DDR4 SDRAM datasheets' command truth table
// (e.g. Alliance AS4C512M8D4). RAS_n/CAS_n/WE_n carry A16/A15/A14 with ACT.
constexpr EncodingRow kDdr4[] = {
    {"ACT", Part::act, "L R16 R15 R14 BG0 BG1 BA0 BA1 R0 R1 R2 R3 R4 R5 R6 R7 R8 R9 R10 R11 R12 R13 R17"},
    {"MRS", Part::mrs, "H L L L MA2 V MA0 MA1 OP0 OP1 OP2 OP3 OP4 OP5 OP6 OP7 OP8 OP9 OP10 OP11 OP12 OP13 V"},
    {"REF", Part::ref, "H L L H V V V V V V V V V V V V V V V V V V V"},
    {"PRE", Part::pre, "H L H L BG0 BG1 BA0 BA1 V V V V V V V V V V AB V V V V"},
    {"WR", Part::wr, "H H L L BG0 BG1 BA0 BA1 C0 C1 C2 C3 C4 C5 C6 C7 C8 C9 AP V BC V V"},
    {"RD", Part::rd, "H H L H BG0 BG1 BA0 BA1 C0 C1 C2 C3 C4 C5 C6 C7 C8 C9 AP V BC V V"},
    {"ZQC", Part::zqc, "H H H L V V V V V V V V V V V V V V OP0 V V V V"},
    {"NOP", Part::nop, "H H H H V V V V V V V V V V V V V V V V V V V"},
};

// LPDDR4/4X (JESD209-4) two-cycle sub-commands, CA0..CA5 of cycle 1 (CS = H)
// | cycle 2 (CS = L). Source: LiteDRAM litedram/phy/lpddr4/commands.py.
// BL: on-the-fly burst length, L = BL16, H = BL32 (MR1 OP[1:0] = 10b).
constexpr EncodingRow kLpddr4[] = {
    {"ACT-1", Part::act1, "H L R12 R13 R14 R15 | BA0 BA1 BA2 R16 R10 R11"},
    {"ACT-2", Part::act2, "H H R6 R7 R8 R9 | R0 R1 R2 R3 R4 R5"},
    {"READ-1", Part::rd, "L H L L L BL | BA0 BA1 BA2 V C9 AP"},
    {"WRITE-1", Part::wr, "L L H L L BL | BA0 BA1 BA2 V C9 AP"},
    {"MWR-1", Part::mwr, "L L H H L BL | BA0 BA1 BA2 V C9 AP"},
    {"CAS-2", Part::cas2, "L H L L H C8 | C2 C3 C4 C5 C6 C7"},
    {"PRE", Part::pre, "L L L L H AB | BA0 BA1 BA2 V V V"},
    {"REF", Part::ref, "L L L H L AB | BA0 BA1 BA2 V V V"},
    {"MRW-1", Part::mrw1, "L H H L L OP7 | MA0 MA1 MA2 MA3 MA4 MA5"},
    {"MRW-2", Part::mrw2, "L H H L H OP6 | OP0 OP1 OP2 OP3 OP4 OP5"},
    {"MRR-1", Part::mrr, "L H H H L V | MA0 MA1 MA2 MA3 MA4 MA5"},
    {"MPC", Part::mpc, "L L L L L OP6 | OP0 OP1 OP2 OP3 OP4 OP5"},
    // Self refresh (JESD209-4 command truth table; not in LiteDRAM).
    {"SRE", Part::sre, "L L L H H V | V V V V V V"},
    {"SRX", Part::srx, "L L H L H V | V V V V V V"},
};

// LPDDR5 reads: public sources disagree. LiteDRAM's lpddr5/commands.py has
// RD16 = H L L and RD32 = H L H on CA0..CA2 at the rising edge; another
// public summary gives H L L for RD32 as well, which would make RD16 and
// RD32 indistinguishable, so it cannot be right for both. We follow
// LiteDRAM. Verify against JESD209-5 or a vendor datasheet; this table is
// the only place to change.
constexpr EncodingRow kLpddr5Reads[] = {
    {"RD16", Part::rd16, "H L L C0 C3 C4 C5 | BA0 BA1 BA2 BA3 C1 C2 AP"},
    {"RD32", Part::rd32, "H L H C0 C3 C4 C5 | BA0 BA1 BA2 BA3 C1 C2 AP"},
};

// LPDDR5/5X (JESD209-5): one cycle per command with CS = H, CA0..CA6 at the
// rising | falling CK edge. Source: LiteDRAM litedram/phy/lpddr5/commands.py.
// In bank-group mode (MR3 OP[4:3] = 00b) the BA2/BA3 pins carry BG0/BG1: the
// decoder splits them out when told the part runs in that mode.
// CAS: its pins are reported as one operand, bit 0 WS_WR, 1 WS_RD, 2 WS_FS,
// 3-6 DC0-DC3, 7 WRX, 8 WXSA, 9 WXSB.
constexpr EncodingRow kLpddr5[] = {
    {"ACT-1", Part::act1, "H H H R14 R15 R16 R17 | BA0 BA1 BA2 BA3 R11 R12 R13"},
    {"ACT-2", Part::act2, "H H L R7 R8 R9 R10 | R0 R1 R2 R3 R4 R5 R6"},
    {"WR16", Part::wr16, "L H H C0 C3 C4 C5 | BA0 BA1 BA2 BA3 C1 C2 AP"},
    {"WR32", Part::wr32, "L L H L C3 C4 C5 | BA0 BA1 BA2 BA3 C1 C2 AP"},
    {"MWR", Part::mwr, "L H L C0 C3 C4 C5 | BA0 BA1 BA2 BA3 C1 C2 AP"},
    {"CAS", Part::cas, "L L H H OP0 OP1 OP2 | OP3 OP4 OP5 OP6 OP7 OP8 OP9"},
    {"PRE", Part::pre, "L L L H H H H | BA0 BA1 BA2 BA3 V V AB"},
    {"REF", Part::ref, "L L L H H H L | BA0 BA1 BA2 RFM SB0 V AB"},
    {"MRW-1", Part::mrw1, "L L L H H L H | MA0 MA1 MA2 MA3 MA4 MA5 MA6"},
    {"MRW-2", Part::mrw2, "L L L H L L OP7 | OP0 OP1 OP2 OP3 OP4 OP5 OP6"},
    {"MRR", Part::mrr, "L L L H H L L | MA0 MA1 MA2 MA3 MA4 MA5 MA6"},
    {"MPC", Part::mpc, "L L L L H H OP7 | OP0 OP1 OP2 OP3 OP4 OP5 OP6"},
    {"SRE", Part::sre, "L L L H L H H | V V V V V V V"},
    {"SRX", Part::srx, "L L L H L H L | V V V V V V V"},
    {"PDE", Part::pde, "L L L L L L H | V V V V V V V"},
    {"NOP", Part::nop, "L L L L L L L | V V V V V V V"},
};

struct Extract {
  std::uint8_t bit;    // bit of the word
  Field field;
  std::uint8_t field_bit;
};

// Extracts of consecutive word bits into consecutive bits of one field,
// taken with one shift and mask (DDR4's A0-A17 are a few runs, not 18 bits).
struct Run {
  std::uint8_t bit;
  Field field;
  std::uint8_t field_bit;
  std::uint8_t length;
};

struct Compiled {
  std::string_view name;
  Part part;
  std::uint64_t fixed_mask = 0;
  std::uint64_t fixed_value = 0;
  std::vector<Extract> extracts;
  std::vector<Run> runs;  // the extracts merged
};

struct Table {
  BusFormat format;
  std::vector<Compiled> rows;
  unsigned key_bits = 0;
  std::vector<std::int8_t> lookup;  // low key_bits of a word -> row, -1: none
  std::map<Part, int> by_part;
};

[[noreturn]] void table_bug(std::string_view name, const char* what) {
  std::fprintf(stderr, "harness: encoding table row %.*s: %s\n", static_cast<int>(name.size()), name.data(), what);
  std::abort();
}

std::optional<Extract> field_token(std::string_view t, unsigned bit) {
  static const std::pair<std::string_view, Field> prefixes[] = {
      {"BA", Field::ba}, {"BG", Field::bg}, {"OP", Field::op}, {"MA", Field::ma}, {"R", Field::row}, {"C", Field::col}};
  if (t == "AP") return Extract{static_cast<std::uint8_t>(bit), Field::ap, 0};
  if (t == "AB") return Extract{static_cast<std::uint8_t>(bit), Field::ab, 0};
  if (t == "BL") return Extract{static_cast<std::uint8_t>(bit), Field::bl, 0};
  if (t == "BC") return Extract{static_cast<std::uint8_t>(bit), Field::bc, 0};
  for (const auto& [prefix, field] : prefixes) {
    if (t.substr(0, prefix.size()) != prefix || t.size() == prefix.size()) continue;
    std::string_view digits = t.substr(prefix.size());
    unsigned n = 0;
    bool numeric = true;
    for (char c : digits) {
      if (c < '0' || c > '9') numeric = false;
      n = n * 10 + static_cast<unsigned>(c - '0');
    }
    if (numeric) return Extract{static_cast<std::uint8_t>(bit), field, static_cast<std::uint8_t>(n)};
  }
  return std::nullopt;  // a pin this decoder does not report (WS_WR, DC0, RFM...)
}

Compiled compile(const EncodingRow& row, const BusFormat& f) {
  Compiled c{row.name, row.part, 0, 0, {}, {}};
  unsigned edge = 0, pin = 0;
  std::string_view p = row.pattern;
  while (!p.empty()) {
    std::size_t sp = p.find(' ');
    std::string_view t = p.substr(0, sp);
    p = sp == std::string_view::npos ? std::string_view() : p.substr(sp + 1);
    if (t.empty()) continue;
    if (t == "|") {
      if (pin != f.edge_width) table_bug(row.name, "wrong number of pins in an edge");
      ++edge;
      pin = 0;
      continue;
    }
    if (pin >= f.edge_width) table_bug(row.name, "too many pins in an edge");
    unsigned bit = edge * f.edge_width + pin++;
    if (t == "H" || t == "L") {
      c.fixed_mask |= std::uint64_t{1} << bit;
      if (t == "H") c.fixed_value |= std::uint64_t{1} << bit;
    } else if (t != "V") {
      if (std::optional<Extract> e = field_token(t, bit)) c.extracts.push_back(*e);
    }
  }
  if (pin != f.edge_width || edge + 1 != f.edges) table_bug(row.name, "wrong number of pins or edges");
  for (const Extract& e : c.extracts) {
    Run* last = c.runs.empty() ? nullptr : &c.runs.back();
    if (last && e.field == last->field && e.bit == last->bit + last->length &&
        e.field_bit == last->field_bit + last->length)
      ++last->length;
    else
      c.runs.push_back({e.bit, e.field, e.field_bit, 1});
  }
  return c;
}

Table build(BusFormat format, std::initializer_list<std::span<const EncodingRow>> parts, unsigned key_bits) {
  Table t;
  t.format = std::move(format);
  t.key_bits = key_bits;
  for (std::span<const EncodingRow> rows : parts)
    for (const EncodingRow& r : rows) t.rows.push_back(compile(r, t.format));
  const std::uint64_t key_mask = (std::uint64_t{1} << key_bits) - 1;
  t.lookup.assign(std::size_t{1} << key_bits, -1);
  for (std::size_t i = 0; i < t.rows.size(); ++i) {
    const Compiled& c = t.rows[i];
    if (c.fixed_mask & ~key_mask) table_bug(c.name, "fixed pins outside the lookup key");
    t.by_part.emplace(c.part, static_cast<int>(i));
    for (std::uint64_t k = 0; k <= key_mask; ++k) {
      if ((k & c.fixed_mask) != c.fixed_value) continue;
      if (t.lookup[k] >= 0) table_bug(c.name, "two encodings match the same pins");
      t.lookup[k] = static_cast<std::int8_t>(i);
    }
  }
  return t;
}

std::vector<std::string> numbered(std::string prefix, unsigned n) {
  std::vector<std::string> v;
  for (unsigned i = 0; i < n; ++i) v.push_back(prefix + std::to_string(i));
  return v;
}

const Table& table(Standard s) {
  static const Table ddr4 = [] {
    std::vector<std::string> pins = {"ACT_n", "RAS_n", "CAS_n", "WE_n", "BG0", "BG1", "BA0", "BA1"};
    for (unsigned i = 0; i <= 13; ++i) pins.push_back(fmt::format("A{}", i));
    pins.push_back("A17");
    return build({Standard::ddr4, 23, 1, false, 1, pins, "CS_n", false}, {kDdr4}, 4);
  }();
  static const Table lpddr4 = build({Standard::lpddr4, 6, 2, false, 2, numbered("CA", 6), "CS", true}, {kLpddr4}, 6);
  static const Table lpddr5 =
      build({Standard::lpddr5, 7, 2, true, 1, numbered("CA", 7), "CS", true}, {kLpddr5Reads, kLpddr5}, 7);
  switch (s) {
    case Standard::ddr4: return ddr4;
    case Standard::lpddr4: return lpddr4;
    case Standard::lpddr5: return lpddr5;
  }
  return lpddr4;
}

Fields extract(const Compiled& c, std::uint64_t word) {
  Fields f;
  for (const Run& r : c.runs)
    f.value[static_cast<int>(r.field)] |=
        static_cast<std::uint32_t>((word >> r.bit) & ((std::uint64_t{1} << r.length) - 1)) << r.field_bit;
  return f;
}

}  // namespace

const BusFormat& bus_format(Standard standard) { return table(standard).format; }

namespace {

// Decoding a word is a pure function of at most 14 bits for the LPDDR
// buses: precompute all of them once (16384 x 72 bytes for LPDDR5).
struct WordCache {
  unsigned bits = 0;
  std::vector<std::optional<SubCommand>> entries;
};

std::optional<SubCommand> decode_uncached(Standard standard, std::uint64_t word);

const WordCache& word_cache(Standard s) {
  auto build = [](Standard st) {
    WordCache c;
    const BusFormat& f = bus_format(st);
    c.bits = f.edge_width * f.edges;
    c.entries.resize(std::size_t{1} << c.bits);
    for (std::uint64_t w = 0; w < c.entries.size(); ++w) c.entries[w] = decode_uncached(st, w);
    return c;
  };
  static const WordCache lpddr4 = build(Standard::lpddr4);
  static const WordCache lpddr5 = build(Standard::lpddr5);
  return s == Standard::lpddr5 ? lpddr5 : lpddr4;
}

}  // namespace

std::optional<SubCommand> decode_word(Standard standard, std::uint64_t word) {
  if (standard != Standard::ddr4) {
    const WordCache& c = word_cache(standard);
    if (word < c.entries.size()) return c.entries[word];
  }
  return decode_uncached(standard, word);
}

namespace {

std::optional<SubCommand> decode_uncached(Standard standard, std::uint64_t word) {
  const Table& t = table(standard);
  std::int8_t i = t.lookup[word & ((std::uint64_t{1} << t.key_bits) - 1)];
  if (i < 0) return std::nullopt;
  const Compiled& c = t.rows[static_cast<std::size_t>(i)];
  return SubCommand{c.part, extract(c, word), c.name};
}

}  // namespace

std::uint64_t encode_word(Standard standard, Part part, const Fields& fields) {
  const Table& t = table(standard);
  auto it = t.by_part.find(part);
  if (it == t.by_part.end()) table_bug("?", "no encoding for a part of this standard");
  const Compiled& c = t.rows[static_cast<std::size_t>(it->second)];
  std::uint64_t w = c.fixed_value;
  for (const Extract& e : c.extracts)
    if ((fields.get(e.field) >> e.field_bit) & 1) w |= std::uint64_t{1} << e.bit;
  return w;
}

std::vector<SubCommand> split_command(Standard s, const Command& c) {
  Fields f;
  auto nn = [](std::int32_t v) { return v < 0 ? 0u : static_cast<std::uint32_t>(v); };
  // LPDDR5 bank-group mode: BG0/BG1 travel on the BA2/BA3 pins.
  const bool lpddr5_groups = s == Standard::lpddr5 && c.bank_group >= 0;
  f.set(Field::ba, lpddr5_groups ? (nn(c.bank) & 3) | nn(c.bank_group) << 2 : nn(c.bank));
  f.set(Field::bg, nn(c.bank_group));
  f.set(Field::row, nn(c.row));
  f.set(Field::col, nn(c.column));
  f.set(Field::ap, c.auto_precharge);
  f.set(Field::ab, c.all_banks);
  f.set(Field::bl, c.burst == 32);
  f.set(Field::bc, c.burst != 4);
  f.set(Field::op, nn(c.operand));
  f.set(Field::ma, nn(c.address));
  auto one = [&](Part p) { return std::vector<SubCommand>{{p, f, {}}}; };
  auto two = [&](Part a, Part b) { return std::vector<SubCommand>{{a, f, {}}, {b, f, {}}}; };
  switch (s) {
    case Standard::ddr4:
      switch (c.op) {
        case Op::act: return one(Part::act);
        case Op::rd: return one(Part::rd);
        case Op::wr: return one(Part::wr);
        case Op::pre: return one(Part::pre);
        case Op::ref: return one(Part::ref);
        case Op::mrs: return one(Part::mrs);
        case Op::zqc: return one(Part::zqc);
        case Op::nop: return one(Part::nop);
        default: return {};
      }
    case Standard::lpddr4:
      switch (c.op) {
        case Op::act: return two(Part::act1, Part::act2);
        case Op::rd: return two(Part::rd, Part::cas2);
        case Op::wr: return two(Part::wr, Part::cas2);
        case Op::mwr: return two(Part::mwr, Part::cas2);
        case Op::pre: return one(Part::pre);
        case Op::ref: return one(Part::ref);
        case Op::mrw: return two(Part::mrw1, Part::mrw2);
        case Op::mrr: return two(Part::mrr, Part::cas2);
        case Op::mpc: return one(Part::mpc);
        case Op::sre: return one(Part::sre);
        case Op::srx: return one(Part::srx);
        default: return {};
      }
    case Standard::lpddr5:
      switch (c.op) {
        case Op::act: return two(Part::act1, Part::act2);
        case Op::rd: return one(c.burst == 32 ? Part::rd32 : Part::rd16);
        case Op::wr: return one(c.burst == 32 ? Part::wr32 : Part::wr16);
        case Op::mwr: return one(Part::mwr);
        case Op::cas: return one(Part::cas);
        case Op::pre: return one(Part::pre);
        case Op::ref: return one(Part::ref);
        case Op::mrw: return two(Part::mrw1, Part::mrw2);
        case Op::mrr: return one(Part::mrr);
        case Op::mpc: return one(Part::mpc);
        case Op::sre: return one(Part::sre);
        case Op::srx: return one(Part::srx);
        case Op::pde: return one(Part::pde);
        case Op::nop: return one(Part::nop);
        default: return {};
      }
  }
  return {};
}

namespace {

std::uint16_t unknown_bit(Field f) {
  switch (f) {
    case Field::ba: return kUnknownBank;
    case Field::bg: return kUnknownBankGroup;
    case Field::row: return kUnknownRow;
    case Field::col: return kUnknownColumn;
    case Field::ap: return kUnknownAutoPrecharge;
    case Field::bl:
    case Field::bc: return kUnknownBurst;
    case Field::ab: return kUnknownAllBanks;
    case Field::op: return kUnknownOperand;
    case Field::ma: return kUnknownAddress;
    case Field::count: break;
  }
  return 0;
}

// The lookup-key bits that carry a fixed level in some row.
std::uint64_t command_key_bits(const Table& t) {
  std::uint64_t bits = 0;
  for (const Compiled& c : t.rows) bits |= c.fixed_mask;
  return bits;
}

}  // namespace

std::string compress_pin_list(const std::vector<std::string>& pins) {
  // Runs of one prefix with consecutive numbers become "A0-A9".
  auto split = [](const std::string& p) -> std::pair<std::string, int> {
    std::size_t i = p.size();
    while (i > 0 && p[i - 1] >= '0' && p[i - 1] <= '9') --i;
    if (i == p.size() || i == 0) return {p, -1};
    return {p.substr(0, i), std::stoi(p.substr(i))};
  };
  std::string out;
  for (std::size_t i = 0; i < pins.size();) {
    auto [prefix, n] = split(pins[i]);
    std::size_t j = i + 1;
    if (n >= 0)
      while (j < pins.size() && split(pins[j]).first == prefix && split(pins[j]).second == n + static_cast<int>(j - i))
        ++j;
    out += out.empty() ? "" : ", ";
    out += j - i >= 3 ? fmt::format("{}-{}", pins[i], pins[j - 1]) : pins[i];
    if (j - i == 2) out += ", " + pins[i + 1];
    i = j;
  }
  return out;
}

std::vector<std::string> command_pins(Standard standard) {
  const Table& t = table(standard);
  const std::uint64_t key = command_key_bits(t);
  std::vector<std::string> pins;
  for (unsigned b = 0; b < t.format.edge_width * t.format.edges; ++b)
    if (key >> b & 1) pins.push_back(t.format.pins[b % t.format.edge_width]);
  return pins;
}

bool ProbeCoverage::complete() const {
  for (PinState p : pins)
    if (p == PinState::not_probed) return false;
  return true;
}

bool ProbeCoverage::ambiguous(Op op) const {
  for (unsigned burst : {4u, 8u, 16u, 32u}) {
    Command c;
    c.op = op;
    c.burst = static_cast<std::uint16_t>(burst);
    for (const SubCommand& sub : split_command(standard, c))
      if (ambiguous_parts >> static_cast<unsigned>(sub.part) & 1) return true;
  }
  return false;
}

std::string ProbeCoverage::missing(std::initializer_list<Op> ops, std::uint16_t fields) const {
  std::uint16_t open = 0;
  bool look_alike = false;
  for (Op op : ops) {
    open |= unknown[static_cast<int>(op)] & fields;
    look_alike = look_alike || ambiguous(op);
  }
  std::vector<std::string> pins_needed;
  auto add = [&](const std::string& p) {
    if (std::find(pins_needed.begin(), pins_needed.end(), p) == pins_needed.end()) pins_needed.push_back(p);
  };
  for (int b = 0; b < kUnknownFieldCount; ++b)
    if (open >> b & 1)
      for (const std::string& p : field_pins[static_cast<std::size_t>(b)]) add(p);
  if (look_alike) {
    const BusFormat& f = bus_format(standard);
    for (const std::string& p : command_pins(standard)) {
      const auto at = std::find(f.pins.begin(), f.pins.end(), p) - f.pins.begin();
      if (pins[static_cast<std::size_t>(at)] == PinState::not_probed) add(p);
    }
  }
  if (pins_needed.empty()) return {};
  // Pins in bus order.
  const BusFormat& f = bus_format(standard);
  std::vector<std::string> ordered;
  for (const std::string& p : f.pins)
    if (std::find(pins_needed.begin(), pins_needed.end(), p) != pins_needed.end()) ordered.push_back(p);
  return compress_pin_list(ordered) + " not probed";
}

std::string ProbeCoverage::unprobed_pins() const {
  const BusFormat& f = bus_format(standard);
  std::vector<std::string> v;
  for (std::size_t i = 0; i < pins.size(); ++i)
    if (pins[i] == PinState::not_probed) v.push_back(f.pins[i]);
  return compress_pin_list(v);
}

std::string ProbeCoverage::unprobed_command_pins() const {
  const BusFormat& f = bus_format(standard);
  std::vector<std::string> v;
  for (const std::string& p : command_pins(standard)) {
    const auto at = static_cast<std::size_t>(std::find(f.pins.begin(), f.pins.end(), p) - f.pins.begin());
    if (pins[at] == PinState::not_probed) v.push_back(p);
  }
  return compress_pin_list(v);
}

Result<ProbeCoverage> probe_coverage(Standard standard, std::vector<PinState> pins) {
  const Table& t = table(standard);
  const BusFormat& f = t.format;
  if (pins.size() != f.pins.size()) table_bug("?", "probe set of the wrong size");
  ProbeCoverage cov;
  cov.standard = standard;
  cov.pins = std::move(pins);
  auto pin_of = [&](unsigned bit) { return bit % f.edge_width; };
  std::uint64_t known_bits = 0;  // word bits whose level is known (probed or not connected)
  for (unsigned b = 0; b < f.edge_width * f.edges; ++b)
    if (cov.pins[pin_of(b)] != PinState::not_probed) known_bits |= std::uint64_t{1} << b;
  // Unknown fields of each sub-command, and the pins behind them.
  std::map<Part, std::uint16_t> part_unknown;
  for (const Compiled& c : t.rows) {
    std::uint16_t u = 0;
    for (const Extract& e : c.extracts) {
      if (known_bits >> e.bit & 1) continue;
      const std::uint16_t bit = unknown_bit(e.field);
      u |= bit;
      std::vector<std::string>& names = cov.field_pins[static_cast<std::size_t>(std::countr_zero(bit))];
      const std::string& pin = f.pins[pin_of(e.bit)];
      if (std::find(names.begin(), names.end(), pin) == names.end()) names.push_back(pin);
    }
    part_unknown[c.part] |= u;
  }
  // Look-alikes: two rows whose fixed levels differ only on unprobed pins.
  const std::uint64_t key = (std::uint64_t{1} << t.key_bits) - 1;
  std::vector<bool> alone(t.rows.size(), true);
  for (std::size_t i = 0; i < t.rows.size(); ++i) {
    std::string group;
    for (std::size_t j = 0; j < t.rows.size(); ++j) {
      const Compiled &a = t.rows[i], &b = t.rows[j];
      if (i == j || ((a.fixed_value ^ b.fixed_value) & a.fixed_mask & b.fixed_mask & known_bits & key) != 0) continue;
      alone[i] = false;
      cov.ambiguous_parts |= std::uint32_t{1} << static_cast<unsigned>(a.part);
      if (j > i) group += (group.empty() ? std::string(a.name) : std::string()) + "/" + std::string(b.name);
    }
    if (!group.empty()) cov.ambiguous_names.push_back(group);
  }
  if (std::none_of(alone.begin(), alone.end(), [](bool b) { return b; })) {
    std::vector<std::string> needed = command_pins(standard), missing;
    for (const std::string& p : needed) {
      const auto at = std::find(f.pins.begin(), f.pins.end(), p) - f.pins.begin();
      if (cov.pins[static_cast<std::size_t>(at)] == PinState::not_probed) missing.push_back(p);
    }
    return Error::input(fmt::format("the probed pins tell no {} command from another: decoding needs CK, {} and {} "
                                    "({} not probed)",
                                    standard_name(standard), f.chip_select, compress_pin_list(needed),
                                    compress_pin_list(missing)));
  }
  // The lookup by the probed pins: a key's row is the one row whose fixed
  // levels on known pins match (unknown pins are read as low by the sampler
  // and must not decide).
  if (!cov.complete()) {
    cov.lookup.assign(std::size_t{1} << t.key_bits, -1);
    for (std::uint64_t k = 0; k <= key; ++k) {
      if (k & ~known_bits) continue;  // unknown pins read low
      int found = -1;
      for (std::size_t i = 0; i < t.rows.size(); ++i) {
        const Compiled& c = t.rows[i];
        if (((k ^ c.fixed_value) & c.fixed_mask & known_bits) != 0) continue;
        found = found == -1 ? static_cast<int>(i) : -2;
      }
      cov.lookup[k] = static_cast<std::int8_t>(found < 0 ? -1 : found);
    }
  }
  // Per command: the union over the sub-commands it is sent as.
  for (int op = 0; op < kOpCount; ++op)
    for (unsigned burst : {4u, 8u, 16u, 32u}) {
      Command c;
      c.op = static_cast<Op>(op);
      c.burst = static_cast<std::uint16_t>(burst);
      for (const SubCommand& sub : split_command(standard, c)) cov.unknown[static_cast<std::size_t>(op)] |= part_unknown[sub.part];
    }
  return cov;
}

namespace {

Command make(Op op, std::uint64_t cycle, double time) {
  Command c;
  c.op = op;
  c.cycle = cycle;
  c.time = time;
  return c;
}

// A sub-command that is a whole command by itself (or the second half of a
// pair, given the first) is appended to `out`; false when it needs a partner.
// Commands are built in place in `out`: copying a freshly built one would
// cost more than decoding it.
[[gnu::always_inline]] inline bool complete(Standard s, const SubCommand& sub, const SubCommand* first,
                                            std::uint64_t cycle, double time, std::vector<Command>& out) {
  const Fields& f = sub.fields;
  auto i32 = [](std::uint32_t v) { return static_cast<std::int32_t>(v); };
  auto merged = [&](Field field) __attribute__((always_inline)) {
    return i32(f.get(field) | (first ? first->fields.get(field) : 0));
  };
  auto emit = [&](Op op) __attribute__((always_inline)) -> Command& {
    Command& c = out.emplace_back();
    c.op = op;
    c.cycle = cycle;
    c.time = time;
    return c;
  };
  auto column = [&](Op op, std::uint16_t burst) __attribute__((always_inline)) {
    Command& c = emit(op);
    const Fields& head = first ? first->fields : f;
    c.bank = i32(head.get(Field::ba));
    if (s == Standard::ddr4) c.bank_group = i32(head.get(Field::bg));
    c.column = merged(Field::col);
    c.auto_precharge = head.get(Field::ap);
    c.burst = burst;
    return true;
  };
  switch (sub.part) {
    case Part::act: {
      Command& c = emit(Op::act);
      c.bank_group = i32(f.get(Field::bg));
      c.bank = i32(f.get(Field::ba));
      c.row = i32(f.get(Field::row));
      return true;
    }
    case Part::act2: {
      if (!first || first->part != Part::act1) return false;
      Command& c = emit(Op::act);
      c.bank = i32(first->fields.get(Field::ba));
      c.row = merged(Field::row);
      return true;
    }
    case Part::rd: return s == Standard::ddr4 && column(Op::rd, f.get(Field::bc) ? 8 : 4);
    case Part::wr: return s == Standard::ddr4 && column(Op::wr, f.get(Field::bc) ? 8 : 4);
    case Part::cas2: {
      if (!first) return false;
      std::uint16_t bl = first->fields.get(Field::bl) ? 32 : 16;
      if (first->part == Part::rd) return column(Op::rd, bl);
      if (first->part == Part::wr) return column(Op::wr, bl);
      if (first->part == Part::mwr) return column(Op::mwr, bl);
      if (first->part == Part::mrr) {
        emit(Op::mrr).address = i32(first->fields.get(Field::ma));
        return true;
      }
      return false;
    }
    case Part::rd16: return column(Op::rd, 16);
    case Part::rd32: return column(Op::rd, 32);
    case Part::wr16: return column(Op::wr, 16);
    case Part::wr32: return column(Op::wr, 32);
    case Part::mwr: return s == Standard::lpddr5 && column(Op::mwr, 16);
    case Part::pre:
    case Part::ref: {
      Command& c = emit(sub.part == Part::pre ? Op::pre : Op::ref);
      c.all_banks = f.get(Field::ab) || (s == Standard::ddr4 && sub.part == Part::ref);
      if (!c.all_banks) {
        c.bank = i32(f.get(Field::ba));
        if (s == Standard::ddr4) c.bank_group = i32(f.get(Field::bg));
      }
      return true;
    }
    case Part::mrw2: {
      if (!first || first->part != Part::mrw1) return false;
      Command& c = emit(Op::mrw);
      c.address = i32(first->fields.get(Field::ma));
      c.operand = merged(Field::op);
      return true;
    }
    case Part::mrr:
      if (s != Standard::lpddr5) return false;
      emit(Op::mrr).address = i32(f.get(Field::ma));
      return true;
    case Part::mrs: {
      Command& c = emit(Op::mrs);
      c.address = i32(f.get(Field::ma));
      c.operand = i32(f.get(Field::op));
      return true;
    }
    case Part::mpc:
    case Part::zqc: emit(sub.part == Part::mpc ? Op::mpc : Op::zqc).operand = i32(f.get(Field::op)); return true;
    case Part::cas: emit(Op::cas).operand = i32(f.get(Field::op)); return true;
    case Part::sre: emit(Op::sre); return true;
    case Part::srx: emit(Op::srx); return true;
    case Part::pde: emit(Op::pde); return true;
    case Part::nop: emit(Op::nop); return true;
    case Part::act1:
    case Part::mrw1: return false;
  }
  return false;
}

// Sub-commands that wait for a second half.
static_assert(static_cast<int>(Part::nop) < 32, "CommandAssembler::pair_parts_ holds a bit per Part");
bool opens_pair(Standard s, Part p) {
  if (p == Part::act1 || p == Part::mrw1) return true;
  if (s == Standard::lpddr4) return p == Part::rd || p == Part::wr || p == Part::mwr || p == Part::mrr;
  return false;
}

}  // namespace

CommandAssembler::CommandAssembler(Standard standard) : standard_(standard) {
  for (int p = 0; p <= static_cast<int>(Part::nop); ++p)
    if (opens_pair(standard, static_cast<Part>(p))) pair_parts_ |= std::uint32_t{1} << p;
  if (standard != Standard::ddr4) use_cache(word_cache(standard).entries);
}

CommandAssembler::CommandAssembler(Standard standard, const ProbeCoverage& coverage) : CommandAssembler(standard) {
  if (coverage.lookup.empty()) return;
  if (!cache_) {
    lookup_ = &coverage.lookup;
    return;
  }
  // LPDDR: a private word table by the probed pins, so the per-word path
  // stays a table lookup.
  const Table& t = table(standard);
  own_cache_.assign(cache_size_, std::nullopt);
  const std::uint64_t key = (std::uint64_t{1} << t.key_bits) - 1;
  for (std::uint64_t w = 0; w < own_cache_.size(); ++w) {
    const std::int8_t i = coverage.lookup[w & key];
    if (i < 0) continue;
    const Compiled& c = t.rows[static_cast<std::size_t>(i)];
    own_cache_[w] = SubCommand{c.part, extract(c, w), c.name};
  }
  use_cache(own_cache_);
}

void CommandAssembler::add(std::uint64_t cycle, double time, std::uint64_t word, std::vector<Command>& out) {
  // LPDDR words come from the precomputed table (no copy); DDR4's are decoded.
  if (word >= cache_size_) {
    const TimedWord w{cycle, time, word};
    return add_decoded(std::span<const TimedWord>(&w, 1), out);
  }
  if (const std::optional<SubCommand>& e = cache_[word]) return add_known(*e, true, cycle, time, out);
  finish(out);
  out.push_back(make(Op::unknown, cycle, time));
}

// Per word the decoding is a few table reads and stores; the calls around
// them (add, add_known, the vector's growth) cost as much again when not
// inlined, so a run of words is assembled in one flattened loop.
[[gnu::flatten]] void CommandAssembler::add(std::span<const TimedWord> words, std::vector<Command>& out) {
  if (!cache_size_) return add_decoded(words, out);  // DDR4
  for (const TimedWord& w : words) add(w.cycle, w.time, w.word, out);
}

// The plain words of edge groups, read and assembled in one loop (no buffer
// of timed words between the two).
[[gnu::flatten]] std::size_t CommandAssembler::add(std::span<const EdgeGroup> groups, double period,
                                                   ContiguousPins pins, std::vector<Command>& out) {
  std::size_t i = 0;
  for (; i < groups.size(); ++i) {
    const EdgeGroup& g = groups[i];
    if (g.cke != CkeChange::none) break;
    add(g.cycle, static_cast<double>(g.sample) * period, pins.word(g.first, g.second), out);
  }
  return i;
}

// Words without a table entry (DDR4's, all of them), each decoded: out of
// line, so that the table loop above stays small enough to keep its state in
// registers (with this path inlined it spilled its own loop counter to the
// stack, which cost about 30 % of the assembler's time).
[[gnu::noinline, gnu::flatten]] void CommandAssembler::add_decoded(std::span<const TimedWord> words,
                                                                 std::vector<Command>& out) {
  for (const TimedWord& w : words) {
    if (lookup_) {
      const Table& t = table(standard_);
      const std::int8_t i = (*lookup_)[w.word & ((std::uint64_t{1} << t.key_bits) - 1)];
      if (i >= 0) {
        const Compiled& c = t.rows[static_cast<std::size_t>(i)];
        add_known(SubCommand{c.part, extract(c, w.word), c.name}, false, w.cycle, w.time, out);
        continue;
      }
    } else if (std::optional<SubCommand> decoded = decode_word(standard_, w.word)) {
      add_known(*decoded, false, w.cycle, w.time, out);
      continue;
    }
    finish(out);
    out.push_back(make(Op::unknown, w.cycle, w.time));
  }
}

void CommandAssembler::add_known(const SubCommand& sub, bool in_table, std::uint64_t cycle, double time,
                                 std::vector<Command>& out) {
  if (pending_) {
    if (complete(standard_, sub, pending_, pending_cycle_, pending_time_, out)) {
      pending_ = nullptr;
      return;
    }
    finish(out);  // the first half had no second half
  }
  // Only LPDDR sub-commands open pairs, and those live in the table.
  if (in_table && (pair_parts_ >> static_cast<unsigned>(sub.part) & 1)) {
    pending_ = &sub;
    pending_cycle_ = cycle;
    pending_time_ = time;
    return;
  }
  if (!complete(standard_, sub, nullptr, cycle, time, out)) out.push_back(make(Op::unknown, cycle, time));
}

void CommandAssembler::finish(std::vector<Command>& out) {
  if (!pending_) return;
  out.push_back(make(Op::unknown, pending_cycle_, pending_time_));
  pending_ = nullptr;
}

}  // namespace harness::ddr
