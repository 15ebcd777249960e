// How a quantized tensor's integers map to real values, as a sidecar or an
// .npz archive's companion "<archive>.json" states it:
// {"scale": s | [s...], "zero_point": z | [z...], "axis": a}.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "harness/base/result.h"
#include "probes/tensor/tensor.h"

namespace harness::tensor {

// The quantization keys of a JSON object (other keys are the caller's); none
// when it has no "scale". `where` starts every message.
Result<std::optional<Quantization>> quantization_from_json(const nlohmann::json& object, const std::string& where);

// Same, from JSON text holding one object (read with the depth limit of every
// JSON the harness reads).
Result<std::optional<Quantization>> parse_quantization_json(std::string_view json_object_text,
                                                            const std::string& where);

// Checks a quantization against a shape: the axis exists and the number of
// per-channel entries equals that axis' extent.
Status check_quantization(const Quantization& q, const std::vector<std::uint64_t>& shape, const std::string& origin);

}  // namespace harness::tensor
