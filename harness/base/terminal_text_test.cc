#include "harness/base/terminal_text.h"

#include <gtest/gtest.h>

#include <sstream>

namespace harness {
namespace {

TEST(TerminalText, PlainTextAndUtf8LettersAreKept) {
  EXPECT_EQ(terminal_safe("day6 on lab-a (Zürich, 東京) C:\\x"), "day6 on lab-a (Zürich, 東京) C:\\x");
  EXPECT_EQ(terminal_safe(""), "");
}

// The sequences of the hostile scenario name (issue 29): clear the screen,
// set the window title, ring the bell; each shown, none sent.
TEST(TerminalText, ControlCharactersAreShownNotSent) {
  EXPECT_EQ(terminal_safe("\x1b[2J\x1b]0;owned\x07name"), "\\x1b[2J\\x1b]0;owned\\x07name");
  EXPECT_EQ(terminal_safe("a\rb\nc\td\x7f"), "a\\x0db\\x0ac\\x09d\\x7f");
  EXPECT_EQ(terminal_safe(std::string_view("a\0b", 3)), "a\\x00b");
}

// C1 controls: U+009B is CSI and U+009D OSC to terminals that read 8-bit
// controls; as raw bytes (not UTF-8) they are shown as bytes.
TEST(TerminalText, C1ControlsAndBytesThatAreNotUtf8AreEscaped) {
  EXPECT_EQ(terminal_safe("\xc2\x9b" "2J \xc2\x85 \xc2\xa0"), "\\u009b2J \\u0085 \xc2\xa0");
  EXPECT_EQ(terminal_safe("\x9b" "2J"), "\\x9b2J");
  EXPECT_EQ(terminal_safe("\xff\xfe"), "\\xff\\xfe");
  EXPECT_EQ(terminal_safe("\xc0\xaf"), "\\xc0\\xaf");          // overlong '/'
  EXPECT_EQ(terminal_safe("\xed\xa0\x80"), "\\xed\\xa0\\x80");  // a surrogate
  EXPECT_EQ(terminal_safe("\xe6\x9d"), "\\xe6\\x9d");          // truncated
  EXPECT_EQ(terminal_safe("\xf0\x9f\x98\x80"), "\xf0\x9f\x98\x80");
}

TEST(TerminalText, LinesKeepTheirBreaksOnly) {
  EXPECT_EQ(terminal_safe_lines("one\ntwo\x1b[31m\r\n"), "one\ntwo\\x1b[31m\\x0d\n");
}

// Plain text is checked eight bytes at a time: every byte value, at every
// place of a word and of the tail, beside plain neighbours of both kinds
// (0x7E, whose + 1 must not reach bit 7, and a line break) is kept exactly
// when it is printable ASCII (or a kept line break), and written as
// terminal_safe_lines returns it.
TEST(TerminalText, EveryByteAtEveryPlaceOfAWordIsJudgedAlone) {
  for (int b = 0; b < 256; ++b) {
    const char c = static_cast<char>(b);
    const bool printable = b >= 0x20 && b < 0x7F;
    for (std::size_t at = 0; at < 19; ++at) {
      for (char neighbour : {'~', '\n'}) {
        std::string text(19, neighbour);
        text[at] = c;
        const std::string lines = terminal_safe_lines(text);
        EXPECT_EQ(lines == text, printable || c == '\n') << "byte " << b << " at " << at;
        std::ostringstream written;
        write_terminal_safe_lines(written, text);
        EXPECT_EQ(written.str(), lines) << "byte " << b << " at " << at;
        if (neighbour == '~') {
          EXPECT_EQ(terminal_safe(text) == text, printable) << "byte " << b << " at " << at;
        }
      }
    }
  }
}

}  // namespace
}  // namespace harness
