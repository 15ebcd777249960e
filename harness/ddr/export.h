// Decoded command streams out (and back in, for synthesizer traces):
// DRAMPower 5's CSV trace, a plain CSV command list, JSON.
#pragma once

#include <map>
#include <ostream>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "harness/ddr/decoder.h"

namespace harness::ddr {

// DRAMPower 5 CLI trace: "timestamp,command,rank,bank_group,bank,row,column"
// with the timestamp in clock cycles and an END row. Commands DRAMPower does
// not model (MRW, MRR, MPC, MRS, ZQC, CAS, NOP) are left out. Power-down is
// active (PDEA/PDXA) while a bank of the rank is open, else precharged
// (PDEP/PDXP): the writer follows each rank's open banks. Streams.
class DramPowerWriter : public CommandSink {
 public:
  explicit DramPowerWriter(std::ostream& out) : out_(out) {}
  void on_commands(std::span<const Command> commands) override;
  void finish(std::uint64_t end_cycle);
  std::uint64_t skipped() const { return skipped_; }

 private:
  std::string_view name_of(const Command& c);
  std::ostream& out_;
  std::uint64_t skipped_ = 0;
  std::map<std::int32_t, std::set<std::int32_t>> open_;  // rank -> open banks (bank group * 64 + bank)
  std::map<std::int32_t, bool> active_power_down_;       // rank -> its power-down began active
};

// Plain CSV: "cycle,time_s,command,bank_group,bank,row,column,burst,address,operand,rank";
// empty fields where a command has no such field. Streams.
class CommandCsvWriter : public CommandSink {
 public:
  explicit CommandCsvWriter(std::ostream& out);
  void on_commands(std::span<const Command> commands) override;

 private:
  std::ostream& out_;
};

std::string command_csv_header();
// Reads a plain CSV command list (a synthesizer trace); errors name file:line.
// Lists written before the rank column existed (10 fields) are rank 0.
Result<std::vector<Command>> parse_command_csv(std::string_view text, const std::string& name);

nlohmann::json command_to_json(const Command& c);

}  // namespace harness::ddr
