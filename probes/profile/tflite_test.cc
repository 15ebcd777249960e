#include <gtest/gtest.h>

#include "probes/profile/test_support.h"

namespace harness {
namespace {

using namespace profile_test;

// The truth of fixtures/profiles/tflite-synthetic.{txt,csv}: per inference
// avg ms x times called; an NNAPI delegate around two CPU ops.
void expect_nnapi_profile(const LayerProfile& p) {
  EXPECT_EQ(p.format, "tflite");
  ASSERT_EQ(p.layers.size(), 4u);
  expect_rel(layer(p, "[conv_a, relu_a]:12").time_s, 1.0e-3);
  expect_rel(layer(p, "[pool]:13").time_s, 0.2e-3);
  expect_rel(layer(p, "[resize]:14").time_s, 0.3e-3);  // 0.150 ms x 2 calls
  expect_rel(layer(p, "[head]:15").time_s, 0.5e-3);
  EXPECT_EQ(layer(p, "[head]:15").device, LayerDevice::accelerator);
  EXPECT_EQ(layer(p, "[pool]:13").device, LayerDevice::cpu);
  EXPECT_EQ(layer(p, "[pool]:13").op, "AVERAGE_POOL_2D");
  EXPECT_TRUE(p.device_known);
  EXPECT_TRUE(p.has_start);
  ASSERT_EQ(p.kernels.size(), 4u);
  expect_rel(p.kernels[1].start_s, 1.010e-3);
}

TEST(TfLiteProfile, TextTablesReadTheRegularRunsRunOrder) {
  Result<LayerProfile> p = read(fixture("tflite-synthetic.txt"), "auto", "bench.txt");
  ASSERT_TRUE(p) << p.error().message;
  expect_nnapi_profile(*p);
}

TEST(TfLiteProfile, CsvFormReadsTheSame) {
  Result<LayerProfile> p = read(fixture("tflite-synthetic.csv"), "auto", "bench.csv");
  ASSERT_TRUE(p) << p.error().message;
  expect_nnapi_profile(*p);
}

TEST(TfLiteProfile, NewerSpacePaddedTablesWithXnnpackOps) {
  Result<LayerProfile> p = read(fixture("tflite-xnnpack-synthetic.txt"), "auto", "bench.txt");
  ASSERT_TRUE(p) << p.error().message;
  ASSERT_EQ(p->layers.size(), 3u);
  const ProfileLayer& conv = layer(*p, "Delegate/Convolution (NHWC, QC8) IGEMM:0");
  EXPECT_EQ(conv.op, "Convolution (NHWC, QC8) IGEMM");
  expect_rel(conv.time_s, 0.4e-3);
  expect_rel(layer(*p, "Delegate/Transpose (ND, X8):1").time_s, 0.1e-3);
  expect_rel(layer(*p, "[StatefulPartitionedCall:3, StatefulPartitionedCall:2]:266").time_s, 0.5e-3);
  EXPECT_EQ(conv.device, LayerDevice::cpu);  // XNNPACK is a CPU library
  EXPECT_FALSE(p->has_start);                // no [start] column in this layout
}

TEST(TfLiteProfile, OlderTablesWithoutTimesCalledAreOneCall) {
  const std::string text =
      "============================== Run Order ==============================\n"
      "\t             [node type]\t          [start]\t  [first]\t [avg ms]\t     [%]\t  [cdf%]\t  [mem KB]\t[Name]\n"
      "\t                 CONV_2D\t            0.000\t    4.000\t    3.500\t 70.000%\t 70.000%\t     0.000\t[conv]\n"
      "\t       DEPTHWISE_CONV_2D\t            3.600\t    1.600\t    1.500\t 30.000%\t100.000%\t     0.000\t[dw]\n";
  Result<LayerProfile> p = read(text, "tflite", "old.txt");
  ASSERT_TRUE(p) << p.error().message;
  expect_rel(layer(*p, "[conv]").time_s, 3.5e-3);
  expect_rel(layer(*p, "[dw]").time_s, 1.5e-3);
}

TEST(TfLiteProfile, DelegateInternalRowsInsideAFusedKernelAreNotCountedTwice) {
  const std::string text =
      "============================== Run Order ==============================\n"
      "\t             [node type]\t          [start]\t  [first]\t [avg ms]\t     [%]\t  [cdf%]\t  [mem KB]\t[times called]\t[Name]\n"
      "\t   TfLiteXNNPackDelegate\t            0.000\t    2.000\t    2.000\t100.000%\t100.000%\t     0.000\t        1\t[y]:3\n"
      "\t        DelegateOpInvoke\t            0.010\t    1.200\t    1.200\t 60.000%\t160.000%\t     0.000\t        1\tDelegate/Convolution:0\n";
  Result<LayerProfile> p = read(text, "tflite", "d.txt");
  ASSERT_TRUE(p) << p.error().message;
  ASSERT_EQ(p->layers.size(), 1u);
  EXPECT_EQ(p->layers[0].name, "[y]:3");
  EXPECT_EQ(p->layers[0].device, LayerDevice::cpu);
  ASSERT_EQ(p->notes.size(), 1u);
  EXPECT_EQ(p->notes[0], "1 rows inside TfLiteXNNPackDelegate left out: their time is in its row");
}

TEST(TfLiteProfile, MalformedRowsNameFileAndLine) {
  const std::string header =
      "============================== Run Order ==============================\n"
      "\t             [node type]\t          [start]\t  [first]\t [avg ms]\t     [%]\t  [cdf%]\t  [mem KB]\t[times called]\t[Name]\n";
  EXPECT_EQ(refusal(read(header + "\t CONV_2D\t 0.0\t 1.0\t abc\t 1%\t 1%\t 0\t 1\t[c]\n", "tflite", "t.txt")),
            "t.txt:3: expected a node type, 7 numbers (start, first, avg ms, %, cdf%, mem kb, times called) and a name");
  EXPECT_EQ(refusal(read(header + "\t CONV_2D\t 0.0\t 1.0\t -2.0\t 1%\t 1%\t 0\t 1\t[c]\n", "tflite", "t.txt")),
            "t.txt:3: column 'avg ms': negative value -2");
  EXPECT_EQ(refusal(read(header, "tflite", "t.txt")), "t.txt:2: the table has a header but no rows");
}

}  // namespace
}  // namespace harness
