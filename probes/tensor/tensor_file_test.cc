#include "probes/tensor/tensor_file.h"

#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>

#include <gtest/gtest.h>

namespace harness::tensor {
namespace {

namespace fs = std::filesystem;

// An .npy file as np.save writes it: magic, version 1.0, the dict padded with
// spaces to a multiple of 64 bytes and ended by '\n'.
std::string npy(const std::string& descr, const std::string& shape, const std::string& data) {
  std::string dict = "{'descr': '" + descr + "', 'fortran_order': False, 'shape': " + shape + ", }";
  std::size_t total = 10 + dict.size() + 1;
  dict.append((64 - total % 64) % 64, ' ');
  dict += '\n';
  std::string out = "\x93NUMPY";
  out += '\x01';
  out += '\x00';
  out += static_cast<char>(dict.size() & 0xff);
  out += static_cast<char>(dict.size() >> 8);
  return out + dict + data;
}

std::string floats(std::initializer_list<float> v) {
  std::string s(v.size() * 4, '\0');
  std::memcpy(s.data(), std::data(v), s.size());
  return s;
}

class TempDir {
 public:
  explicit TempDir(const std::string& name) : path_(fs::temp_directory_path() / ("harness_tensor_" + name)) {
    fs::remove_all(path_);
    fs::create_directories(path_);
  }
  ~TempDir() { fs::remove_all(path_); }
  std::string write(const std::string& name, const std::string& bytes) const {
    std::ofstream(path_ / name, std::ios::binary) << bytes;
    return (path_ / name).string();
  }
  std::string str() const { return path_.string(); }

