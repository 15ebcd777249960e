// A real browser opens the published site from the file system: headless
// Chromium (Debian `chromium`, scripts/install-deps) loads the index and one
// metric page with --dump-dom, and the DOM it built must hold the charts (svg
// elements inside the trend figures) and the regression list. Without
// chromium the test is skipped and says so.
// HARNESS_PUBLISH_SAMPLE=DIR keeps the site in DIR (scripts/render-publish-screenshots).
#include <cstdlib>
#include <filesystem>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "probes/process.h"
#include "reports/publish/publish.h"
#include "tests/support/publish_store.h"

namespace harness {
namespace {

namespace fs = std::filesystem;

std::size_t count(const std::string& text, const std::string& what) {
  std::size_t n = 0;
  for (std::size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + what.size())) ++n;
  return n;
}

Result<std::string> dump_dom(const std::string& browser, const fs::path& profile, const fs::path& page) {
  // As scripts/render-report-screenshot: no network, no profile of the user's,
  // no sandbox (tests run as root in CI).
  Result<CommandResult> r = run_command(
      {browser, "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
       "--disable-component-update", "--disable-sync", "--no-first-run", "--user-data-dir=" + profile.string(),
       "--dump-dom", "file://" + fs::absolute(page).string()},
      {.timeout_s = 180, .max_output = 1 << 26});
  if (!r) return r.error();
  if (!r->succeeded()) return Error::infra(fmt::format("chromium: {}: {}", r->describe_end(), r->err));
  return r->out;
}

TEST(PublishBrowser, ChromiumBuildsTheChartsAndTheRegressionListFromTheFiles) {
  Result<std::string> browser = find_executable("chromium");
  if (!browser) GTEST_SKIP() << "chromium is not installed (scripts/install-deps): " << browser.error().message;
  const fs::path dir = fs::temp_directory_path() / ("harness-publish-browser-" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  const char* sample = std::getenv("HARNESS_PUBLISH_SAMPLE");
  const fs::path site = sample && *sample ? fs::path(sample) : dir / "site";
  {
    Result<Store> store = Store::open((dir / "runs.sqlite").string());
    ASSERT_TRUE(store) << store.error().message;
    Result<test_support::PublishStore> filled = test_support::fill_publish_store(*store);
    ASSERT_TRUE(filled) << filled.error().message;
    Result<PublishSummary> s = publish_site(*store, site.string(), {});
    ASSERT_TRUE(s) << s.error().message;
  }

  Result<std::string> index = dump_dom(*browser, dir / "profile", site / "index.html");
  ASSERT_TRUE(index) << index.error().message;
  // The DOM the browser built, not the file: a tag left open or a stray
  // character in the SVG would change what it holds.
  const std::size_t list = index->find("<ol class=\"regressions\" id=\"regressions\">");
  ASSERT_NE(list, std::string::npos) << index->substr(0, 4000);
  const std::string items = index->substr(list, index->find("</ol>", list) - list);
  EXPECT_GE(count(items, "<li><a href=\"metrics/"), 1u) << items;
  EXPECT_NE(items.find("<li><a href=\"metrics/latency_p50.html\">latency_p50</a> on lab-a"), std::string::npos) << items;
  EXPECT_GE(count(*index, "latency_p50</a> on lab-a / whisper-medium-ryzen-ai: <span class=\"worse\">❌ regressed +"), 1u);
  EXPECT_GE(count(*index, "<figure class=\"trend\"><svg "), 1u);
  EXPECT_EQ(count(*index, "<figure class=\"trend\"><svg "), count(*index, "</svg>"));
  EXPECT_NE(index->find("<table id=\"verdicts\">"), std::string::npos);

  Result<std::string> page = dump_dom(*browser, dir / "profile", site / "metrics/latency_p50.html");
  ASSERT_TRUE(page) << page.error().message;
  // lab-a, lab-b and host-a have the metric: one chart each, each closed.
  EXPECT_EQ(count(*page, "<figure class=\"trend\"><svg "), 3u) << page->substr(0, 4000);
  EXPECT_EQ(count(*page, "</svg>"), 3u);
  EXPECT_NE(page->find("<title>latency_p50 on lab-a / whisper-medium-ryzen-ai</title>"), std::string::npos);
  EXPECT_NE(page->find("<polyline "), std::string::npos);  // the trend line
  EXPECT_NE(page->find("stroke-dasharray=\"3 3\""), std::string::npos);  // a change point
  EXPECT_NE(page->find("baseline nightly</text>"), std::string::npos);
  fs::remove_all(dir);
}

}  // namespace
}  // namespace harness
