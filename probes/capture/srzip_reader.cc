#include "probes/capture/srzip_reader.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <condition_variable>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <thread>
#include <vector>

#include <sys/mman.h>

#include <fmt/format.h>

#include "probes/capture/readers.h"
#include "probes/zip/zip_reader.h"

namespace harness {
namespace {

// version and metadata are a few hundred bytes.
constexpr std::uint64_t kMaxMetadataBytes = std::uint64_t{1} << 20;

std::string trim(std::string_view s) {
  std::size_t b = s.find_first_not_of(" \t\r\n");
  if (b == std::string_view::npos) return {};
  std::size_t e = s.find_last_not_of(" \t\r\n");
  return std::string(s.substr(b, e - b + 1));
}

std::optional<std::uint64_t> parse_uint(std::string_view s) {
  std::uint64_t v = 0;
  if (s.empty()) return std::nullopt;
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || end != s.data() + s.size()) return std::nullopt;
  return v;
}

// "500 MHz", "1.5 kHz", "200000", "1G": what sigrok writes and accepts.
std::optional<double> parse_samplerate(std::string_view text) {
  std::string s = trim(text);
  std::size_t i = 0;
  while (i < s.size() && (std::isdigit(static_cast<unsigned char>(s[i])) || s[i] == '.')) ++i;
  if (i == 0) return std::nullopt;
  double value = 0;
  auto [end, ec] = std::from_chars(s.data(), s.data() + i, value);
  if (ec != std::errc() || end != s.data() + i || !std::isfinite(value)) return std::nullopt;
  while (i < s.size() && s[i] == ' ') ++i;
  double scale = 1;
  if (i < s.size()) {
    switch (s[i]) {
      case 'k': case 'K': scale = 1e3; ++i; break;
      case 'm': case 'M': scale = 1e6; ++i; break;
      case 'g': case 'G': scale = 1e9; ++i; break;
      default: break;
    }
  }
  std::string rest = s.substr(i);
  if (!rest.empty() && rest != "Hz" && rest != "hz" && rest != "HZ") return std::nullopt;
  return std::round(value * scale);
}


class SrzipReader {
 public:
  SrzipReader(ByteSource& source, const std::string& name, const SrzipOptions& options)
      : src_(source), name_(name), options_(options) {
    options_.read_block = std::max<std::size_t>(options_.read_block, 4096);
    options_.sink_block = std::max<std::size_t>(options_.sink_block, 64);
  }

  Status read(CaptureSink& sink);
  // What read() checks before the sink sees a sample, without inflating the
  // samples.
  Status check() {
    Result<Plan> planned = plan();
    if (!planned) return planned.error();
    return ok();
  }

 private:
  Error fail(const std::string& message) const { return Error::input(name_ + ": " + message); }
  Result<std::string> small_entry(const zip::Archive& archive, const zip::Entry& e);

