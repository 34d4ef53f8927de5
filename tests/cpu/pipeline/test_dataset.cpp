#include <gtest/gtest.h>
#include <unistd.h>
#include <zlib.h>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include "pipeline/dataset.hpp"

namespace hdbench {
namespace {

namespace fs = std::filesystem;

// --- the synthetic set ---------------------------------------------------------------

TEST(DatasetSynthetic, SameSeedGivesIdenticalBytesAndOtherSeedsDoNot) {
  const Dataset a = make_synthetic_mnist(500, 42);
  const Dataset b = make_synthetic_mnist(500, 42);
  EXPECT_EQ(a.pixels, b.pixels);
  EXPECT_EQ(a.labels, b.labels);
  for (std::uint64_t other : {std::uint64_t{43}, std::uint64_t{0}, ~std::uint64_t{0}}) {
    const Dataset c = make_synthetic_mnist(500, other);
    EXPECT_NE(a.pixels, c.pixels) << "seed " << other;
    EXPECT_NE(a.labels, c.labels) << "seed " << other;
  }
}

TEST(DatasetSynthetic, SizesLabelsAndBalance) {
  for (std::size_t count : {1, 7, 10, 99, 100, 1001}) {
    SCOPED_TRACE(::testing::Message() << "count " << count);
    const Dataset d = make_synthetic_mnist(count, 7);
    EXPECT_EQ(d.rows, kMnistRows);
    EXPECT_EQ(d.cols, kMnistCols);
    ASSERT_EQ(d.size(), count);
    ASSERT_EQ(d.pixels.size(), count * 28 * 28);
    std::vector<std::size_t> per_class(kMnistClasses, 0);
    for (std::uint8_t label : d.labels) {
      ASSERT_LT(label, kMnistClasses);
      ++per_class[label];
    }
    // Balanced: every class has count / 10 samples, some one more.
    for (std::size_t n : per_class) {
      EXPECT_GE(n, count / kMnistClasses);
      EXPECT_LE(n, count / kMnistClasses + 1);
    }
    if (count >= 100) {
      EXPECT_EQ(std::count(per_class.begin(), per_class.end(), 0), 0);
    }
  }
}

TEST(DatasetSynthetic, ShorterSetIsAPrefixOfALongerOne) {
  const Dataset small = make_synthetic_mnist(37, 5);
  const Dataset large = make_synthetic_mnist(400, 5);
  EXPECT_TRUE(std::equal(small.labels.begin(), small.labels.end(), large.labels.begin()));
  EXPECT_TRUE(std::equal(small.pixels.begin(), small.pixels.end(), large.pixels.begin()));
}

TEST(DatasetSynthetic, ZeroCountThrows) { EXPECT_THROW(make_synthetic_mnist(0, 1), std::invalid_argument); }

// Class means from 2000 samples classify 1000 others: the classes are real structure.
TEST(DatasetSynthetic, NearestClassMeanClassifiesHeldOutSamples) {
  constexpr std::size_t kTrain = 2000, kTest = 1000, kPixels = kMnistRows * kMnistCols;
  for (std::uint64_t seed : {1, 42, 2024, 31337}) {
    const Dataset d = make_synthetic_mnist(kTrain + kTest, seed);
    std::vector<double> mean(kMnistClasses * kPixels, 0.0);
    std::vector<double> n(kMnistClasses, 0.0);
    for (std::size_t i = 0; i < kTrain; ++i) {
      n[d.labels[i]] += 1;
      for (std::size_t p = 0; p < kPixels; ++p) mean[d.labels[i] * kPixels + p] += d.image(i)[p];
    }
    for (std::size_t m = 0; m < mean.size(); ++m) mean[m] /= n[m / kPixels];
    std::size_t correct = 0;
    for (std::size_t i = kTrain; i < kTrain + kTest; ++i) {
      std::vector<double> distance(kMnistClasses, 0.0);
      for (std::size_t c = 0; c < kMnistClasses; ++c) {
        for (std::size_t p = 0; p < kPixels; ++p) {
          const double e = d.image(i)[p] - mean[c * kPixels + p];
          distance[c] += e * e;
        }
      }
      correct += std::min_element(distance.begin(), distance.end()) - distance.begin() == d.labels[i];
    }
    EXPECT_GE(correct, kTest * 9 / 10) << "seed " << seed;
  }
}

// Not a lookup table: samples of a class are shifted and noisy copies of each other.
TEST(DatasetSynthetic, SamplesOfAClassDifferByShiftAndNoise) {
  const Dataset d = make_synthetic_mnist(1000, 3);
  for (std::size_t c = 0; c < kMnistClasses; ++c) {
    std::set<std::string> distinct;
    double lowest_x = 28, highest_x = 0, lowest_y = 28, highest_y = 0;
    for (std::size_t i = 0; i < d.size(); ++i) {
      if (d.labels[i] != c) continue;
      distinct.emplace(reinterpret_cast<const char*>(d.image(i)), d.pixels_per_sample());
      double sx = 0, sy = 0, ink = 0;  // centroid of the pixels no noise alone reaches
      for (std::size_t p = 0; p < d.pixels_per_sample(); ++p) {
        if (d.image(i)[p] < 100) continue;
        sx += static_cast<double>(p % 28), sy += static_cast<double>(p / 28), ink += 1;
      }
      ASSERT_GT(ink, 0) << "sample " << i;
      lowest_x = std::min(lowest_x, sx / ink), highest_x = std::max(highest_x, sx / ink);
      lowest_y = std::min(lowest_y, sy / ink), highest_y = std::max(highest_y, sy / ink);
    }
    EXPECT_EQ(distinct.size(), d.size() / kMnistClasses) << "class " << c << " has identical samples";
    EXPECT_GE(highest_x - lowest_x, 3.0) << "class " << c;  // shifts of -2..+2 span 4 pixels
    EXPECT_GE(highest_y - lowest_y, 3.0) << "class " << c;
  }
  // The corner is always background: noise only, below 48 and not constant.
  std::set<std::uint8_t> corner;
  for (std::size_t i = 0; i < d.size(); ++i) corner.insert(d.image(i)[0]);
  EXPECT_GT(corner.size(), 10u);
  EXPECT_LT(*corner.rbegin(), 48);
}

// --- IDX files -------------------------------------------------------------------------

std::string be32(std::uint32_t v) {
  return {static_cast<char>(v >> 24), static_cast<char>(v >> 16), static_cast<char>(v >> 8), static_cast<char>(v)};
}
std::string raw(std::initializer_list<int> values) { return std::string(values.begin(), values.end()); }

// 3 images of 2x2 and their labels, written byte by byte as the IDX format specifies.
const std::string kImagesHeader = be32(0x803) + be32(3) + be32(2) + be32(2);
const std::string kPixels = raw({0, 1, 2, 3, 10, 20, 30, 40, 255, 254, 128, 0});
const std::string kLabelsHeader = be32(0x801) + be32(3);
const std::string kLabels = raw({7, 0, 9});

class DatasetIdx : public ::testing::Test {
 protected:
  void SetUp() override {
    static std::atomic<int> counter{0};
    dir_ =
        fs::temp_directory_path() / ("hdbench_dataset_" + std::to_string(::getpid()) + "_" + std::to_string(counter++));
    fs::remove_all(dir_);
    ASSERT_TRUE(fs::create_directories(dir_));
    images_ = (dir_ / "images").string();
    labels_ = (dir_ / "labels").string();
  }
  void TearDown() override {
    std::error_code ec;
    fs::remove_all(dir_, ec);
  }

