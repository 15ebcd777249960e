// The capture format table's self-checks: every format has a reader and a
// description, no two formats share a name or a signature, every signature
// recognises its format, and the listing and errors are made from it.
#include "probes/capture/formats.h"

#include <filesystem>
#include <fstream>
#include <set>

#include <gtest/gtest.h>
#include <unistd.h>

namespace harness {
namespace {

class TempDir {
 public:
  TempDir() : path_(std::filesystem::temp_directory_path() / ("harness_formats_" + std::to_string(::getpid()))) {
    std::filesystem::create_directories(path_);
  }
  ~TempDir() { std::filesystem::remove_all(path_); }
  std::string file(const std::string& name, const std::string& bytes) const {
    const std::string p = (path_ / name).string();
    std::ofstream(p, std::ios::binary) << bytes;
    return p;
  }
  std::filesystem::path path_;
};

TEST(CaptureFormats, EveryFormatHasANameADescriptionAReaderAndASignature) {
  std::set<std::string_view> names;
  for (const CaptureFormat& f : capture_formats()) {
    SCOPED_TRACE(std::string(f.name));
    EXPECT_FALSE(f.name.empty());
    EXPECT_FALSE(f.description.empty());
    EXPECT_NE(f.read, nullptr);
    EXPECT_FALSE(f.signatures.empty());
    EXPECT_TRUE(names.insert(f.name).second) << "two formats named " << f.name;
    EXPECT_EQ(find_capture_format(f.name), &f);
  }
  EXPECT_EQ(find_capture_format("wav"), nullptr);
}

TEST(CaptureFormats, EverySignatureIsUniqueAndNoPrefixHidesAnother) {
  std::set<std::pair<int, std::string_view>> seen;
  std::vector<std::string_view> prefixes;
  int folders = 0;
  for (const CaptureFormat& f : capture_formats())
    for (const FormatSignature& s : f.signatures) {
      SCOPED_TRACE(std::string(f.name) + " '" + std::string(s.text) + "'");
      EXPECT_TRUE(seen.insert({static_cast<int>(s.kind), s.text}).second) << "signature listed twice";
      if (s.kind == FormatSignature::Kind::folder) ++folders;
      if (s.kind == FormatSignature::Kind::extension) {
        EXPECT_EQ(s.text.front(), '.');
      }
      if (s.kind != FormatSignature::Kind::folder) {
        EXPECT_FALSE(s.text.empty());
      }
      if (s.kind == FormatSignature::Kind::prefix) prefixes.push_back(s.text);
    }
  EXPECT_LE(folders, 1);
  // A prefix that starts another would decide for it whatever the other says.
  for (std::string_view a : prefixes)
    for (std::string_view b : prefixes)
      if (a != b) {
        EXPECT_NE(b.rfind(a, 0), 0u) << "'" << a << "' is a prefix of '" << b << "'";
      }
}

TEST(CaptureFormats, EachSignatureRecognisesItsFormat) {
  TempDir dir;
  int n = 0;
  for (const CaptureFormat& f : capture_formats())
    for (const FormatSignature& s : f.signatures) {
      SCOPED_TRACE(std::string(f.name) + " '" + std::string(s.text) + "'");
      std::string path;
      switch (s.kind) {
        case FormatSignature::Kind::folder:
          path = (dir.path_ / "folder").string();
          std::filesystem::create_directories(path);
          break;
        case FormatSignature::Kind::extension: path = dir.file("capture" + std::string(s.text), ""); break;
        case FormatSignature::Kind::prefix: path = dir.file("p" + std::to_string(n), std::string(s.text) + " x\n"); break;
        case FormatSignature::Kind::contains:
          path = dir.file("c" + std::to_string(n), "  " + std::string(s.text) + "\n");
          break;
      }
      ++n;
      Result<const CaptureFormat*> got = recognise_capture(path);
      ASSERT_TRUE(got.ok()) << got.error().message;
      EXPECT_EQ((*got)->name, f.name);
      Result<std::string> detected = detect_capture_format(path);
      ASSERT_TRUE(detected.ok());
      EXPECT_EQ(*detected, f.name);
    }
  // The longer string wins: a state listing whose comment holds a '$'.
  const std::string listing = dir.file("listing", "time_s,edge,CS $\n");
  EXPECT_EQ((*recognise_capture(listing))->name, "state-listing");
}

TEST(CaptureFormats, UnknownFilesAndNamesListTheTable) {
  TempDir dir;
  const std::string path = dir.file("mystery", "hello");
  Result<const CaptureFormat*> got = recognise_capture(path);
  ASSERT_FALSE(got.ok());
  EXPECT_EQ(got.error().message, path + ": unknown capture format (known: " + capture_format_names() +
                                     "; see capture info --formats)");
  EXPECT_EQ(got.error().code, ExitCode::bad_input);
  Result<const CaptureFormat*> named = capture_format_named("vdc", "--format");
  ASSERT_FALSE(named.ok());
  EXPECT_EQ(named.error().message,
            "--format: unknown capture format 'vdc' (did you mean 'vcd'?) (known: " + capture_format_names() + ")");
  EXPECT_EQ(capture_format_names(), "sr, vcd, saleae-csv, saleae-binary, state-listing");
}

TEST(CaptureFormats, OutputsAreWrittenByTheFormatTheirNameSays) {
  Result<const CaptureFormat*> sr = recognise_output("/tmp/x.sr");
  ASSERT_TRUE(sr.ok());
  EXPECT_EQ((*sr)->name, "sr");
  ASSERT_TRUE(recognise_output("/tmp/x").ok());  // no extension: the first writer
  EXPECT_EQ((*recognise_output("/tmp/x"))->name, "sr");
  Result<const CaptureFormat*> vcd = recognise_output("/tmp/x.vcd");
  ASSERT_FALSE(vcd.ok());
  EXPECT_EQ(vcd.error().message, "/tmp/x.vcd: the harness reads vcd but does not write it (it writes: sr)");
}

TEST(CaptureFormats, TheListingComesFromTheTable) {
  const std::string text = capture_format_table_text();
  for (const CaptureFormat& f : capture_formats()) {
    EXPECT_NE(text.find(std::string(f.name) + "\n  " + std::string(f.description) + "\n"), std::string::npos) << text;
  }
  EXPECT_NE(text.find("vcd\n  value change dump (IEEE 1364): simulators, ILAs, sigrok-cli\n"
                      "  recognised: name ends '.vcd'; contains '$'\n  written by: (read only)\n"
                      "  options:    --samplerate, --channels, --reader-limit\n"),
            std::string::npos)
      << text;
}

}  // namespace
}  // namespace harness
