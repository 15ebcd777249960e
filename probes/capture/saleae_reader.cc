// Saleae Logic 2 exports: the CSV export (one row per change) and the binary
// export (one file per channel holding toggle times), versions 0 and 1.
#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <fmt/format.h>

#include "probes/capture/readers.h"

namespace harness {
namespace {

// One CSV record: fields split at commas outside double quotes, surrounding
// blanks and quotes removed ("" inside quotes is a quote, kept doubled here:
// channel names do not need it).
std::vector<std::string_view> split_csv(std::string_view line) {
  std::vector<std::string_view> out;
  auto trim = [](std::string_view f) {
    while (!f.empty() && (f.front() == ' ' || f.front() == '\t')) f.remove_prefix(1);
    while (!f.empty() && (f.back() == ' ' || f.back() == '\t' || f.back() == '\r')) f.remove_suffix(1);
    if (f.size() >= 2 && f.front() == '"' && f.back() == '"') f = f.substr(1, f.size() - 2);
    return f;
  };
  std::size_t start = 0;
  bool quoted = false;
  for (std::size_t i = 0; i <= line.size(); ++i) {
    if (i < line.size() && line[i] == '"') quoted = !quoted;
    if (i == line.size() || (line[i] == ',' && !quoted)) {
      out.push_back(trim(line.substr(start, i - start)));
      start = i + 1;
    }
  }
  return out;
}

std::optional<double> parse_double(std::string_view s) {
  if (s.empty()) return std::nullopt;
  std::string copy(s);
  char* end = nullptr;
  double v = std::strtod(copy.c_str(), &end);
  if (end != copy.c_str() + copy.size() || !std::isfinite(v)) return std::nullopt;
  return v;
}

// An ISO-8601 date-time as Logic 2 writes it when its CSV export is asked
// for ISO-8601 timestamps ("2024-03-01T12:00:00.000000000+00:00"; also "Z",
// a space for "T", no fraction, an offset without a colon). Kept as whole
// seconds since 1970 plus picoseconds: a double of seconds since 1970 has
// only ~0.2 us of resolution, far coarser than a sample.
struct WallTime {
  std::int64_t seconds = 0;
  std::int64_t picoseconds = 0;
};

std::optional<WallTime> parse_iso8601(std::string_view s) {
  std::size_t i = 0;
  auto digits = [&](std::size_t n) -> std::optional<int> {
    if (s.size() - i < n) return std::nullopt;
    int v = 0;
    for (std::size_t k = 0; k < n; ++k) {
      const char c = s[i + k];
      if (c < '0' || c > '9') return std::nullopt;
      v = v * 10 + (c - '0');
    }
    i += n;
    return v;
  };
  auto expect = [&](char c) {
    if (i < s.size() && s[i] == c) return ++i, true;
    return false;
  };
  std::optional<int> year = digits(4);
  if (!year || !expect('-')) return std::nullopt;
  std::optional<int> month = digits(2);
  if (!month || !expect('-')) return std::nullopt;
  std::optional<int> day = digits(2);
  if (!day || !(expect('T') || expect(' '))) return std::nullopt;
  std::optional<int> hour = digits(2);
  if (!hour || !expect(':')) return std::nullopt;
  std::optional<int> minute = digits(2);
  if (!minute || !expect(':')) return std::nullopt;
  std::optional<int> second = digits(2);
  if (!second) return std::nullopt;
  if (*month < 1 || *month > 12 || *day < 1 || *day > 31 || *hour > 23 || *minute > 59 || *second > 60)
    return std::nullopt;
  WallTime t;
  if (expect('.') || expect(',')) {
    std::int64_t scale = 100000000000;  // the first digit is tenths of a second, in picoseconds
    std::size_t n = 0;
    for (; i < s.size() && s[i] >= '0' && s[i] <= '9'; ++i, ++n) {
      t.picoseconds += (s[i] - '0') * scale;  // digits past picoseconds are dropped
      scale /= 10;
    }
    if (n == 0) return std::nullopt;
  }
  int offset_minutes = 0;
  if (expect('Z') || expect('z')) {
  } else if (i < s.size() && (s[i] == '+' || s[i] == '-')) {
    const int sign = s[i++] == '-' ? -1 : 1;
    std::optional<int> oh = digits(2);
    if (!oh) return std::nullopt;
    expect(':');
    std::optional<int> om = digits(2);
    if (!om || *oh > 23 || *om > 59) return std::nullopt;
    offset_minutes = sign * (*oh * 60 + *om);
  }
  if (i != s.size()) return std::nullopt;
  // Days since 1970-01-01 of a proleptic Gregorian date (eras of 400 years).
  const int y = *year - (*month <= 2 ? 1 : 0);
  const int era = (y >= 0 ? y : y - 399) / 400;
  const int yoe = y - era * 400;
  const int mp = (*month + 9) % 12;
  const int doy = (153 * mp + 2) / 5 + *day - 1;
  const int doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  const std::int64_t days = static_cast<std::int64_t>(era) * 146097 + doe - 719468;
  t.seconds = days * 86400 + *hour * 3600 + *minute * 60 + *second - offset_minutes * 60;
  return t;
}

// Little-endian field reader over a file's bytes, with the offset for errors.
class Bytes {
 public:
  Bytes(const std::string& bytes, const std::string& where) : b_(bytes), where_(where) {}
  template <class T>
  Result<T> get(const char* what) {
    if (b_.size() - pos_ < sizeof(T) || pos_ > b_.size())
      return Error::input(fmt::format("{}: byte {}: truncated: {} missing", where_, pos_, what));
    T v;
    std::memcpy(&v, b_.data() + pos_, sizeof(T));
    pos_ += sizeof(T);
    return v;
  }
  std::size_t pos() const { return pos_; }
  std::size_t left() const { return b_.size() - pos_; }
  void seek(std::size_t pos) { pos_ = pos; }
  Error error(const std::string& message) const {
    return Error::input(fmt::format("{}: byte {}: {}", where_, pos_, message));
  }