  void write_pair(const std::string& images, const std::string& labels) const {
    std::ofstream(images_, std::ios::binary) << images;
    std::ofstream(labels_, std::ios::binary) << labels;
  }

  // read_mnist_idx must throw DatasetError naming `file` and `problem`.
  void expect_error(const std::string& file, const std::string& problem) const {
    try {
      read_mnist_idx(images_, labels_);
      ADD_FAILURE() << "no DatasetError; expected '" << problem << "' for " << file;
    } catch (const DatasetError& e) {
      const std::string message = e.what();
      EXPECT_NE(message.find(file), std::string::npos) << message;
      EXPECT_NE(message.find(problem), std::string::npos) << message;
    }
  }

  std::vector<fs::path> files() const { return {fs::directory_iterator(dir_), fs::directory_iterator()}; }

  fs::path dir_;
  std::string images_;
  std::string labels_;
};

TEST_F(DatasetIdx, ReadsAHandWrittenFilePair) {
  write_pair(kImagesHeader + kPixels, kLabelsHeader + kLabels);
  const Dataset d = read_mnist_idx(images_, labels_);
  EXPECT_EQ(d.rows, 2u);
  EXPECT_EQ(d.cols, 2u);
  ASSERT_EQ(d.size(), 3u);
  EXPECT_EQ(d.labels, (std::vector<std::uint8_t>{7, 0, 9}));
  EXPECT_EQ(d.pixels, (std::vector<std::uint8_t>{0, 1, 2, 3, 10, 20, 30, 40, 255, 254, 128, 0}));
  EXPECT_EQ(d.image(2)[1], 254);
}

TEST_F(DatasetIdx, RoundTripGivesIdenticalDataset) {
  Dataset odd_shape{3, 5, std::vector<std::uint8_t>(2 * 15), {9, 0}};
  for (std::size_t i = 0; i < odd_shape.pixels.size(); ++i) odd_shape.pixels[i] = static_cast<std::uint8_t>(i * 37);
  for (const Dataset& original : {make_synthetic_mnist(257, 11), odd_shape}) {
    write_mnist_idx(original, images_, labels_);
    const Dataset back = read_mnist_idx(images_, labels_);
    EXPECT_EQ(back.rows, original.rows);
    EXPECT_EQ(back.cols, original.cols);
    EXPECT_EQ(back.pixels, original.pixels);
    EXPECT_EQ(back.labels, original.labels);
    EXPECT_EQ(files().size(), 2u) << "a temporary file was left behind";
  }
}

TEST_F(DatasetIdx, WrongMagic) {
  write_pair(be32(0x802) + kImagesHeader.substr(4) + kPixels, kLabelsHeader + kLabels);
  expect_error(images_, "wrong magic 0x00000802, expected 0x00000803 (IDX images)");
  write_pair(kImagesHeader + kPixels, be32(0x803) + be32(3) + kLabels);
  expect_error(labels_, "wrong magic 0x00000803, expected 0x00000801 (IDX labels)");
}

TEST_F(DatasetIdx, TruncatedData) {
  write_pair(kImagesHeader + kPixels.substr(0, 11), kLabelsHeader + kLabels);
  expect_error(images_, "truncated: header says 3 images of 2x2 = 12 bytes, file has 11 after the header");
  write_pair(kImagesHeader + kPixels, kLabelsHeader + kLabels.substr(0, 2));
  expect_error(labels_, "truncated: header says 3 labels = 3 bytes, file has 2 after the header");
}

TEST_F(DatasetIdx, TruncatedHeader) {
  write_pair(kImagesHeader.substr(0, 10), kLabelsHeader + kLabels);
  expect_error(images_, "truncated header: 10 bytes, an IDX images header is 16");
  write_pair(kImagesHeader + kPixels, kLabelsHeader.substr(0, 6));
  expect_error(labels_, "truncated header: 6 bytes, an IDX labels header is 8");
}

TEST_F(DatasetIdx, TrailingBytes) {
  write_pair(kImagesHeader + kPixels + raw({1}), kLabelsHeader + kLabels);
  expect_error(images_, "trailing bytes: header says 3 images of 2x2 = 12 bytes, file has 13 after the header");
  write_pair(kImagesHeader + kPixels, kLabelsHeader + kLabels + raw({0, 0}));
  expect_error(labels_, "trailing bytes: header says 3 labels = 3 bytes, file has 5 after the header");
}

TEST_F(DatasetIdx, CountMismatch) {
  write_pair(kImagesHeader + kPixels, be32(0x801) + be32(4) + kLabels + raw({1}));
  expect_error(images_, "count mismatch");
  expect_error(labels_, "has 3 images but labels file '" + labels_ + "' has 4 labels");
}

TEST_F(DatasetIdx, LabelOutOfRange) {
  write_pair(kImagesHeader + kPixels, kLabelsHeader + raw({7, 10, 9}));
  expect_error(labels_, "label 10 at index 1 is out of range");
}

TEST_F(DatasetIdx, MissingAndEmptyFiles) {
  write_pair(kImagesHeader + kPixels, kLabelsHeader + kLabels);
  fs::remove(labels_);
  expect_error(labels_, "cannot open: No such file or directory");
  fs::remove(images_);
  expect_error(images_, "cannot open: No such file or directory");
  write_pair("", kLabelsHeader + kLabels);
  expect_error(images_, "empty file (0 bytes)");
  write_pair(kImagesHeader + kPixels, "");
  expect_error(labels_, "empty file (0 bytes)");
}

TEST_F(DatasetIdx, ZeroDimensionHugeImagesGzipAndFolders) {
  write_pair(be32(0x803) + be32(3) + be32(0) + be32(2), kLabelsHeader + kLabels);
  expect_error(images_, "zero dimension");
  write_pair(be32(0x803) + be32(1) + be32(100000) + be32(100000), kLabelsHeader + kLabels);
  expect_error(images_, "image size 100000x100000 exceeds the limit");
  write_pair(raw({0x1f, 0x8b, 8, 0}) + kImagesHeader, kLabelsHeader + kLabels);
  expect_error(images_, "gzip");  // gzip's magic, then no valid gzip stream
  fs::remove(images_);
  fs::create_directory(images_);
  expect_error(images_, "not a regular file");
}

// gzip of `bytes` as one member, written with zlib's own gzip writer.
std::string gzip(const std::string& bytes) {
  z_stream z{};
  EXPECT_EQ(deflateInit2(&z, 9, Z_DEFLATED, 16 + MAX_WBITS, 8, Z_DEFAULT_STRATEGY), Z_OK);
  std::string out(deflateBound(&z, static_cast<uLong>(bytes.size())) + 32, '\0');
  z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(bytes.data()));
  z.avail_in = static_cast<uInt>(bytes.size());
  z.next_out = reinterpret_cast<Bytef*>(out.data());
  z.avail_out = static_cast<uInt>(out.size());
  EXPECT_EQ(deflate(&z, Z_FINISH), Z_STREAM_END);
  out.resize(z.total_out);
  deflateEnd(&z);
  return out;
}

TEST_F(DatasetIdx, ReadsGzippedFilesAsTheRawOnes) {
  write_pair(gzip(kImagesHeader + kPixels), gzip(kLabelsHeader + kLabels));
  const Dataset d = read_mnist_idx(images_, labels_);
  ASSERT_EQ(d.size(), 3u);
  EXPECT_EQ(d.rows, 2u);
  EXPECT_EQ(std::string(d.pixels.begin(), d.pixels.end()), kPixels);
  EXPECT_EQ(d.labels, (std::vector<std::uint8_t>{7, 0, 9}));
  // Two members back to back (what `cat a.gz b.gz` makes) are one file's bytes.
  write_pair(gzip(kImagesHeader) + gzip(kPixels), kLabelsHeader + kLabels);
  EXPECT_EQ(read_mnist_idx(images_, labels_).pixels, d.pixels);
}

TEST_F(DatasetIdx, GzipRoundTripOfALargerSet) {
  const Dataset original = make_synthetic_mnist(300, 9);
  write_mnist_idx(original, images_, labels_);
  const auto slurp = [](const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(in), {});
  };
  write_pair(gzip(slurp(images_)), gzip(slurp(labels_)));
  const Dataset back = read_mnist_idx(images_, labels_);
  EXPECT_EQ(back.pixels, original.pixels);
  EXPECT_EQ(back.labels, original.labels);
}

