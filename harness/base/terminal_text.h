// Text from data (scenario, rig and metric names, reasons, paths, what an
// agent or a store says) made safe to print to a terminal, as the HTML and
// Markdown reports make it safe for theirs: every control character, and
// every byte that is not UTF-8, is shown as a visible escape instead of being
// sent. So a name cannot clear the screen (ESC [2J), set the window title
// (ESC ]0;...BEL), move the cursor, ring the bell or start a line of its own.
//   C0 controls and DEL     "\x1b", "\x07", "\x0d", "\x0a", "\x7f"
//   C1 controls (U+0080..U+009F, taken by many terminals as 8-bit CSI, OSC)
//                           "\u009b"
//   a byte that is not UTF-8 "\xff"
// Everything else (printable ASCII, UTF-8 letters, a backslash) is kept.
#pragma once

#include <iosfwd>
#include <string>
#include <string_view>

namespace harness {

// For a name or one field of a line: line breaks are escaped too.
std::string terminal_safe(std::string_view text);

// For a block of lines from data (an error message, a rendered list): line
// breaks are kept, everything else is escaped as terminal_safe does.
std::string terminal_safe_lines(std::string_view text);

// Writes what terminal_safe_lines returns, without a copy of text that
// needs no escape (a 100,000-line table).
void write_terminal_safe_lines(std::ostream& out, std::string_view text);

}  // namespace harness
