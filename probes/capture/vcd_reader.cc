// VCD (IEEE 1364-2005 section 18, four-state value change dump) as written
// by simulators and by logic-analyzer software. Parsed by tokens, not lines:
// a timestamp and its value changes may share a line.
//
// Channels (docs/parts/ddr.md, "Reading captures"):
// - a 1-bit variable is one channel named by its reference: "CK", or "CA[3]"
//   for a bit-select ("CA [3]" and "CA[3]" alike);
// - a vector `$var wire 6 ! CA [5:0] $end` is one channel per bit, named
//   "CA[0]".."CA[5]" after the declared range (so "[0:5]" makes the leftmost
//   bit of a value CA[0]); without a range the bits are [width-1:0];
// - names are the leaf references; only where two different signals would
//   get the same name do both carry their scope path ("top.dut.CK");
// - an id declared again (the same net seen from another scope) is an alias:
//   the first declaration names it;
// - real, realtime, shortreal and string variables are not logic: skipped.
// Values: 1 and h/H are high, 0 and l/L low; x, z, u, w and - are unknown:
// counted per channel (CaptureHeader::unknown_samples), holding the last
// known level (before any, the idle level: low, or high for the channels
// the reader's plan names, such as active-low chip selects). A vector value
// shorter than its width is left-extended (0, or x/z as the IEEE rule says).
// A dump with more than 64 one-bit signals keeps the channels the plan
// chooses (readers.h, ReadOptions::plan_channels): only their changes are
// held.
// Time: the capture starts at the first timestamp; values given before it
// (a $dumpvars ahead of the first #t) are the initial levels. A last
// timestamp with no value changes after it marks the end of the dump and is
// not a sample (sigrok writes the end time so); a last timestamp with changes
// is the last sample.
#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <map>
#include <numeric>
#include <set>

#include <fmt/format.h>

#include "probes/capture/readers.h"

namespace harness {
namespace {

class Tokens {
 public:
  explicit Tokens(std::string_view text) : text_(text) {}
  // The next whitespace-separated token; empty at the end.
  std::string_view next() {
    while (pos_ < text_.size() && std::isspace(static_cast<unsigned char>(text_[pos_]))) {
      if (text_[pos_] == '\n') ++line_;
      ++pos_;
    }
    std::size_t start = pos_;
    while (pos_ < text_.size() && !std::isspace(static_cast<unsigned char>(text_[pos_]))) ++pos_;
    token_line_ = line_;
    return text_.substr(start, pos_ - start);
  }
  // Drops what is left of the current line.
  void skip_line() {
    while (pos_ < text_.size() && text_[pos_] != '\n') ++pos_;
  }
  int line() const { return token_line_; }