TEST_F(DatasetIdx, TruncatedGzipNamesTheFile) {
  const std::string whole = gzip(kImagesHeader + kPixels);
  write_pair(whole.substr(0, whole.size() - 5), kLabelsHeader + kLabels);  // the trailer cut short
  expect_error(images_, "truncated gzip stream");
  write_pair(kImagesHeader + kPixels, whole.substr(0, 12));  // header and a little
  expect_error(labels_, "truncated gzip stream");
}

TEST_F(DatasetIdx, CorruptGzipNamesTheFile) {
  std::string bad_crc = gzip(kImagesHeader + kPixels);
  bad_crc[bad_crc.size() - 8] ^= 0x5a;  // the trailer's CRC-32
  write_pair(bad_crc, kLabelsHeader + kLabels);
  expect_error(images_, "corrupt gzip data");
  std::string bad_method = gzip(kLabelsHeader + kLabels);
  bad_method[2] = 7;  // compression method: only 8 (deflate) exists
  write_pair(kImagesHeader + kPixels, bad_method);
  expect_error(labels_, "corrupt gzip data");
}

TEST_F(DatasetIdx, AGzipOfABadIdxFileIsCheckedLikeTheRawOne) {
  write_pair(gzip(kImagesHeader + kPixels.substr(0, 7)), kLabelsHeader + kLabels);
  expect_error(images_, "truncated: header says 3 images of 2x2 = 12 bytes, file has 7");
  write_pair(gzip(""), kLabelsHeader + kLabels);
  expect_error(images_, "decompresses to 0 bytes");
}