  ByteSource& src_;
  const std::string& name_;
  SrzipOptions options_;
  // The samples: the chunk entries (located in the archive) inflated in
  // order (on options_.jobs threads) into blocks, handed to `deliver` in
  // order.
  using Chunk = zip::Entry;
  // What a read delivers, resolved (and checked) before the first sample.
  struct Plan {
    CaptureHeader header;
    unsigned file_unit = 1;
    std::vector<Chunk> work;
  };
  Result<Plan> plan();
  using BlockSink = std::function<Status(const std::uint8_t*, std::size_t)>;
  zip::EntryReader chunk_reader(const Chunk& c, zip::InflateScratch& scratch) const {
    return zip::EntryReader(src_, c, name_ + ": " + c.name, scratch, options_.read_block);
  }
  Status inflate_in_order(const std::vector<Chunk>& chunks, const BlockSink& deliver);
  Status inflate_on_threads(const std::vector<Chunk>& chunks, unsigned threads, std::size_t pool_blocks,
                            const BlockSink& deliver);
  std::size_t block_ = 0;  // bytes of an inflated block (read())
};

Result<std::string> SrzipReader::small_entry(const zip::Archive& archive, const zip::Entry& e) {
  Result<zip::Entry> located = archive.locate(e);
  if (!located) return located.error();
  return archive.read_whole(*located, kMaxMetadataBytes);
}

struct Metadata {
  std::string capturefile;
  std::optional<std::uint64_t> total_probes, unitsize;
  double samplerate = 0;
  std::map<std::uint64_t, std::string> probes;
};

// The INI dialect of GLib's key files, as libsigrok writes and reads it:
// [group] lines, key=value lines (spaces around '=' ignored), # comments.
Result<Metadata> parse_metadata(std::string_view text, const std::string& name) {
  Metadata m;
  std::string group;
  bool found_device = false;
  std::size_t line_no = 0;
  auto fail = [&](const std::string& what) {
    return Error::input(fmt::format("{}: metadata:{}: {}", name, line_no, what));
  };
  for (std::size_t start = 0; start < text.size();) {
    std::size_t nl = text.find('\n', start);
    std::string line = trim(text.substr(start, nl == std::string_view::npos ? std::string_view::npos : nl - start));
    start = nl == std::string_view::npos ? text.size() : nl + 1;
    ++line_no;
    if (line.empty() || line[0] == '#') continue;
    if (line[0] == '[') {
      if (line.back() != ']') return fail(fmt::format("'{}': a group line must end with ']'", line));
      group = line.substr(1, line.size() - 2);
      found_device = found_device || group == "device 1";
      continue;
    }
    std::size_t eq = line.find('=');
    if (eq == std::string::npos) return fail(fmt::format("'{}': expected key=value", line));
    if (group.empty()) return fail("key=value before any [group]");
    if (group != "device 1") continue;
    std::string key = trim(std::string_view(line).substr(0, eq));
    std::string value = trim(std::string_view(line).substr(eq + 1));
    if (key == "capturefile") {
      m.capturefile = value;
    } else if (key == "samplerate") {
      std::optional<double> hz = parse_samplerate(value);
      if (!hz) return fail(fmt::format("samplerate '{}': expected Hz, with an optional k, M or G (\"500 MHz\")", value));
      m.samplerate = *hz;
    } else if (key == "unitsize") {
      m.unitsize = parse_uint(value);
      if (!m.unitsize || *m.unitsize == 0 || *m.unitsize > 8)
        return fail(fmt::format("unitsize '{}': expected 1 to 8 bytes per sample", value));
    } else if (key == "total probes") {
      m.total_probes = parse_uint(value);
      if (!m.total_probes) return fail(fmt::format("total probes '{}': expected a number", value));
    } else if (key.rfind("probe", 0) == 0) {
      std::optional<std::uint64_t> n = parse_uint(std::string_view(key).substr(5));
      if (!n || *n == 0) return fail(fmt::format("'{}': expected probe<N>, N from 1", key));
      m.probes[*n] = value;
    }
    // total analog, analogN and anything newer: not part of a logic capture.
  }
  if (!found_device) return Error::input(name + ": metadata has no [device 1] group");
  if (m.capturefile.empty()) return Error::input(name + ": metadata: [device 1] has no capturefile");
  if (!m.total_probes) return Error::input(name + ": metadata: [device 1] has no 'total probes'");
  return m;
}

// The chunk number of `entry` if it is `<capturefile>-<n>` (n >= 1, written
// without leading zeros, as libsigrok names them).
std::optional<std::uint64_t> chunk_number(const std::string& entry, const std::string& capturefile) {
  if (entry.size() <= capturefile.size() + 1 || entry.compare(0, capturefile.size(), capturefile) != 0 ||
      entry[capturefile.size()] != '-')
    return std::nullopt;
  std::string_view digits = std::string_view(entry).substr(capturefile.size() + 1);
  if (digits.size() > 9 || digits[0] == '0') return std::nullopt;
  return parse_uint(digits);
}

Result<SrzipReader::Plan> SrzipReader::plan() {
  Result<zip::Archive> opened = zip::Archive::open(src_, name_, "a sigrok session file");
  if (!opened) return opened.error();
  const zip::Archive& archive = *opened;

  const zip::Entry* version = archive.find("version");
  if (!version) return fail("no 'version' entry: not a sigrok session file");
  Result<std::string> version_text = small_entry(archive, *version);
  if (!version_text) return version_text.error();
  if (trim(*version_text) != "2")
    return fail(fmt::format("session file version '{}' is not supported (only 2)", trim(*version_text)));
  const zip::Entry* meta_entry = archive.find("metadata");
  if (!meta_entry) return fail("no 'metadata' entry: not a sigrok session file");
  Result<std::string> meta_text = small_entry(archive, *meta_entry);
  if (!meta_text) return meta_text.error();
  Result<Metadata> meta = parse_metadata(*meta_text, name_);
  if (!meta) return meta.error();

  const std::uint64_t total = *meta->total_probes;
  if (total == 0) return fail("the session has no logic channels");
  if (total > 64) return fail("more than 64 logic channels");
  if (!meta->probes.empty() && meta->probes.rbegin()->first > total)
    return fail(fmt::format("metadata: probe{} but total probes={}", meta->probes.rbegin()->first, total));
  CaptureHeader header;
  header.format = "sr";
  header.samplerate = meta->samplerate;
  for (std::uint64_t i = 0; i < total; ++i) {
    auto it = meta->probes.find(i + 1);
    // libsigrok names the channels it creates for "total probes" by their
    // index and renames those listed as probeN.
    header.channels.push_back(it != meta->probes.end() ? it->second : std::to_string(i));
  }
  header.unitsize = CaptureHeader::unitsize_for(total);

  // Logic chunks in numeric order: logic-1-1, logic-1-2, ..., logic-1-10.
  std::vector<std::pair<std::uint64_t, const zip::Entry*>> chunks;
  const zip::Entry* single = archive.find(meta->capturefile);
  for (const zip::Entry& e : archive.entries())
    if (std::optional<std::uint64_t> n = chunk_number(e.name, meta->capturefile)) chunks.emplace_back(*n, &e);
  std::sort(chunks.begin(), chunks.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  for (std::size_t i = 0; i < chunks.size(); ++i)
    if (chunks[i].first != i + 1)
      return fail(fmt::format("{}-{} is missing (the archive has {} chunks up to {})", meta->capturefile, i + 1,
                              chunks.size(), chunks.back().second->name));
  if (single && !chunks.empty())
    return fail(fmt::format("both '{}' and chunks '{}-N': corrupt file", meta->capturefile, meta->capturefile));
  if (single) chunks.emplace_back(1, single);

  const unsigned file_unit = meta->unitsize ? static_cast<unsigned>(*meta->unitsize) : header.unitsize;
  if (!chunks.empty() && !meta->unitsize) return fail("metadata: [device 1] has no unitsize");
  if (file_unit * 8 < total)
    return fail(fmt::format("metadata: unitsize={} holds {} channels, but total probes={}", file_unit, file_unit * 8,
                            total));
  // Resolve every chunk before the first sample: a structural error, entries
  // that overlap or a size beyond the limits is found before the sink has
  // seen anything.
  const ReaderLimits& limits = options_.limits;
  std::vector<const zip::Entry*> wanted = {version, meta_entry};
  for (const auto& [n, e] : chunks) wanted.push_back(e);
  Result<std::vector<zip::Entry>> located = archive.locate_all(wanted);
  if (!located) return located.error();
  const std::vector<Chunk> work(located->begin() + 2, located->end());
  zip::InflateLimits inflate_limits;
  inflate_limits.entry_bytes = limits.entry_bytes;
  inflate_limits.entry_name = "reader limit entry_bytes";
  inflate_limits.total_bytes = limits.inflated_bytes;
  inflate_limits.total_name = "reader limit inflated_bytes";
  inflate_limits.group = "the chunk entries";
  HARNESS_TRY(archive.check_inflated(work, inflate_limits));
  std::uint64_t bytes = 0;
  for (const Chunk& c : work) bytes += c.uncompressed;
  header.declared_samples = bytes / file_unit;
  if (*header.declared_samples > limits.samples)
    return limit_exceeded(name_, fmt::format("the chunk entries hold {} samples", *header.declared_samples),
                          &ReaderLimits::samples, limits);
  return Plan{std::move(header), file_unit, work};
}

Status SrzipReader::read(CaptureSink& sink) {
  Result<Plan> planned = plan();
  if (!planned) return planned.error();
  const CaptureHeader& header = planned->header;
  const unsigned file_unit = planned->file_unit;
  const std::vector<Chunk>& work = planned->work;
  HARNESS_TRY(sink.begin(header));
  // The inflated bytes arrive in blocks that need not end on a sample (nor
  // do the entries): the samples of each block go to the sink as they are,
  // a sample cut by a block border is completed from the next block.
  std::vector<std::uint8_t> wide, carry;
  auto hand_on = [&](const std::uint8_t* p, std::size_t count) -> Status {
    if (count == 0) return ok();
    if (file_unit == header.unitsize) return sink.samples(p, count);
    // 17-24 channels are stored in 3 bytes, delivered in 4 (and a unitsize
    // wider than the channels need is narrowed), as the libsigrok path does.
    wide.assign(count * header.unitsize, 0);
    const unsigned keep = std::min(file_unit, header.unitsize);
    for (std::size_t i = 0; i < count; ++i) std::memcpy(&wide[i * header.unitsize], &p[i * file_unit], keep);
    return sink.samples(wide.data(), count);
  };
  auto deliver = [&](const std::uint8_t* p, std::size_t n) -> Status {
    if (!carry.empty()) {
      const std::size_t take = std::min<std::size_t>(file_unit - carry.size(), n);
      carry.insert(carry.end(), p, p + take);
      p += take;
      n -= take;
      if (carry.size() < file_unit) return ok();
      HARNESS_TRY(hand_on(carry.data(), 1));
      carry.clear();
    }
    const std::size_t whole = n / file_unit;
    HARNESS_TRY(hand_on(p, whole));
    carry.assign(p + whole * file_unit, p + n);
    return ok();
  };
  // Blocks of sink_block bytes, smaller for a small capture.
  std::uint64_t largest = 0, blocks_needed = 0;
  for (const Chunk& c : work) largest = std::max(largest, c.uncompressed);
  block_ = static_cast<std::size_t>(std::max<std::uint64_t>(64, std::min<std::uint64_t>(options_.sink_block, largest)));
  for (const Chunk& c : work) blocks_needed += (c.uncompressed + block_ - 1) / block_ + 1;
  const unsigned jobs = options_.jobs ? options_.jobs : std::max(1u, std::thread::hardware_concurrency());
  if (jobs > 1 && !work.empty()) {
    // One worker already overlaps inflating with the sink's work.
    const unsigned threads = static_cast<unsigned>(std::min<std::size_t>(jobs, work.size()));
    const std::size_t pool = static_cast<std::size_t>(std::min<std::uint64_t>(
        blocks_needed + threads, std::max<std::size_t>(threads + 2, options_.inflight_bytes / block_)));
    HARNESS_TRY(inflate_on_threads(work, threads, pool, deliver));
  } else {
    HARNESS_TRY(inflate_in_order(work, deliver));
  }
  // A partial sample at the very end is dropped, as libsigrok does.
  return sink.end();
}

Status SrzipReader::inflate_in_order(const std::vector<Chunk>& chunks, const BlockSink& deliver) {
  std::vector<std::uint8_t> block(block_);
  zip::InflateScratch scratch;
  for (const Chunk& c : chunks) {
    zip::EntryReader stream = chunk_reader(c, scratch);
    for (bool ended = false; !ended;) {
      Result<std::size_t> n = stream.fill(block.data(), block.size(), ended);
      if (!n) return n.error();
      if (*n) HARNESS_TRY(deliver(block.data(), *n));
    }
  }
  return ok();
}

// Workers take the entries in order and inflate each into blocks from a
// fixed pool; the calling thread hands the blocks of the entry at the head
// to the sink and returns them to the pool. Memory is the pool, whatever the
// size or number of entries. A worker on an entry behind the head may take
// a block only while more than one is free, so the head's worker always
// finds one: the consumer frees the head's blocks, and nothing else waits
// on an entry behind it. Errors are kept with their entry and returned when
// the consumer reaches it, so the first error in file order is the one
// reported, as on one thread.
Status SrzipReader::inflate_on_threads(const std::vector<Chunk>& chunks, unsigned threads, std::size_t pool_blocks,
                                       const BlockSink& deliver) {
  struct Ready {
    std::uint8_t* block;
    std::size_t bytes;
  };
  struct Slot {
    std::deque<Ready> ready;
    bool done = false;
    std::optional<Error> error;
  };
  const std::size_t block = block_;
  // One region in 2 MiB pages where the kernel allows (madvise): 4 KiB pages
  // cost a page fault each on first touch, some 30000 for the pool, which
  // on a small capture ate what the second thread saved.
  constexpr std::size_t kHugePage = std::size_t{2} << 20;
  const std::size_t region = (pool_blocks * block + kHugePage - 1) / kHugePage * kHugePage;
  std::unique_ptr<void, decltype(&std::free)> storage(std::aligned_alloc(kHugePage, region), &std::free);
  if (!storage) return Error::infra(fmt::format("{}: no memory for {} bytes of inflate blocks", name_, region));
  ::madvise(storage.get(), region, MADV_HUGEPAGE);
  std::vector<std::uint8_t*> free_blocks;
  for (std::size_t i = 0; i < pool_blocks; ++i) free_blocks.push_back(static_cast<std::uint8_t*>(storage.get()) + i * block);
  std::vector<Slot> slots(chunks.size());
  std::mutex m;
  std::condition_variable wake_workers, wake_consumer;
  std::size_t next = 0, head = 0, last_wanted = chunks.size();
  bool stop = false;

  auto worker = [&]() {
    zip::InflateScratch scratch;
    for (;;) {
      std::size_t i;
      {
        std::lock_guard<std::mutex> lock(m);
        if (stop || next >= last_wanted) return;
        i = next++;
      }
      zip::EntryReader stream = chunk_reader(chunks[i], scratch);
      for (bool ended = false; !ended;) {
        std::uint8_t* b = nullptr;
        {
          std::unique_lock<std::mutex> lock(m);
          wake_workers.wait(lock, [&] { return stop || (!free_blocks.empty() && (i == head || free_blocks.size() > 1)); });
          if (stop) return;
          b = free_blocks.back();
          free_blocks.pop_back();
        }
        Result<std::size_t> n = stream.fill(b, block, ended);
        std::lock_guard<std::mutex> lock(m);
        if (!n) {
          free_blocks.push_back(b);
          slots[i].error = n.error();
          slots[i].done = true;
          last_wanted = std::min(last_wanted, i + 1);  // nothing after a broken entry is needed
          wake_workers.notify_all();
          wake_consumer.notify_all();
          break;
        }
        if (*n) slots[i].ready.push_back({b, *n});
        else free_blocks.push_back(b);
        if (ended) slots[i].done = true;
        wake_consumer.notify_all();
        if (!*n) wake_workers.notify_all();
      }
    }
  };
  std::vector<std::thread> pool;
  auto stop_all = [&]() {
    {
      std::lock_guard<std::mutex> lock(m);
      stop = true;
    }
    wake_workers.notify_all();
    for (std::thread& t : pool) t.join();
  };
  for (unsigned t = 0; t < threads; ++t) pool.emplace_back(worker);
  for (std::size_t i = 0; i < chunks.size(); ++i) {
    {
      std::lock_guard<std::mutex> lock(m);
      head = i;
    }
    wake_workers.notify_all();
    for (;;) {
      Ready r{};
      {
        std::unique_lock<std::mutex> lock(m);
        wake_consumer.wait(lock, [&] { return !slots[i].ready.empty() || slots[i].done; });
        if (slots[i].ready.empty()) {
          if (slots[i].error) {
            Error e = *slots[i].error;
            lock.unlock();
            stop_all();
            return e;
          }
          break;  // the entry is complete
        }
        r = slots[i].ready.front();
        slots[i].ready.pop_front();
      }
      Status s = deliver(r.block, r.bytes);
      {
        std::lock_guard<std::mutex> lock(m);
        free_blocks.push_back(r.block);
      }
      wake_workers.notify_all();
      if (!s) {
        stop_all();
        return s.error();
      }
    }
  }
  stop_all();
  return ok();
}

}  // namespace

Status read_srzip(ByteSource& source, const std::string& name, CaptureSink& sink, const SrzipOptions& options) {
  SrzipReader reader(source, name, options);
  return reader.read(sink);
}

Status check_srzip(ByteSource& source, const std::string& name, const ReaderLimits& limits) {
  SrzipOptions options;
  options.limits = limits;
  SrzipReader reader(source, name, options);
  return reader.check();
}

Status check_sr(const std::string& path, const ReaderLimits& limits) {
  Result<std::unique_ptr<FileByteSource>> file = FileByteSource::open(path);
  if (!file) return file.error();
  return check_srzip(**file, path, limits);
}

Status read_sr(const std::string& path, CaptureSink& sink) { return read_sr(path, ReadOptions{}, sink); }

Status read_sr(const std::string& path, const ReadOptions& options, CaptureSink& sink) {
  Result<std::unique_ptr<FileByteSource>> file = FileByteSource::open(path);
  if (!file) return file.error();
  SrzipOptions o;
  o.limits = options.limits;
  o.jobs = options.jobs;
  return read_srzip(**file, path, sink, o);
}

}  // namespace harness
