// [reference]: the keys of [workload], and how the two sides alternate.
#include <cstdint>
#include <sstream>

#include <fmt/format.h>

#include "harness/scenario/sections.h"

namespace harness {

// The keys of [reference] that say how the sides alternate, not what runs.
constexpr std::string_view kPairingKeys[] = {"rounds", "order", "seed", "block_warmup"};

Result<std::string> aa_scenario_text(const std::string& text, const std::string& path) {
  toml::parse_result parsed = toml::parse(text, path);
  if (!parsed) {
    ParseContext context{path, std::nullopt, nullptr, {}};
    return Error::input(fmt::format("{}: {}", context.where(parsed.error().source()), parsed.error().description()));
  }
  toml::table root = parsed.table();
  const toml::table* workload = root["workload"].as_table();
  toml::table* reference = root["reference"].as_table();
  if (!workload || !reference) return text;  // nothing to make A/A: every night is its own candidate
  toml::table aa = *workload;
  for (std::string_view key : kPairingKeys)
    if (const toml::node* n = reference->get(key)) aa.insert_or_assign(key, *n);
  aa.insert_or_assign("name", fmt::format("{} (A/A)", workload->get("name") && workload->get("name")->is_string()
                                                        ? workload->get("name")->as_string()->get()
                                                        : std::string("candidate")));
  root.insert_or_assign("reference", std::move(aa));
  std::ostringstream out;
  out << "# A/A: [reference] set to [workload] by `harness calibrate` (the rest as in " << path << ")\n"
      << toml::toml_formatter(root) << "\n";
  return out.str();
}

ReferenceConfig read_reference_section(TableReader& r) {
  ReferenceConfig c;
  c.where = r.context().where(r.table().source());
  if (auto n = r.integer("rounds", 2, 100'000)) c.rounds = static_cast<int>(*n);
  if (auto o = r.choice("order", {"random", "abba"})) c.order = *o;
  if (auto n = r.integer("seed", 0, INT64_MAX)) c.seed = static_cast<std::uint64_t>(*n);
  if (auto n = r.integer("block_warmup", 0, 1'000'000)) c.block_warmup = *n;
  c.workload = read_workload_section(r);
  if (c.workload.name.empty()) c.workload.name = "reference";
  return c;
}

}  // namespace harness
