// Which capture channel carries which role of the bus (make_layout), and
// which channels a reader keeps for it (plan_bus_channels).
#include "harness/ddr/layout.h"

#include <algorithm>
#include <cctype>

#include <fmt/format.h>

#include "harness/base/closest_match.h"

namespace harness::ddr {

std::string chip_select_role(Standard standard, unsigned rank) {
  const bool active_low = !bus_format(standard).chip_select_active_high;
  return fmt::format("CS{}{}", rank, active_low ? "_n" : "");
}

namespace {

// A channel name reduced for matching: the leaf of a hierarchical VCD name
// ("top.dut.CA[3]" -> "CA[3]"), lower case, without the separators tools
// put between a signal's name, index and polarity ("CA_3", "CA[3]", "CS_n",
// "RAS_n/A16", "CS#") -> "ca3", "csn", "rasna16", "cs".
std::string match_key(std::string_view name) {
  std::size_t dot = name.rfind('.');
  if (dot != std::string_view::npos && dot + 1 < name.size()) name.remove_prefix(dot + 1);
  std::string key;
  for (char c : name) {
    if (c == '_' || c == ' ' || c == '-' || c == '[' || c == ']' || c == '/' || c == '#' || c == '(' || c == ')')
      continue;
    key += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  }
  return key;
}

// The keys under which a role is found automatically, besides its own.
// Complements (CK_c, DQS_c) never stand for the true signal. Chip select
// takes any of the usual spellings: its polarity is the standard's (DDR4
// CS_n active low, LPDDR4/5 CS active high), whatever the channel's name.
std::vector<std::string> role_keys(Standard standard, const std::string& role) {
  std::vector<std::string> keys = {match_key(role)};
  auto add = [&](std::initializer_list<const char*> more) { keys.insert(keys.end(), more.begin(), more.end()); };
  const BusFormat& f = bus_format(standard);
  if (role == "CK") add({"ckt", "clk", "ck0", "ckt0", "ck0t", "clk0", "clkt"});
  if (role == f.chip_select) add({"cs", "csn", "cs0", "csn0", "cs0n", "ncs", "csb"});
  // A strobe's true signal: DQS0_t, RDQS_t.
  if (role.rfind("DQS", 0) == 0 || role.rfind("RDQS", 0) == 0) keys.push_back(match_key(role) + "t");
  if (standard == Standard::ddr4) {
    if (role == "ACT_n") add({"act", "nact", "actb"});
    if (role == "RAS_n") add({"ras", "nras", "a16", "rasna16", "a16rasn"});
    if (role == "CAS_n") add({"cas", "ncas", "a15", "casna15", "a15casn"});
    if (role == "WE_n") add({"we", "nwe", "a14", "wena14", "a14wen"});
    if (role == "A10") add({"ap", "a10ap", "apa10"});
    if (role == "A12") add({"bcn", "a12bcn", "bcna12"});
    if (role.size() > 1 && role[0] == 'A' && std::isdigit(static_cast<unsigned char>(role[1]))) {
      keys.push_back("addr" + role.substr(1));
      keys.push_back("address" + role.substr(1));
    }
  }
  std::sort(keys.begin(), keys.end());
  keys.erase(std::unique(keys.begin(), keys.end()), keys.end());
  return keys;
}

// A data strobe found without a mapping: DQS0, DQS[1], DQS0_t, RDQS_t, DQSL,
// never a complement (DQS0_c, DQS_n).
bool is_strobe_name(const std::string& name) {
  std::string k = match_key(name);
  if (k.rfind("dqs", 0) != 0 && k.rfind("rdqs", 0) != 0) return false;
  const char last = k.back();
  return !(k.size() > 3 && (last == 'c' || last == 'n' || last == 'b'));
}

}  // namespace

namespace {

bool is_strobe_role(const std::string& s) { return s.rfind("DQS", 0) == 0 || s.rfind("RDQS", 0) == 0; }

// The probe set itself: an organisation DDR4 has, roles the standard has,
// and the two every decode needs.
Status check_probe_set(Standard standard, const ProbeSet& probes) {
  const BusFormat& f = bus_format(standard);
  const bool x16 = probes.organisation == "x16";
  if (!probes.organisation.empty()) {
    if (standard != Standard::ddr4)
      return Error::input(fmt::format("organisation '{}': the device organisation is a DDR4 setting ({} has one "
                                      "command bus layout)",
                                      probes.organisation, standard_name(standard)));
    if (probes.organisation != "x4" && probes.organisation != "x8" && !x16)
      return Error::input(fmt::format("organisation '{}': expected x4, x8 or x16", probes.organisation));
  }
  if (probes.probed.empty()) return ok();
  auto probed = [&](const std::string& role) {
    return std::find(probes.probed.begin(), probes.probed.end(), role) != probes.probed.end();
  };
  // Every listed role must be one the standard has.
  std::vector<std::string> known = {"CK", "CKE", f.chip_select};
  for (unsigned r = 0; r < kMaxRanks; ++r) known.push_back(chip_select_role(standard, r));
  known.insert(known.end(), f.pins.begin(), f.pins.end());
  for (const std::string& role : probes.probed) {
    if (x16 && role == "BG1") return Error::input("probed: BG1 does not exist on x16 DDR4 parts (organisation x16)");
    if (is_strobe_role(role) || std::find(known.begin(), known.end(), role) != known.end()) continue;
    std::optional<std::string> close = closest_match(role, known);
    return Error::input(fmt::format("probed: '{}' is no {} pin{} (pins: CK, {}, {}, CKE, DQS0.., RDQS..)", role,
                                    standard_name(standard),
                                    close ? fmt::format(" (did you mean '{}'?)", *close) : "", f.chip_select,
                                    compress_pin_list(f.pins)));
  }
  if (!probed("CK") || !(probed(f.chip_select) || probed(chip_select_role(standard, 0))))
    return Error::input(fmt::format("probed: decoding needs CK and {} (command cycles are the CK edges with chip "
                                    "select active)",
                                    f.chip_select));
  return ok();
}

// Builds a BusLayout: each role's channel, as make_layout says.
class LayoutBuilder {
 public:
  LayoutBuilder(Standard standard, const std::vector<std::string>& channels,
                const std::map<std::string, std::string>& roles, const ProbeSet& probes)
      : standard_(standard), f_(bus_format(standard)), channels_(channels), roles_(roles), probes_(probes),
        listed_(!probes.probed.empty()), x16_(probes.organisation == "x16") {}
  Result<BusLayout> build();