 private:
  std::string_view text_;
  std::size_t pos_ = 0;
  int line_ = 1;
  int token_line_ = 1;
};

Result<double> timescale_seconds(const std::string& text) {
  std::size_t i = 0;
  while (i < text.size() && (std::isdigit(static_cast<unsigned char>(text[i])) || text[i] == '.')) ++i;
  double number = 0;
  try {
    number = i ? std::stod(text.substr(0, i)) : 0;
  } catch (...) {
  }
  if (!(number > 0)) return Error::input("bad $timescale '" + text + "'");
  std::string unit = text.substr(i);
  static const std::map<std::string, double> units = {{"s", 1},     {"ms", 1e-3}, {"us", 1e-6},
                                                      {"ns", 1e-9}, {"ps", 1e-12}, {"fs", 1e-15}};
  auto it = units.find(unit);
  if (it == units.end()) return Error::input("bad $timescale unit '" + unit + "' (s, ms, us, ns, ps, fs)");
  return number * it->second;
}

// "200 kHz" in sigrok's "Acquisition with 8/13 channels at 200 kHz".
std::optional<double> sigrok_comment_rate(const std::string& comment) {
  if (comment.find("Acquisition with") == std::string::npos) return std::nullopt;
  std::size_t at = comment.rfind(" at ");
  if (at == std::string::npos) return std::nullopt;
  const char* s = comment.c_str() + at + 4;
  char* end = nullptr;
  double v = std::strtod(s, &end);
  if (end == s || !(v > 0)) return std::nullopt;
  std::string unit(end);
  unit.erase(0, unit.find_first_not_of(' '));
  static const std::map<std::string, double> units = {{"Hz", 1}, {"kHz", 1e3}, {"MHz", 1e6}, {"GHz", 1e9}};
  auto it = units.find(unit);
  if (it == units.end()) return std::nullopt;
  return v * it->second;
}

// A variable's reference split into its name and declared bit range.
struct Reference {
  std::string name;  // without the range
  bool has_range = false;
  bool bit_select = false;  // "[3]"
  long msb = 0, lsb = 0;
};

Reference parse_reference(std::string ref) {
  Reference r;
  r.name = ref;
  std::size_t open = ref.rfind('[');
  if (open == std::string::npos || open == 0 || ref.back() != ']') return r;
  std::string inside = ref.substr(open + 1, ref.size() - open - 2);
  std::size_t colon = inside.find(':');
  try {
    std::size_t used = 0;
    if (colon == std::string::npos) {
      r.msb = r.lsb = std::stol(inside, &used);
      if (used != inside.size()) return r;
      r.bit_select = true;
    } else {
      std::string a = inside.substr(0, colon), b = inside.substr(colon + 1);
      std::size_t used_b = 0;
      r.msb = std::stol(a, &used);
      r.lsb = std::stol(b, &used_b);
      if (used != a.size() || used_b != b.size()) return r;
    }
  } catch (...) {
    return r;
  }
  r.has_range = true;
  r.name = ref.substr(0, open);
  return r;
}

struct Signal {
  std::string scope;           // "top.dut", empty at the top
  std::vector<std::string> leaf;  // channel name of each bit, rightmost value bit first
  bool index_descends = false;    // "[0:5]": the rightmost bit has the highest index
};

// A value as the capture carries it: low, high, or unknown (x, z, u, w, -),
// which holds the channel's last known level and is counted.
enum class Level : std::uint8_t { low, high, unknown };

struct Change {
  std::uint64_t time;
  unsigned channel;
  Level level;
};

// The parse in its steps: declarations, channel names, value changes, the
// sample grid and the rendering.
class VcdParser {
 public:
  VcdParser(std::string_view text, const std::string& name, const ReadOptions& options)
      : tok_(text), name_(name), options_(options) {}
  Status read(CaptureSink& sink);

 private:
  Error fail(const std::string& message) const {
    return Error::input(fmt::format("{}:{}: {}", name_, tok_.line(), message));
  }
  Status declarations();
  Status section_body(std::string_view section, std::vector<std::string_view>& parts);
  Status declare(const std::vector<std::string_view>& parts);
  void name_channels();
  Status value_changes();
  Status value_token(std::string_view t);
  Status hold();
  Status set(unsigned channel, Level level);
  Result<const std::vector<unsigned>*> lookup(std::string_view id);
  Status sample_grid();
  std::uint64_t index_of(std::uint64_t t) const;
  Status render(CaptureSink& sink);

