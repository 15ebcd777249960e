#include "probes/profile/work.h"

#include <algorithm>
#include <cctype>
#include <map>
#include <set>

#include <fmt/format.h>

namespace harness {
namespace {

enum class Kind { conv, conv_transpose, matmul, gemm, pooling, unary, binary, variadic, data_movement };

// Op names (canonical) by kind. ONNX names, their quantized and fused
// variants in ONNX Runtime, and the TensorFlow Lite / RKNN spellings that
// reach the same formula.
const std::map<std::string, Kind>& op_kinds() {
  static const std::map<std::string, Kind> kinds = [] {
    std::map<std::string, Kind> k;
    for (const char* n : {"conv", "convinteger", "qlinearconv", "fusedconv", "nhwcconv", "conv_2d", "depthwise_conv_2d",
                          "convrelu", "convclip", "convsigmoid", "convexswish", "convswish", "convleakyrelu", "convadd"})
      k[n] = Kind::conv;
    for (const char* n : {"convtranspose", "transpose_conv", "deconvolution", "deconv"}) k[n] = Kind::conv_transpose;
    for (const char* n : {"matmul", "matmulinteger", "qlinearmatmul", "fusedmatmul", "batch_matmul", "batchmatmul"})
      k[n] = Kind::matmul;
    for (const char* n : {"gemm", "qgemm", "fusedgemm"}) k[n] = Kind::gemm;
    for (const char* n : {"maxpool", "averagepool", "globalaveragepool", "globalmaxpool", "lppool", "globallppool",
                          "max_pool_2d", "average_pool_2d", "qlinearaveragepool", "qlinearglobalaveragepool"})
      k[n] = Kind::pooling;
    for (const char* n : {"relu", "sigmoid", "tanh", "clip", "exp", "log", "sqrt", "abs", "neg", "erf", "gelu",
                          "hardsigmoid", "hardswish", "leakyrelu", "elu", "selu", "softplus", "reciprocal", "floor",
                          "ceil", "round", "sign", "not", "relu6", "swish", "silu", "mish", "quickgelu"})
      k[n] = Kind::unary;
    for (const char* n : {"add", "sub", "mul", "div", "pow", "and", "or", "xor", "equal", "greater", "less",
                          "greaterorequal", "lessorequal", "prelu", "mod", "bitshift", "qlinearadd", "qlinearmul"})
      k[n] = Kind::binary;
    for (const char* n : {"sum", "max", "min", "mean"}) k[n] = Kind::variadic;
    for (const char* n : {"transpose", "reshape", "identity", "concat", "slice", "split", "squeeze", "unsqueeze",
                          "flatten", "expand", "tile", "gather", "memcpytohost", "memcpyfromhost", "permute", "copy",
                          "depthtospace", "spacetodepth"})
      k[n] = Kind::data_movement;
    return k;
  }();
  return kinds;
}

double elements_of(const std::vector<TensorShape>& tensors) {
  double n = 0;
  for (const TensorShape& t : tensors) n += t.elements();
  return n;
}

std::optional<OpWork> weighted(double per_output, double outputs, double bias, const std::string& formula) {
  return OpWork{2 * outputs * per_output + bias, formula};
}

}  // namespace

double TensorShape::elements() const {
  double n = 1;
  for (std::int64_t d : dims) n *= static_cast<double>(d);
  return n;
}

Status check_tensor_shape(const TensorShape& shape, const std::string& where) {
  if (shape.dims.size() > kMaxTensorRank) {
    return Error::input(fmt::format("{}: a tensor shape of {} dimensions (at most {})", where, shape.dims.size(),
                                    kMaxTensorRank));
  }
  for (std::int64_t d : shape.dims)
    if (d < 0) return Error::input(fmt::format("{}: negative tensor dimension {}", where, d));
  if (shape.elements() > kMaxTensorElements) {
    return Error::input(fmt::format("{}: a tensor of {:.4g} elements (at most {:.4g}, 2^29)", where, shape.elements(),
                                    kMaxTensorElements));
  }
  return ok();
}

std::optional<double> dtype_bytes(const std::string& dtype) {
  static const std::map<std::string, double> sizes = {
      {"double", 8},    {"float64", 8}, {"fp64", 8},     {"int64", 8},    {"uint64", 8},   {"float", 4},
      {"float32", 4},   {"fp32", 4},    {"int32", 4},    {"uint32", 4},   {"mlfloat16", 2}, {"float16", 2},
      {"fp16", 2},      {"half", 2},    {"bfloat16", 2}, {"bf16", 2},     {"int16", 2},    {"uint16", 2},
      {"int8", 1},      {"uint8", 1},   {"bool", 1},     {"fp8", 1},      {"float8e4m3fn", 1},
      {"float8e5m2", 1}, {"int4", 0.5}, {"uint4", 0.5}};
  std::string lower = dtype;
  std::transform(lower.begin(), lower.end(), lower.begin(), [](unsigned char c) { return std::tolower(c); });
  auto it = sizes.find(lower);
  if (it == sizes.end()) return std::nullopt;
  return it->second;
}

std::string canonical_op(const std::string& op) {
  std::string s = op;
  if (std::size_t slash = s.find('/'); slash != std::string::npos && slash > 0) s.resize(slash);
  if (std::size_t paren = s.find(" ("); paren != std::string::npos && paren > 0) s.resize(paren);
  if (std::size_t dot = s.rfind('.'); dot != std::string::npos) s = s.substr(dot + 1);
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return std::tolower(c); });
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.pop_back();
  return s;
}

