#include "probes/capture/state_listing.h"

#include <algorithm>
#include <cctype>
#include <cmath>

#include <fmt/format.h>

#include "harness/base/stats.h"
#include "probes/capture/readers.h"

namespace harness {

Result<StateListing> parse_state_listing(std::string_view text, const std::string& name) {
  StateListing out;
  int line_no = 0;
  bool have_header = false;
  std::size_t fields_expected = 0;
  if (text.substr(0, 3) == "\xEF\xBB\xBF") text.remove_prefix(3);  // UTF-8 byte order mark
  auto trim = [](std::string_view f) {
    while (!f.empty() && (f.front() == ' ' || f.front() == '\t' || f.front() == '"')) f.remove_prefix(1);
    while (!f.empty() && (f.back() == ' ' || f.back() == '\t' || f.back() == '"')) f.remove_suffix(1);
    return f;
  };
  auto lower = [](std::string_view f) {
    std::string out(f);
    for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return out;
  };
  for (std::size_t start = 0; start < text.size();) {
    std::size_t nl = text.find('\n', start);
    std::string_view line = text.substr(start, nl == std::string_view::npos ? std::string_view::npos : nl - start);
    start = nl == std::string_view::npos ? text.size() : nl + 1;
    ++line_no;
    while (!line.empty() && (line.back() == '\r' || line.back() == ' ')) line.remove_suffix(1);
    if (line.empty() || line.front() == '#') continue;
    std::vector<std::string_view> f;
    for (std::size_t s = 0;;) {
      std::size_t c = line.find(',', s);
      f.push_back(trim(line.substr(s, c == std::string_view::npos ? std::string_view::npos : c - s)));
      if (c == std::string_view::npos) break;
      s = c + 1;
    }
    if (!have_header) {
      if (f.size() < 3 || lower(f[0]) != "time_s" || lower(f[1]) != "edge")
        return Error::input(fmt::format("{}:{}: expected the header 'time_s,edge,<channel>,...'", name, line_no));
      if (f.size() - 2 > 64) return Error::input(fmt::format("{}:{}: more than 64 channels", name, line_no));
      for (std::size_t i = 2; i < f.size(); ++i) out.channels.emplace_back(f[i]);
      fields_expected = f.size();
      have_header = true;
      continue;
    }
    if (f.size() != fields_expected)
      return Error::input(fmt::format("{}:{}: {} fields, the header has {}", name, line_no, f.size(), fields_expected));
    StateRow row;
    std::string t(f[0]);
    char* end = nullptr;
    row.time = std::strtod(t.c_str(), &end);
    if (t.empty() || end != t.c_str() + t.size() || !std::isfinite(row.time))
      return Error::input(fmt::format("{}:{}: bad time '{}'", name, line_no, f[0]));
    if (!out.rows.empty() && row.time <= out.rows.back().time)
      return Error::input(fmt::format("{}:{}: time does not increase", name, line_no));
    const std::string edge = lower(f[1]);
    if (edge == "r" || edge == "rise" || edge == "rising") row.rising = true;
    else if (edge == "f" || edge == "fall" || edge == "falling") row.rising = false;
    else return Error::input(fmt::format("{}:{}: edge '{}' is not R or F", name, line_no, f[1]));
    for (std::size_t i = 2; i < f.size(); ++i) {
      if (f[i] == "1" || f[i] == "H" || f[i] == "h") row.bits |= std::uint64_t{1} << (i - 2);
      else if (f[i] != "0" && f[i] != "L" && f[i] != "l")
        return Error::input(fmt::format("{}:{}: bad value '{}' for {} (0 or 1)", name, line_no, f[i], out.channels[i - 2]));
    }
    out.rows.push_back(row);
  }
  if (!have_header) return Error::input(fmt::format("{}:{}: no header line", name, line_no + 1));
  if (out.rows.empty()) return Error::input(fmt::format("{}:{}: no rows", name, line_no + 1));
  return out;
}

std::string format_state_listing(const StateListing& listing) {
  std::string out = "time_s,edge";
  for (const std::string& c : listing.channels) out += "," + c;
  out += "\n";
  for (const StateRow& r : listing.rows) {
    out += fmt::format("{:.12g},{}", r.time, r.rising ? 'R' : 'F');
    for (unsigned i = 0; i < listing.channels.size(); ++i) out += (r.bits >> i) & 1 ? ",1" : ",0";
    out += "\n";
  }
  return out;
}

Status render_state_listing(const StateListing& listing, unsigned spc, CaptureSink& sink, const std::string& where,
                            const ReaderLimits& limits) {
  std::vector<double> periods;
  double last_rise = -1;
  for (const StateRow& r : listing.rows) {
    if (!r.rising) continue;
    if (last_rise >= 0) periods.push_back(r.time - last_rise);
    last_rise = r.time;
  }
  if (periods.empty()) return Error::input("state listing: fewer than two rising CK edges: no clock period");
  const double tck = median(periods);
  const double rate = spc / tck;
  std::vector<std::string> channels = listing.channels;
  std::optional<unsigned> ck;
  for (unsigned i = 0; i < channels.size(); ++i)
    if (channels[i] == "CK") ck = i;
  if (!ck) {
    if (channels.size() >= 64) return Error::input("state listing: no room for a CK channel");
    ck = static_cast<unsigned>(channels.size());
    channels.push_back("CK");
  }
  ChangeTimeline timeline(channels);
  const double t0 = listing.rows.front().time - tck / 2;
  auto index_of = [&](double t) { return sample_index(t - t0, rate); };
  const auto& rows = listing.rows;
  bool ck_level = false;
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const StateRow& r = rows[i];
    // Data: this row's values from the midpoint after the previous edge.
    double from = i == 0 ? t0 : (rows[i - 1].time + r.time) / 2;
    std::uint64_t at = index_of(from);
    for (unsigned c = 0; c < channels.size(); ++c)
      if (c != *ck) timeline.change(c, at, (r.bits >> c) & 1);
    if (r.rising && ck_level && i > 0) timeline.change(*ck, index_of(from), false);  // falling edge not listed
    ck_level = r.rising;
    timeline.change(*ck, index_of(r.time), r.rising);
  }
  std::uint64_t n = index_of(rows.back().time + tck / 2) + 1;
  return timeline.render(rate, n, "state-listing", where, limits, sink);
}

// The table's readers (formats.cc): the rows as clock edges (for the
// decoder: CaptureFormat::read_edges), or rendered as a timing waveform at 8
// samples per clock (for everything else).
Result<StateListing> read_state_listing_rows(const std::string& path, const ReaderLimits& limits) {
  Result<std::string> text = read_input_file(path, limits);
  if (!text) return text.error();
  return parse_state_listing(*text, path);
}

Status read_state_listing_file(const std::string& path, const ReadOptions& options, CaptureSink& sink) {
  Result<StateListing> listing = read_state_listing_rows(path, options.limits);
  if (!listing) return listing.error();
  return render_state_listing(*listing, 8, sink, path, options.limits);
}

}  // namespace harness
