// The shell completions and the manual page, written from the command table:
// bash loads the script, zsh and fish parse theirs where they are installed,
// man renders the page, and each names every command.
#include <filesystem>
#include <fstream>
#include <iterator>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "probes/process.h"
#include "tests/support/scratch_dir.h"

namespace harness {
namespace {

using ::testing::HasSubstr;

class Completion : public testing_support::ScratchDirTest {
 protected:
  // The command's stdout written to a file of the test's folder.
  std::string written(const std::string& name, const std::vector<std::string>& args) {
    std::vector<std::string> argv = {HARNESS_BINARY};
    argv.insert(argv.end(), args.begin(), args.end());
    Result<CommandResult> r = run_command(argv);
    EXPECT_TRUE(r && r->succeeded()) << (r ? r->err : r.error().message);
    const std::string path = (dir_ / name).string();
    std::ofstream(path) << (r ? r->out : "");
    return path;
  }
};

TEST_F(Completion, BashLoadsTheScriptAndCompletesCommandsAndOptions) {
  const std::string script = written("harness.bash", {"completion", "bash"});
  // As bash-completion would: source it, then ask what `harness ru<TAB>` and
  // `harness run --dr<TAB>` offer.
  Result<CommandResult> r = run_command(
      {"bash", "--norc", "-c",
       "cd \"$1\" && source \"$0\" && complete -p harness && "
       "COMP_WORDS=(harness ru); COMP_CWORD=1; _harness; echo \"[${COMPREPLY[*]}]\"; "
       "COMP_WORDS=(harness run --dr); COMP_CWORD=2; _harness; echo \"[${COMPREPLY[*]}]\"; "
       "COMP_WORDS=(harness baseline s); COMP_CWORD=2; _harness; echo \"[${COMPREPLY[*]}]\"",
       script, dir_.string()});
  ASSERT_TRUE(r);
  EXPECT_TRUE(r->succeeded()) << r->err;
  EXPECT_EQ(r->out, "complete -o filenames -F _harness harness\n[run runs]\n[--dry-run]\n[set show]\n");
}

TEST_F(Completion, ZshAndFishParseTheirScriptsWhereTheyAreInstalled) {
  const std::string zsh = written("_harness", {"completion", "zsh"});
  const std::string fish = written("harness.fish", {"completion", "fish"});
  std::ifstream in(fish);
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_THAT(text, HasSubstr("complete -c harness -n '__fish_use_subcommand' -a check -d "));
  EXPECT_THAT(text, HasSubstr("complete -c harness -n '__fish_seen_subcommand_from run' -l dry-run -s n -d "));
  int checked = 0;
  if (find_executable("zsh")) {
    Result<CommandResult> r = run_command({"zsh", "-n", zsh});
    ASSERT_TRUE(r);
    EXPECT_TRUE(r->succeeded()) << r->err;
    ++checked;
  }
  if (find_executable("fish")) {
    Result<CommandResult> r = run_command({"fish", "--no-execute", fish});
    ASSERT_TRUE(r);
    EXPECT_TRUE(r->succeeded()) << r->err;
    ++checked;
  }
  if (checked == 0) GTEST_SKIP() << "neither zsh nor fish is installed: their scripts were only read, not parsed";
}

TEST_F(Completion, TheManualPageRendersWithEveryCommand) {
  if (!find_executable("man")) GTEST_SKIP() << "no man (Debian's man-db)";
  const std::string page = written("harness.1", {"man-page"});
  Result<CommandResult> r = run_command({"env", "LC_ALL=C", "MANWIDTH=100", "man", "-l", page});
  ASSERT_TRUE(r);
  EXPECT_TRUE(r->succeeded()) << r->err;
  EXPECT_EQ(r->err, "");  // groff says nothing of the page's roff
  for (const char* part : {"NAME", "SYNOPSIS", "GLOBAL OPTIONS", "COMMANDS", "EXIT STATUS", "harness check",
                           "harness baseline set", "harness completion", "--dry-run", "HARNESS_DB"})
    EXPECT_THAT(r->out, HasSubstr(part)) << part;
  EXPECT_THAT(r->out, ::testing::Not(HasSubstr("man-page")));  // hidden: the build's own
}

}  // namespace
}  // namespace harness
