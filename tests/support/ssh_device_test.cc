#include "tests/support/ssh_device.h"

#include <chrono>
#include <filesystem>
#include <thread>

#include <gtest/gtest.h>

namespace harness::test_support {
namespace {

TEST(SshDevice, RunsCommandsAndPassesOutputAndExitStatus) {
  SshDevice device;
  if (!device.available()) GTEST_SKIP() << device.unavailable_reason();
  EXPECT_EQ(device.unavailable_reason(), "");
  EXPECT_GT(device.port(), 1023);
  EXPECT_TRUE(std::filesystem::exists(device.identity()));
  EXPECT_TRUE(std::filesystem::exists(device.known_hosts()));

  Result<CommandResult> t = device.run({"true"});
  ASSERT_TRUE(t.ok()) << t.error().message;
  EXPECT_TRUE(t->succeeded()) << t->describe_end() << ": " << t->err;
  EXPECT_EQ(t->out, "");

  Result<CommandResult> echo = device.run({"echo", "hello"});
  ASSERT_TRUE(echo.ok()) << echo.error().message;
  EXPECT_TRUE(echo->succeeded()) << echo->describe_end() << ": " << echo->err;
  EXPECT_EQ(echo->out, "hello\n");
  EXPECT_EQ(echo->err, "");

  // Words reach the device as they were, not as a remote shell would split them.
  Result<CommandResult> words = device.run({"printf", "<%s>\\n", "a b", "it's", "$HOME"});
  ASSERT_TRUE(words.ok()) << words.error().message;
  EXPECT_EQ(words->out, "<a b>\n<it's>\n<$HOME>\n");

  Result<CommandResult> three = device.run({"sh", "-c", "exit 3"});
  ASSERT_TRUE(three.ok()) << three.error().message;
  EXPECT_EQ(three->exit_code, 3);

  Result<CommandResult> whoami = device.run({"id", "-un"});
  ASSERT_TRUE(whoami.ok()) << whoami.error().message;
  EXPECT_EQ(whoami->out, device.user() + "\n");
}

TEST(SshDevice, LeavesNoServerSessionOrFolderBehind) {
  int port = 0;
  std::filesystem::path folder;
  // A remote command whose client is still connected when the device goes.
  const std::vector<std::string> marker{"sleep", "297.5"};
  {
    SshDevice device;
    if (!device.available()) GTEST_SKIP() << device.unavailable_reason();
    port = device.port();
    folder = device.folder();
    ASSERT_TRUE(device.run({"true"}).ok());  // opens the shared connection
    Result<std::unique_ptr<ChildProcess>> client = ChildProcess::start(device.ssh_command(marker));
    ASSERT_TRUE(client.ok()) << client.error().message;
    bool started = false;
    for (int i = 0; i < 500 && !started; ++i) {
      Result<CommandResult> found = run_command({"pgrep", "-f", "^sleep 297.5$"});
      started = found.ok() && found->succeeded();
      if (!started) std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    ASSERT_TRUE(started) << "the remote sleep never started";
  }
  EXPECT_FALSE(loopback_port_accepts(port));
  EXPECT_FALSE(std::filesystem::exists(folder));
  Result<CommandResult> left = run_command({"pgrep", "-f", "^sleep 297.5$"});
  ASSERT_TRUE(left.ok()) << left.error().message;
  EXPECT_EQ(left->exit_code, 1) << "still running: " << left->out;
  Result<CommandResult> master = run_command({"pgrep", "-f", folder.string()});
  ASSERT_TRUE(master.ok()) << master.error().message;
  EXPECT_EQ(master->exit_code, 1) << "still running: " << master->out;
}

}  // namespace
}  // namespace harness::test_support
