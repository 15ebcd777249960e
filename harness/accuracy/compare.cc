#include "harness/accuracy/compare.h"

#include <algorithm>
#include <set>
#include <sstream>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "harness/base/files.h"
#include "harness/base/input_limits.h"
#include "probes/tensor/tensor_set.h"
#include "probes/tensor/tensor_stream.h"

namespace harness::accuracy {

namespace {
// Values per chunk: two 128 KiB double buffers plus the raw bytes, small
// enough to stay in the L2 cache between conversion and accumulation.
constexpr std::size_t kChunk = 16 * 1024;
}  // namespace

std::string_view dump_mode_name(DumpMode m) { return m == DumpMode::cumulative ? "cumulative" : "isolated"; }
std::string_view dump_mode_meaning(DumpMode m) {
  return m == DumpMode::cumulative ? "the device ran the model end to end; errors accumulate from layer to layer"
                                   : "each device layer was fed the reference's input; the layer's own error";
}

Result<LayerMap> parse_layer_map(std::string_view text, const std::string& path) {
  LayerMap map;
  std::set<std::string> devices;
  std::size_t line_no = 0;
  std::istringstream in{std::string(text)};
  std::string line;
  while (std::getline(in, line)) {
    ++line_no;
    if (std::size_t hash = line.find('#'); hash != std::string::npos) line.resize(hash);
    std::istringstream words(line);
    std::vector<std::string> w;
    for (std::string s; words >> s;) w.push_back(s);
    if (w.empty()) continue;
    if (w.size() != 2)
      return Error::input(fmt::format("{}:{}: expected 'REFERENCE_LAYER DEVICE_LAYER', got {} fields", path, line_no,
                                      w.size()));
    if (map.contains(w[0]))
      return Error::input(fmt::format("{}:{}: reference layer '{}' is mapped twice", path, line_no, w[0]));
    if (!devices.insert(w[1]).second)
      return Error::input(fmt::format("{}:{}: device layer '{}' is mapped twice", path, line_no, w[1]));
    map.emplace(w[0], w[1]);
  }
  return map;
}

Result<LayerMap> read_layer_map(const std::string& path) {
  Result<std::string> text = read_regular_file(path, kMaxLayerMapBytes, "layer map");
  if (!text) return text.error();
  return parse_layer_map(*text, path);
}

namespace {

// "a, b, c": the first names of a side, and how many more.
std::string some_names(const std::vector<tensor::TensorInfo>& set) {
  constexpr std::size_t kShown = 8;
  std::vector<std::string> names;
  for (std::size_t i = 0; i < set.size() && i < kShown; ++i) names.push_back(set[i].name);
  std::string out = fmt::format("{}", fmt::join(names, ", "));
  if (set.size() > kShown) out += fmt::format(" and {} more", set.size() - kShown);
  return out;
}

}  // namespace

Result<Pairing> pair_layers(const TensorSets& sets, const LayerMap& map, const std::string& map_path) {
  const std::vector<tensor::TensorInfo>& reference = sets.reference;
  const std::vector<tensor::TensorInfo>& device = sets.device;
  std::map<std::string, const tensor::TensorInfo*> dev;
  for (const tensor::TensorInfo& t : device) dev.emplace(t.name, &t);
  std::set<std::string> ref_names;
  for (const tensor::TensorInfo& t : reference) ref_names.insert(t.name);
  for (const auto& [r, d] : map) {
    if (!ref_names.contains(r))
      return Error::input(fmt::format("{}: reference layer '{}' is not among the reference's tensors", map_path, r));
    if (!dev.contains(d))
      return Error::input(fmt::format("{}: device layer '{}' is not among the device's tensors", map_path, d));
  }
  std::set<std::string> mapped_devices;
  for (const auto& [r, d] : map) mapped_devices.insert(d);
  Pairing p;
  std::set<std::string> used;
  for (const tensor::TensorInfo& t : reference) {
    std::string want = t.name;
    if (auto m = map.find(t.name); m != map.end()) want = m->second;
    else if (mapped_devices.contains(t.name)) want.clear();  // that device name belongs to another layer
    auto d = want.empty() ? dev.end() : dev.find(want);
    if (d == dev.end()) {
      p.reference_only.push_back(t.name);
      continue;
    }
    used.insert(want);
    p.pairs.push_back({t.name, t, *d->second});
  }
  for (const tensor::TensorInfo& t : device)
    if (!used.contains(t.name)) p.device_only.push_back(t.name);
  if (p.pairs.empty())
    return Error::input(fmt::format("no layer of {} pairs with one of {}: reference layers ({}): {}; device layers "
                                    "({}): {} (layers pair by name, or through a layer map when the names differ)",
                                    sets.reference_path, sets.device_path, reference.size(), some_names(reference),
                                    device.size(), some_names(device)));
  return p;
}

Result<LayerAccuracy> compare_layer(const LayerPair& pair) {
  const tensor::TensorInfo& r = pair.reference;
  const tensor::TensorInfo& d = pair.device;
  if (r.shape != d.shape)
    return Error::input(fmt::format("layer '{}': shape {} in {} but {} in {}", pair.layer, r.shape_text(), r.origin,
                                    d.shape_text(), d.origin));
  LayerAccuracy out;
  out.layer = pair.layer;
  out.device_layer = d.name;
  out.reference_origin = r.origin;
  out.device_origin = d.origin;
  out.shape = r.shape_text();
  out.reference_dtype = std::string(tensor::dtype_name(r.dtype)) + (r.quant ? " (dequantized)" : "");
  out.device_dtype = std::string(tensor::dtype_name(d.dtype)) + (d.quant ? " (dequantized)" : "");
  Result<std::unique_ptr<tensor::TensorStream>> rs = tensor::open_tensor(r);
  if (!rs) return rs.error();
  Result<std::unique_ptr<tensor::TensorStream>> ds = tensor::open_tensor(d);
  if (!ds) return ds.error();
  std::vector<double> a(kChunk), b(kChunk);
  ErrorAccumulator acc;
  for (;;) {
    Result<std::size_t> na = (*rs)->read(a.data(), a.size());
    if (!na) return na.error();
    Result<std::size_t> nb = (*ds)->read(b.data(), b.size());
    if (!nb) return nb.error();
    if (*na != *nb)  // equal shapes give equal counts; a file changed under us otherwise
      return Error::input(fmt::format("layer '{}': {} and {} ended at different points", pair.layer, r.origin,
                                      d.origin));
    if (*na == 0) break;
    acc.add(a.data(), b.data(), *na);
  }
  out.stats = acc.finish();
  if (out.stats.ref_nan + out.stats.ref_inf > 0)
    return Error::input(fmt::format("{}: the reference holds {} NaN and {} Inf values: a reference must be finite",
                                    r.origin, out.stats.ref_nan, out.stats.ref_inf));
  out.metrics = layer_metrics(out.stats);
  return out;
}

Result<AccuracyComparison> compare_tensor_sets(const std::string& reference_path, const std::string& device_path,
                                               const CompareOptions& options) {
  LayerMap map;
  if (!options.map_path.empty()) {
    Result<LayerMap> m = read_layer_map(options.map_path);
    if (!m) return m.error();
    map = std::move(*m);
  }
  Result<std::vector<tensor::TensorInfo>> ref = tensor::list_tensor_set(reference_path);
  if (!ref) return ref.error();
  Result<std::vector<tensor::TensorInfo>> dev = tensor::list_tensor_set(device_path);
  if (!dev) return dev.error();
  Result<Pairing> p = pair_layers({*ref, *dev, reference_path, device_path}, map, options.map_path);
  if (!p) return p.error();
  AccuracyComparison c;
  c.reference_path = reference_path;
  c.device_path = device_path;
  c.mode = options.mode;
  c.reference_only = p->reference_only;
  c.device_only = p->device_only;
  // Shapes first: a mismatch found after minutes of streaming would waste them.
  for (const LayerPair& lp : p->pairs)
    if (lp.reference.shape != lp.device.shape)
      return Error::input(fmt::format("layer '{}': shape {} in {} but {} in {}", lp.layer, lp.reference.shape_text(),
                                      lp.reference.origin, lp.device.shape_text(), lp.device.origin));
  for (const LayerPair& lp : p->pairs) {
    Result<LayerAccuracy> l = compare_layer(lp);
    if (!l) return l.error();
    c.layers.push_back(std::move(*l));
  }
  return c;
}

std::vector<const LayerAccuracy*> worst_first(const std::vector<LayerAccuracy>& layers) {
  std::vector<const LayerAccuracy*> v;
  for (const LayerAccuracy& l : layers) v.push_back(&l);
  auto key = [](const LayerAccuracy* l) {
    // Non-finite device output first, then unavailable cosine, then lowest.
    const double c = l->metrics.cosine.value ? *l->metrics.cosine.value : -2.0;
    const double p = l->metrics.psnr_db.value ? *l->metrics.psnr_db.value : -1e308;
    return std::tuple(l->device_non_finite() ? 0 : 1, c, p);
  };
  std::stable_sort(v.begin(), v.end(), [&](const LayerAccuracy* a, const LayerAccuracy* b) { return key(a) < key(b); });
  return v;
}

}  // namespace harness::accuracy
