#include "harness/base/terminal_text.h"

#include <cstdint>
#include <cstring>
#include <ostream>

#include <fmt/format.h>

namespace harness {
namespace {

// The length of the well-formed UTF-8 sequence at the start of `s` (2 to 4),
// or 0 when the bytes there are not one (overlong, surrogate, past U+10FFFF,
// truncated).
std::size_t utf8_sequence(std::string_view s, char32_t& code_point) {
  const auto b = [&](std::size_t i) { return static_cast<unsigned char>(s[i]); };
  const auto continuation = [&](std::size_t i) { return i < s.size() && (b(i) & 0xC0) == 0x80; };
  const unsigned char lead = b(0);
  std::size_t length = 0;
  char32_t min = 0;
  if (lead >= 0xC2 && lead <= 0xDF) length = 2, min = 0x80, code_point = lead & 0x1F;
  else if (lead >= 0xE0 && lead <= 0xEF) length = 3, min = 0x800, code_point = lead & 0x0F;
  else if (lead >= 0xF0 && lead <= 0xF4) length = 4, min = 0x10000, code_point = lead & 0x07;
  else return 0;
  for (std::size_t i = 1; i < length; ++i) {
    if (!continuation(i)) return 0;
    code_point = (code_point << 6) | (b(i) & 0x3F);
  }
  if (code_point < min || code_point > 0x10FFFF || (code_point >= 0xD800 && code_point <= 0xDFFF)) return 0;
  return length;
}

std::string escape(std::string_view text, bool keep_line_breaks) {
  std::string out;
  out.reserve(text.size());
  for (std::size_t i = 0; i < text.size();) {
    const auto c = static_cast<unsigned char>(text[i]);
    if (c < 0x80) {
      if ((c < 0x20 && !(keep_line_breaks && c == '\n')) || c == 0x7F) out += fmt::format("\\x{:02x}", c);
      else out += static_cast<char>(c);
      ++i;
      continue;
    }
    char32_t code_point = 0;
    const std::size_t length = utf8_sequence(text.substr(i), code_point);
    if (length == 0) {
      out += fmt::format("\\x{:02x}", c);
      ++i;
    } else if (code_point <= 0x9F) {
      out += fmt::format("\\u{:04x}", static_cast<unsigned>(code_point));
      i += length;
    } else {
      out.append(text.substr(i, length));
      i += length;
    }
  }
  return out;
}

bool bytes_plain(std::string_view text, bool keep_line_breaks) {
  for (char ch : text) {
    const auto c = static_cast<unsigned char>(ch);
    if (c >= 0x7F || (c < 0x20 && !(keep_line_breaks && c == '\n'))) return false;
  }
  return true;
}

// Printable ASCII throughout (and line breaks where kept). Eight bytes at a
// time, as a 100,000-line history table is checked before it is written: a
// word with a byte at or above 0x7F is not plain (bit 7 set, or 0x7F + 1
// carrying into it; a carry out of 0xFF only follows a byte already caught),
// and a word with a byte below 0x20 (w - 0x20 in each byte borrows into bit 7
// only then) is looked at byte by byte, since a kept line break is one.
bool is_plain(std::string_view text, bool keep_line_breaks) {
  constexpr std::uint64_t kOnes = 0x0101010101010101ull, kHighs = 0x8080808080808080ull;
  std::size_t i = 0;
  for (; i + 8 <= text.size(); i += 8) {
    std::uint64_t w;
    std::memcpy(&w, text.data() + i, 8);
    if ((w | (w + kOnes)) & kHighs) return false;
    if (((w - 0x20 * kOnes) & ~w & kHighs) && !bytes_plain(text.substr(i, 8), keep_line_breaks)) return false;
  }
  return bytes_plain(text.substr(i), keep_line_breaks);
}

}  // namespace

std::string terminal_safe(std::string_view text) {
  if (is_plain(text, false)) return std::string(text);
  return escape(text, false);
}

std::string terminal_safe_lines(std::string_view text) {
  if (is_plain(text, true)) return std::string(text);
  return escape(text, true);
}

void write_terminal_safe_lines(std::ostream& out, std::string_view text) {
  if (is_plain(text, true)) out.write(text.data(), static_cast<std::streamsize>(text.size()));
  else out << escape(text, true);
}

}  // namespace harness
