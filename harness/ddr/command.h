// DRAM commands as the decoder reports them and the synthesizer consumes
// them: one struct for DDR4, LPDDR4 and LPDDR5 (LPDDR5X uses LPDDR5's
// encodings), fields that a command does not carry are -1.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "harness/base/result.h"

namespace harness::ddr {

enum class Standard { ddr4, lpddr4, lpddr5 };
std::string_view standard_name(Standard s);  // "ddr4", "lpddr4", "lpddr5"
std::optional<Standard> standard_from_name(std::string_view name);

enum class Op : std::uint8_t {
  act, rd, wr, mwr, pre, ref, mrw, mrr, mpc, mrs, zqc, cas, sre, srx, pde, pdx, nop,
  unknown,  // CS active but no known encoding (or a first half with no second)
};
constexpr int kOpCount = static_cast<int>(Op::unknown) + 1;
std::string_view op_name(Op op);  // "ACT", "RD", ...
std::optional<Op> op_from_name(std::string_view name);
inline bool is_column(Op op) { return op == Op::rd || op == Op::wr || op == Op::mwr; }
inline bool is_read(Op op) { return op == Op::rd; }
inline bool is_write(Op op) { return op == Op::wr || op == Op::mwr; }

// Fields of a command that the probed pins do not determine (bit masks of
// Command::unknown): the decoder marks them instead of guessing. A marked
// integer field is also -1; a marked burst is 0.
enum UnknownField : std::uint16_t {
  kUnknownBankGroup = 1 << 0,
  kUnknownBank = 1 << 1,
  kUnknownRow = 1 << 2,
  kUnknownColumn = 1 << 3,
  kUnknownAutoPrecharge = 1 << 4,
  kUnknownAllBanks = 1 << 5,
  kUnknownBurst = 1 << 6,
  kUnknownAddress = 1 << 7,
  kUnknownOperand = 1 << 8,
};
constexpr int kUnknownFieldCount = 9;
// "bank group", "bank", "row", "column", "auto-precharge", "all-banks",
// "burst length", "mode register", "operand" (bit order).
std::string_view unknown_field_name(int bit);
// "bank group, row" for a mask.
std::string unknown_field_list(std::uint16_t mask);

struct Command {
  std::uint64_t cycle = 0;  // index of the CK rising edge of the command's first cycle
  double time = 0;          // s since the start of the capture
  Op op = Op::nop;
  std::uint16_t unknown = 0;  // UnknownField bits: not determined by the probed pins
  std::int32_t rank = 0;    // whose chip select was active (CS0 = rank 0)
  std::int32_t bank_group = -1;
  std::int32_t bank = -1;
  std::int32_t row = -1;
  std::int32_t column = -1;
  bool auto_precharge = false;
  bool all_banks = false;   // PRE all / REF all banks
  std::uint16_t burst = 0;  // burst length of RD/WR (4, 8, 16, 32)
  std::int32_t address = -1;  // MRW/MRR/MRS mode register
  std::int32_t operand = -1;  // MRW/MRS/MPC operand

  bool operator==(const Command& o) const {
    return cycle == o.cycle && op == o.op && rank == o.rank && bank_group == o.bank_group && bank == o.bank && row == o.row &&
           column == o.column && auto_precharge == o.auto_precharge && all_banks == o.all_banks &&
           burst == o.burst && address == o.address && operand == o.operand && unknown == o.unknown;
  }
};

// "RDA" for a read with auto-precharge, "PREA", "REFA"...
std::string command_label(const Command& c);
// One line for people and test failures: "1234 RD bg0 ba3 col 0x40 BL16"
// (" r1" after the label for a rank other than 0).
std::string describe(const Command& c);

// A stretch of the capture where CK stopped (clock-stop power saving).
struct ClockStop {
  std::uint64_t after_cycle = 0;  // the last rising edge before the stop
  double start = 0;               // s
  double duration = 0;            // s

  bool operator==(const ClockStop& o) const { return after_cycle == o.after_cycle; }
};

}  // namespace harness::ddr
