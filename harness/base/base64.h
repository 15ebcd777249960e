// Base64 (RFC 4648, standard alphabet, with padding), in plain C++ so that
// the static device agent links no crypto library for it.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace harness {

std::string base64_encode(std::string_view bytes);
// Nothing when the text is not canonical base64 (a length that is not a
// multiple of 4, a character outside the alphabet, misplaced padding).
std::optional<std::string> base64_decode(std::string_view text);

}  // namespace harness
