#include "probes/tensor/quantization.h"

#include <cmath>
#include <limits>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "harness/base/bounded_json.h"
#include "harness/base/input_limits.h"

namespace harness::tensor {
namespace {

Result<std::vector<double>> number_list(const nlohmann::json& v, const std::string& where, const char* key) {
  std::vector<double> out;
  if (v.is_number()) {
    out.push_back(v.get<double>());
  } else if (v.is_array() && !v.empty()) {
    for (const nlohmann::json& x : v) {
      if (!x.is_number()) return Error::input(fmt::format("{}: '{}' must hold numbers", where, key));
      out.push_back(x.get<double>());
    }
  } else {
    return Error::input(fmt::format("{}: '{}' must be a number or a non-empty array of numbers", where, key));
  }
  for (double d : out)
    if (!std::isfinite(d)) return Error::input(fmt::format("{}: '{}' must be finite", where, key));
  return out;
}

}  // namespace

Result<std::optional<Quantization>> quantization_from_json(const nlohmann::json& j, const std::string& where) {
  const bool has_scale = j.contains("scale"), has_zp = j.contains("zero_point"), has_axis = j.contains("axis");
  if (!has_scale) {
    if (has_zp || has_axis) return Error::input(where + ": 'zero_point' and 'axis' need a 'scale'");
    return std::optional<Quantization>{};
  }
  Quantization q;
  Result<std::vector<double>> s = number_list(j["scale"], where, "scale");
  if (!s) return s.error();
  q.scale = *s;
  if (has_zp) {
    Result<std::vector<double>> z = number_list(j["zero_point"], where, "zero_point");
    if (!z) return z.error();
    q.zero_point = *z;
  } else {
    q.zero_point.assign(q.scale.size(), 0.0);
  }
  if (q.zero_point.size() == 1 && q.scale.size() > 1) q.zero_point.assign(q.scale.size(), q.zero_point[0]);
  if (q.zero_point.size() != q.scale.size())
    return Error::input(fmt::format("{}: {} scales but {} zero points", where, q.scale.size(), q.zero_point.size()));
  if (has_axis) {
    const nlohmann::json& axis = j["axis"];
    if (!axis.is_number_integer()) return Error::input(where + ": 'axis' must be an integer");
    // A tensor has far fewer dimensions than an int counts; a larger axis is
    // an error of the file, not a number to wrap.
    const bool fits = axis.is_number_unsigned()
                          ? axis.get<std::uint64_t>() <= static_cast<std::uint64_t>(std::numeric_limits<int>::max())
                          : axis.get<std::int64_t>() >= std::numeric_limits<int>::min() &&
                                axis.get<std::int64_t>() <= std::numeric_limits<int>::max();
    if (!fits) return Error::input(fmt::format("{}: 'axis' {} is out of range", where, axis.dump()));
    q.axis = json_integer<int>(axis);
  } else if (q.scale.size() > 1) {
    return Error::input(fmt::format("{}: {} scales (per channel) need an 'axis'", where, q.scale.size()));
  }
  return std::optional<Quantization>{std::move(q)};
}

Status check_quantization(const Quantization& q, const std::vector<std::uint64_t>& shape, const std::string& origin) {
  if (!q.axis) return ok();
  const int rank = static_cast<int>(shape.size());
  int axis = *q.axis < 0 ? *q.axis + rank : *q.axis;
  if (axis < 0 || axis >= rank)
    return Error::input(fmt::format("{}: quantization axis {} is outside shape {}", origin, *q.axis,
                                    shape_text(shape)));
  if (shape[static_cast<std::size_t>(axis)] != q.scale.size())
    return Error::input(fmt::format("{}: {} per-channel scales, but axis {} of shape {} has {} channels", origin,
                                    q.scale.size(), *q.axis, shape_text(shape),
                                    shape[static_cast<std::size_t>(axis)]));
  return ok();
}

Result<std::optional<Quantization>> parse_quantization_json(std::string_view text, const std::string& where) {
  Result<nlohmann::json> j = parse_bounded_json(text, where, {.bytes = kMaxSidecarBytes});
  if (!j) return j.error();
  if (!j->is_object()) return Error::input(where + ": not a JSON object");
  return quantization_from_json(*j, where);
}

}  // namespace harness::tensor