std::optional<OpWork> op_work(const std::string& op, const std::vector<TensorShape>& inputs,
                              const std::vector<TensorShape>& outputs) {
  const std::string name = canonical_op(op);
  auto kind = op_kinds().find(name);
  if (kind == op_kinds().end() || outputs.empty()) return std::nullopt;
  const double out = elements_of(outputs);
  switch (kind->second) {
    case Kind::conv: {
      // The weight [Cout, Cin/group, k...] gives each output's multiply-adds.
      const std::size_t w = name == "qlinearconv" ? 3 : 1;
      const std::size_t b = name == "qlinearconv" ? 8 : 2;
      // ONNX Runtime leaves a prepacked constant weight out of
      // input_type_shape: without a weight of the output's rank there is no
      // formula (a bias in its place would give a wrong one).
      if (inputs.size() <= w || inputs[w].dims.size() != outputs.front().dims.size() || inputs[w].dims[0] <= 0)
        return std::nullopt;
      const double per_output = inputs[w].elements() / static_cast<double>(inputs[w].dims[0]);
      const double bias = inputs.size() > b ? out : 0;
      return weighted(per_output, out, bias,
                      "Conv: 2 x output elements x (weight elements / output channels)" +
                          std::string(bias > 0 ? " + output elements (bias)" : ""));
    }
    case Kind::conv_transpose: {
      // Each input element meets a weight slice [Cout/group, k...] of W [Cin, Cout/group, k...].
      if (inputs.size() < 2 || inputs[1].dims.size() != inputs[0].dims.size() || inputs[1].dims[0] <= 0)
        return std::nullopt;
      const double per_input = inputs[1].elements() / static_cast<double>(inputs[1].dims[0]);
      const double bias = inputs.size() > 2 ? out : 0;
      return OpWork{2 * inputs[0].elements() * per_input + bias,
                    "ConvTranspose: 2 x input elements x (weight elements / input channels)" +
                        std::string(bias > 0 ? " + output elements (bias)" : "")};
    }
    case Kind::matmul: {
      if (inputs.empty() || inputs[0].dims.empty()) return std::nullopt;
      const double k = static_cast<double>(inputs[0].dims.back());
      return weighted(k, out, 0, "MatMul: 2 x output elements x K (A's last dimension)");
    }
    case Kind::gemm: {
      const TensorShape& y = outputs.front();
      if (inputs.empty() || y.dims.size() != 2 || y.dims[0] <= 0) return std::nullopt;
      // K from A and M, N from the output: B itself may be missing (ONNX
      // Runtime leaves a prepacked constant out of input_type_shape), so C
      // is any further input that is not B-shaped (K x N).
      const double k = inputs[0].elements() / static_cast<double>(y.dims[0]);
      bool has_c = false;
      for (std::size_t i = 1; i < inputs.size(); ++i)
        has_c = has_c || inputs[i].elements() != k * static_cast<double>(y.dims[1]) || i == 2;
      const double c = has_c ? y.elements() : 0;
      return weighted(k, y.elements(), c,
                      "Gemm: 2 x M x N x K (K = A elements / M)" + std::string(c > 0 ? " + M x N (C)" : ""));
    }
    case Kind::pooling:
      if (inputs.empty()) return std::nullopt;
      return OpWork{inputs[0].elements(), "pooling: one comparison or addition per input element"};
    case Kind::unary:
    case Kind::binary:
      return OpWork{out, "elementwise: one operation per output element"};
    case Kind::variadic:
      return OpWork{out * static_cast<double>(inputs.size() > 2 ? inputs.size() - 1 : 1),
                    "elementwise over n inputs: (n - 1) operations per output element"};
    case Kind::data_movement:
      return OpWork{0, "data movement: no arithmetic"};
  }
  return std::nullopt;
}

}  // namespace harness
