#include <filesystem>
#include <stdexcept>

#include <fmt/format.h>

#include "harness/model/metric_catalogue.h"
#include "harness/scenario/sections.h"

namespace harness {

bool layer_pattern_matches(std::string_view p, std::string_view s) {
  // Iterative glob with one backtrack point: linear for the patterns people write.
  std::size_t i = 0, j = 0, star = std::string_view::npos, mark = 0;
  while (j < s.size()) {
    if (i < p.size() && (p[i] == '?' || p[i] == s[j])) {
      ++i;
      ++j;
    } else if (i < p.size() && p[i] == '*') {
      star = i++;
      mark = j;
    } else if (star != std::string_view::npos) {
      i = star + 1;
      j = ++mark;
    } else {
      return false;
    }
  }
  while (i < p.size() && p[i] == '*') ++i;
  return i == p.size();
}

namespace {

AccuracyDumpSource dump_source(TableReader& r, std::string_view key, bool on_host) {
  AccuracyDumpSource d;
  d.as_written = r.string(key).value_or("");
  if (const toml::node* n = r.node(key)) d.where = r.context().where(n->source());
  if (d.as_written.empty()) return d;
  std::filesystem::path p(d.as_written);
  if (on_host && p.is_relative()) p = std::filesystem::path(r.context().path).parent_path() / p;
  d.path = p.lexically_normal().string();
  return d;
}

std::optional<double> cosine_bound(TableReader& r, std::string_view key) {
  std::optional<double> v = r.number(key);
  if (v && (*v < -1 || *v > 1)) {
    r.fail_at(key, "a cosine similarity lies in [-1, 1]");
    return std::nullopt;
  }
  return v;
}

std::string where_of(TableReader& r, std::string_view key) {
  const toml::node* n = r.node(key);
  return n ? r.context().where(n->source()) : "";
}

// Level 5's keys, as the catalogue spells them: a layer metric's bound
// (kExpectKey: "cosine_min") and its drop against the baseline
// (kExpectDropMax: "baseline.cosine_drop_max", in [accuracy.baseline]).
struct BoundKeys {
  std::string bound, drop;
};
BoundKeys keys_of(std::string_view metric_pattern) {
  for (const CatalogueEntry& e : metric_catalogue(Level::accuracy)) {
    if (e.name != metric_pattern) continue;
    BoundKeys k;
    for (const std::string& key : e.expectation_keys()) {
      if (key.starts_with("baseline.")) k.drop = key.substr(std::string_view("baseline.").size());
      else k.bound = key;
    }
    if (!k.bound.empty() && !k.drop.empty()) return k;
  }
  throw std::logic_error(fmt::format("accuracy: the catalogue has no bound keys for {}", metric_pattern));
}
const BoundKeys& cosine_keys() {
  static const BoundKeys k = keys_of("accuracy.<layer>.cosine");
  return k;
}
const BoundKeys& psnr_keys() {
  static const BoundKeys k = keys_of("accuracy.<layer>.psnr_db");
  return k;
}

}  // namespace

AccuracyConfig read_accuracy_section(TableReader& r) {
  AccuracyConfig c;
  c.on_device = r.boolean("on_device").value_or(false);
  if (auto v = r.integer("max_fetch_bytes", 1, std::int64_t{1} << 40)) c.max_fetch_bytes = static_cast<std::uint64_t>(*v);
  c.reference = dump_source(r, "reference", true);
  if (r.ok() && c.reference.as_written.empty())
    r.fail_missing("reference", "the reference (FP32) dumps: a directory or an .npz archive");
  c.device = dump_source(r, "device", !c.on_device);
  if (r.ok() && c.device.as_written.empty())
    r.fail_missing("device", "the device's dumps: a directory or an .npz archive");
  if (r.has("isolated")) c.isolated = dump_source(r, "isolated", !c.on_device);
  if (r.ok() && c.on_device) {
    for (const AccuracyDumpSource* d : {&c.device, c.isolated ? &*c.isolated : nullptr}) {
      if (!d || (d->as_written.size() >= 4 && d->as_written.substr(d->as_written.size() - 4) == ".npz")) continue;
      r.fail_at(d == &c.device ? "device" : "isolated",
                "with on_device = true the dumps are fetched as one file each: give an .npz archive");
    }
  }
  c.map = r.string("map").value_or("");
  if (!c.map.empty()) {
    std::filesystem::path p(c.map);
    if (p.is_relative()) p = std::filesystem::path(r.context().path).parent_path() / p;
    c.map_path = p.lexically_normal().string();
  }
  const std::string& cosine = cosine_keys().bound;
  const std::string& psnr = psnr_keys().bound;
  c.cosine_min = cosine_bound(r, cosine);
  c.cosine_min_where = where_of(r, cosine);
  c.psnr_min_db = r.number(psnr);
  c.psnr_min_db_where = where_of(r, psnr);
  if (auto v = r.integer("worst", 1, 1000)) c.worst = static_cast<int>(*v);
  if (const toml::array* a = r.table_array("layer")) {
    for (const toml::node& n : *a) {
      const toml::table* t = n.as_table();
      if (!t) continue;
      TableReader lr(r.context(), *t, "accuracy.layer");
      AccuracyLayerThreshold th;
      th.pattern = lr.required_string("pattern");
      th.where = r.context().where(t->source());
      th.cosine_min = cosine_bound(lr, cosine);
      th.psnr_min_db = lr.number(psnr);
      if (lr.ok() && !th.cosine_min && !th.psnr_min_db)
        lr.fail_missing(cosine, fmt::format("a threshold ({} or {}) for the layers it matches", cosine, psnr));
      (void)lr.finish();
      c.layers.push_back(th);
    }
  }
  if (const toml::table* t = r.table("baseline")) {
    TableReader br(r.context(), *t, "accuracy.baseline");
    const std::string& psnr_drop = psnr_keys().drop;
    const std::string& cosine_drop = cosine_keys().drop;
    c.psnr_drop_max_db = br.number(psnr_drop);
    c.psnr_drop_where = where_of(br, psnr_drop);
    c.cosine_drop_max = br.number(cosine_drop);
    c.cosine_drop_where = where_of(br, cosine_drop);
    for (auto [v, key] : {std::pair{c.psnr_drop_max_db, &psnr_drop}, std::pair{c.cosine_drop_max, &cosine_drop}})
      if (v && *v < 0) br.fail_at(*key, "a drop is not negative");
    (void)br.finish();
  }
  return c;
}

}  // namespace harness
