// Arm Vela's per-layer performance CSV (vela --verbose-performance writes
// <network>_per-layer.csv beside the compiled model): per NPU subgraph a
// header "TFLite_operator" (or "TOSA_operator"), "NNG Operator", "SRAM
// Usage", "Peak%", "Op Cycles", "Network%", "NPU", "SRAM AC", "DRAM AC",
// "OnFlash AC", "OffFlash AC", "MAC Count", "Network%", "Util%", "Name",
// then one row per scheduled operator (Python's csv module: quoted cells).
// "Network%" appears twice, read by position: the one after "Op Cycles" is
// the share of cycles, the one after "MAC Count" the share of MACs. These
// are the compiler's estimates: time (cycles / the accelerator clock, which
// the file does not carry) and work (2 x MAC count) are provenance model.
// Only NPU subgraphs are listed: operators left on the CPU are not.
#include <algorithm>

#include <fmt/format.h>

#include "probes/profile/reader_support.h"
#include "probes/profile/readers.h"

namespace harness::profile_reading {
namespace {

bool is_operator_column(const std::string& c) { return c == "tflite_operator" || c == "tosa_operator"; }

std::vector<std::string> lowered(const std::vector<std::string>& cells) {
  std::vector<std::string> out;
  for (const std::string& c : cells) out.push_back(lower(trim(c)));
  return out;
}

std::optional<std::size_t> position(const std::vector<std::string>& header, const std::string& name) {
  auto it = std::find(header.begin(), header.end(), name);
  if (it == header.end()) return std::nullopt;
  return static_cast<std::size_t>(it - header.begin());
}

}  // namespace

bool looks_like_vela(std::string_view text) {
  for (const Line& l : lines_of(text.substr(0, std::min<std::size_t>(text.size(), 1 << 16)))) {
    if (trim(l.text).empty() || l.text[0] == '#') continue;
    Result<std::vector<std::string>> cells = csv_cells(l.text, "");
    if (!cells) return false;
    std::vector<std::string> h = lowered(*cells);
    return !h.empty() && is_operator_column(h[0]) && position(h, "op cycles") && position(h, "mac count");
  }
  return false;
}

Result<LayerProfile> read_vela(std::string_view text, const std::string& path, const ProfileReadOptions& options) {
  LayerProfile p;
  p.format = "vela";
  p.time_provenance = Provenance::model;
  std::vector<std::string> header;
  std::optional<std::size_t> name_at, op_at, nng_at, cycles_at, macs_at;
  LayerCollector layers;
  for (const Line& line : lines_of(text)) {
    if (trim(line.text).empty() || line.text[0] == '#') continue;  // a comment says how a file was made
    const std::string where = fmt::format("{}:{}", path, line.number);
    Result<std::vector<std::string>> cells = csv_cells(line.text, where);
    if (!cells) return cells.error();
    std::vector<std::string> lower_cells = lowered(*cells);
    if (!lower_cells.empty() && is_operator_column(lower_cells[0])) {  // a subgraph's header (again)
      header = lower_cells;
      name_at = position(header, "name");
      op_at = 0;
      nng_at = position(header, "nng operator");
      cycles_at = position(header, "op cycles");
      macs_at = position(header, "mac count");
      if (!name_at || !cycles_at) {
        return Error::input(fmt::format("{}: the header needs 'Op Cycles' and 'Name' columns", where));
      }
      continue;
    }
    if (header.empty()) {
      return Error::input(fmt::format("{}: expected Vela's header (TFLite_operator or TOSA_operator, ..., Name)", where));
    }
    if (cells->size() != header.size()) {
      return Error::input(fmt::format("{}: expected {} cells as in the header, got {}", where, header.size(),
                                      cells->size()));
    }
    if (!options.clock_hz) {
      return Error::input(fmt::format("{}: Vela counts cycles: the profile needs clock = \"<frequency>\" (the "
                                      "accelerator clock of Vela's summary, such as \"500 MHz\")", path));
    }
    Result<double> cycles = non_negative((*cells)[*cycles_at], where, "Op Cycles", "cycle count");
    if (!cycles) return cycles.error();
    const std::string& name = (*cells)[*name_at];
    if (name.empty()) return Error::input(fmt::format("{}: column 'Name': empty layer name", where));
    if (!layers.has(name)) {
      ProfileLayer& l = layers.layer(name, where);
      l.op = (*cells)[*op_at];
      if (nng_at && l.op.empty()) l.op = (*cells)[*nng_at];
      l.device = LayerDevice::accelerator;
      l.device_text = "NPU (Vela)";
      l.flops = 0;
      l.flops_provenance = Provenance::model;
      l.flops_source = macs_at ? "2 x MAC Count (Vela estimate)" : "";
      if (!macs_at) l.flops.reset();
    }
    // An operator Vela split in several scheduled ops appears under one name: its work adds up.
    ProfileLayer& l = layers.layer(name, where);
    if (macs_at) {
      Result<double> macs = non_negative((*cells)[*macs_at], where, "MAC Count", "MAC count");
      if (!macs) return macs.error();
      *l.flops += 2 * *macs;
    }
    layers.add_call(name, 0, *cycles / *options.clock_hz);
  }
  if (layers.empty()) return Error::input(fmt::format("{}: no layers (Vela lists only NPU subgraphs)", path));
  layers.finish(p, 1);
  p.device_known = false;  // operators left on the CPU are not in the file
  p.notes.push_back("Vela's estimates (model), not measurements; operators left on the CPU are not listed");
  return p;
}

}  // namespace harness::profile_reading