 private:
  bool probed(const std::string& role) const {
    return std::find(probes_.probed.begin(), probes_.probed.end(), role) != probes_.probed.end();
  }
  Result<unsigned> find(const std::string& role, bool required);
  Result<unsigned> find_by_spelling(const std::string& role);
  Error missing(const std::string& role, const std::string& name) const;
  Status chip_selects();
  Status pins();
  Status strobes();
  void strobe(unsigned channel) {
    l_.dqs_mask |= std::uint64_t{1} << channel;
    l_.dqs_names.push_back(channels_[channel]);
  }

  Standard standard_;
  const BusFormat& f_;
  const std::vector<std::string>& channels_;
  const std::map<std::string, std::string>& roles_;
  const ProbeSet& probes_;
  bool listed_, x16_;
  BusLayout l_;
};

// A role mapped in [ddr.channels] is that channel exactly. Otherwise the
// channel of the role's own name, else the one channel whose name matches
// one of the role's spellings (role_keys); two such channels are an error.
Result<unsigned> LayoutBuilder::find(const std::string& role, bool required) {
  auto it = roles_.find(role);
  const std::string& name = it == roles_.end() ? role : it->second;
  for (unsigned i = 0; i < channels_.size(); ++i)
    if (channels_[i] == name) {
      l_.roles.push_back({role, channels_[i], it == roles_.end() ? RoleMatch::named : RoleMatch::mapped});
      return i;
    }
  if (it == roles_.end()) {
    Result<unsigned> spelled = find_by_spelling(role);
    if (!spelled || *spelled != kAbsent) return spelled;
  }
  if (!required) return kAbsent;
  return missing(role, name);
}

Result<unsigned> LayoutBuilder::find_by_spelling(const std::string& role) {
  const std::vector<std::string> keys = role_keys(standard_, role);
  std::vector<unsigned> fits;
  for (unsigned i = 0; i < channels_.size(); ++i)
    if (std::binary_search(keys.begin(), keys.end(), match_key(channels_[i]))) fits.push_back(i);
  if (fits.size() == 1) {
    l_.roles.push_back({role, channels_[fits[0]], RoleMatch::spelled});
    return fits[0];
  }
  if (fits.empty()) return kAbsent;
  std::string both;
  for (std::size_t k = 0; k < fits.size(); ++k)
    both += fmt::format("{}'{}'", k == 0 ? "" : k + 1 == fits.size() ? " and " : ", ", channels_[fits[k]]);
  return Error::input(fmt::format("channels {} all fit {} {}: say which one in [ddr.channels] ({} = \"...\")", both,
                                  standard_name(standard_), role, role));
}

// A required role without a channel: the mapping may be wrong, or the pin
// was not probed (or, DDR4 BG1, the part has none).
Error LayoutBuilder::missing(const std::string& role, const std::string& name) const {
  std::string list;
  for (const std::string& c : channels_) list += (list.empty() ? "" : ", ") + c;
  std::optional<std::string> close = closest_match(name, channels_);
  std::string not_probed =
      listed_ ? fmt::format("; '{}' is listed in --probed (scenario: probed)", role)
              : fmt::format("; if {} was not probed, list the roles that were with --probed (scenario: probed = "
                            "[...]): fields on the others are reported unknown",
                            role);
  if (standard_ == Standard::ddr4 && !x16_)
    not_probed += role == "BG1" ? "; an x16 part has no BG1: --organisation x16 (scenario: organisation = \"x16\")"
                                : "; the part's organisation: --organisation x4, x8 or x16";
  return Error::input(fmt::format("the capture has no channel '{}' for {} {}{} (channels: {}); map roles to "
                                  "channels in [ddr.channels] (capture decode: --map {}=CHANNEL){}",
                                  name, standard_name(standard_), role,
                                  close ? fmt::format(" (did you mean '{}'?)", *close) : "", list, role,
                                  not_probed));
}

Status LayoutBuilder::chip_selects() {
  // Rank 0's chip select under the standard's name, else as "CS0"/"CS0_n".
  Result<unsigned> cs = find(f_.chip_select, false);
  if (cs && *cs == kAbsent) cs = find(chip_select_role(standard_, 0), false);
  if (cs && *cs == kAbsent) cs = find(f_.chip_select, true);
  if (!cs) return cs.error();
  l_.chip_selects = {*cs};
  for (unsigned r = 1; r < kMaxRanks; ++r) {
    Result<unsigned> more = find(chip_select_role(standard_, r), false);
    if (!more) return more.error();
    if (*more == kAbsent) break;
    l_.chip_selects.push_back(*more);
  }
  for (unsigned c : l_.chip_selects) l_.cs_mask |= std::uint64_t{1} << c;
  if (!f_.chip_select_active_high) l_.cs_invert = l_.cs_mask;
  if (standard_ != Standard::lpddr5 && (!listed_ || probed("CKE"))) {  // LPDDR5 has no CKE: power-down is a command
    Result<unsigned> cke = find("CKE", listed_);
    if (!cke) return cke.error();
    l_.cke = *cke;
  }
  return ok();
}

Status LayoutBuilder::pins() {
  std::vector<PinState> states;
  for (const std::string& pin : f_.pins) {
    if (x16_ && pin == "BG1") {  // x16 parts have two bank groups, on BG0
      l_.pins.push_back(kAbsent);
      states.push_back(PinState::not_connected);
      continue;
    }
    if (listed_ && !probed(pin)) {
      l_.pins.push_back(kAbsent);
      states.push_back(PinState::not_probed);
      continue;
    }
    // DDR4 parts with fewer rows leave the top address pins unconnected;
    // A12 is BC_n on every part: without it the burst length is unknown.
    const bool unconnected_if_absent =
        !listed_ && standard_ == Standard::ddr4 && (pin == "A17" || pin == "A13" || pin == "A11");
    const bool optional = unconnected_if_absent || (!listed_ && standard_ == Standard::ddr4 && pin == "A12");
    Result<unsigned> p = find(pin, !optional);
    if (!p) return p.error();
    l_.pins.push_back(*p);
    states.push_back(*p != kAbsent         ? PinState::probed
                     : unconnected_if_absent ? PinState::not_connected
                                             : PinState::not_probed);
  }
  Result<ProbeCoverage> coverage = probe_coverage(standard_, std::move(states));
  if (!coverage) return coverage.error();
  l_.coverage = std::move(*coverage);
  l_.contiguous = true;
  for (unsigned i = 0; i < l_.pins.size(); ++i)
    if (l_.pins[i] != l_.pins[0] + i) l_.contiguous = false;
  return ok();
}

// Strobes: the probed ones, else those mapped, else every channel named
// like one (DQS0, DQS0_t, RDQS; never a complement).
Status LayoutBuilder::strobes() {
  for (const std::string& role : probes_.probed) {
    if (!is_strobe_role(role)) continue;
    Result<unsigned> p = find(role, true);
    if (!p) return p.error();
    strobe(*p);
  }
  for (const auto& [role, name] : roles_) {
    if (!is_strobe_role(role) || listed_) continue;
    Result<unsigned> p = find(role, true);
    if (!p) return p.error();
    strobe(*p);
  }
  if (l_.dqs_mask == 0 && !listed_)
    for (unsigned i = 0; i < channels_.size(); ++i)
      if (is_strobe_name(channels_[i])) strobe(i);
  return ok();
}

Result<BusLayout> LayoutBuilder::build() {
  HARNESS_TRY(check_probe_set(standard_, probes_));
  l_.standard = standard_;
  l_.two_edges = f_.edges == 2;
  Result<unsigned> ck = find("CK", true);
  if (!ck) return ck.error();
  l_.ck = *ck;
  HARNESS_TRY(chip_selects());
  HARNESS_TRY(pins());
  HARNESS_TRY(strobes());
  return std::move(l_);
}

}  // namespace

Result<BusLayout> make_layout(Standard standard, const std::vector<std::string>& channels,
                              const std::map<std::string, std::string>& roles, const ProbeSet& probes) {
  return LayoutBuilder(standard, channels, roles, probes).build();
}


ChannelPlan plan_bus_channels(Standard standard, const std::map<std::string, std::string>& roles,
                              const std::vector<std::string>& channels) {
  const BusFormat& f = bus_format(standard);
  // The keys make_layout looks a role up under, and the names mapped to roles.
  std::vector<std::string> keys, select_keys;
  std::vector<std::string> role_names = {"CK", "CKE"};
  role_names.insert(role_names.end(), f.pins.begin(), f.pins.end());
  std::vector<std::string> selects = {f.chip_select};
  for (unsigned r = 0; r < kMaxRanks; ++r) selects.push_back(chip_select_role(standard, r));
  for (const std::string& role : role_names)
    for (std::string& k : role_keys(standard, role)) keys.push_back(std::move(k));
  for (const std::string& role : selects)
    for (std::string& k : role_keys(standard, role)) select_keys.push_back(std::move(k));
  std::sort(keys.begin(), keys.end());
  std::sort(select_keys.begin(), select_keys.end());
  ChannelPlan plan;
  for (unsigned i = 0; i < channels.size(); ++i) {
    const std::string k = match_key(channels[i]);
    bool mapped = false, mapped_select = false;
    for (const auto& [role, name] : roles)
      if (name == channels[i]) {
        mapped = true;
        mapped_select = mapped_select || std::find(selects.begin(), selects.end(), role) != selects.end();
      }
    const bool select = mapped_select || std::binary_search(select_keys.begin(), select_keys.end(), k) ||
                        std::find(selects.begin(), selects.end(), channels[i]) != selects.end();
    const bool role = select || mapped || std::binary_search(keys.begin(), keys.end(), k) || is_strobe_name(channels[i]);
    if (role && channels.size() > 64) plan.keep.push_back(i);
    if (select && !f.chip_select_active_high) plan.idle_high.push_back(i);
  }
  return plan;
}

}  // namespace harness::ddr
