#include "reports/publish/series_cache.h"

#include <bit>
#include <cstring>
#include <unordered_map>

#include <fmt/format.h>

#include "harness/base/digest.h"

namespace harness {
namespace {

// The layout, all integers little-endian:
//   magic "harness publish series cache\n", u32 version
//   header: str store, i64 schema, str scenario, str rig, i64 up_to_run, str runs_digest
//   u64 body size, body, str sha256 of the body (64 hex)
//   body: u32 n, n strings (the units, provenances and reasons, each once)
//         u32 n, n runs: i64 id, str started_at, str origin, str scenario, str rig
//         u32 n, n metrics: str name, u32 n, n points:
//           u32 run (index), u8 has value, f64 value, u32 unit, u32 provenance, u32 unavailable (string indices)
//   str: u32 length, bytes
constexpr std::string_view kMagic = "harness publish series cache\n";
constexpr std::uint32_t kVersion = 1;
constexpr std::size_t kPointBytes = 4 + 1 + 8 + 4 + 4 + 4;
constexpr std::size_t kRunBytes = 8 + 4 * 4;
static_assert(std::endian::native == std::endian::little, "the series cache is written little-endian, as it is read");

class Writer {
 public:
  std::string out;
  template <class T>
  void put(T v) {
    char b[sizeof(T)];
    std::memcpy(b, &v, sizeof(T));
    out.append(b, sizeof(T));
  }
  void str(std::string_view s) {
    put<std::uint32_t>(static_cast<std::uint32_t>(s.size()));
    out.append(s);
  }
};

class Reader {
 public:
  explicit Reader(std::string_view in) : in_(in) {}
  std::size_t left() const { return in_.size() - at_; }
  template <class T>
  bool get(T& v) {
    if (left() < sizeof(T)) return false;
    std::memcpy(&v, in_.data() + at_, sizeof(T));
    at_ += sizeof(T);
    return true;
  }
  bool str(std::string& s) {
    std::uint32_t n = 0;
    if (!get(n) || left() < n) return false;
    s.assign(in_.data() + at_, n);
    at_ += n;
    return true;
  }
  bool bytes(std::size_t n, std::string_view& s) {
    if (left() < n) return false;
    s = in_.substr(at_, n);
    at_ += n;
    return true;
  }
  // A count of elements of at least `each` bytes that the bytes left can hold.
  bool count(std::uint32_t& n, std::size_t each) { return get(n) && n <= left() / each; }

