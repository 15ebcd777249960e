#include "harness/ddr/command.h"

#include <array>

#include <fmt/format.h>

namespace harness::ddr {
namespace {
constexpr std::array<std::string_view, kOpCount> kOpNames = {
    "ACT", "RD", "WR", "MWR", "PRE", "REF", "MRW", "MRR", "MPC", "MRS", "ZQC", "CAS", "SRE", "SRX", "PDE", "PDX", "NOP",
    "UNKNOWN"};
}  // namespace

std::string_view standard_name(Standard s) {
  switch (s) {
    case Standard::ddr4: return "ddr4";
    case Standard::lpddr4: return "lpddr4";
    case Standard::lpddr5: return "lpddr5";
  }
  return "?";
}

std::optional<Standard> standard_from_name(std::string_view name) {
  if (name == "ddr4") return Standard::ddr4;
  if (name == "lpddr4" || name == "lpddr4x") return Standard::lpddr4;
  if (name == "lpddr5" || name == "lpddr5x") return Standard::lpddr5;
  return std::nullopt;
}

std::string_view unknown_field_name(int bit) {
  static constexpr std::array<std::string_view, kUnknownFieldCount> kNames = {
      "bank group", "bank", "row", "column", "auto-precharge", "all-banks", "burst length", "mode register",
      "operand"};
  return bit >= 0 && bit < kUnknownFieldCount ? kNames[static_cast<std::size_t>(bit)] : "?";
}

std::string unknown_field_list(std::uint16_t mask) {
  std::string s;
  for (int b = 0; b < kUnknownFieldCount; ++b)
    if (mask >> b & 1) s += fmt::format("{}{}", s.empty() ? "" : ", ", unknown_field_name(b));
  return s;
}

std::string_view op_name(Op op) { return kOpNames[static_cast<int>(op)]; }

std::optional<Op> op_from_name(std::string_view name) {
  for (int i = 0; i < kOpCount; ++i)
    if (kOpNames[i] == name) return static_cast<Op>(i);
  return std::nullopt;
}

std::string command_label(const Command& c) {
  std::string s(op_name(c.op));
  if (is_column(c.op) && c.auto_precharge) s += "A";
  if ((c.op == Op::pre || c.op == Op::ref) && c.all_banks) s += "A";
  return s;
}

std::string describe(const Command& c) {
  std::string s = fmt::format("{} {}", c.cycle, command_label(c));
  if (c.rank > 0) s += fmt::format(" r{}", c.rank);
  if (c.bank_group >= 0) s += fmt::format(" bg{}", c.bank_group);
  if (c.bank >= 0) s += fmt::format(" ba{}", c.bank);
  if (c.row >= 0) s += fmt::format(" row 0x{:x}", c.row);
  if (c.column >= 0) s += fmt::format(" col 0x{:x}", c.column);
  if (c.burst) s += fmt::format(" BL{}", c.burst);
  if (c.address >= 0) s += fmt::format(" MA{}", c.address);
  if (c.operand >= 0) s += fmt::format(" OP 0x{:x}", c.operand);
  if (c.unknown) s += fmt::format(" (unknown: {})", unknown_field_list(c.unknown));
  return s;
}

}  // namespace harness::ddr
