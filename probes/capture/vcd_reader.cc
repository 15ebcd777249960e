// VCD (IEEE 1364 value change dump) as written by simulators and by
// logic-analyzer software. Parsed by tokens, not lines: a timestamp and its
// value changes may share a line.
#include <algorithm>
#include <cctype>
#include <cmath>
#include <map>
#include <numeric>

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
  int line() const { return token_line_; }

 private:
  std::string_view text_;
  std::size_t pos_ = 0;
  int line_ = 1;
  int token_line_ = 1;
};

Result<double> timescale_seconds(const std::string& text) {
  std::size_t i = 0;
  while (i < text.size() && std::isdigit(static_cast<unsigned char>(text[i]))) ++i;
  if (i == 0) return Error::input("bad $timescale '" + text + "'");
  double number = std::stod(text.substr(0, i));
  std::string unit = text.substr(i);
  static const std::map<std::string, double> units = {{"s", 1},     {"ms", 1e-3}, {"us", 1e-6},
                                                      {"ns", 1e-9}, {"ps", 1e-12}, {"fs", 1e-15}};
  auto it = units.find(unit);
  if (it == units.end()) return Error::input("bad $timescale unit '" + unit + "' (s, ms, us, ns, ps, fs)");
  return number * it->second;
}

struct Change {
  std::uint64_t time;
  unsigned channel;
  bool level;
};

}  // namespace

