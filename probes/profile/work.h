// A layer's work from the tensor shapes a profile carries (ONNX Runtime's
// input_type_shape/output_type_shape, RKNN's InputShape/OutputShape): the
// formulas of docs/parts/roofline.md "Work per layer", one table of op kinds.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "harness/base/result.h"

namespace harness {

struct TensorShape {
  std::string dtype;                // as the profile names it: "float", "int8", "MLFloat16"; may be empty
  std::vector<std::int64_t> dims;   // every dimension >= 0
  double elements() const;
};

// The largest tensor a profile may describe, in elements: beyond any edge
// model's tensor (2 GiB of fp32); a larger one is refused as hostile input.
inline constexpr double kMaxTensorElements = double(1ull << 29);
// The most dimensions a tensor may have (ONNX Runtime allows far fewer in practice).
inline constexpr std::size_t kMaxTensorRank = 32;

// Checks a shape read from `where`: rank and element count within the limits.
Status check_tensor_shape(const TensorShape& shape, const std::string& where);

// Bytes per element of a data type name in any of the spellings profilers
// use ("float", "float32", "fp32", "MLFloat16", "INT8", ...); nullopt: unknown.
std::optional<double> dtype_bytes(const std::string& dtype);

// Floating-point (or integer) operations of one execution of `op`, and the
// formula that gave them; nullopt when the op has no formula or the shapes
// do not fit it.
struct OpWork {
  double flops = 0;
  std::string formula;  // "Conv: 2 x output elements x (weight elements / output channels) + output elements (bias)"
};
std::optional<OpWork> op_work(const std::string& op, const std::vector<TensorShape>& inputs,
                              const std::vector<TensorShape>& outputs);

// The op's name reduced for lookups: lower case, without a description after
// '/' (TensorFlow Lite "CONV_2D/..."), a parenthesised suffix (XNNPACK
// "Copy (NC, X8)") or an ONNX domain prefix ("com.microsoft.").
std::string canonical_op(const std::string& op);

}  // namespace harness
