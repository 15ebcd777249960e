#include "probes/profile/work.h"

#include <gtest/gtest.h>

namespace harness {
namespace {

TensorShape t(std::vector<std::int64_t> dims, std::string dtype = "float") { return {std::move(dtype), std::move(dims)}; }

double flops(const std::string& op, std::vector<TensorShape> in, std::vector<TensorShape> out) {
  std::optional<OpWork> w = op_work(op, in, out);
  EXPECT_TRUE(w) << op;
  return w ? w->flops : -1;
}

// The formulas of docs/parts/roofline.md "Work per layer", worked by hand.
TEST(OpWork, ConvolutionsCountTwoOpsPerMultiplyAddAndOnePerBias) {
  // 3x3 conv, 64 -> 128 channels, 56x56 output: 2 x (128*56*56) x (64*9), + the bias.
  EXPECT_DOUBLE_EQ(flops("Conv", {t({1, 64, 56, 56}), t({128, 64, 3, 3}), t({128})}, {t({1, 128, 56, 56})}),
                   2.0 * 128 * 56 * 56 * 64 * 9 + 128 * 56 * 56);
  // Depthwise (group 32): the weight [32, 1, 3, 3] carries Cin/group = 1.
  EXPECT_DOUBLE_EQ(flops("Conv", {t({1, 32, 10, 10}), t({32, 1, 3, 3})}, {t({1, 32, 10, 10})}), 2.0 * 3200 * 9);
  EXPECT_DOUBLE_EQ(flops("DEPTHWISE_CONV_2D", {t({1, 32, 10, 10}), t({32, 1, 3, 3})}, {t({1, 32, 10, 10})}),
                   2.0 * 3200 * 9);
  // QLinearConv: x, x_scale, x_zp, w, w_scale, w_zp, y_scale, y_zp, B.
  EXPECT_DOUBLE_EQ(flops("QLinearConv", {t({1, 8, 4, 4}), t({}), t({}), t({16, 8, 1, 1}), t({}), t({}), t({}), t({})},
                         {t({1, 16, 4, 4})}),
                   2.0 * 256 * 8);
  // ConvTranspose W [Cin, Cout/g, k, k]: 2 x input elements x (Cout/g * k * k).
  EXPECT_DOUBLE_EQ(flops("ConvTranspose", {t({1, 16, 8, 8}), t({16, 4, 2, 2})}, {t({1, 4, 16, 16})}),
                   2.0 * 1024 * 16);
  // Without a weight of the output's rank (ONNX Runtime prepacked it away) there is no formula.
  EXPECT_FALSE(op_work("Conv", {t({1, 64, 56, 56}), t({128})}, {t({1, 128, 56, 56})}));
}

TEST(OpWork, MatMulAndGemm) {
  EXPECT_DOUBLE_EQ(flops("MatMul", {t({1024, 1024}), t({1024, 1024})}, {t({1024, 1024})}), 2.0 * 1024 * 1024 * 1024);
  EXPECT_DOUBLE_EQ(flops("MatMul", {t({8, 12, 64, 32}), t({8, 12, 32, 64})}, {t({8, 12, 64, 64})}),
                   2.0 * 8 * 12 * 64 * 64 * 32);
  EXPECT_DOUBLE_EQ(flops("Gemm", {t({32, 256}), t({256, 10}), t({10})}, {t({32, 10})}), 2.0 * 32 * 10 * 256 + 320);
  EXPECT_DOUBLE_EQ(flops("Gemm", {t({256, 32}), t({10, 256})}, {t({32, 10})}), 2.0 * 32 * 10 * 256);  // transA, transB
  // ONNX Runtime 1.30 lists a Gemm's prepacked B out: [A, C] only.
  EXPECT_DOUBLE_EQ(flops("Gemm", {t({1, 64}), t({10})}, {t({1, 10})}), 2.0 * 10 * 64 + 10);
}

TEST(OpWork, PoolingElementwiseAndDataMovement) {
  EXPECT_DOUBLE_EQ(flops("MaxPool", {t({1, 16, 32, 32})}, {t({1, 16, 16, 16})}), 16 * 32 * 32);
  EXPECT_DOUBLE_EQ(flops("GlobalAveragePool", {t({1, 16, 7, 7})}, {t({1, 16, 1, 1})}), 16 * 49);
  EXPECT_DOUBLE_EQ(flops("Add", {t({1, 64}), t({64})}, {t({1, 64})}), 64);
  EXPECT_DOUBLE_EQ(flops("Relu", {t({2, 8})}, {t({2, 8})}), 16);
  EXPECT_DOUBLE_EQ(flops("Sum", {t({4}), t({4}), t({4})}, {t({4})}), 8);
  EXPECT_DOUBLE_EQ(flops("Transpose", {t({1, 3, 4, 5})}, {t({1, 4, 5, 3})}), 0);
  EXPECT_FALSE(op_work("Softmax", {t({1, 10})}, {t({1, 10})}));
  EXPECT_FALSE(op_work("LayerNormalization", {t({1, 10})}, {t({1, 10})}));
}

TEST(OpWork, ShapesBeyondTheLimitsAreRefused) {
  EXPECT_EQ(check_tensor_shape(t({1000, 1000, 1000}), "f:3").error().message,
            "f:3: a tensor of 1e+09 elements (at most 5.369e+08, 2^29)");
  EXPECT_EQ(check_tensor_shape(t(std::vector<std::int64_t>(33, 1)), "f:3").error().message,
            "f:3: a tensor shape of 33 dimensions (at most 32)");
  EXPECT_EQ(check_tensor_shape(t({2, -1}), "f:3").error().message, "f:3: negative tensor dimension -1");
  EXPECT_TRUE(check_tensor_shape(t({1, 3, 224, 224}), "f:3"));
  EXPECT_EQ(dtype_bytes("MLFloat16"), 2);
  EXPECT_EQ(dtype_bytes("INT8"), 1);
  EXPECT_FALSE(dtype_bytes("complex64"));
}

}  // namespace
}  // namespace harness