 private:
  fs::path path_;
};

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

TEST(HalfFloats, ConvertExactly) {
  EXPECT_EQ(half_to_double(0x3c00), 1.0);
  EXPECT_EQ(half_to_double(0xc000), -2.0);
  EXPECT_EQ(half_to_double(0x0001), std::ldexp(1.0, -24));  // smallest subnormal
  EXPECT_EQ(half_to_double(0x7bff), 65504.0);
  EXPECT_TRUE(std::isinf(half_to_double(0x7c00)));
  EXPECT_TRUE(std::isnan(half_to_double(0x7e00)));
  EXPECT_EQ(bfloat16_to_double(0x3f80), 1.0);
  EXPECT_EQ(bfloat16_to_double(0xc0a0), -5.0);
}

TEST(TensorFiles, TruncatedNpyIsRefusedWithTheSizes) {
  TempDir d("truncated");
  std::string full = npy("<f4", "(4,)", floats({1, 2, 3, 4}));
  std::string p = d.write("conv1.npy", full.substr(0, full.size() - 6));
  EXPECT_EQ(list_tensor_set(p).error().message,
            p + ": shape (4,) of float32 needs 16 bytes of data, the file holds 10: truncated, or the header does "
                "not match the data");
  std::string q = d.write("cut.npy", full.substr(0, 30));
  EXPECT_EQ(list_tensor_set(q).error().message, q + ": the .npy header needs 128 bytes, the file has 30: truncated");
}

TEST(TensorFiles, HeaderLyingAboutTheShapeIsRefused) {
  TempDir d("lying");
  std::string p = d.write("fc.npy", npy("<f4", "(3, 3)", floats({1, 2, 3, 4})));
  EXPECT_EQ(list_tensor_set(p).error().message,
            p + ": shape (3, 3) of float32 needs 36 bytes of data, the file holds 16: truncated, or the header does "
                "not match the data");
  std::string q = d.write("long.npy", npy("<f4", "(2,)", floats({1, 2, 3})));
  EXPECT_EQ(list_tensor_set(q).error().message,
            q + ": shape (2,) of float32 needs 8 bytes of data, the file holds 12 (4 bytes too many): the header does "
                "not match the data");
}

TEST(TensorFiles, HugeShapeInATinyFileIsRefusedBeforeAnyAllocation) {
  TempDir d("huge");
  // 2^40 float32 elements claimed by a 100-byte file: refused from the header alone.
  std::string header = npy("<f4", "(1048576, 1048576)", "");
  header.resize(10 + 72);  // the 71-byte dict and its newline, unpadded: 82 bytes of header
  header[8] = 72;
  header[81] = '\n';
  std::string bytes = header + std::string(18, '\0');
  ASSERT_EQ(bytes.size(), 100u);
  std::string p = d.write("huge.npy", bytes);
  EXPECT_EQ(list_tensor_set(p).error().message,
            p + ": shape (1048576, 1048576) of float32 needs 4398046511104 bytes of data, the file holds 18: "
                "truncated, or the header does not match the data");
}

TEST(TensorFiles, UnsupportedDtypeIsRefused) {
  TempDir d("dtype");
  std::string p = d.write("x.npy", npy("<i8", "(2,)", std::string(16, '\0')));
  EXPECT_EQ(list_tensor_set(p).error().message,
            p + ": dtype '<i8' is not supported (float32, float16, bfloat16, float64, int8, uint8, int16, int32)");
  std::string s = d.write("y.json", R"({"shape": [2], "dtype": "complex64"})");
  EXPECT_EQ(list_tensor_set(s).error().message,
            s + ": dtype \"complex64\" is not supported (float32, float16, bfloat16, float64, int8, uint8, int16, "
                "int32)");
}

TEST(TensorFiles, RawTensorWithSidecarStreamsDequantizedValues) {
  TempDir d("raw");
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

TEST(TensorFiles, SidecarErrorsNameTheSidecar) {
  TempDir d("sidecar");
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

TEST(TensorFiles, NpzStoredAndDeflatedListTheirEntries) {
  const std::string dir = std::string(HARNESS_SOURCE_DIR) + "/tests/data/accuracy/";
  for (const char* name : {"ref.npz", "dev.npz"}) {
    Result<std::vector<TensorInfo>> set = list_tensor_set(dir + name);
    ASSERT_TRUE(set) << set.error().message;
    ASSERT_EQ(set->size(), 2u);
    EXPECT_EQ((*set)[0].name, "layer_a");
    EXPECT_EQ((*set)[0].shape_text(), "(8, 32)");
    EXPECT_EQ((*set)[0].origin, dir + name + ":layer_a.npy");
    EXPECT_EQ((*set)[1].shape_text(), "(777,)");
    ASSERT_TRUE((*set)[0].entry);
    EXPECT_EQ((*set)[0].entry->deflated(), std::string(name) == "dev.npz");
    // Every value streams out and the CRC verifies.
    for (const TensorInfo& t : *set) {
      Result<std::unique_ptr<TensorStream>> s = open_tensor(t);
      ASSERT_TRUE(s) << s.error().message;
      std::vector<double> buf(100);
      std::uint64_t total = 0;
      for (;;) {
        Result<std::size_t> n = (*s)->read(buf.data(), buf.size());
        ASSERT_TRUE(n) << n.error().message;
        if (*n == 0) break;
        total += *n;
      }
      EXPECT_EQ(total, t.count);
    }
  }
}

TEST(TensorFiles, CorruptNpzEntryFailsItsCrc) {
  const std::string src = std::string(HARNESS_SOURCE_DIR) + "/tests/data/accuracy/ref.npz";
  std::ifstream in(src, std::ios::binary);
  std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  Result<std::vector<TensorInfo>> set = list_npz_bytes(bytes, "m.npz");
  ASSERT_TRUE(set) << set.error().message;
  const TensorInfo& t = (*set)[0];
  ASSERT_TRUE(t.entry);
  bytes[t.entry->data + t.entry_header_bytes + 5] ^= 0x40;
  Result<std::unique_ptr<TensorStream>> s = open_tensor_bytes(t, bytes);
  ASSERT_TRUE(s);
  std::vector<double> buf(4096);
  Result<std::size_t> n = (*s)->read(buf.data(), buf.size());
  ASSERT_TRUE(n);
  Result<std::size_t> end = (*s)->read(buf.data(), buf.size());
  ASSERT_FALSE(end);
  EXPECT_NE(end.error().message.find("m.npz:layer_a.npy: CRC-32 "), std::string::npos) << end.error().message;
  EXPECT_EQ(list_npz_bytes(bytes.substr(0, 200), "m.npz").error().message,
            "m.npz: no ZIP end of central directory record: not an .npz archive, or truncated");
}

}  // namespace
}  // namespace harness::tensor
