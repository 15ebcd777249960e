// The notifiers' I/O edge for real: a command on this host, and a webhook
// served by a small HTTP server this test starts on loopback.
#include "probes/notify/notify_channel.h"

#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "tests/support/loopback_port.h"
#include "tests/support/loopback_webhook.h"
#include "tests/support/scratch_dir.h"

namespace harness {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;

const Notification kNews{R"({"verdict":"regressed"})", "harness: regressed: run 3 of 'host' on rig 'lab'", "regressed"};

TEST(WebhookChannel, PostsTheVerdictJsonToTheUrl) {
  testing_support::LoopbackWebhook hook({200});
  Status sent = webhook_channel(hook.url(), 5, 0)->send(kNews);
  ASSERT_TRUE(sent) << sent.error().message;
  ASSERT_EQ(hook.requests().size(), 1u);
  const std::string r = hook.requests()[0];
  EXPECT_THAT(r, ::testing::StartsWith("POST /hook HTTP/1.1\r\n"));
  EXPECT_THAT(r, HasSubstr("Content-Type: application/json\r\n"));
  EXPECT_THAT(r, ::testing::EndsWith("\r\n\r\n" + kNews.json));
}

TEST(WebhookChannel, TriesAgainAfterAServerErrorAndSaysWhenItGaveUp) {
  testing_support::LoopbackWebhook flaky({503, 200});
  ASSERT_TRUE(webhook_channel(flaky.url(), 5, 2)->send(kNews));
  EXPECT_EQ(flaky.requests().size(), 2u);

  testing_support::LoopbackWebhook down({503});
  Status sent = webhook_channel(down.url(), 5, 1)->send(kNews);
  ASSERT_FALSE(sent);
  EXPECT_EQ(sent.error().message, "webhook " + down.url() + " (2 attempts): HTTP 503: ok");
  EXPECT_EQ(down.requests().size(), 2u);

  testing_support::LoopbackWebhook refused({404});  // a client error is not tried again
  EXPECT_FALSE(webhook_channel(refused.url(), 5, 3)->send(kNews));
  EXPECT_EQ(refused.requests().size(), 1u);
}

TEST(WebhookChannel, AServerThatNeverAnswersIsCutAtTheTimeout) {
  int port = 0;
  int fd = testing_support::listen_on_loopback(port);  // never accepts
  const std::string url = "http://127.0.0.1:" + std::to_string(port) + "/";
  Status sent = webhook_channel(url, 0.3, 0)->send(kNews);
  ::close(fd);
  ASSERT_FALSE(sent);
  EXPECT_THAT(sent.error().message, HasSubstr("webhook " + url + ": Timeout was reached"));
}

class CommandChannelTest : public testing_support::ScratchDirTest {
 protected:
  CommandChannelTest() : ScratchDirTest("harness-notify") {}
};

TEST_F(CommandChannelTest, GetsTheJsonOnStdinAndTheSummaryInItsEnvironment) {
  const std::string got = (dir_ / "got").string();
  Status sent = command_channel({"sh", "-c", "cat > \"$0\"; printf '%s|%s' \"$HARNESS_NOTIFY_SUMMARY\" "
                                             "\"$HARNESS_NOTIFY_OUTCOME\" > \"$0.env\"", got},
                                5)
                    ->send(kNews);
  ASSERT_TRUE(sent) << sent.error().message;
  std::ifstream json(got), env(got + ".env");
  std::stringstream a, b;
  a << json.rdbuf();
  b << env.rdbuf();
  EXPECT_EQ(a.str(), kNews.json);
  EXPECT_EQ(b.str(), kNews.summary + "|regressed");
}

TEST_F(CommandChannelTest, AFailingOrHangingNotifierIsReportedAndCut) {
  Status failed = command_channel({"sh", "-c", "echo no route to chat >&2; exit 4"}, 5)->send(kNews);
  ASSERT_FALSE(failed);
  EXPECT_EQ(failed.error().message, "command sh -c echo no route to chat >&2; exit 4: exit status 4: no route to chat\n");
  const auto start = std::chrono::steady_clock::now();
  Status hung = command_channel({"sh", "-c", "sleep 600 & wait"}, 0.3)->send(kNews);
  const double took = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  ASSERT_FALSE(hung);
  EXPECT_EQ(hung.error().message, "command sh -c sleep 600 & wait: timed out after 0.3 s and was killed");
  EXPECT_LT(took, 60);  // not a speed goal: it did not wait for the sleep
  Status missing = command_channel({"no-such-notifier-x"}, 1)->send(kNews);
  ASSERT_FALSE(missing);
  EXPECT_EQ(missing.error().message, "command 'no-such-notifier-x': not found in PATH");
}

}  // namespace
}  // namespace harness
