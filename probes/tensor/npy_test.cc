#include "probes/tensor/npy.h"

#include <gtest/gtest.h>

#include "probes/tensor/tensor_set.h"
#include "tests/support/tensor_bytes.h"

namespace harness::tensor {
namespace {

using namespace testing_support;

TEST(NpyHeader, ParsesWhatNumpyWrites) {
  Result<NpyHeader> h = parse_npy_header(npy("<f4", "(2, 3)", floats({1, 2, 3, 4, 5, 6})), "x.npy");
  ASSERT_TRUE(h) << h.error().message;
  EXPECT_EQ(h->dtype, DType::float32);
  EXPECT_FALSE(h->big_endian);
  EXPECT_EQ(h->shape, (std::vector<std::uint64_t>{2, 3}));
  EXPECT_EQ(h->count, 6u);
  EXPECT_EQ(h->header_bytes, 128u);  // 10 + 59-byte dict + newline, padded to 64
  Result<NpyHeader> scalar = parse_npy_header(npy(">i2", "()", "ab"), "s.npy");
  ASSERT_TRUE(scalar) << scalar.error().message;
  EXPECT_EQ(scalar->dtype, DType::int16);
  EXPECT_TRUE(scalar->big_endian);
  EXPECT_EQ(scalar->count, 1u);
  Result<NpyHeader> one = parse_npy_header(npy("|u1", "(5,)", "abcde"), "o.npy");
  ASSERT_TRUE(one) << one.error().message;
  EXPECT_EQ(one->shape, (std::vector<std::uint64_t>{5}));
}

TEST(NpyHeader, ErrorsNameTheFileAndTheReason) {
  EXPECT_EQ(parse_npy_header("PK\x03\x04 not numpy at all", "a.npy").error().message,
            "a.npy: not an .npy file (no \\x93NUMPY magic)");
  EXPECT_EQ(parse_npy_header(npy("<c8", "(2,)", ""), "c.npy").error().message,
            "c.npy: dtype '<c8' is not supported (float32, float16, bfloat16, float64, int8, uint8, int16, int32)");
  EXPECT_EQ(parse_npy_header(npy("<f4", "(2, x)", ""), "b.npy").error().message,
            "b.npy: .npy header: expected a dimension (a non-negative integer) at character 55 of \"{'descr': "
            "'<f4', 'fortran_order': False, 'shape': (2, x), }\"");
  std::string full = npy("<f4", "(2,)", "");
  EXPECT_EQ(parse_npy_header(full.substr(0, 40), "t.npy").error().message,
            "t.npy: the .npy header needs 128 bytes, the file has 40: truncated");
  std::string fortran = "{'descr': '<f4', 'fortran_order': True, 'shape': (2,), }";
  std::string f = "\x93NUMPY\x01";
  f += '\0';
  f += static_cast<char>(fortran.size());
  f += '\0';
  EXPECT_EQ(parse_npy_header(f + fortran, "f.npy").error().message,
            "f.npy: fortran_order True is not supported (save the tensor in C order)");
  EXPECT_EQ(parse_npy_header(npy("<f4", "(4294967296, 4294967296, 4294967296)", ""), "h.npy").error().message,
            "h.npy: shape (4294967296, 4294967296, 4294967296) has more elements than 2^64 bytes can hold");
}

TEST(NpyFiles, TruncatedNpyIsRefusedWithTheSizes) {
  TestFolder d;
  std::string full = npy("<f4", "(4,)", floats({1, 2, 3, 4}));
  std::string p = d.write("conv1.npy", full.substr(0, full.size() - 6));
  EXPECT_EQ(list_tensor_set(p).error().message,
            p + ": shape (4,) of float32 needs 16 bytes of data, the file holds 10: truncated, or the header does "
                "not match the data");
  std::string q = d.write("cut.npy", full.substr(0, 30));
  EXPECT_EQ(list_tensor_set(q).error().message, q + ": the .npy header needs 128 bytes, the file has 30: truncated");
}

TEST(NpyFiles, HeaderLyingAboutTheShapeIsRefused) {
  TestFolder d;
  std::string p = d.write("fc.npy", npy("<f4", "(3, 3)", floats({1, 2, 3, 4})));
  EXPECT_EQ(list_tensor_set(p).error().message,
            p + ": shape (3, 3) of float32 needs 36 bytes of data, the file holds 16: truncated, or the header does "
                "not match the data");
  std::string q = d.write("long.npy", npy("<f4", "(2,)", floats({1, 2, 3})));
  EXPECT_EQ(list_tensor_set(q).error().message,
            q + ": shape (2,) of float32 needs 8 bytes of data, the file holds 12 (4 bytes too many): the header does "
                "not match the data");
}

TEST(NpyFiles, HugeShapeInATinyFileIsRefusedBeforeAnyAllocation) {
  TestFolder d;
  // 2^40 float32 elements claimed by a 100-byte file: refused from the header alone.
  const std::string header = npy_unpadded_header("<f4", "(1048576, 1048576)");
  ASSERT_EQ(header.size(), 82u);  // the 71-byte dict and its newline
  std::string bytes = header + std::string(18, '\0');
  ASSERT_EQ(bytes.size(), 100u);
  std::string p = d.write("huge.npy", bytes);
  EXPECT_EQ(list_tensor_set(p).error().message,
            p + ": shape (1048576, 1048576) of float32 needs 4398046511104 bytes of data, the file holds 18: "
                "truncated, or the header does not match the data");
}

TEST(NpyFiles, UnsupportedDtypeIsRefused) {
  TestFolder d;
  std::string p = d.write("x.npy", npy("<i8", "(2,)", std::string(16, '\0')));
  EXPECT_EQ(list_tensor_set(p).error().message,
            p + ": dtype '<i8' is not supported (float32, float16, bfloat16, float64, int8, uint8, int16, int32)");
  std::string s = d.write("y.json", R"({"shape": [2], "dtype": "complex64"})");
  EXPECT_EQ(list_tensor_set(s).error().message,
            s + ": dtype \"complex64\" is not supported (float32, float16, bfloat16, float64, int8, uint8, int16, "
                "int32)");
}

}  // namespace
}  // namespace harness::tensor
