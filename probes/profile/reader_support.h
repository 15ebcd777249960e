// What the profile readers share: lines with their numbers, CSV cells,
// numbers in cells, the line each JSON event starts on, slices' self time,
// and the collection of a layer's calls into its time per inference.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "harness/base/result.h"
#include "probes/profile/profile.h"

namespace harness::profile_reading {

// The lines of `text` (without "\r\n"/"\n"), numbered from 1.
struct Line {
  std::string_view text;
  int number = 0;
};
std::vector<Line> lines_of(std::string_view text);

std::string trim(std::string_view s);
// [begin, end) of each run of non-space characters in `line`.
std::vector<std::pair<std::size_t, std::size_t>> word_spans(std::string_view line);
std::string lower(std::string_view s);

// A finite number, or an error "<where>: column '<column>': "<cell>" is not
// a number". A trailing '%' is allowed when `percent`.
Result<double> cell_number(std::string_view cell, const std::string& where, const std::string& column,
                           bool percent = false);
// The same for a cell that must be >= 0 ("negative <what> -3").
Result<double> non_negative(std::string_view cell, const std::string& where, const std::string& column,
                            const std::string& what);

// The cells of one CSV line (RFC 4180: quoted cells, "" inside quotes).
Result<std::vector<std::string>> csv_cells(std::string_view line, const std::string& where);

// The line each element of a JSON array starts on: the top-level array when
// `member` is empty, else the array that is the top-level object's `member`.
// Lines beyond the list (a malformed text) are reported as 0.
std::vector<int> json_element_lines(std::string_view text, const std::string& member);

// A number from a JSON value that profilers write as a number or as a string
// of one ("123"); nullopt when absent or null.
Result<std::optional<double>> json_number(const nlohmann::json& object, const char* key, const std::string& where);

// Slices on one track (a thread): each slice's time minus the time of the
// slices nested inside it, so that no time is counted twice; `parents`
// (when given) tells which slices have others nested inside them.
struct Slice {
  std::string track;
  double start = 0, end = 0;
};
std::vector<double> self_times(const std::vector<Slice>& slices, std::vector<bool>* parents = nullptr);

// Collects each layer's calls (in the order layers are first seen) and
// turns them into time per inference, median over runs and call counts.
class LayerCollector {
 public:
  // The layer named `name`, created at `where` on first sight.
  ProfileLayer& layer(const std::string& name, const std::string& where);
  void add_call(const std::string& name, int run, double seconds);
  bool has(const std::string& name) const { return index_.count(name) > 0; }
  // The index the layer will have in LayerProfile::layers.
  std::size_t index_of(const std::string& name) const { return index_.at(name); }
  bool empty() const { return layers_.empty(); }
  // Moves the layers into `out`, time = total / runs.
  void finish(LayerProfile& out, int runs);

 private:
  std::vector<ProfileLayer> layers_;
  std::map<std::string, std::size_t> index_;
  std::vector<std::map<int, double>> per_run_;  // per layer: run -> seconds
  std::vector<int> calls_;
};

// Where a layer of an ONNX Runtime provider ran: CPU providers (CPU,
// XNNPACK, oneDNN, ACL, Arm NN) or an accelerator.
LayerDevice provider_device(const std::string& provider);

}  // namespace harness::profile_reading