  Tokens tok_;
  const std::string& name_;
  const ReadOptions& options_;
  // Declarations.
  double timescale_ = 0;
  std::optional<double> stated_rate_;
  std::vector<std::string> scope_;
  std::vector<Signal> signals_;
  std::size_t bit_count_ = 0;
  // id -> index into signals_; ids of non-logic variables map to nothing.
  std::map<std::string, std::optional<unsigned>, std::less<>> ids_;
  // Channels.
  std::vector<std::string> names_;
  std::vector<std::vector<unsigned>> bits_of_;  // capture channel of each bit, rightmost first
  ChannelChoice choice_;
  // Value changes.
  std::vector<Change> changes_;
  std::vector<std::uint64_t> times_;
  std::vector<std::pair<unsigned, Level>> initial_;  // values before the first #time
  std::uint64_t now_ = 0;
  bool have_time_ = false;
  bool changes_after_last_time_ = false;
  std::uint64_t held_ = 0;
  // The sample grid.
  bool end_marker_ = false;
  double samplerate_ = 0;
  std::uint64_t step_ = 0;  // VCD time units per sample when no rate was given
};

Status VcdParser::read(CaptureSink& sink) {
  HARNESS_TRY(declarations());
  if (signals_.empty()) return fail("no $var declarations");
  if (timescale_ == 0) timescale_ = 1e-9;  // the VCD default when $timescale is absent
  name_channels();
  // Which of them become capture channels (RTL and ILA dumps hold hundreds
  // of signals; a capture holds 64), and which start high while unknown.
  Result<ChannelChoice> choice = choose_channels(names_, options_, name_);
  if (!choice) return choice.error();
  choice_ = std::move(*choice);
  for (std::vector<unsigned>& bits : bits_of_)
    for (unsigned& b : bits) b = choice_.index[b];
  HARNESS_TRY(value_changes());
  if (times_.empty()) return fail("no #time in the value changes");
  HARNESS_TRY(sample_grid());
  return render(sink);
}

Status VcdParser::section_body(std::string_view section, std::vector<std::string_view>& parts) {
  const int start = tok_.line();
  for (std::string_view p = tok_.next(); p != "$end"; p = tok_.next()) {
    if (p.empty()) return Error::input(fmt::format("{}:{}: unterminated {}", name_, start, section));
    parts.push_back(p);
  }
  return ok();
}

// Header: declarations up to $enddefinitions.
Status VcdParser::declarations() {
  for (;;) {
    std::string_view t = tok_.next();
    if (t.empty()) return fail("no $enddefinitions: not a VCD file, or truncated");
    if (t == "$enddefinitions") {
      if (tok_.next() != "$end") return fail("expected $end after $enddefinitions");
      return ok();
    }
    if (t.front() != '$') return fail(fmt::format("unexpected '{}' before $enddefinitions", t));
    std::vector<std::string_view> parts;
    HARNESS_TRY(section_body(t, parts));
    if (t == "$timescale") {
      std::string ts;
      for (std::string_view p : parts) ts += p;
      Result<double> seconds = timescale_seconds(ts);
      if (!seconds) return fail(seconds.error().message);
      timescale_ = *seconds;
    } else if (t == "$scope") {
      scope_.emplace_back(parts.empty() ? "" : parts.back());
    } else if (t == "$upscope") {
      if (!scope_.empty()) scope_.pop_back();
    } else if (t == "$var") {
      HARNESS_TRY(declare(parts));
    } else if (t == "$comment") {
      std::string comment;
      for (std::string_view p : parts) {
        if (!comment.empty()) comment += ' ';
        comment += p;
      }
      if (std::optional<double> rate = sigrok_comment_rate(comment)) stated_rate_ = rate;
    }
    // $date, $version and any other section: skipped.
  }
}

// `$var type width id reference $end`.
Status VcdParser::declare(const std::vector<std::string_view>& parts) {
  if (parts.size() < 4) return fail("$var needs: type width id name");
  std::uint64_t width = 0;
  {
    auto [end, ec] = std::from_chars(parts[1].data(), parts[1].data() + parts[1].size(), width);
    if (ec == std::errc::result_out_of_range) width = UINT64_MAX;
    else if (ec != std::errc() || end != parts[1].data() + parts[1].size() || width < 1)
      return fail(fmt::format("bad $var width '{}'", parts[1]));
  }
  // Checked before any bit is named: the declaration costs a few bytes,
  // its channels a string each.
  const ReaderLimits& limits = options_.limits;
  if (width > limits.signal_bits)
    return limit_exceeded(fmt::format("{}:{}", name_, tok_.line()),
                          fmt::format("$var '{}' is {} bits wide", parts[3], parts[1]), &ReaderLimits::signal_bits,
                          limits);
  if (width > limits.declared_bits - std::min<std::uint64_t>(bit_count_, limits.declared_bits))
    return limit_exceeded(fmt::format("{}:{}", name_, tok_.line()),
                          fmt::format("the variables declared up to '{}' hold {} bits", parts[3], bit_count_ + width),
                          &ReaderLimits::declared_bits, limits);
  std::string id(parts[2]);
  if (ids_.count(id)) return ok();  // an alias of a signal already declared
  std::string type(parts[0]);
  std::transform(type.begin(), type.end(), type.begin(), [](unsigned char c) { return std::tolower(c); });
  if (type == "real" || type == "realtime" || type == "shortreal" || type == "string") {
    ids_[id] = std::nullopt;
    return ok();
  }
  std::string ref;
  for (std::size_t i = 3; i < parts.size(); ++i) ref += parts[i];  // "CA [5:0]" -> "CA[5:0]"
  Reference r = parse_reference(ref);
  Signal s;
  for (const std::string& level : scope_) s.scope += (s.scope.empty() ? "" : ".") + level;
  if (width == 1 && (!r.has_range || r.bit_select)) {
    s.leaf.push_back(ref);
  } else {
    long msb = r.msb, lsb = r.lsb;
    if (!r.has_range || static_cast<std::uint64_t>(std::labs(msb - lsb)) + 1 != width) {
      msb = static_cast<long>(width) - 1;  // no range, or one not matching the width
      lsb = 0;
    }
    const long dir = msb >= lsb ? 1 : -1;
    s.index_descends = dir < 0;
    for (std::uint64_t k = 0; k < width; ++k)
      s.leaf.push_back(fmt::format("{}[{}]", r.name, lsb + dir * static_cast<long>(k)));
  }
  bit_count_ += s.leaf.size();
  ids_[id] = static_cast<unsigned>(signals_.size());
  signals_.push_back(std::move(s));
  return ok();
}

// Channel names: leaf names, with the scope path where two signals collide.
void VcdParser::name_channels() {
  bits_of_.resize(signals_.size());
  std::map<std::string, int> uses;
  for (const Signal& s : signals_)
    for (const std::string& leaf : s.leaf) ++uses[leaf];
  std::set<std::string> taken;
  std::map<std::string, int> next_copy;  // a thousand "a"s cost a thousand lookups, not half a million
  for (std::size_t i = 0; i < signals_.size(); ++i) {
    const Signal& s = signals_[i];
    // Channels in ascending bit index: CA[0], CA[1], ... whatever the range's direction.
    std::vector<unsigned> order(s.leaf.size());
    std::iota(order.begin(), order.end(), 0u);
    if (s.index_descends) std::reverse(order.begin(), order.end());
    bits_of_[i].resize(s.leaf.size());
    for (unsigned k : order) {
      std::string n = s.leaf[k];
      if (uses[n] > 1 && !s.scope.empty()) n = s.scope + "." + n;
      if (taken.count(n)) {
        int& copy = next_copy.try_emplace(s.leaf[k], 2).first->second;
        do n = fmt::format("{}~{}", s.leaf[k], copy++);
        while (taken.count(n));
      }
      taken.insert(n);
      bits_of_[i][k] = static_cast<unsigned>(names_.size());
      names_.push_back(n);
    }
  }
}

// Held changes and timestamps are bounded: a file of a few MiB can hold a
// hundred million of them.
Status VcdParser::hold() {
  if (++held_ > options_.limits.changes)
    return limit_exceeded(fmt::format("{}:{}", name_, tok_.line()), "more value changes and timestamps",
                          &ReaderLimits::changes, options_.limits);
  return ok();
}

Status VcdParser::set(unsigned channel, Level level) {
  if (channel == kNotRead) return ok();  // a signal no one asked for costs no memory
  HARNESS_TRY(hold());
  if (!have_time_) {
    initial_.emplace_back(channel, level);
  } else {
    changes_.push_back({now_, channel, level});
    changes_after_last_time_ = true;
  }
  return ok();
}

Result<const std::vector<unsigned>*> VcdParser::lookup(std::string_view id) {
  auto it = ids_.find(id);
  if (it == ids_.end()) return fail(fmt::format("unknown signal id '{}'", id));
  if (!it->second) return static_cast<const std::vector<unsigned>*>(nullptr);  // not a logic variable
  return &bits_of_[*it->second];
}

Level level_of(char c) {
  if (c == '1' || c == 'h' || c == 'H') return Level::high;
  if (c == '0' || c == 'l' || c == 'L') return Level::low;
  return Level::unknown;
}

bool is_value(char c) {
  return c == '0' || c == '1' || c == 'x' || c == 'X' || c == 'z' || c == 'Z' || c == 'h' || c == 'H' || c == 'l' ||
         c == 'L' || c == 'u' || c == 'U' || c == 'w' || c == 'W' || c == '-';
}

Status VcdParser::value_changes() {
  for (std::string_view t = tok_.next(); !t.empty(); t = tok_.next()) {
    if (t.front() != '#') {
      HARNESS_TRY(value_token(t));
      continue;
    }
    std::uint64_t v = 0;
    if (t.size() < 2) return fail("empty #time");
    for (char d : t.substr(1)) {
      if (!std::isdigit(static_cast<unsigned char>(d))) return fail(fmt::format("bad time '{}'", t));
      const std::uint64_t digit = static_cast<std::uint64_t>(d - '0');
      if (v > (UINT64_MAX - digit) / 10) return fail(fmt::format("time '{}' is too large", t));
      v = v * 10 + digit;
    }
    if (have_time_ && v < now_) return fail(fmt::format("time goes backwards: #{} after #{}", v, now_));
    if (!have_time_ || v != now_) {
      HARNESS_TRY(hold());
      times_.push_back(v);
    }
    now_ = v;
    have_time_ = true;
    changes_after_last_time_ = false;
  }
  return ok();
}

// Anything but a timestamp after the declarations.
Status VcdParser::value_token(std::string_view t) {
  const char c = t.front();
  if (is_value(c)) {
    if (t.size() < 2) return fail(fmt::format("value '{}' without a signal id", t));
    Result<const std::vector<unsigned>*> bits = lookup(t.substr(1));
    if (!bits) return bits.error();
    return *bits ? set((**bits)[0], level_of(c)) : ok();
  }
  if (c == 'b' || c == 'B') {
    std::string_view id = tok_.next();
    if (id.empty()) return fail(fmt::format("vector value '{}' without a signal id", t));
    std::string_view value = t.substr(1);
    for (char v : value)
      if (!is_value(v)) return fail(fmt::format("bad vector value '{}'", t));
    Result<const std::vector<unsigned>*> bits = lookup(id);
    if (!bits) return bits.error();
    if (!*bits) return ok();
    // Written MSB first. Shorter than the width: left-extended with 0 when
    // the leftmost given bit is 0 or 1, with x or z when it is x or z.
    const char extend = value.empty() || value.front() == '1' ? '0' : value.front();
    for (unsigned k = 0; k < (*bits)->size(); ++k)
      HARNESS_TRY(set((**bits)[k], level_of(k < value.size() ? value[value.size() - 1 - k] : extend)));
    return ok();
  }
  if (c == 'r' || c == 'R' || c == 's' || c == 'S') {
    std::string_view id = tok_.next();  // real and string values are not logic channels
    if (id.empty()) return fail(fmt::format("value '{}' without a signal id", t));
    Result<const std::vector<unsigned>*> bits = lookup(id);
    if (!bits) return bits.error();
    return ok();
  }
  if (t == "$dumpvars" || t == "$dumpall" || t == "$dumpon" || t == "$dumpoff" || t == "$end")
    return ok();  // their contents are ordinary value changes
  if (c == '$') {
    // $comment and any other section: skip to $end.
    for (std::string_view p = tok_.next(); p != "$end"; p = tok_.next())
      if (p.empty()) return fail(fmt::format("unterminated {}", t));
    return ok();
  }
  if (t.back() == ':') {
    // sigrok-cli writes the analog channels of a mixed capture as text lines
    // ("A2: 4.0000 V DC") into the same file: not VCD, skipped.
    tok_.skip_line();
    return ok();
  }
  return fail(fmt::format("unexpected '{}'", t));
}

// The sample rate: given, stated in sigrok's comment, or the grid of the
// changes.
Status VcdParser::sample_grid() {
  const std::uint64_t t0 = times_.front();
  // The last timestamp ends the dump when nothing changed at it.
  end_marker_ = times_.size() > 1 && !changes_after_last_time_;
  if (options_.samplerate || stated_rate_) {
    samplerate_ = options_.samplerate ? *options_.samplerate : *stated_rate_;
    return ok();
  }
  // The grid of the changes; an end marker off that grid (a simulation
  // stopped at any time) does not refine it.
  for (std::size_t i = 0; i + (end_marker_ ? 1 : 0) < times_.size(); ++i) step_ = std::gcd(step_, times_[i] - t0);
  if (step_ == 0) step_ = times_.back() - t0;
  if (step_ == 0)
    return Error::input(fmt::format("{}: all changes at one time: cannot infer the sample rate; "
                                    "pass --samplerate", name_));
  samplerate_ = 1.0 / (static_cast<double>(step_) * timescale_);
  // 1 / (2000 x 1e-12) is 499999999.99999994 in doubles: round to 9 figures.
  const double scale = std::pow(10.0, std::floor(std::log10(samplerate_)) - 8);
  samplerate_ = std::round(samplerate_ / scale) * scale;
  return ok();
}

std::uint64_t VcdParser::index_of(std::uint64_t t) const {
  const std::uint64_t t0 = times_.front();
  if (step_) return std::min((t - t0) / step_, kSampleIndexCeiling);
  return sample_index(static_cast<double>(t - t0) * timescale_, samplerate_);
}

Status VcdParser::render(CaptureSink& sink) {
  const std::vector<std::string>& channels = choice_.names;
  ChangeTimeline timeline(channels);
  // Unknown values hold the last known level; before any, the channel's
  // idle level (low, or high for those the plan names: an active-low chip
  // select that is unknown is deselected, not a command).
  for (unsigned c : choice_.idle_high) timeline.set_initial(c, true);
  for (const auto& [channel, level] : initial_) {
    timeline.set_unknown(channel, 0, level == Level::unknown);
    if (level != Level::unknown) timeline.set_initial(channel, level == Level::high);
  }
  for (const Change& ch : changes_) {
    const std::uint64_t at = index_of(ch.time);
    timeline.set_unknown(ch.channel, at, ch.level == Level::unknown);
    if (ch.level != Level::unknown) timeline.change(ch.channel, at, ch.level == Level::high);
  }
  std::uint64_t count = index_of(times_.back()) + 1;
  if (end_marker_) {
    // Samples before the end time: up to and including the last grid point
    // short of it.
    const std::uint64_t span = times_.back() - times_.front();
    count = step_ ? std::min(span / step_ + (span % step_ ? 1 : 0), kSampleIndexCeiling) : index_of(times_.back());
    count = std::max<std::uint64_t>(count, 1);
  }
  return timeline.render(samplerate_, count, "vcd", name_, options_.limits, sink);
}

}  // namespace

Status read_vcd(std::string_view text, const std::string& name, const ReadOptions& options, CaptureSink& sink) {
  VcdParser parser(text, name, options);
  return parser.read(sink);
}

// The table's reader (formats.cc): the file read whole, within the limits.
Status read_vcd_file(const std::string& path, const ReadOptions& options, CaptureSink& sink) {
  Result<std::string> text = read_input_file(path, options.limits);
  if (!text) return text.error();
  return read_vcd(*text, path, options, sink);
}

}  // namespace harness
