// Command encodings of the three command buses, as data: each row of the
// tables in encoding.cc is the truth-table line of the standard written as
// text ("H L R12 R13 R14 R15 | BA0 BA1 BA2 R16 R10 R11"), compiled once into
// masks. The decoder and the synthesizer both use these tables, so an
// encoding is stated in exactly one place.
//
// A "word" is the bits a bus carries for one (sub-)command:
//   DDR4   one CK rising edge: ACT_n RAS_n CAS_n WE_n BG0 BG1 BA0 BA1 A0..A13 A17
//   LPDDR4 two rising edges:   CA0..CA5 of cycle 1, then CA0..CA5 of cycle 2
//   LPDDR5 one cycle:          CA0..CA6 at the rising edge, then at the falling edge
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "harness/ddr/command.h"

namespace harness::ddr {

// Sub-commands as the tables name them.
enum class Part : std::uint8_t {
  act, act1, act2, rd, rd16, rd32, wr, wr16, wr32, mwr, cas, cas2, pre, ref,
  mrw1, mrw2, mrr, mpc, mrs, zqc, sre, srx, pde, nop,
};

enum class Field : std::uint8_t { ba, bg, row, col, ap, bl, ab, bc, op, ma, count };
constexpr int kFieldCount = static_cast<int>(Field::count);

struct Fields {
  std::array<std::uint32_t, kFieldCount> value{};
  std::uint32_t get(Field f) const { return value[static_cast<int>(f)]; }
  void set(Field f, std::uint32_t v) { value[static_cast<int>(f)] = v; }
};

struct BusFormat {
  Standard standard;
  unsigned edge_width;            // pins sampled per edge
  unsigned edges;                 // edges per word
  bool double_rate;               // CA sampled on both CK edges (LPDDR5)
  unsigned cycles_per_word;       // CK cycles one word occupies
  std::vector<std::string> pins;  // capture channel role of each pin of an edge
  std::string chip_select;        // "CS_n" (active low) or "CS" (active high)
  bool chip_select_active_high;
};
const BusFormat& bus_format(Standard standard);

struct SubCommand {
  Part part;
  Fields fields;
  std::string_view name;  // as in the table: "ACT-1"
};

// The sub-command a word encodes, or nothing for an unknown encoding.
std::optional<SubCommand> decode_word(Standard standard, std::uint64_t word);
// The word for a sub-command; bits the table marks V are low.
std::uint64_t encode_word(Standard standard, Part part, const Fields& fields);

// How a command is sent: its sub-commands in order (each one word).
std::vector<SubCommand> split_command(Standard standard, const Command& command);

// How a pin of the command bus reached the capture.
enum class PinState : std::uint8_t {
  probed,         // a capture channel carries it
  not_probed,     // the part has it, the capture does not: the bits it carries are unknown
  not_connected,  // the part has no such pin (DDR4 x16: BG1): the bits it would carry are low
};

// What a probe set lets the decoder know, derived from the encoding table:
// a field is unknown for a command when some bit of it travels on a pin
// that was not probed; a sub-command is ambiguous when the probed pins of
// the table's lookup key do not tell it from another one (its words decode
// as UNKNOWN, never as a guess).
struct ProbeCoverage {
  Standard standard = Standard::lpddr4;
  std::vector<PinState> pins;                     // per BusFormat pin
  std::array<std::uint16_t, kOpCount> unknown{};  // per Op: UnknownField bits left open
  std::uint32_t ambiguous_parts = 0;              // bit per Part
  // Lookup key -> table row, from the probed pins only (-1: no row or
  // several); empty when every pin was probed.
  std::vector<std::int8_t> lookup;
  std::vector<std::string> ambiguous_names;       // "RD/WR" per group of look-alike sub-commands
  std::array<std::vector<std::string>, kUnknownFieldCount> field_pins;  // the unprobed pins of each field

