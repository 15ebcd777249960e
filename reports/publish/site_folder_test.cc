#include "reports/publish/site_folder.h"

#include <filesystem>
#include <fstream>

#include <gtest/gtest.h>

#include "tests/support/scratch_dir.h"

namespace harness {
namespace {

namespace fs = std::filesystem;

class SiteFolderTest : public testing_support::ScratchDirTest {
 protected:
  SiteFolderTest() : ScratchDirTest("harness-site-folder") {}
};

TEST_F(SiteFolderTest, WritesOnlyTheSitesOwnNamesInsideItsFolders) {
  Result<SiteFolder> site = SiteFolder::open((dir_ / "site").string(), /*create=*/true);
  ASSERT_TRUE(site) << site.error().message;
  ASSERT_TRUE(site->write("index.html", "top", Flush::deferred));
  ASSERT_TRUE(site->write("runs/3.html", "run", Flush::deferred));
  ASSERT_TRUE(site->write("metrics/a.html", "metric", Flush::each));
  EXPECT_EQ(site->regular_file_size("runs/3.html"), 3u);
  EXPECT_EQ(site->regular_file_size("metrics/a.html"), 6u);
  for (const char* bad : {"../x.html", "runs/../x.html", "other/x.html", "runs/a/b.html", "runs/", "", ".", ".."}) {
    Status w = site->write(bad, "x", Flush::deferred);
    ASSERT_FALSE(w) << bad;
    EXPECT_EQ(w.error().message, (dir_ / "site").string() + "/" + bad + ": not a file of the published site");
    EXPECT_FALSE(site->regular_file_size(bad)) << bad;
    EXPECT_FALSE(site->remove_regular_file(bad)) << bad;
  }
  EXPECT_FALSE(fs::exists(dir_ / "x.html"));
}

// The descriptors are what is written through: a subfolder swapped for a
// symlink after the folder was opened still receives nothing outside.
TEST_F(SiteFolderTest, ASubfolderSwappedAfterOpeningIsNotFollowed) {
  const fs::path dir = dir_ / "site";
  Result<SiteFolder> site = SiteFolder::open(dir.string(), /*create=*/true);
  ASSERT_TRUE(site) << site.error().message;
  fs::create_directories(dir_ / "elsewhere");
  fs::rename(dir / "runs", dir_ / "moved");
  fs::create_symlink(dir_ / "elsewhere", dir / "runs");
  ASSERT_TRUE(site->write("runs/1.html", "run", Flush::deferred));
  EXPECT_TRUE(fs::exists(dir_ / "moved" / "1.html"));
  EXPECT_TRUE(fs::is_empty(dir_ / "elsewhere"));
}

TEST_F(SiteFolderTest, RefusesSymlinksForTheFolderAndItsSubfolders) {
  fs::create_directories(dir_ / "real" / "runs");
  fs::create_symlink(dir_ / "real", dir_ / "link");
  for (const std::string& dir : {(dir_ / "link").string(), (dir_ / "link").string() + "/"}) {
    Result<SiteFolder> site = SiteFolder::open(dir, /*create=*/false);
    ASSERT_FALSE(site) << dir;
    EXPECT_EQ(site.error().message, (dir_ / "link").string() + ": is a symbolic link, not a folder (publish writes "
                                                                "only inside its folder and follows no symlink there)");
  }
  fs::create_symlink(dir_ / "real" / "runs", dir_ / "real" / "metrics");
  Result<SiteFolder> site = SiteFolder::open((dir_ / "real").string(), /*create=*/true);
  ASSERT_FALSE(site);
  EXPECT_EQ(site.error().code, ExitCode::bad_input);
  EXPECT_EQ(site.error().message, (dir_ / "real" / "metrics").string() + ": is a symbolic link, not a folder "
                                                                          "(publish writes only inside its folder and "
                                                                          "follows no symlink there)");
}

TEST_F(SiteFolderTest, RemovesRegularFilesOnlyNeverWhatASymlinkPointsAt) {
  Result<SiteFolder> site = SiteFolder::open((dir_ / "site").string(), /*create=*/true);
  ASSERT_TRUE(site) << site.error().message;
  std::ofstream(dir_ / "victim") << "keep";
  fs::create_symlink(dir_ / "victim", dir_ / "site" / "runs" / "1.html");
  EXPECT_FALSE(site->regular_file_size("runs/1.html"));
  EXPECT_FALSE(site->remove_regular_file("runs/1.html"));
  EXPECT_TRUE(fs::is_symlink(dir_ / "site" / "runs" / "1.html"));
  EXPECT_TRUE(fs::exists(dir_ / "victim"));
  ASSERT_TRUE(site->write("runs/2.html", "run", Flush::deferred));
  EXPECT_TRUE(site->remove_regular_file("runs/2.html"));
  EXPECT_FALSE(fs::exists(dir_ / "site" / "runs" / "2.html"));
}

}  // namespace
}  // namespace harness
