#include "harness/ddr/export.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

namespace harness::ddr {
namespace {

std::string opt(std::int32_t v) { return v < 0 ? std::string() : std::to_string(v); }

}  // namespace

std::string_view DramPowerWriter::name_of(const Command& c) {
  const std::int32_t bank = std::max(0, c.bank_group) * 64 + std::max(0, c.bank);
  std::set<std::int32_t>& open = open_[c.rank];
  switch (c.op) {
    case Op::act: open.insert(bank); return "ACT";
    case Op::pre:
      if (c.all_banks) open.clear();
      else open.erase(bank);
      return c.all_banks ? "PREA" : "PRE";
    case Op::rd:
    case Op::wr:
    case Op::mwr:
      if (c.auto_precharge) open.erase(bank);
      if (c.op == Op::rd) return c.auto_precharge ? "RDA" : "RD";
      return c.auto_precharge ? "WRA" : "WR";
    case Op::ref: return c.all_banks ? "REFA" : "REFB";
    case Op::sre: return "SREFEN";
    case Op::srx: return "SREFEX";
    case Op::pde: return (active_power_down_[c.rank] = !open.empty()) ? "PDEA" : "PDEP";
    case Op::pdx: return active_power_down_[c.rank] ? "PDXA" : "PDXP";
    default: return {};
  }
}

void DramPowerWriter::on_commands(std::span<const Command> commands) {
  for (const Command& c : commands) {
    std::string_view name = name_of(c);
    if (name.empty()) {
      ++skipped_;
      continue;
    }
    out_ << fmt::format("{},{},{},{},{},{},{}\n", c.cycle, name, c.rank, std::max(0, c.bank_group),
                        std::max(0, c.bank), std::max(0, c.row), std::max(0, c.column));
  }
}

void DramPowerWriter::finish(std::uint64_t end_cycle) { out_ << fmt::format("{},END,0,0,0,0,0\n", end_cycle); }

namespace {
// The column list before ranks were decoded: still read, as rank 0.
constexpr std::string_view kRanklessHeader = "cycle,time_s,command,bank_group,bank,row,column,burst,address,operand";
}  // namespace

std::string command_csv_header() { return std::string(kRanklessHeader) + ",rank"; }

CommandCsvWriter::CommandCsvWriter(std::ostream& out) : out_(out) { out_ << command_csv_header() << "\n"; }

void CommandCsvWriter::on_commands(std::span<const Command> commands) {
  for (const Command& c : commands)
    out_ << fmt::format("{},{:.12g},{},{},{},{},{},{},{},{},{}\n", c.cycle, c.time, command_label(c),
                        opt(c.bank_group), opt(c.bank), opt(c.row), opt(c.column),
                        c.burst ? std::to_string(c.burst) : "", opt(c.address), opt(c.operand), c.rank);
}

Result<std::vector<Command>> parse_command_csv(std::string_view text, const std::string& name) {
  std::vector<Command> out;
  int line_no = 0;
  bool header = false;
  std::size_t columns = 0;
  for (std::size_t start = 0; start < text.size();) {
    std::size_t nl = text.find('\n', start);
    std::string_view line = text.substr(start, nl == std::string_view::npos ? std::string_view::npos : nl - start);
    start = nl == std::string_view::npos ? text.size() : nl + 1;
    ++line_no;
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (line.empty() || line.front() == '#') continue;
    if (!header) {
      if (line != command_csv_header() && line != kRanklessHeader)
        return Error::input(fmt::format("{}:{}: expected the header '{}'", name, line_no, command_csv_header()));
      header = true;
      columns = line == kRanklessHeader ? 10 : 11;
      continue;
    }
    std::vector<std::string> f;
    for (std::size_t s = 0;;) {
      std::size_t c = line.find(',', s);
      f.emplace_back(line.substr(s, c == std::string_view::npos ? std::string_view::npos : c - s));
      if (c == std::string_view::npos) break;
      s = c + 1;
    }
    if (f.size() != columns)
      return Error::input(fmt::format("{}:{}: {} fields, expected {}", name, line_no, f.size(), columns));
    auto number = [&](const std::string& s, const char* what, std::int64_t& v) -> Status {
      if (s.empty()) {
        v = -1;
        return ok();
      }
      try {
        std::size_t used = 0;
        v = std::stoll(s, &used);
        if (used != s.size() || v < 0) throw std::invalid_argument(s);
      } catch (...) {
        return Error::input(fmt::format("{}:{}: bad {} '{}'", name, line_no, what, s));
      }
      return ok();
    };
    Command c;
    std::int64_t v = 0;
    HARNESS_TRY(number(f[0], "cycle", v));
    if (v < 0) return Error::input(fmt::format("{}:{}: missing cycle", name, line_no));
    c.cycle = static_cast<std::uint64_t>(v);
    std::string label = f[2];
    std::optional<Op> op = op_from_name(label);
    if (!op && label.size() > 1 && label.back() == 'A') {
      op = op_from_name(label.substr(0, label.size() - 1));
      if (op && is_column(*op)) c.auto_precharge = true;
      else if (op && (*op == Op::pre || *op == Op::ref)) c.all_banks = true;
      else op.reset();
    }
    if (!op) return Error::input(fmt::format("{}:{}: unknown command '{}'", name, line_no, label));
    c.op = *op;
    const char* names[] = {"bank_group", "bank", "row", "column", "burst", "address", "operand"};
    std::int32_t* fields[] = {&c.bank_group, &c.bank, &c.row, &c.column, nullptr, &c.address, &c.operand};
    for (int i = 0; i < 7; ++i) {
      HARNESS_TRY(number(f[3 + i], names[i], v));
      if (fields[i]) *fields[i] = static_cast<std::int32_t>(v);
      else c.burst = static_cast<std::uint16_t>(v < 0 ? 0 : v);
    }
    if (columns == 11) {
      HARNESS_TRY(number(f[10], "rank", v));
      if (v > 3) return Error::input(fmt::format("{}:{}: rank {} (0-3)", name, line_no, v));
      c.rank = static_cast<std::int32_t>(std::max<std::int64_t>(v, 0));
    }
    if (!out.empty() && c.cycle <= out.back().cycle)
      return Error::input(fmt::format("{}:{}: cycle {} is not after the previous command's", name, line_no, c.cycle));
    out.push_back(c);
  }
  if (!header) return Error::input(fmt::format("{}:1: empty command list", name));
  return out;
}

nlohmann::json command_to_json(const Command& c) {
  nlohmann::json j = {{"cycle", c.cycle}, {"time_s", c.time}, {"command", command_label(c)}, {"rank", c.rank}};
  auto put = [&](const char* key, std::int32_t v) {
    if (v >= 0) j[key] = v;
  };
  put("bank_group", c.bank_group);
  put("bank", c.bank);
  put("row", c.row);
  put("column", c.column);
  if (c.burst) j["burst"] = c.burst;
  put("address", c.address);
  put("operand", c.operand);
  return j;
}

}  // namespace harness::ddr
