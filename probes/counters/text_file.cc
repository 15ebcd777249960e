#include <sys/stat.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <map>
#include <sstream>

#include <fmt/format.h>

#include "probes/counters/factories.h"

namespace harness {
namespace {

std::string_view trim(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return s;
}

std::optional<std::string> read_file(const std::string& path, std::string& why) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    why = fmt::format("cannot read {}: {}", path, std::strerror(errno));
    return std::nullopt;
  }
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

// "key: value" and "key=value" lines; blank lines and lines without a
// separator (headers) are skipped.
std::map<std::string, std::string, std::less<>> parse_key_values(const std::string& text) {
  std::map<std::string, std::string, std::less<>> out;
  std::istringstream lines(text);
  std::string line;
  while (std::getline(lines, line)) {
    std::size_t sep = line.find_first_of(":=");
    if (sep == std::string::npos) continue;
    std::string_view key = trim(std::string_view(line).substr(0, sep));
    std::string_view value = trim(std::string_view(line).substr(sep + 1));
    if (!key.empty()) out.emplace(std::string(key), std::string(value));
  }
  return out;
}

class TextFileSource final : public CounterSource {
 public:
  TextFileSource(const CounterSourceSpec& spec, const std::vector<CounterSpec>& counters)
      : path_(spec.path) {
    for (const CounterSpec& c : counters) keys_.push_back(c.key);
  }

  std::vector<CounterSample> read() override {
    struct stat st;
    bool directory = ::stat(path_.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
    std::vector<CounterSample> out;
    if (directory) {
      for (const std::string& key : keys_) out.push_back(parse(read_one(path_ + "/" + key), key, path_ + "/" + key));
      return out;
    }
    std::string why;
    std::optional<std::string> text = read_file(path_, why);
    if (!text) {
      for (std::size_t i = 0; i < keys_.size(); ++i) out.push_back(CounterSample::missing(why));
      return out;
    }
    auto values = parse_key_values(*text);
    for (const std::string& key : keys_) {
      auto it = values.find(key);
      if (it == values.end()) {
        out.push_back(CounterSample::missing(fmt::format("no key '{}' in {}", key, path_)));
      } else {
        out.push_back(parse(it->second, key, path_));
      }
    }
    return out;
  }

  std::string describe() const override { return "text_file:" + path_; }

 private:
  struct OneFile {
    std::optional<std::string> text;
    std::string why;
  };
  static OneFile read_one(const std::string& path) {
    OneFile f;
    f.text = read_file(path, f.why);
    return f;
  }
  static CounterSample parse(const OneFile& f, const std::string& key, const std::string& where) {
    if (!f.text) return CounterSample::missing(f.why);
    return parse(*f.text, key, where);
  }
  static CounterSample parse(const std::string& text, const std::string& key, const std::string& where) {
    std::optional<std::uint64_t> v = parse_counter_value(text);
    if (!v) {
      std::string shown(trim(text).substr(0, 40));
      return CounterSample::missing(
          fmt::format("'{}' in {} is not a counter value (an unsigned integer): \"{}\"", key, where, shown));
    }
    CounterSample s;
    s.value = *v;
    return s;
  }

  std::string path_;
  std::vector<std::string> keys_;
};

}  // namespace

Result<std::unique_ptr<CounterSource>> make_text_file_source(const CounterSourceSpec& spec,
                                                             const std::vector<CounterSpec>& counters,
                                                             const CounterSourceOptions&) {
  return std::unique_ptr<CounterSource>(std::make_unique<TextFileSource>(spec, counters));
}

}  // namespace harness
