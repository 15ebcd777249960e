#include "probes/tensor/sidecar.h"

#include <filesystem>
#include <set>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "harness/base/bounded_json.h"
#include "harness/base/files.h"
#include "harness/base/input_limits.h"
#include "probes/tensor/npy.h"
#include "probes/tensor/quantization.h"

namespace harness::tensor {

namespace fs = std::filesystem;

Result<Sidecar> parse_sidecar(std::string_view text, const std::string& path) {
  Result<nlohmann::json> parsed = parse_bounded_json(text, path, {.bytes = kMaxSidecarBytes});
  if (!parsed) return parsed.error();
  const nlohmann::json& j = *parsed;
  if (!j.is_object()) return Error::input(path + ": a tensor sidecar must be a JSON object");
  static const std::set<std::string> kKeys = {"name", "data", "shape", "dtype", "byte_order", "scale", "zero_point",
                                              "axis"};
  for (auto it = j.begin(); it != j.end(); ++it)
    if (!kKeys.contains(it.key()))
      return Error::input(fmt::format("{}: unknown key '{}' (name, data, shape, dtype, byte_order, scale, "
                                      "zero_point, axis)",
                                      path, it.key()));
  Sidecar s;
  const fs::path p(path);
  std::string stem = p.stem().string();
  if (j.contains("name")) {
    if (!j["name"].is_string() || j["name"].get<std::string>().empty())
      return Error::input(path + ": 'name' must be a non-empty string");
    s.name = j["name"].get<std::string>();
  }
  std::string data = stem + ".bin";
  if (j.contains("data")) {
    if (!j["data"].is_string() || j["data"].get<std::string>().empty())
      return Error::input(path + ": 'data' must be a file name");
    data = j["data"].get<std::string>();
  }
  s.data = data;
  if (s.name.empty()) s.name = fs::path(data).stem().string();
  if (j.contains("shape")) {
    if (!j["shape"].is_array()) return Error::input(path + ": 'shape' must be an array of non-negative integers");
    std::vector<std::uint64_t> shape;
    for (const nlohmann::json& d : j["shape"]) {
      if (!d.is_number_unsigned()) return Error::input(path + ": 'shape' must be an array of non-negative integers");
      shape.push_back(json_integer<std::uint64_t>(d));
    }
    if (shape.size() > 32) return Error::input(path + ": 'shape' has more than 32 dimensions");
    s.shape = shape;
  }
  if (j.contains("dtype")) {
    std::optional<DType> d = j["dtype"].is_string() ? dtype_from_name(j["dtype"].get<std::string>()) : std::nullopt;
    if (!d)
      return Error::input(fmt::format("{}: dtype {} is not supported ({})", path, j["dtype"].dump(), supported_dtypes()));
    s.dtype = *d;
  }
  if (j.contains("byte_order")) {
    std::string bo = j["byte_order"].is_string() ? j["byte_order"].get<std::string>() : "";
    if (bo != "little" && bo != "big")
      return Error::input(fmt::format("{}: byte_order {} must be \"little\" or \"big\"", path,
                                      j["byte_order"].dump()));
    s.big_endian = bo == "big";
  }
  Result<std::optional<Quantization>> q = quantization_from_json(j, path);
  if (!q) return q.error();
  s.quant = *q;
  return s;
}

namespace {

// A raw file's values: the whole file, opened by the rule.
Status read_raw_data(const Sidecar& sc, const std::string& data_path, const std::string& sidecar_path,
                     TensorInfo& t) {
  if (!sc.shape || !sc.dtype) return Error::input(sidecar_path + ": a raw tensor's sidecar needs 'shape' and 'dtype'");
  t.origin = data_path;
  t.file = data_path;
  t.dtype = *sc.dtype;
  t.big_endian = sc.big_endian;
  t.shape = *sc.shape;
  std::optional<std::uint64_t> n = element_count(t.shape);
  if (!n) return Error::input(fmt::format("{}: shape {} is too large", sidecar_path, t.shape_text()));
  t.count = *n;
  Result<RegularFile> data = open_regular_file(data_path, kMaxTensorFileBytes);
  if (!data) return Error::input(fmt::format("{} (named by {})", data.error().message, sidecar_path));
  return check_data_size(t.shape, t.dtype, data->size(), data_path);
}

}  // namespace

Result<TensorInfo> read_sidecar_tensor(const std::string& sidecar_path) {
  Result<std::string> text = read_regular_file(sidecar_path, kMaxSidecarBytes, "tensor sidecar");
  if (!text) return text.error();
  Result<Sidecar> sc = parse_sidecar(*text, sidecar_path);
  if (!sc) return sc.error();
  const std::string folder = fs::path(sidecar_path).parent_path().string();
  Result<std::string> data = path_inside(folder.empty() ? "." : folder, sc->data, sidecar_path, "the sidecar's folder");
  if (!data) return data.error();
  TensorInfo t;
  if (data->ends_with(".npy")) {
    Result<TensorInfo> n = read_npy_file(*data);
    if (!n) return Error::input(fmt::format("{} (named by {})", n.error().message, sidecar_path));
    t = std::move(*n);
    if ((sc->shape && *sc->shape != t.shape) || (sc->dtype && *sc->dtype != t.dtype))
      return Error::input(fmt::format("{}: shape/dtype disagree with {} ({} {})", sidecar_path, *data,
                                      t.shape_text(), dtype_name(t.dtype)));
  } else {
    HARNESS_TRY(read_raw_data(*sc, *data, sidecar_path, t));
  }
  t.name = sc->name;
  t.quant = sc->quant;
  if (t.quant) HARNESS_TRY(check_quantization(*t.quant, t.shape, sidecar_path));
  return t;
}

}  // namespace harness::tensor
