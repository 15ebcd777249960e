#include "probes/tensor/sidecar.h"

#include <sys/stat.h>

#include <filesystem>

#include <gtest/gtest.h>

#include "probes/tensor/tensor_set.h"
#include "probes/tensor/tensor_stream.h"
#include "tests/support/tensor_bytes.h"

namespace harness::tensor {
namespace {

using namespace testing_support;
namespace fs = std::filesystem;

TEST(Sidecars, RawTensorWithSidecarStreamsDequantizedValues) {
  TestFolder d;
  const std::int8_t q[] = {-128, 0, 5, 127, 1, 2};
  d.write("a.bin", std::string(reinterpret_cast<const char*>(q), sizeof q));
  std::string sc = d.write("a.json", R"({"shape": [2, 3], "dtype": "int8", "scale": [0.5, 2.0], "zero_point": [1, 0], "axis": 0})");
  Result<std::vector<TensorInfo>> set = list_tensor_set(d.str());
  ASSERT_TRUE(set) << set.error().message;
  ASSERT_EQ(set->size(), 1u);
  EXPECT_EQ((*set)[0].name, "a");
  Result<std::unique_ptr<TensorStream>> s = open_tensor((*set)[0]);
  ASSERT_TRUE(s) << s.error().message;
  double v[8];
  Result<std::size_t> n = (*s)->read(v, 8);
  ASSERT_TRUE(n) << n.error().message;
  ASSERT_EQ(*n, 6u);
  EXPECT_EQ(std::vector<double>(v, v + 6), (std::vector<double>{-64.5, -0.5, 2.0, 254.0, 2.0, 4.0}));
  EXPECT_EQ(*(*s)->read(v, 8), 0u);
}

TEST(Sidecars, SidecarErrorsNameTheSidecar) {
  TestFolder d;
  d.write("a.bin", std::string(6, '\0'));
  std::string sc = d.write("a.json", R"({"shape": [2, 3], "dtype": "int8", "scale": [0.5, 2.0, 1.0], "axis": 0})");
  EXPECT_EQ(list_tensor_set(d.str()).error().message,
            sc + ": 3 per-channel scales, but axis 0 of shape (2, 3) has 2 channels");
  // An axis beyond any int (found by tensor_sidecar_fuzz: it threw out of the parser).
  for (const char* axis : {"-688380341810", "2147483648", "18446744073709551615"}) {
    d.write("a.json", std::string(R"({"shape": [2, 3], "dtype": "int8", "scale": [0.5, 2.0], "axis": )") + axis + "}");
    EXPECT_EQ(list_tensor_set(d.str()).error().message, sc + ": 'axis' " + axis + " is out of range");
  }
  d.write("a.json", R"({"shape": [2, 3], "dtype": "int8", "scales": 1})");
  EXPECT_EQ(list_tensor_set(d.str()).error().message,
            sc + ": unknown key 'scales' (name, data, shape, dtype, byte_order, scale, zero_point, axis)");
  d.write("a.json", R"({"shape": [2, 3], "dtype": "int16"})");
  EXPECT_EQ(list_tensor_set(d.str()).error().message,
            (fs::path(d.str()) / "a.bin").string() +
                ": shape (2, 3) of int16 needs 12 bytes of data, the file holds 6: truncated, or the header does not "
                "match the data");
  d.write("a.json", R"({"dtype": "int8"})");
  EXPECT_EQ(list_tensor_set(d.str()).error().message, sc + ": a raw tensor's sidecar needs 'shape' and 'dtype'");
}

std::string error_of(const Result<std::vector<TensorInfo>>& r) { return r ? std::string("accepted") : r.error().message; }

// Issue 29: the data file a sidecar names is held to the rule for files
// named by data: inside the sidecar's folder, a regular file.
TEST(Sidecars, DataOutsideTheFolderOrNotARegularFileIsRefusedNamingIt) {
  TestFolder d;
  fs::create_directories(d / "dump");
  d.write("outside.bin", std::string(4, '\0'));
  d.write("dump/real.bin", std::string(4, '\0'));
  const std::string sc = d / "dump/a.json";
  auto read_with_data = [&](const std::string& data) {
    d.write("dump/a.json", R"({"shape": [4], "dtype": "int8", "data": ")" + data + "\"}");
    return error_of(list_tensor_set(sc));
  };
  EXPECT_EQ(read_with_data("real.bin"), "accepted");
  EXPECT_EQ(read_with_data("/dev/zero"), sc + ": file path \"/dev/zero\" must be relative to the sidecar's folder");
  EXPECT_EQ(read_with_data("../outside.bin"), sc + ": file path \"../outside.bin\" points outside the sidecar's folder");
  EXPECT_EQ(read_with_data("sub/../../outside.bin"),
            sc + ": file path \"sub/../../outside.bin\" points outside the sidecar's folder");
  // A FIFO is refused without blocking; a symlink whether it leads out or not.
  ASSERT_EQ(::mkfifo((d / "dump/fifo.bin").c_str(), 0644), 0);
  EXPECT_EQ(read_with_data("fifo.bin"), d / "dump/fifo.bin" + ": is a FIFO, not a regular file (named by " + sc + ")");
  fs::create_symlink(d / "outside.bin", d / "dump/out.bin");
  EXPECT_EQ(read_with_data("out.bin"), sc + ": file path \"out.bin\" points outside the sidecar's folder");
  fs::create_symlink("real.bin", d / "dump/in.bin");
  EXPECT_EQ(read_with_data("in.bin"),
            d / "dump/in.bin" + ": is a symbolic link, not a regular file (named by " + sc + ")");
  fs::create_symlink("loop.bin", d / "dump/loop.bin");
  EXPECT_EQ(read_with_data("loop.bin").rfind(sc + ": file path \"loop.bin\": ", 0), 0u) << read_with_data("loop.bin");
  EXPECT_EQ(read_with_data("dir"), d / "dump/dir" + ": No such file or directory (named by " + sc + ")");
}

TEST(Sidecars, TheSidecarItselfIsARegularFileWithinItsLimits) {
  TestFolder d;
  ASSERT_EQ(::mkfifo((d / "fifo.json").c_str(), 0644), 0);
  EXPECT_EQ(error_of(list_tensor_set(d / "fifo.json")), d / "fifo.json" + ": is a FIFO, not a regular file");
  const std::string big = d.write("big.json", "{\"name\": \"" + std::string(2 << 20, 'x') + "\"}");
  EXPECT_EQ(error_of(list_tensor_set(big)), big + ": " + std::to_string((2 << 20) + 12) + " bytes is more than the " +
                                                std::to_string(1 << 20) + " allowed");
  // Nested 400 000 deep (it crashed the parser): refused by depth.
  const std::string deep = d.write("deep.json", "{\"name\": " + std::string(400000, '[') + std::string(400000, ']') + "}");
  EXPECT_EQ(error_of(list_tensor_set(deep)), deep + ":1:73: JSON nested deeper than 64 levels");
}

}  // namespace
}  // namespace harness::tensor
