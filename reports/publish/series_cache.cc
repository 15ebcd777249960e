#include "reports/publish/series_cache.h"

#include <algorithm>
#include <bit>
#include <climits>
#include <cstdint>
#include <cstring>
#include <unordered_map>
#include <unordered_set>

#include <fmt/format.h>

#include "harness/base/digest.h"

namespace harness {
namespace {

// The layout, all integers little-endian:
//   magic "harness publish series cache\n", u32 version
//   header: str store, i64 schema, str scenario, str rig, i64 up_to_run, str runs_digest
//   u64 body size, body, str sha256 of the body (64 hex)
//   body: u32 n, n strings (the units, provenances and reasons, each once)
//         u32 n, n labels: u32 unit, u32 provenance, u32 unavailable (string indices), u8 has value
//         u32 n, n runs, ids ascending: i64 id, str started_at, str origin, str scenario, str rig
//         u32 n, n metrics: str name, u32 n, then its n values column by column:
//           n u32 run (index), n f64 value (0 without one),
//           u32 k, k stretches of values with one label: u32 values (> 0), u32 label (index)
//   str: u32 length, bytes
// Version 1 held a row of 25 bytes per value; version 2 is columnar (12
// bytes a value and a few stretches a metric), so that a column is written
// and read as one block.
constexpr std::string_view kMagic = "harness publish series cache\n";
constexpr std::uint32_t kVersion = 2;
constexpr std::size_t kPointBytes = 4 + 8;
constexpr std::size_t kLabelBytes = 4 * 3 + 1;
constexpr std::size_t kStretchBytes = 4 + 4;
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
  template <class T>
  void column(const std::vector<T>& v) {
    out.append(reinterpret_cast<const char*>(v.data()), v.size() * sizeof(T));
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
  // `n` elements read as one block (the caller checked count() first).
  template <class T>
  bool column(std::size_t n, std::vector<T>& v) {
    if (left() / sizeof(T) < n) return false;
    v.resize(n);
    if (n > 0) std::memcpy(v.data(), in_.data() + at_, n * sizeof(T));
    at_ += n * sizeof(T);
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

void MetricColumn::reserve(std::size_t n) {
  run.reserve(n);
  value.reserve(n);
  label.reserve(n);
}

void MetricColumn::resize(std::size_t n) {
  run.resize(n);
  value.resize(n);
  label.resize(n);
}

MetricValues::MetricValues() { intern(""); }

std::uint32_t MetricValues::intern(std::string_view text) {
  auto it = text_index_.find(std::string(text));
  if (it != text_index_.end()) return it->second;
  const auto i = static_cast<std::uint32_t>(texts_.size());
  texts_.emplace_back(text);
  text_index_.emplace(texts_.back(), i);
  return i;
}

std::uint32_t MetricValues::intern(const ValueLabel& l) {
  auto [it, added] = label_index_.try_emplace({l.unit, l.provenance, l.unavailable, l.has_value},
                                              static_cast<std::uint32_t>(labels_.size()));
  if (added) labels_.push_back(l);
  return it->second;
}

void MetricValues::append(MetricColumn& to, const Store::MetricValueRow& row) {
  // A metric's values mostly share the label of the value before.
  std::uint32_t label = 0;
  const ValueLabel* before = to.label.empty() ? nullptr : &labels_[to.label.back()];
  if (before && before->has_value == row.value.has_value() && texts_[before->unit] == row.unit &&
      texts_[before->provenance] == row.provenance && texts_[before->unavailable] == row.unavailable) {
    label = to.label.back();
  } else {
    label = intern(
        ValueLabel{intern(row.unit), intern(row.provenance), intern(row.unavailable), row.value.has_value()});
  }
  to.run.push_back(row.run_id);
  to.value.push_back(row.value ? *row.value : 0.0);
  to.label.push_back(label);
}

void MetricValues::drop_runs_after(std::int64_t up_to_run) {
  for (auto it = metrics.begin(); it != metrics.end();) {
    MetricColumn& col = it->second;
    // Runs ascend: what is dropped is a tail.
    col.resize(static_cast<std::size_t>(std::upper_bound(col.run.begin(), col.run.end(), up_to_run) -
                                        col.run.begin()));
    it = col.size() == 0 ? metrics.erase(it) : std::next(it);
  }
}

void MetricValues::assign_tables(std::vector<std::string> texts, std::vector<ValueLabel> labels) {
  texts_ = std::move(texts);
  text_index_.clear();
  for (std::uint32_t i = 0; i < texts_.size(); ++i) text_index_.emplace(texts_[i], i);
  labels_ = std::move(labels);
  label_index_.clear();
  for (std::uint32_t i = 0; i < labels_.size(); ++i) {
    const ValueLabel& l = labels_[i];
    label_index_.try_emplace({l.unit, l.provenance, l.unavailable, l.has_value}, i);
  }
}

std::string encode_series_cache(const SeriesCacheKey& key, const std::vector<CachedRun>& runs,
                                const MetricValues& values) {
  // The runs a value is of, ascending: the run table.
  std::vector<std::int64_t> ids;
  {
    std::unordered_set<std::int64_t> seen;
    for (const auto& [name, col] : values.metrics)
      for (std::int64_t id : col.run)
        if (seen.insert(id).second) ids.push_back(id);
    std::sort(ids.begin(), ids.end());
  }
  std::unordered_map<std::int64_t, const CachedRun*> run_of;
  run_of.reserve(runs.size());
  for (const CachedRun& r : runs) run_of.emplace(r.id, &r);

  // The body is written in place after the header, its size patched in
  // after (a year of a lab is tens of MB: it is not copied).
  Writer body;
  std::size_t bytes = 64 + ids.size() * 64;
  for (const auto& [name, col] : values.metrics) bytes += name.size() + 16 + col.size() * kPointBytes;
  body.out.reserve(bytes);
  const std::size_t size_at = begin_cache(body, key);
  const std::size_t body_at = body.out.size();
  // The labels and texts numbered in the order the metrics first use them,
  // so that the same values give the same bytes however they were read
  // (the metrics' pass and the loaded runs meet the texts in other orders).
  constexpr std::uint32_t kUnused = UINT32_MAX;
  std::vector<std::uint32_t> label_no(values.labels().size(), kUnused), text_no(values.texts().size(), kUnused);
  std::vector<ValueLabel> labels;
  std::vector<std::uint32_t> texts;
  auto text = [&](std::uint32_t t) {
    if (text_no[t] == kUnused) {
      text_no[t] = static_cast<std::uint32_t>(texts.size());
      texts.push_back(t);
    }
    return text_no[t];
  };
  for (const auto& [name, col] : values.metrics) {
    for (std::size_t i = 0; i < col.size(); ++i) {
      const std::uint32_t l = col.label[i];
      if (label_no[l] != kUnused) continue;
      const ValueLabel& v = values.labels()[l];
      label_no[l] = static_cast<std::uint32_t>(labels.size());
      labels.push_back({text(v.unit), text(v.provenance), text(v.unavailable), v.has_value});
    }
  }
  body.put<std::uint32_t>(static_cast<std::uint32_t>(texts.size()));
  for (std::uint32_t t : texts) body.str(values.texts()[t]);
  body.put<std::uint32_t>(static_cast<std::uint32_t>(labels.size()));
  for (const ValueLabel& l : labels) {
    body.put<std::uint32_t>(l.unit);
    body.put<std::uint32_t>(l.provenance);
    body.put<std::uint32_t>(l.unavailable);
    body.put<std::uint8_t>(l.has_value ? 1 : 0);
  }
  body.put<std::uint32_t>(static_cast<std::uint32_t>(ids.size()));
  const CachedRun none;
  for (std::int64_t id : ids) {
    auto it = run_of.find(id);
    // A run missing from `runs` is written without its texts: the next
    // publish finds it is not the store's and reads every value again.
    const CachedRun& r = it == run_of.end() ? none : *it->second;
    body.put<std::int64_t>(id);
    body.str(r.started_at);
    body.str(r.origin);
    body.str(r.scenario);
    body.str(r.rig);
  }
  body.put<std::uint32_t>(static_cast<std::uint32_t>(values.metrics.size()));
  std::vector<std::uint32_t> index;
  for (const auto& [name, col] : values.metrics) {
    body.str(name);
    body.put<std::uint32_t>(static_cast<std::uint32_t>(col.size()));
    // A column's runs ascend, as the table's do, and each is in it: one
    // walk along the table.
    index.resize(col.size());
    std::size_t at = 0;
    for (std::size_t i = 0; i < col.size(); ++i) {
      while (ids[at] != col.run[i]) ++at;
      index[i] = static_cast<std::uint32_t>(at);
    }
    body.column(index);
    body.column(col.value);
    // The labels as stretches of one label each: a metric has one or two.
    std::size_t stretches = 0;
    for (std::size_t i = 0; i < col.size(); ++i) stretches += i == 0 || col.label[i] != col.label[i - 1];
    body.put<std::uint32_t>(static_cast<std::uint32_t>(stretches));
    for (std::size_t i = 0; i < col.size();) {
      std::size_t end = i + 1;
      while (end < col.size() && col.label[end] == col.label[i]) ++end;
      body.put<std::uint32_t>(static_cast<std::uint32_t>(end - i));
      body.put<std::uint32_t>(label_no[col.label[i]]);
      i = end;
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
  std::uint32_t n_labels = 0;
  if (!b.count(n_labels, kLabelBytes)) return bad("truncated label table");
  std::vector<ValueLabel> labels(n_labels);
  for (ValueLabel& l : labels) {
    std::uint8_t has = 0;
    if (!b.get(l.unit) || !b.get(l.provenance) || !b.get(l.unavailable) || !b.get(has))
      return bad("truncated label table");
    if (l.unit >= strings.size() || l.provenance >= strings.size() || l.unavailable >= strings.size() || has > 1)
      return bad("a label refers to no string");
    l.has_value = has == 1;
  }
  if (!b.count(n, kRunBytes)) return bad("truncated run table");
  c.runs.resize(n);
  for (CachedRun& run : c.runs) {
    if (!b.get(run.id) || !b.str(run.started_at) || !b.str(run.origin) || !b.str(run.scenario) || !b.str(run.rig))
      return bad("truncated run table");
    if (run.id <= 0 || run.id > c.key.up_to_run)
      return bad(fmt::format("run {} is not between 1 and run {}", run.id, c.key.up_to_run));
    if (&run != c.runs.data() && run.id <= (&run - 1)->id) return bad("runs not in order");
  }
  std::uint32_t names = 0;
  if (!b.count(names, 8)) return bad("truncated metric table");
  std::vector<std::uint32_t> index;
  for (std::uint32_t i = 0; i < names; ++i) {
    std::string name;
    std::uint32_t count = 0;
    if (!b.str(name) || !b.count(count, kPointBytes)) return bad("truncated metric table");
    auto [it, added] = c.values.metrics.try_emplace(std::move(name));
    if (!added) return bad(fmt::format("metric '{}' twice", it->first));
    MetricColumn& col = it->second;
    // Room for the nights the publish appends (all values after the
    // cache's newest run): growing a year's column by one night would move
    // every value of it.
    col.reserve(count + count / 8 + 16);
    if (!b.column(count, index) || !b.column(count, col.value)) return bad("truncated metric table");
    col.run.resize(count);
    for (std::uint32_t k = 0; k < count; ++k) {
      if (index[k] >= c.runs.size()) return bad(fmt::format("metric '{}': a value refers to no run", it->first));
      if (k > 0 && index[k] <= index[k - 1]) return bad(fmt::format("metric '{}': runs not in order", it->first));
      col.run[k] = c.runs[index[k]].id;
    }
    std::uint32_t stretches = 0;
    if (!b.count(stretches, kStretchBytes)) return bad("truncated metric table");
    for (std::uint32_t k = 0; k < stretches; ++k) {
      std::uint32_t length = 0, label = 0;
      if (!b.get(length) || !b.get(label)) return bad("truncated metric table");
      if (length == 0 || length > count - col.label.size() || label >= labels.size())
        return bad(fmt::format("metric '{}': its labels do not cover its values", it->first));
      col.label.insert(col.label.end(), length, label);
    }
    if (col.label.size() != count)
      return bad(fmt::format("metric '{}': its labels do not cover its values", it->first));
  }
  if (b.left() != 0) return bad("bytes after the metric table");
  c.values.assign_tables(std::move(strings), std::move(labels));
  return c;
}

}  // namespace harness