TEST_F(DatasetIdx, FolderPathsPreferThePlainFileThenTheGzippedOne) {
  const std::string plain = (dir_ / "train-images-idx3-ubyte").string();
  EXPECT_EQ(mnist_images_path(dir_.string()), plain);  // neither: the standard name
  std::ofstream(plain + ".gz") << "x";
  EXPECT_EQ(mnist_images_path(dir_.string()), plain + ".gz");
  std::ofstream(plain) << "x";
  EXPECT_EQ(mnist_images_path(dir_.string()), plain);
  EXPECT_EQ(idx_file_in(dir_.string(), "t10k-labels-idx1-ubyte"), (dir_ / "t10k-labels-idx1-ubyte").string());
}

TEST_F(DatasetIdx, StandardPathsInAFolder) {
  EXPECT_EQ(mnist_images_path("/data/mnist"), "/data/mnist/train-images-idx3-ubyte");
  EXPECT_EQ(mnist_labels_path("/data/mnist/"), "/data/mnist/train-labels-idx1-ubyte");
  const Dataset original = make_synthetic_mnist(20, 1);
  write_mnist_idx(original, mnist_images_path(dir_.string()), mnist_labels_path(dir_.string()));
  EXPECT_EQ(read_mnist_idx(mnist_images_path(dir_.string()), mnist_labels_path(dir_.string())).pixels, original.pixels);
}