 private:
  std::string_view in_;
  std::size_t at_ = 0;
};

void put_key(Writer& w, const SeriesCacheKey& k) {
  w.str(k.store);
  w.put<std::int64_t>(k.schema);
  w.str(k.scenario);
  w.str(k.rig);
  w.put<std::int64_t>(k.up_to_run);
  w.str(k.runs_digest);
}

bool get_key(Reader& r, SeriesCacheKey& k) {
  return r.str(k.store) && r.get(k.schema) && r.str(k.scenario) && r.str(k.rig) && r.get(k.up_to_run) &&
         r.str(k.runs_digest);
}

// The magic, version, key and a body size to patch; returns where the size is.
std::size_t begin_cache(Writer& w, const SeriesCacheKey& key) {
  w.out.append(kMagic);
  w.put<std::uint32_t>(kVersion);
  put_key(w, key);
  const std::size_t size_at = w.out.size();
  w.put<std::uint64_t>(0);
  return size_at;
}

// The body's size patched in, and its sha256 after it.
void end_cache(Writer& w, std::size_t size_at, std::size_t body_at) {
  const std::uint64_t size = w.out.size() - body_at;
  std::memcpy(w.out.data() + size_at, &size, sizeof size);
  const std::string digest = sha256_hex(std::string_view(w.out).substr(body_at));
  w.str(digest);
}

}  // namespace

std::string runs_state_digest(const std::vector<RunSummary>& runs, std::int64_t up_to_run) {
  std::string text;
  for (const RunSummary& r : runs) {
    if (r.id > up_to_run) continue;
    text += fmt::format("{}|{}|{}|{}|{}|{}|{}|{}|{}|{}|{}\n", r.id, r.uuid, r.scenario_name, r.rig, r.origin,
                        r.started_at, run_status_name(r.status), r.ended_at, r.metric_count, r.verdicts_failed,
                        r.reason);
  }
  return sha256_hex(text);
}

std::string encode_series_cache(const SeriesCacheKey& key, const MetricPoints& points) {
  std::unordered_map<std::string_view, std::uint32_t> string_index;
  std::vector<std::string_view> strings;
  auto intern = [&](std::string_view s) {
    auto [it, added] = string_index.emplace(s, static_cast<std::uint32_t>(strings.size()));
    if (added) strings.push_back(s);
    return it->second;
  };
  // Each point's run and string indices, found once: a metric's points
  // mostly share the unit, provenance and reason of the point before.
  struct Refs {
    std::uint32_t run, unit, provenance, unavailable;
  };
  std::vector<Refs> refs;
  std::size_t total = 0;
  for (const auto& [name, pts] : points) total += pts.size();
  refs.reserve(total);
  std::unordered_map<std::int64_t, std::uint32_t> run_index;
  std::vector<const HistoryPoint*> runs;
  for (const auto& [name, pts] : points) {
    const HistoryPoint* before = nullptr;
    for (const HistoryPoint& p : pts) {
      Refs r{};
      auto [it, added] = run_index.emplace(p.run_id, static_cast<std::uint32_t>(runs.size()));
      if (added) runs.push_back(&p);
      r.run = it->second;
      r.unit = before && before->unit == p.unit ? refs.back().unit : intern(p.unit);
      r.provenance = before && before->provenance == p.provenance ? refs.back().provenance : intern(p.provenance);
      r.unavailable =
          before && before->unavailable == p.unavailable ? refs.back().unavailable : intern(p.unavailable);
      refs.push_back(r);
      before = &p;
    }
  }
  // The body is written in place after the header, its size patched in
  // after (a year of a lab is tens of MB: it is not copied).
  Writer body;
  std::size_t bytes = 64;
  for (const auto& [name, pts] : points) bytes += name.size() + 8 + pts.size() * kPointBytes;
  body.out.reserve(bytes + runs.size() * 64);
  const std::size_t size_at = begin_cache(body, key);
  const std::size_t body_at = body.out.size();
  body.put<std::uint32_t>(static_cast<std::uint32_t>(strings.size()));
  for (std::string_view s : strings) body.str(s);
  body.put<std::uint32_t>(static_cast<std::uint32_t>(runs.size()));
  for (const HistoryPoint* p : runs) {
    body.put<std::int64_t>(p->run_id);
    body.str(p->started_at);
    body.str(p->origin);
    body.str(p->scenario_name);
    body.str(p->rig);
  }
  body.put<std::uint32_t>(static_cast<std::uint32_t>(points.size()));
  std::size_t k = 0;
  for (const auto& [name, pts] : points) {
    body.str(name);
    body.put<std::uint32_t>(static_cast<std::uint32_t>(pts.size()));
    for (const HistoryPoint& p : pts) {
      const Refs& r = refs[k++];
      body.put<std::uint32_t>(r.run);
      body.put<std::uint8_t>(p.value ? 1 : 0);
      body.put<double>(p.value ? *p.value : 0.0);
      body.put<std::uint32_t>(r.unit);
      body.put<std::uint32_t>(r.provenance);
      body.put<std::uint32_t>(r.unavailable);
    }
  }
  end_cache(body, size_at, body_at);
  return std::move(body.out);
}

std::string wrap_series_cache_body(const SeriesCacheKey& key, std::string_view body) {
  Writer w;
  const std::size_t size_at = begin_cache(w, key);
  const std::size_t body_at = w.out.size();
  w.out.append(body);
  end_cache(w, size_at, body_at);
  return std::move(w.out);
}

Result<SeriesCache> decode_series_cache(std::string_view bytes, const std::string& path) {
  auto bad = [&](const std::string& why) { return Error::input(fmt::format("{}: not a series cache: {}", path, why)); };
  if (bytes.substr(0, kMagic.size()) != kMagic) return bad("no \"harness publish series cache\" header");
  Reader r(bytes.substr(kMagic.size()));
  std::uint32_t version = 0;
  if (!r.get(version)) return bad("truncated");
  if (version != kVersion) return bad(fmt::format("version {}, this harness reads version {}", version, kVersion));
  SeriesCache c;
  std::uint64_t body_size = 0;
  std::string_view body;
  std::string digest;
  if (!get_key(r, c.key) || !r.get(body_size) || body_size > r.left() ||
      !r.bytes(static_cast<std::size_t>(body_size), body) || !r.str(digest))
    return bad("truncated");
  if (r.left() != 0) return bad("bytes after the end");
  if (digest != sha256_hex(body)) return bad("its sha256 does not match its contents");

  Reader b(body);
  std::uint32_t n = 0;
  if (!b.count(n, 4)) return bad("truncated string table");
  std::vector<std::string> strings(n);
  for (std::string& s : strings)
    if (!b.str(s)) return bad("truncated string table");
  if (!b.count(n, kRunBytes)) return bad("truncated run table");
  std::vector<HistoryPoint> runs(n);
  for (HistoryPoint& p : runs) {
    if (!b.get(p.run_id) || !b.str(p.started_at) || !b.str(p.origin) || !b.str(p.scenario_name) || !b.str(p.rig))
      return bad("truncated run table");
    if (p.run_id <= 0 || p.run_id > c.key.up_to_run)
      return bad(fmt::format("run {} is not between 1 and run {}", p.run_id, c.key.up_to_run));
  }
  std::uint32_t names = 0;
  if (!b.count(names, 8)) return bad("truncated metric table");
  for (std::uint32_t i = 0; i < names; ++i) {
    std::string name;
    std::uint32_t count = 0;
    if (!b.str(name) || !b.count(count, kPointBytes)) return bad("truncated metric table");
    auto [it, added] = c.points.try_emplace(std::move(name));
    if (!added) return bad(fmt::format("metric '{}' twice", it->first));
    std::vector<HistoryPoint>& pts = it->second;
    // Room for the nights the publish appends (all_metric_history_after):
    // growing a year's vector by one night would move every point of it.
    pts.reserve(count + count / 8 + 16);
    for (std::uint32_t k = 0; k < count; ++k) {
      std::uint32_t run = 0, unit = 0, provenance = 0, unavailable = 0;
      std::uint8_t has = 0;
      double value = 0;
      if (!b.get(run) || !b.get(has) || !b.get(value) || !b.get(unit) || !b.get(provenance) || !b.get(unavailable))
        return bad("truncated metric table");
      if (run >= runs.size() || unit >= strings.size() || provenance >= strings.size() ||
          unavailable >= strings.size() || has > 1)
        return bad(fmt::format("metric '{}': a point refers to no run or string", it->first));
      if (!pts.empty() && runs[run].run_id <= pts.back().run_id)
        return bad(fmt::format("metric '{}': runs not in order", it->first));
      HistoryPoint& p = pts.emplace_back(runs[run]);
      if (has) p.value = value;
      p.unit = strings[unit];
      p.provenance = strings[provenance];
      p.unavailable = strings[unavailable];
    }
  }
  if (b.left() != 0) return bad("bytes after the metric table");
  return c;
}

}  // namespace harness