Status read_vcd(std::string_view text, const std::string& name, const ReadOptions& options,
                CaptureSink& sink) {
  Tokens tok(text);
  auto fail = [&](const std::string& message) {
    return Error::input(fmt::format("{}:{}: {}", name, tok.line(), message));
  };
  double timescale = 0;
  std::vector<std::string> channels;
  std::map<std::string, std::vector<unsigned>, std::less<>> ids;  // id -> channels (bit 0 first)
  // Header: declarations up to $enddefinitions.
  for (;;) {
    std::string_view t = tok.next();
    if (t.empty()) return fail("no $enddefinitions: not a VCD file, or truncated");
    if (t == "$enddefinitions") {
      if (tok.next() != "$end") return fail("expected $end after $enddefinitions");
      break;
    }
    if (t == "$timescale") {
      std::string ts;
      for (std::string_view p = tok.next(); p != "$end"; p = tok.next()) {
        if (p.empty()) return fail("unterminated $timescale");
        ts += p;
      }
      Result<double> seconds = timescale_seconds(ts);
      if (!seconds) return fail(seconds.error().message);
      timescale = *seconds;
    } else if (t == "$var") {
      const int start = tok.line();
      std::vector<std::string_view> parts;
      for (std::string_view p = tok.next(); p != "$end"; p = tok.next()) {
        if (p.empty()) return Error::input(fmt::format("{}:{}: unterminated $var", name, start));
        parts.push_back(p);
      }
      if (parts.size() < 4) return fail("$var needs: type width id name");
      int width = 0;
      try {
        width = std::stoi(std::string(parts[1]));
      } catch (...) {
        return fail(fmt::format("bad $var width '{}'", parts[1]));
      }
      if (width < 1) return fail(fmt::format("bad $var width '{}'", parts[1]));
      std::string var(parts[3]);
      if (parts.size() > 4 && width == 1) var += parts[4];  // "data [3]" -> "data[3]"
      if (channels.size() + width > 64)
        return fail(fmt::format("more than 64 one-bit signals (at '{}'): not supported", var));
      std::vector<unsigned>& bits = ids[std::string(parts[2])];
      if (!bits.empty()) continue;  // an alias of a signal already declared
      for (int b = 0; b < width; ++b) {
        bits.push_back(static_cast<unsigned>(channels.size()));
        channels.push_back(width == 1 ? var : fmt::format("{}[{}]", var, b));
      }
    } else if (t.front() == '$') {
      // $date, $version, $comment, $scope, $upscope: skip to $end.
      for (std::string_view p = tok.next(); p != "$end"; p = tok.next())
        if (p.empty()) return fail(fmt::format("unterminated {}", t));
    } else {
      return fail(fmt::format("unexpected '{}' before $enddefinitions", t));
    }
  }
  if (channels.empty()) return fail("no $var declarations");
  if (timescale == 0) timescale = 1e-9;  // the VCD default when $timescale is absent

  std::vector<Change> changes;
  std::vector<std::uint64_t> times;
  std::uint64_t now = 0;
  bool have_time = false;
  auto set = [&](std::string_view id, unsigned bit, bool level) -> Status {
    auto it = ids.find(id);
    if (it == ids.end()) return fail(fmt::format("unknown signal id '{}'", id));
    if (!have_time) {  // initial values ($dumpvars) before the first #time: time 0
      have_time = true;
      times.push_back(0);
    }
    if (bit < it->second.size()) changes.push_back({now, it->second[bit], level});
    return ok();
  };
  auto level_of = [](char c) { return c == '1' || c == 'h' || c == 'H'; };
  for (std::string_view t = tok.next(); !t.empty(); t = tok.next()) {
    char c = t.front();
    if (c == '#') {
      std::uint64_t v = 0;
      if (t.size() < 2) return fail("empty #time");
      for (char d : t.substr(1)) {
        if (!std::isdigit(static_cast<unsigned char>(d))) return fail(fmt::format("bad time '{}'", t));
        v = v * 10 + static_cast<std::uint64_t>(d - '0');
      }
      if (have_time && v < now) return fail(fmt::format("time goes backwards: #{} after #{}", v, now));
      now = v;
      have_time = true;
      times.push_back(v);
    } else if (c == '0' || c == '1' || c == 'x' || c == 'X' || c == 'z' || c == 'Z') {
      if (t.size() < 2) return fail(fmt::format("value '{}' without a signal id", t));
      HARNESS_TRY(set(t.substr(1), 0, level_of(c)));
    } else if (c == 'b' || c == 'B') {
      std::string_view id = tok.next();
      if (id.empty()) return fail(fmt::format("vector value '{}' without a signal id", t));
      std::string_view bits = t.substr(1);
      auto it = ids.find(id);
      if (it == ids.end()) return fail(fmt::format("unknown signal id '{}'", id));
      // Written MSB first; missing high bits are zero.
      for (unsigned b = 0; b < it->second.size(); ++b) {
        bool level = b < bits.size() && level_of(bits[bits.size() - 1 - b]);
        HARNESS_TRY(set(id, b, level));
      }
    } else if (c == 'r' || c == 'R') {
      (void)tok.next();  // real values are not logic channels
    } else if (t == "$dumpvars" || t == "$dumpall" || t == "$dumpon" || t == "$dumpoff" || t == "$end") {
      // Their contents are ordinary value changes.
    } else if (t == "$comment") {
      for (std::string_view p = tok.next(); p != "$end"; p = tok.next())
        if (p.empty()) return fail("unterminated $comment");
    } else {
      return fail(fmt::format("unexpected '{}'", t));
    }
  }
  if (times.empty()) return fail("no #time in the value changes");

  const std::uint64_t t0 = times.front();
  double samplerate = 0;
  std::uint64_t step = 0;  // VCD time units per sample when no rate was given
  if (options.samplerate) {
    samplerate = *options.samplerate;
  } else {
    for (std::uint64_t t : times) step = std::gcd(step, t - t0);
    if (step == 0)
      return Error::input(fmt::format("{}: all changes at one time: cannot infer the sample rate; "
                                      "pass --samplerate", name));
    samplerate = 1.0 / (static_cast<double>(step) * timescale);
  }
  auto index_of = [&](std::uint64_t t) -> std::uint64_t {
    if (step) return std::min((t - t0) / step, kMaxSamples + 1);
    return sample_index(static_cast<double>(t - t0) * timescale, samplerate);
  };
  ChangeTimeline timeline(channels);
  for (const Change& ch : changes) timeline.change(ch.channel, index_of(ch.time), ch.level);
  return timeline.render(samplerate, index_of(times.back()) + 1, "vcd", sink);
}

}  // namespace harness
