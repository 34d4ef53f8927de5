#include "pipeline/dataset.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <limits>
#include <memory>

#include "core/temp_name.hpp"
#include "splitmix64.hpp"

namespace hdbench {
namespace {

// --- the synthetic set --------------------------------------------------------------

// splitmix64 (kernels/splitmix64.hpp): a sequence fixed by its definition.
struct Rng {
  std::uint64_t state;
  std::uint64_t next() noexcept { return splitmix64_mix(state += kSplitmixGamma); }
  // The modulo bias of a 64-bit draw over a handful of values is far too small to matter.
  int uniform(int lo, int hi) noexcept { return lo + static_cast<int>(next() % static_cast<unsigned>(hi - lo + 1)); }
};

// Each stream starts from a hash of (seed, purpose, index), so sample i depends on
// nothing but the seed and i, and a shorter set is a prefix of a longer one.
Rng stream(std::uint64_t seed, std::uint64_t purpose, std::uint64_t index) noexcept {
  return Rng{splitmix64_mix(splitmix64_mix(seed ^ purpose) + index)};
}
constexpr std::uint64_t kPrototypeStream = 0x70726f746f747970ULL;
constexpr std::uint64_t kLabelStream = 0x6c6162656c6c6162ULL;
constexpr std::uint64_t kSampleStream = 0x73616d706c657321ULL;

constexpr int kSide = static_cast<int>(kMnistRows);
constexpr int kMaxShift = 2;
// Prototypes carry a blank margin wide enough for any shift, so a shifted sample is a
// plain 28x28 window into its prototype.
constexpr int kPadded = kSide + 2 * kMaxShift;
using Canvas = std::array<std::uint8_t, kPadded * kPadded>;

// Pen geometry in 1/256 pixel: full ink within 0.7 px of the pen's centre, fading
// linearly (in squared distance) to none at 1.7 px, about MNIST's stroke width.
constexpr std::int64_t kUnit = 256;
constexpr std::int64_t kInner2 = 179 * 179;
constexpr std::int64_t kOuter2 = 435 * 435;
// Stroke points lie in [5, 22] of the 28x28 frame, so with the pen's reach and any
// shift all ink stays inside it, as in MNIST's centred digits.
constexpr int kLow = 5 + kMaxShift;
constexpr int kHigh = 22 + kMaxShift;
static_assert(kLow - 2 >= 0 && kHigh + 2 < kPadded, "a stamp reaches 2 pixels from its centre");

// Stamps the pen every half pixel along the segment, which leaves no gaps.
void draw_segment(Canvas& canvas, std::int64_t x0, std::int64_t y0, std::int64_t x1, std::int64_t y1) noexcept {
  const std::int64_t steps = 2 * std::max(std::abs(x1 - x0), std::abs(y1 - y0));
  for (std::int64_t i = 0; i <= steps; ++i) {
    const std::int64_t cx = x0 * kUnit + (x1 - x0) * kUnit * i / steps, cy = y0 * kUnit + (y1 - y0) * kUnit * i / steps;
    for (std::int64_t y = cy / kUnit - 2; y <= cy / kUnit + 2; ++y) {
      for (std::int64_t x = cx / kUnit - 2; x <= cx / kUnit + 2; ++x) {
        const std::int64_t d2 = (x * kUnit - cx) * (x * kUnit - cx) + (y * kUnit - cy) * (y * kUnit - cy);
        const std::int64_t ink = std::clamp<std::int64_t>(255 * (kOuter2 - d2) / (kOuter2 - kInner2), 0, 255);
        std::uint8_t& pixel = canvas[static_cast<std::size_t>(y * kPadded + x)];
        pixel = std::max(pixel, static_cast<std::uint8_t>(ink));
      }
    }
  }
}

// One or two pen strokes, each a polyline of segments at least 5 pixels long.
Canvas draw_prototype(Rng& rng) {
  Canvas canvas{};
  const int strokes = rng.uniform(1, 2);
  for (int s = 0; s < strokes; ++s) {
    const int points = strokes == 1 ? rng.uniform(4, 6) : rng.uniform(3, 4);
    int x = rng.uniform(kLow, kHigh), y = rng.uniform(kLow, kHigh);
    for (int p = 1; p < points;) {
      const int nx = rng.uniform(kLow, kHigh), ny = rng.uniform(kLow, kHigh);
      if ((nx - x) * (nx - x) + (ny - y) * (ny - y) < 25) continue;  // too short: draw another point
      draw_segment(canvas, x, y, nx, ny);
      x = nx, y = ny, ++p;
    }
  }
  return canvas;
}

// What a nearest-class-mean classifier sees of a class: the prototype summed over
// every shift a sample can have.
using Blurred = std::array<double, kPadded * kPadded>;
Blurred blur(const Canvas& canvas) noexcept {
  constexpr int kReach = kMaxShift * kPadded + kMaxShift;  // the largest index offset of a shift
  Blurred out{};
  for (int sy = -kMaxShift; sy <= kMaxShift; ++sy) {
    for (int sx = -kMaxShift; sx <= kMaxShift; ++sx) {
      // Ink stays 5 pixels clear of the canvas's edges, so an offset that wraps into
      // the next row reads blank margin, as a 2-D shift would.
      for (int i = kReach; i < kPadded * kPadded - kReach; ++i) out[i] += canvas[i + sy * kPadded + sx];
    }
  }
  return out;
}

// Cosine similarity. The sums are exact (integers below 2^53) and the rest are single
// correctly rounded IEEE operations, so the choice of prototypes is the same everywhere.
double similarity(const Blurred& a, const Blurred& b) noexcept {
  double ab = 0, aa = 0, bb = 0;
  for (std::size_t i = 0; i < a.size(); ++i) ab += a[i] * b[i], aa += a[i] * a[i], bb += b[i] * b[i];
  return ab / std::sqrt(aa * bb);
}

// Random prototypes can resemble each other or be mere dots. Of up to 64 candidates
// per class, keep the first with MNIST-like ink (90-130 full pixels) whose cosine
// similarity to every earlier class is at most 0.4, or else the best seen. That keeps
// nearest-class-mean accuracy above 90% for each of the 300 seeds we tried.
std::array<Canvas, kMnistClasses> make_prototypes(std::uint64_t seed) {
  std::array<Canvas, kMnistClasses> chosen{};
  std::array<Blurred, kMnistClasses> blurred{};
  for (std::size_t c = 0; c < kMnistClasses; ++c) {
    Rng rng = stream(seed, kPrototypeStream, c);
    double best = std::numeric_limits<double>::infinity();
    for (int attempt = 0; attempt < 64 && best > 0.4; ++attempt) {
      const Canvas candidate = draw_prototype(rng);
      std::int64_t ink = 0;
      for (const std::uint8_t value : candidate) ink += value;
      const Blurred view = blur(candidate);
      double score = ink < 90 * 255 || ink > 130 * 255 ? 1 : 0;  // worse than any similarity
      double closest = 0;
      for (std::size_t e = 0; e < c; ++e) closest = std::max(closest, similarity(view, blurred[e]));
      if (score + closest < best) best = score + closest, chosen[c] = candidate, blurred[c] = view;
    }
  }
  return chosen;
}

// Labels come in blocks of ten, each a shuffled 0..9: balanced, every class present
// from ten samples on, and sample i's label depends only on (seed, i / 10).
void fill_labels(std::vector<std::uint8_t>& labels, std::uint64_t seed) {
  for (std::size_t first = 0; first < labels.size(); first += kMnistClasses) {
    std::array<std::uint8_t, kMnistClasses> order{0, 1, 2, 3, 4, 5, 6, 7, 8, 9};
    Rng rng = stream(seed, kLabelStream, first / kMnistClasses);
    for (int i = static_cast<int>(kMnistClasses) - 1; i > 0; --i) std::swap(order[i], order[rng.uniform(0, i)]);
    std::copy_n(order.begin(), std::min(kMnistClasses, labels.size() - first), labels.begin() + first);
  }
}

// A shifted window of the prototype at 50-100% stroke intensity, plus noise of 0-47
// on every pixel, background included.
void render_sample(std::uint8_t* out, const Canvas& prototype, std::uint64_t seed, std::size_t index) noexcept {
  Rng rng = stream(seed, kSampleStream, index);
  const int dy = rng.uniform(0, 2 * kMaxShift), dx = rng.uniform(0, 2 * kMaxShift);
  const std::uint8_t* window = prototype.data() + dy * kPadded + dx;
  const unsigned scale = static_cast<unsigned>(rng.uniform(128, 256));
  std::uint64_t noise = 0;
  for (int y = 0; y < kSide; ++y) {
    for (int x = 0; x < kSide; ++x, noise >>= 8) {
      if ((y * kSide + x) % 8 == 0) noise = rng.next();  // eight pixels' noise per draw
      const unsigned value = ((window[y * kPadded + x] * scale) >> 8) + (((noise & 0xff) * 48) >> 8);
      out[y * kSide + x] = static_cast<std::uint8_t>(std::min(value, 255u));
    }
  }
}

// --- IDX files ---------------------------------------------------------------------

constexpr std::uint32_t kImagesMagic = 0x00000803;
constexpr std::uint32_t kLabelsMagic = 0x00000801;
// Far above any image dataset's, and low enough that count * rows * cols cannot overflow.
constexpr std::uint64_t kMaxPixelsPerImage = std::uint64_t{1} << 24;
// Far above any IDX file's decompressed size; a corrupt or hostile gzip stream that
// claims more is an error instead of an allocation that takes the machine's memory.
constexpr std::uint64_t kMaxDecompressedBytes = std::uint64_t{8} << 30;
constexpr const char* kFixBadFile =
    "download the file again (or reinstall Debian's dataset-fashion-mnist), or export a fresh copy with "
    "write_mnist_idx";

[[noreturn]] void fail(const std::string& path, const std::string& problem, const char* fix = kFixBadFile) {
  throw DatasetError(fmt::format("dataset file '{}': {}; {}", path, problem, fix));
}

struct FileCloser {
  void operator()(std::FILE* file) const noexcept { std::fclose(file); }
};
using File = std::unique_ptr<std::FILE, FileCloser>;

// One bulk read of the whole file: its size from fstat, then a single fread.
std::vector<std::uint8_t> read_file(const std::string& path) {
  // Opened without waiting: a pipe of that name blocked fopen for ever, before any deadline
  // applies (the set is read while benchmarks register); fstat then refuses it.
  const int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  const File file(fd >= 0 ? ::fdopen(fd, "rb") : nullptr);
  if (fd >= 0 && !file) ::close(fd);
  if (!file) {
    fail(path, fmt::format("cannot open: {}", std::strerror(errno)),
         "check the path; the standard names are train-images-idx3-ubyte and train-labels-idx1-ubyte, "
         "plain or gzipped (.gz)");
  }
  struct stat info {};
  if (::fstat(::fileno(file.get()), &info) != 0 || !S_ISREG(info.st_mode)) {
    fail(path, "not a regular file", "give the path of an IDX file, not a folder or device");
  }
  if (static_cast<std::uint64_t>(info.st_size) > kMaxDecompressedBytes) {  // read whole: bad_alloc, or all memory
    fail(path,
         fmt::format("{} bytes, more than any IDX set this reads ({} GiB)", info.st_size, kMaxDecompressedBytes >> 30),
         "give the path of an IDX file");
  }
  std::vector<std::uint8_t> bytes(static_cast<std::size_t>(info.st_size));
  // A short count means the file shrank meanwhile; the length checks report it.
  bytes.resize(std::fread(bytes.data(), 1, bytes.size(), file.get()));
  if (std::ferror(file.get())) fail(path, "read error", "check the disk and the file's permissions");
  return bytes;
}

std::uint64_t load_be32(const std::uint8_t* p) noexcept {
  return std::uint64_t{p[0]} << 24 | std::uint64_t{p[1]} << 16 | std::uint64_t{p[2]} << 8 | p[3];
}

// Decompresses a whole gzip file held in memory (one or more members, as gzip writes
// them). A damaged stream (bad header, bad deflate data, CRC or length mismatch) or
// one that ends early is a DatasetError naming the file.
std::vector<std::uint8_t> gunzip(const std::string& path, const std::vector<std::uint8_t>& compressed) {
  z_stream z{};
  if (inflateInit2(&z, 16 + MAX_WBITS) != Z_OK) fail(path, "zlib could not start", "check the installed zlib");
  const std::unique_ptr<z_stream, int (*)(z_stream*)> guard(&z, inflateEnd);
  std::vector<std::uint8_t> out;
  // The gzip trailer holds the size modulo 2^32: a hint for one allocation, not
  // trusted beyond what deflate can expand to (at most 1032:1), as a truncated file's
  // last four bytes are not its trailer.
  if (compressed.size() >= 18) {
    const std::uint8_t* t = compressed.data() + compressed.size() - 4;
    const std::size_t hint =
        std::uint32_t{t[0]} | std::uint32_t{t[1]} << 8 | std::uint32_t{t[2]} << 16 | std::uint32_t{t[3]} << 24;
    out.reserve(std::min(hint, 1032 * compressed.size()));
  }
  z.next_in = const_cast<Bytef*>(compressed.data());
  std::size_t in_left = compressed.size();
  std::size_t produced = 0;
  constexpr uInt kStep = 1u << 30;  // zlib counts in uInt
  int status = Z_OK;
  while (true) {
    if (out.size() - produced < (1u << 20)) {
      if (out.size() >= kMaxDecompressedBytes) {
        fail(path, fmt::format("gzip stream decompresses to more than {} GiB", kMaxDecompressedBytes >> 30));
      }
      out.resize(std::max<std::size_t>(2 * out.size(), out.capacity()) + (1u << 20));
    }
    const uInt in_step = static_cast<uInt>(std::min<std::size_t>(in_left, kStep));
    const uInt out_step = static_cast<uInt>(std::min<std::size_t>(out.size() - produced, kStep));
    z.avail_in = in_step;
    z.next_out = out.data() + produced;
    z.avail_out = out_step;
    status = inflate(&z, Z_NO_FLUSH);
    in_left -= in_step - z.avail_in;
    produced += out_step - z.avail_out;
    if (status == Z_STREAM_END) {
      if (in_left == 0) break;
      if (inflateReset(&z) != Z_OK) fail(path, "zlib could not restart for the next gzip member");
      continue;  // another member follows (gzip -c a b > c)
    }
    if (status == Z_BUF_ERROR && in_left == 0) {
      fail(path, fmt::format("truncated gzip stream: it ends after {} bytes ({} decompressed) without its trailer",
                             compressed.size(), produced));
    }
    if (status != Z_OK && status != Z_BUF_ERROR) {
      fail(path, fmt::format("corrupt gzip data: {} (zlib error {})", z.msg ? z.msg : "no message", status));
    }
  }
  out.resize(produced);
  return out;
}

struct Idx {
  std::vector<std::uint64_t> dims;  // all non-zero
  std::vector<std::uint8_t> payload;
};

// Reads an IDX file of unsigned bytes in one piece and checks it against its header.
Idx read_idx(const std::string& path, std::uint32_t magic, std::size_t ndims, const char* kind) {
  std::vector<std::uint8_t> bytes = read_file(path);
  const std::size_t header = 4 + 4 * ndims;
  if (bytes.empty()) fail(path, fmt::format("empty file (0 bytes), expected IDX {}", kind));
  // gzip's magic: no IDX file starts with it (an IDX magic's first two bytes are 0).
  const bool gzipped = bytes.size() >= 2 && bytes[0] == 0x1f && bytes[1] == 0x8b;
  if (gzipped) {
    bytes = gunzip(path, bytes);
    if (bytes.empty()) fail(path, fmt::format("gzip file decompresses to 0 bytes, expected IDX {}", kind));
  }
  if (bytes.size() < header) {
    fail(path, fmt::format("truncated header: {} bytes, an IDX {} header is {}", bytes.size(), kind, header));
  }
  if (load_be32(bytes.data()) != magic) {
    fail(path, fmt::format("wrong magic 0x{:08x}, expected 0x{:08x} (IDX {})", load_be32(bytes.data()), magic, kind));
  }
  Idx idx{std::vector<std::uint64_t>(ndims), {}};
  std::uint64_t expected = 1;  // below 2^56 after the size limit, so it cannot overflow
  for (std::size_t d = 0; d < ndims; ++d) {
    idx.dims[d] = load_be32(bytes.data() + 4 + 4 * d);
    if (idx.dims[d] == 0) fail(path, fmt::format("zero dimension: dimension {} of the header is 0", d));
    if (d > 0) expected *= idx.dims[d];
  }
  if (expected > kMaxPixelsPerImage) {
    fail(path,
         fmt::format("image size {}x{} exceeds the limit of {} pixels", idx.dims[1], idx.dims[2], kMaxPixelsPerImage));
  }
  expected *= idx.dims[0];
  const std::string contents = ndims == 3 ? fmt::format("{} images of {}x{}", idx.dims[0], idx.dims[1], idx.dims[2])
                                          : fmt::format("{} labels", idx.dims[0]);
  if (const std::uint64_t actual = bytes.size() - header; actual != expected) {
    fail(path, fmt::format("{}: header says {} = {} bytes, file has {} after the header",
                           actual < expected ? "truncated" : "trailing bytes", contents, expected, actual));
  }
  // Dropping the header in place moves the payload down instead of copying it.
  bytes.erase(bytes.begin(), bytes.begin() + static_cast<std::ptrdiff_t>(header));
  idx.payload = std::move(bytes);
  return idx;
}

std::vector<std::uint8_t> make_header(std::initializer_list<std::size_t> magic_and_dims) {
  std::vector<std::uint8_t> header;
  for (const std::size_t value : magic_and_dims) {
    for (int shift = 24; shift >= 0; shift -= 8) header.push_back(static_cast<std::uint8_t>(value >> shift));
  }
  return header;
}

// Flushed to disk before the caller renames it, so a crash leaves the old file or the
// whole new one.
void write_temp_file(const std::string& temp, const std::string& path, const std::vector<std::uint8_t>& header,
                     const std::vector<std::uint8_t>& payload) {
  File file(std::fopen(temp.c_str(), "wb"));
  if (!file) {
    fail(path, fmt::format("cannot create temporary file '{}': {}", temp, std::strerror(errno)),
         "check that the folder exists and is writable");
  }
  const bool written = std::fwrite(header.data(), 1, header.size(), file.get()) == header.size() &&
                       std::fwrite(payload.data(), 1, payload.size(), file.get()) == payload.size() &&
                       std::fflush(file.get()) == 0 && ::fsync(::fileno(file.get())) == 0;
  const int error = errno;
  if (std::fclose(file.release()) != 0 || !written) {
    const int reported = written ? errno : error;
    ::unlink(temp.c_str());
    fail(path, fmt::format("cannot write '{}': {}", temp, std::strerror(reported)), "check free disk space");
  }
}

}  // namespace

Dataset make_synthetic_mnist(std::size_t count, std::uint64_t seed) {
  if (count == 0) throw std::invalid_argument("make_synthetic_mnist: count must be at least 1");
  const auto prototypes = make_prototypes(seed);
  Dataset dataset;
  dataset.labels.resize(count);
  dataset.pixels.resize(count * dataset.pixels_per_sample());
  fill_labels(dataset.labels, seed);
  for (std::size_t i = 0; i < count; ++i) {
    render_sample(dataset.pixels.data() + i * dataset.pixels_per_sample(), prototypes[dataset.labels[i]], seed, i);
  }
  return dataset;
}

Dataset read_mnist_idx(const std::string& images_path, const std::string& labels_path) {
  Idx images = read_idx(images_path, kImagesMagic, 3, "images");
  Idx labels = read_idx(labels_path, kLabelsMagic, 1, "labels");
  if (labels.dims[0] != images.dims[0]) {
    throw DatasetError(
        fmt::format("count mismatch: images file '{}' has {} images but labels file '{}' has {} labels; "
                    "give the labels file that belongs to these images",
                    images_path, images.dims[0], labels_path, labels.dims[0]));
  }
  const auto bad = std::find_if(labels.payload.begin(), labels.payload.end(),
                                [](std::uint8_t label) { return label >= kMnistClasses; });
  if (bad != labels.payload.end()) {
    fail(labels_path,
         fmt::format("label {} at index {} is out of range (expected 0-9)", int{*bad}, bad - labels.payload.begin()));
  }
  return Dataset{static_cast<std::size_t>(images.dims[1]), static_cast<std::size_t>(images.dims[2]),
                 std::move(images.payload), std::move(labels.payload)};
}

void write_mnist_idx(const Dataset& dataset, const std::string& images_path, const std::string& labels_path) {
  const auto too_big = [](std::size_t n) { return n > std::numeric_limits<std::uint32_t>::max(); };
  if (dataset.pixels.size() != dataset.size() * dataset.pixels_per_sample() || too_big(dataset.size()) ||
      too_big(dataset.rows) || too_big(dataset.cols) || images_path == labels_path ||
      std::any_of(dataset.labels.begin(), dataset.labels.end(), [](std::uint8_t l) { return l >= kMnistClasses; })) {
    throw std::invalid_argument(fmt::format(
        "write_mnist_idx: {} pixels, {} labels of {}x{}; need size() * rows * cols pixels, labels below 10, "
        "dimensions below 2^32 and two different paths",
        dataset.pixels.size(), dataset.size(), dataset.rows, dataset.cols));
  }
  const auto image_header = make_header({kImagesMagic, dataset.size(), dataset.rows, dataset.cols});
  const auto label_header = make_header({kLabelsMagic, dataset.size()});
  // Both files are complete under temporary names before either is renamed, so a
  // failure leaves neither a torn file nor new images without their labels.
  const std::string images_temp = temp_path_beside(images_path).string();
  const std::string labels_temp = temp_path_beside(labels_path).string();
  write_temp_file(images_temp, images_path, image_header, dataset.pixels);
  try {
    write_temp_file(labels_temp, labels_path, label_header, dataset.labels);
  } catch (...) {
    ::unlink(images_temp.c_str());
    throw;
  }
  for (const auto& [temp, path] : {std::pair{&images_temp, &images_path}, std::pair{&labels_temp, &labels_path}}) {
    if (::rename(temp->c_str(), path->c_str()) != 0) {
      const int error = errno;
      ::unlink(images_temp.c_str());  // a no-op once renamed
      ::unlink(labels_temp.c_str());
      fail(*path, fmt::format("cannot rename '{}' into place: {}", *temp, std::strerror(error)),
           "check that the path is not a folder and its folder is writable");
    }
  }
}

std::string idx_file_in(const std::string& directory, const std::string& name) {
  const std::filesystem::path plain = std::filesystem::path(directory) / name;
  std::error_code ec;
  if (std::filesystem::exists(plain, ec)) return plain.string();
  std::filesystem::path gz = plain;
  gz += ".gz";
  return std::filesystem::exists(gz, ec) ? gz.string() : plain.string();
}

std::string mnist_images_path(const std::string& directory) {
  return idx_file_in(directory, "train-images-idx3-ubyte");
}

std::string mnist_labels_path(const std::string& directory) {
  return idx_file_in(directory, "train-labels-idx1-ubyte");
}

}  // namespace hdbench
