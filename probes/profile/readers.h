// The profile readers, one per format; profile_formats.cc lists them in its
// table with what tells each format apart by content.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "probes/profile/profile.h"

namespace harness::profile_reading {

// A JSON profile as the readers get it: the document and the line each
// event (element of its event array) starts on.
struct JsonProfile {
  const nlohmann::json& doc;
  std::vector<int> event_lines;
  std::string path;
  // "path:line" of event i (or "path: event i" when the line is unknown).
  std::string where(std::size_t i) const;
};

Result<LayerProfile> read_onnxruntime(const JsonProfile& in, const ProfileReadOptions& options);
Result<LayerProfile> read_chrome_trace(const JsonProfile& in, const ProfileReadOptions& options);
Result<LayerProfile> read_project_json(const JsonProfile& in, const ProfileReadOptions& options);

Result<LayerProfile> read_project_csv(std::string_view text, const std::string& path, const ProfileReadOptions& options);
Result<LayerProfile> read_tflite(std::string_view text, const std::string& path, const ProfileReadOptions& options);
Result<LayerProfile> read_vela(std::string_view text, const std::string& path, const ProfileReadOptions& options);
Result<LayerProfile> read_rknn(std::string_view text, const std::string& path, const ProfileReadOptions& options);

// Content tests for "auto".
bool looks_like_onnxruntime(const nlohmann::json& doc);
bool looks_like_chrome_trace(const nlohmann::json& doc);
bool looks_like_tflite(std::string_view text);
bool looks_like_vela(std::string_view text);
bool looks_like_rknn(std::string_view text);
}  // namespace harness::profile_reading