TEST_F(DatasetIdx, WriteToAMissingFolderThrowsAndLeavesNoFile) {
  const fs::path missing = dir_ / "no" / "such" / "folder";
  try {
    write_mnist_idx(make_synthetic_mnist(10, 1), (missing / "images").string(), (missing / "labels").string());
    ADD_FAILURE() << "no DatasetError";
  } catch (const DatasetError& e) {
    EXPECT_NE(std::string(e.what()).find((missing / "images").string()), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("No such file or directory"), std::string::npos) << e.what();
  }
  EXPECT_FALSE(fs::exists(dir_ / "no"));
  EXPECT_TRUE(files().empty());
}

// The images file is written first; when the labels cannot be, neither it nor a
// temporary may stay behind.
TEST_F(DatasetIdx, FailedLabelsWriteLeavesNoImagesFile) {
  const std::string labels = (dir_ / "missing" / "labels").string();
  EXPECT_THROW(write_mnist_idx(make_synthetic_mnist(10, 1), images_, labels), DatasetError);
  EXPECT_TRUE(files().empty());
}

TEST_F(DatasetIdx, WriteRejectsAnInconsistentDataset) {
  Dataset short_pixels = make_synthetic_mnist(10, 1);
  short_pixels.pixels.pop_back();
  EXPECT_THROW(write_mnist_idx(short_pixels, images_, labels_), std::invalid_argument);
  Dataset bad_label = make_synthetic_mnist(10, 1);
  bad_label.labels[3] = 10;
  EXPECT_THROW(write_mnist_idx(bad_label, images_, labels_), std::invalid_argument);
  EXPECT_THROW(write_mnist_idx(make_synthetic_mnist(10, 1), images_, images_), std::invalid_argument);
  EXPECT_TRUE(files().empty());
}

}  // namespace
}  // namespace hdbench