 private:
  const std::string& b_;
  const std::string& where_;
  std::size_t pos_ = 0;
};

struct SaleaeChunk {
  bool initial = false;
  double samplerate = 0;  // 0: not stated (v0)
  double begin = 0, end = 0;
  std::vector<double> toggles;
};

Result<std::vector<SaleaeChunk>> parse_binary(const SaleaeBinaryFile& f) {
  Bytes in(f.bytes, f.where);
  Result<std::array<char, 8>> magic = in.get<std::array<char, 8>>("the <SALEAE> identifier");
  if (!magic) return magic.error();
  if (std::memcmp(magic->data(), "<SALEAE>", 8) != 0)
    return Error::input(fmt::format("{}: byte 0: not a Saleae binary export (no <SALEAE> identifier)", f.where));
  Result<std::int32_t> version = in.get<std::int32_t>("the version");
  if (!version) return version.error();
  Result<std::int32_t> type = in.get<std::int32_t>("the type");
  if (!type) return type.error();
  if (*version != 0 && *version != 1)
    return Error::input(fmt::format("{}: byte 8: version {} is not supported (0 or 1)", f.where, *version));
  if (*type != 0)
    return Error::input(fmt::format("{}: byte 12: type {} is not a digital channel export (0)", f.where, *type));
  auto read_chunk = [&](bool with_rate) -> Result<SaleaeChunk> {
    SaleaeChunk c;
    Result<std::uint32_t> initial = in.get<std::uint32_t>("the initial state");
    if (!initial) return initial.error();
    c.initial = *initial != 0;
    if (with_rate) {
      Result<double> rate = in.get<double>("the sample rate");
      if (!rate) return rate.error();
      if (!(*rate > 0) || !std::isfinite(*rate)) return in.error(fmt::format("sample rate {} is not a positive number", *rate));
      c.samplerate = *rate;
    }
    Result<double> begin = in.get<double>("the begin time");
    if (!begin) return begin.error();
    Result<double> end = in.get<double>("the end time");
    if (!end) return end.error();
    Result<std::uint64_t> n = in.get<std::uint64_t>("the number of transitions");
    if (!n) return n.error();
    if (*n > in.left() / 8)
      return in.error(fmt::format("truncated: {} transitions announced, room for {}", *n, in.left() / 8));
    c.begin = *begin;
    c.end = *end;
    c.toggles.resize(*n);
    if (*n) std::memcpy(c.toggles.data(), f.bytes.data() + in.pos(), *n * 8);
    for (std::uint64_t i = 0; i < *n; ++i) (void)in.get<double>("a transition");
    for (std::size_t i = 0; i < c.toggles.size(); ++i)
      if (!std::isfinite(c.toggles[i]) || (i && c.toggles[i] < c.toggles[i - 1]))
        return Error::input(fmt::format("{}: transition {} at {} s is out of order", f.where, i, c.toggles[i]));
    return c;
  };
  std::vector<SaleaeChunk> chunks;
  if (*version == 0) {
    Result<SaleaeChunk> c = read_chunk(false);
    if (!c) return c.error();
    chunks.push_back(std::move(*c));
  } else {
    // v1 (Saleae's "Binary Export Format (Version 1)"): the common header,
    // then uint64 chunk_count and the chunks. Some writers repeat v0's
    // initial_state, begin_time and end_time before chunk_count (one reading
    // of "same header"); that layout is accepted when the official one does
    // not account for the file's bytes exactly.
    const std::size_t after_header = in.pos();
    auto read_chunks = [&](bool v0_fields) -> Result<std::vector<SaleaeChunk>> {
      in.seek(after_header);
      if (v0_fields) {
        Result<std::uint32_t> initial = in.get<std::uint32_t>("the initial state");
        if (!initial) return initial.error();
        Result<double> begin = in.get<double>("the begin time");
        if (!begin) return begin.error();
        Result<double> end = in.get<double>("the end time");
        if (!end) return end.error();
      }
      Result<std::uint64_t> count = in.get<std::uint64_t>("the chunk count");
      if (!count) return count.error();
      if (*count > in.left() / 36) return in.error(fmt::format("truncated: {} chunks announced", *count));
      std::vector<SaleaeChunk> out;
      for (std::uint64_t i = 0; i < *count; ++i) {
        Result<SaleaeChunk> c = read_chunk(true);
        if (!c) return c.error();
        out.push_back(std::move(*c));
      }
      if (in.left()) return in.error(fmt::format("{} bytes after the last chunk", in.left()));
      return out;
    };
    Result<std::vector<SaleaeChunk>> official = read_chunks(false);
    if (official) return official;
    Result<std::vector<SaleaeChunk>> repeated = read_chunks(true);
    if (repeated) return repeated;
    return official.error();
  }
  return chunks;
}

}  // namespace

// Logic 2's digital CSV export: "Time [s],<channel>,..." then one row per
// time at which at least one channel changes; values 0, 1 or X (no data: the
// channel was off or the capture has a gap). Times are seconds relative to
// Logic's base time (the trigger, when there is one), so they may be
// negative; the capture starts at the first row. With Logic 2's ISO-8601
// option the times are date-times ("2024-03-01T12:00:00.000000000+00:00"),
// taken relative to the first row's. Accepted too: a UTF-8 byte order mark,
// CRLF line ends, quoted names with spaces or commas, times in scientific
// notation. X is counted as unknown (CaptureHeader::unknown_samples) and
// holds the channel's last level (the idle level before any data).
Status read_saleae_csv(std::string_view text, const std::string& name, const ReadOptions& options,
                       CaptureSink& sink) {
  if (text.substr(0, 3) == "\xEF\xBB\xBF") text.remove_prefix(3);
  // Lines are taken one at a time: a file of blank lines costs no memory.
  std::size_t pos = 0;
  auto next_line = [&]() -> std::optional<std::string_view> {
    if (pos >= text.size()) return std::nullopt;
    std::size_t nl = text.find('\n', pos);
    std::string_view line = text.substr(pos, nl == std::string_view::npos ? std::string_view::npos : nl - pos);
    pos = nl == std::string_view::npos ? text.size() : nl + 1;
    return line;
  };
  std::optional<std::string_view> first = next_line();
  if (!first) return Error::input(name + ":1: empty file");
  std::vector<std::string_view> head = split_csv(*first);
  if (head.size() < 2 || head[0].rfind("Time", 0) != 0)
    return Error::input(fmt::format("{}:1: expected a header 'Time [s],<channel>,...', got '{}'", name, *first));
  std::vector<std::string> file_channels(head.begin() + 1, head.end());
  Result<ChannelChoice> choice = choose_channels(file_channels, options, name);
  if (!choice) return choice.error();
  const std::vector<std::string>& channels = choice->names;
  struct Row {
    double time;
    std::uint64_t bits;
    std::uint64_t unknown;  // channels with X (no data) in this row
  };
  std::vector<Row> rows;
  std::uint64_t held = 0;  // each channel's last known level (X keeps it)
  for (unsigned c : choice->idle_high) held |= std::uint64_t{1} << c;
  std::size_t line_no = 1;
  bool wall_clock = false;  // ISO-8601 times, relative to the first row's
  WallTime wall0;
  for (std::optional<std::string_view> line = next_line(); line; line = next_line()) {
    ++line_no;
    if (line->empty() || *line == "\r") continue;
    if (rows.size() >= options.limits.changes)
      return limit_exceeded(fmt::format("{}:{}", name, line_no), "more rows", &ReaderLimits::changes,
                            options.limits);
    std::vector<std::string_view> f = split_csv(*line);
    if (f.size() != head.size())
      return Error::input(fmt::format("{}:{}: {} fields, the header has {}", name, line_no, f.size(), head.size()));
    // Seconds (relative to Logic's base time), or ISO-8601 date-times; the
    // first row decides which.
    std::optional<double> t;
    if (!wall_clock) t = parse_double(f[0]);
    if (!t && rows.empty() && !wall_clock) {
      if (std::optional<WallTime> w = parse_iso8601(f[0])) {
        wall_clock = true;
        wall0 = *w;
      }
    }
    if (wall_clock) {
      if (std::optional<WallTime> w = parse_iso8601(f[0]))
        t = static_cast<double>(w->seconds - wall0.seconds) + static_cast<double>(w->picoseconds - wall0.picoseconds) * 1e-12;
    }
    if (!t)
      return Error::input(fmt::format("{}:{}: bad time '{}' ({})", name, line_no, f[0],
                                      wall_clock ? "expected an ISO-8601 date-time like the first row's, "
                                                   "2024-03-01T12:00:00.000000000+00:00"
                                                 : "expected seconds, or an ISO-8601 date-time"));
    if (!rows.empty() && *t < rows.back().time)
      return Error::input(fmt::format("{}:{}: time goes backwards", name, line_no));
    Row r{*t, 0, 0};
    for (std::size_t c = 1; c < f.size(); ++c) {
      const unsigned ch = choice->index[c - 1];
      if (ch == kNotRead) continue;
      const std::uint64_t bit = std::uint64_t{1} << ch;
      if (f[c] == "1") {
        r.bits |= bit;
      } else if (f[c] == "X" || f[c] == "x") {
        r.bits |= held & bit;  // no data: hold (the idle level before any data)
        r.unknown |= bit;
      } else if (f[c] != "0") {
        return Error::input(fmt::format("{}:{}: bad value '{}' for {} (0, 1 or X)", name, line_no, f[c],
                                        file_channels[c - 1]));
      }
    }
    held = r.bits;
    rows.push_back(r);
  }
  if (rows.empty()) return Error::input(fmt::format("{}:2: no samples", name));
  double rate = 0;
  if (options.samplerate) {
    rate = *options.samplerate;
  } else {
    std::vector<double> times;
    for (const Row& r : rows) times.push_back(r.time);
    Result<double> inferred = infer_samplerate(std::move(times), name);
    if (!inferred) return inferred.error();
    rate = *inferred;
  }
  ChangeTimeline timeline(channels);
  const double t0 = rows.front().time;
  for (unsigned c = 0; c < channels.size(); ++c) timeline.set_initial(c, (rows.front().bits >> c) & 1);
  std::uint64_t last = 0;
  for (const Row& r : rows) {
    last = sample_index(r.time - t0, rate);
    for (unsigned c = 0; c < channels.size(); ++c) {
      timeline.change(c, last, (r.bits >> c) & 1);
      timeline.set_unknown(c, last, (r.unknown >> c) & 1);
    }
  }
  return timeline.render(rate, last + 1, "saleae-csv", name, options.limits, sink);
}

Status read_saleae_binary(const std::vector<SaleaeBinaryFile>& files, const ReadOptions& options,
                          CaptureSink& sink) {
  if (files.empty()) return Error::input("no Saleae binary channel files");
  if (files.size() > 64) return Error::input("more than 64 Saleae channel files");
  std::vector<std::vector<SaleaeChunk>> all;
  std::vector<std::string> channels;
  double rate = options.samplerate.value_or(0);
  double t0 = INFINITY, t_end = -INFINITY;
  std::vector<double> times;
  std::uint64_t toggles = 0;
  for (const SaleaeBinaryFile& f : files) {
    Result<std::vector<SaleaeChunk>> chunks = parse_binary(f);
    if (!chunks) return chunks.error();
    for (const SaleaeChunk& c : *chunks) toggles += c.toggles.size() + 1;
    if (toggles > options.limits.changes)
      return limit_exceeded(f.where, fmt::format("{} transitions in the files up to this one", toggles),
                            &ReaderLimits::changes, options.limits);
    for (const SaleaeChunk& c : *chunks) {
      if (!options.samplerate && c.samplerate > 0) {
        if (rate > 0 && std::abs(rate - c.samplerate) > 1e-6 * rate)
          return Error::input(fmt::format("{}: sample rate {} differs from {} in another chunk or file",
                                          f.where, c.samplerate, rate));
        rate = c.samplerate;
      }
      t0 = std::min(t0, c.begin);
      t_end = std::max(t_end, c.end);
      times.push_back(c.begin);
      times.insert(times.end(), c.toggles.begin(), c.toggles.end());
    }
    channels.push_back(f.name);
    all.push_back(std::move(*chunks));
  }
  if (rate <= 0) {
    Result<double> inferred = infer_samplerate(times, files.front().where + " (v0 states no sample rate)");
    if (!inferred) return inferred.error();
    rate = *inferred;
  }
  if (!(t_end >= t0)) return Error::input(files.front().where + ": no time range");
  auto index_of = [&](double t) { return sample_index(t - t0, rate); };
  ChangeTimeline timeline(channels);
  for (unsigned ch = 0; ch < all.size(); ++ch) {
    // Gaps between v1 chunks hold the last level and are unknown (no data
    // was recorded: the channel was off, or USB could not keep up).
    const SaleaeChunk* before = nullptr;
    for (const SaleaeChunk& c : all[ch]) {
      if (before && index_of(c.begin) > index_of(before->end)) {
        timeline.set_unknown(ch, index_of(before->end), true);
        timeline.set_unknown(ch, index_of(c.begin), false);
      }
      before = &c;
      bool level = c.initial;
      timeline.change(ch, index_of(c.begin), level);
      for (double t : c.toggles) {
        level = !level;
        timeline.change(ch, index_of(t), level);
      }
    }
  }
  // end_time closes the capture: the sample at it is not part of it (unless
  // a transition sits there).
  const std::uint64_t count = std::max<std::uint64_t>(index_of(t_end), timeline.last_change() + 1);
  return timeline.render(rate, count, "saleae-binary", files.front().where, options.limits, sink);
}

Result<std::vector<SaleaeBinaryFile>> load_saleae_binary_files(const std::string& path, const ReaderLimits& limits) {
  namespace fs = std::filesystem;
  std::vector<fs::path> paths;
  std::error_code ec;
  if (fs::is_directory(path, ec)) {
    for (const auto& e : fs::directory_iterator(path, ec))
      if (e.path().extension() == ".bin" && e.path().filename().string().rfind("digital_", 0) == 0)
        paths.push_back(e.path());
    if (paths.empty()) return Error::input(path + ": no digital_*.bin files (Saleae binary export)");
  } else {
    paths.push_back(path);
  }
  // digital_2 before digital_10.
  auto number = [](const fs::path& p) {
    std::string s = p.stem().string();
    std::size_t u = s.rfind('_');
    try {
      return u == std::string::npos ? 0 : std::stoi(s.substr(u + 1));
    } catch (...) {
      return 0;
    }
  };
  std::sort(paths.begin(), paths.end(), [&](const fs::path& a, const fs::path& b) {
    return number(a) != number(b) ? number(a) < number(b) : a < b;
  });
  std::vector<SaleaeBinaryFile> out;
  for (const fs::path& p : paths) {
    Result<std::string> bytes = read_input_file(p.string(), limits);
    if (!bytes) return bytes.error();
    out.push_back({p.stem().string(), p.string(), std::move(*bytes)});
  }
  return out;
}

// The table's readers (formats.cc).
Status read_saleae_csv_file(const std::string& path, const ReadOptions& options, CaptureSink& sink) {
  Result<std::string> text = read_input_file(path, options.limits);
  if (!text) return text.error();
  return read_saleae_csv(*text, path, options, sink);
}

Status read_saleae_binary_path(const std::string& path, const ReadOptions& options, CaptureSink& sink) {
  Result<std::vector<SaleaeBinaryFile>> files = load_saleae_binary_files(path, options.limits);
  if (!files) return files.error();
  return read_saleae_binary(*files, options, sink);
}

}  // namespace harness
