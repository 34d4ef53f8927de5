// The data loader's dataset layer: MNIST-shaped images and labels, either generated
// deterministically (so a benchmark needs no download) or read from IDX files.
#pragma once

#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

namespace hdbench {

inline constexpr std::size_t kMnistRows = 28;
inline constexpr std::size_t kMnistCols = 28;
inline constexpr std::size_t kMnistClasses = 10;

// Thrown for a missing, unreadable or malformed dataset file; the message names the
// file, what was wrong and what to do about it.
class DatasetError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Images and labels in memory, MNIST-shaped: uint8 pixels, row-major, one label per image.
struct Dataset {
  std::size_t rows = kMnistRows;
  std::size_t cols = kMnistCols;
  std::vector<std::uint8_t> pixels;  // size() * rows * cols
  std::vector<std::uint8_t> labels;  // each < kMnistClasses
  std::size_t size() const noexcept { return labels.size(); }
  std::size_t pixels_per_sample() const noexcept { return rows * cols; }
  const std::uint8_t* image(std::size_t index) const noexcept { return pixels.data() + index * pixels_per_sample(); }
};

// A deterministic MNIST-like set: the same (count, seed) gives the same bytes on every
// machine and standard library (our own PRNG, integer pixel arithmetic). Each class has
// a prototype of pen strokes drawn from the seed; a sample is its class prototype
// shifted by up to +-2 pixels, with random stroke intensity and per-pixel noise.
// Labels come in shuffled blocks of 0..9, so each class has count / 10 or one more
// samples. Sample i depends only on (seed, i): a shorter set is a prefix of a longer
// one, so held-out samples can be taken from the tail. Throws std::invalid_argument
// for count 0.
Dataset make_synthetic_mnist(std::size_t count, std::uint64_t seed);

// Reads the MNIST IDX format: images magic 0x00000803 (unsigned byte; count, rows,
// cols), labels magic 0x00000801 (count), header integers big-endian. A file that
// starts with gzip's magic (as Debian's dataset-fashion-mnist ships them, *.gz) is
// decompressed in memory first. Each file is read in one piece and checked: gzip
// integrity (CRC, length, no early end), magic, non-zero dimensions, a sane image
// size, a length exactly matching the header, equal counts, every label < 10.
// Throws DatasetError naming the file.
Dataset read_mnist_idx(const std::string& images_path, const std::string& labels_path);

// Writes the two IDX files. Each goes to a temporary name in its own folder and is
// renamed into place, so an interrupted write never leaves a torn file. Throws
// DatasetError on I/O failure and std::invalid_argument for an inconsistent dataset
// (pixel count not size() * rows * cols, a label >= 10, a dimension over 2^32 - 1).
void write_mnist_idx(const Dataset& dataset, const std::string& images_path, const std::string& labels_path);

// DIR/NAME when it exists, else DIR/NAME.gz when that exists, else DIR/NAME (so a
// missing file's error names the standard name).
std::string idx_file_in(const std::string& directory, const std::string& name);
// Where the standard training files live in a folder: DIR/train-images-idx3-ubyte
// and DIR/train-labels-idx1-ubyte, plain or gzipped (idx_file_in).
std::string mnist_images_path(const std::string& directory);
std::string mnist_labels_path(const std::string& directory);

}  // namespace hdbench