  // Every pin the standard has was probed: the decoder knows every field.
  bool complete() const;
  bool ambiguous(Op op) const;
  // Empty when `fields` of every command in `ops` are known and none of
  // `ops` is ambiguous; else why not: "A10, A12 not probed".
  std::string missing(std::initializer_list<Op> ops, std::uint16_t fields) const;
  // The unprobed pins, compressed: "A0-A9, A11, A13, A17".
  std::string unprobed_pins() const;
  // Those of them that separate commands (command_pins()): "WE_n".
  std::string unprobed_command_pins() const;
};

// The roles of the pins that separate commands (CS excluded): DDR4 ACT_n,
// RAS_n, CAS_n, WE_n; LPDDR4 CA0-CA4; LPDDR5 CA0-CA6.
std::vector<std::string> command_pins(Standard standard);
// Refuses a probe set whose pins tell no command from another, naming the pins needed.
Result<ProbeCoverage> probe_coverage(Standard standard, std::vector<PinState> pins);
// "A0-A9, A11" from "A0".."A9", "A11".
std::string compress_pin_list(const std::vector<std::string>& pins);

// A command word with the time of its first edge (no initialisers: the
// decoder's buffer of them is written before it is read).
struct TimedWord {
  std::uint64_t cycle;
  double time;
  std::uint64_t word;
};

// CKE at a rising edge, compared with the previous edge (power-down and
// DDR4 self-refresh entry and exit).
enum class CkeChange : std::uint8_t { none, fell, rose };

// One command-carrying clock cycle, or an edge where CKE changed.
struct EdgeGroup {
  std::uint64_t cycle = 0;   // index of the rising edge
  std::uint64_t sample = 0;  // sample index of the rising edge
  std::uint64_t first = 0;   // all channels at the rising edge
  std::uint64_t second = 0;  // at the falling edge (LPDDR5) or next rising edge (LPDDR4)
  CkeChange cke = CkeChange::none;
};

// A command word's pins on consecutive channels of the samples, from
// `shift` (BusLayout::contiguous: the usual wiring).
struct ContiguousPins {
  unsigned shift = 0, width = 0;
  bool two_edges = false;  // the word spans two edges (LPDDR4, LPDDR5)
  // The word carried by the first and second edge samples.
  std::uint64_t word(std::uint64_t first, std::uint64_t second) const {
    const std::uint64_t mask = (std::uint64_t{1} << width) - 1, second_mask = two_edges ? mask : 0;
    return ((first >> shift) & mask) | (((second >> shift) & second_mask) << width);
  }
};

// Assembles decoded sub-commands into commands (LPDDR4 ACT-1 + ACT-2,
// READ-1 + CAS-2, ...). Feed words in bus order.
class CommandAssembler {
 public:
  explicit CommandAssembler(Standard standard);
  // Decodes by the probed pins only (ProbeCoverage::lookup): an unprobed
  // pin is not read as low, and look-alike sub-commands decode as UNKNOWN.
  CommandAssembler(Standard standard, const ProbeCoverage& coverage);
  // `cycle` and `time` are those of the word's first edge.
  void add(std::uint64_t cycle, double time, std::uint64_t word, std::vector<Command>& out);
  // The same for a run of words: one call, the per-word steps inlined.
  void add(std::span<const TimedWord> words, std::vector<Command>& out);
  // The words of edge groups read at `pins` (one rank, every pin probed),
  // up to the first group with a CKE change; returns the groups taken.
  // `period`: seconds per sample. Only for a standard with a word table.
  std::size_t add(std::span<const EdgeGroup> groups, double period, ContiguousPins pins, std::vector<Command>& out);
  bool has_word_table() const { return cache_size_ != 0; }
  void finish(std::vector<Command>& out);
  // It points into its own word table: not copied.
  CommandAssembler(const CommandAssembler&) = delete;
  CommandAssembler& operator=(const CommandAssembler&) = delete;

 private:
  void use_cache(const std::vector<std::optional<SubCommand>>& table) {
    cache_ = table.data();
    cache_size_ = table.size();
  }
  void add_decoded(std::span<const TimedWord> words, std::vector<Command>& out);
  // `in_table`: `sub` lives in the word table, so it may wait for its second half.
  void add_known(const SubCommand& sub, bool in_table, std::uint64_t cycle, double time, std::vector<Command>& out);
  Standard standard_;
  std::uint32_t pair_parts_ = 0;  // bit per Part: the sub-commands that wait for a second half
  // LPDDR: word -> sub-command (the table's start and size kept here: read
  // through the vector, each word paid a division by the entry size).
  const std::optional<SubCommand>* cache_ = nullptr;
  std::size_t cache_size_ = 0;
  const std::vector<std::int8_t>* lookup_ = nullptr;  // DDR4 with unprobed pins: the probe set's lookup
  std::vector<std::optional<SubCommand>> own_cache_;  // LPDDR with unprobed pins: the word table by the probed pins
  const SubCommand* pending_ = nullptr;  // a first half waiting for its second (points into cache_)
  std::uint64_t pending_cycle_ = 0;
  double pending_time_ = 0;
};

}  // namespace harness::ddr
