// Which data a run trains on: the installed Fashion-MNIST by default, a folder the
// user names, or the synthetic set when the user asks for a sample count.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <string>

#include "pipeline/data_options.hpp"

namespace hdbench {
namespace {

namespace fs = std::filesystem;

class DatasetSourceTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("hdbench_source_" + std::to_string(::getpid()));
    fs::remove_all(dir_);
    fs::create_directories(dir_);
    write_mnist_idx(make_synthetic_mnist(30, 4), (dir_ / "train-images-idx3-ubyte").string(),
                    (dir_ / "train-labels-idx1-ubyte").string());
    options_.default_idx_dir = dir_.string();
  }
  void TearDown() override {
    std::error_code ec;
    fs::remove_all(dir_, ec);
  }
  fs::path dir_;
  DataOptions options_;
};

TEST_F(DatasetSourceTest, TheDefaultFolderIsUsedWhenItsTrainingFilesAreThere) {
  const DatasetSource source = resolve_dataset(options_);
  EXPECT_TRUE(source.idx());
  EXPECT_EQ(source.kind, "mnist_idx");
  EXPECT_EQ(source.name, "mnist_dir");  // not the Debian folder
  EXPECT_EQ(source.dir, dir_.string());
  EXPECT_EQ(load_training_set(source, 1).size(), 30u);
}

TEST_F(DatasetSourceTest, AnExplicitSampleCountAsksForTheSyntheticSet) {
  options_.loader_samples = 120000;  // more than any real set here
  options_.loader_samples_given = true;
  const DatasetSource source = resolve_dataset(options_);
  EXPECT_FALSE(source.idx());
  EXPECT_EQ(source.name, "synthetic");
  EXPECT_EQ(source.samples, 120000u);
  options_.loader_samples = 50;
  const Dataset d = load_training_set(resolve_dataset(options_), 3, 10);
  EXPECT_EQ(d.size(), 60u);  // the set plus the extra tail
  EXPECT_EQ(d.pixels, make_synthetic_mnist(60, 3).pixels);
}

TEST_F(DatasetSourceTest, WithoutTheFilesTheSyntheticSetIsTheFallback) {
  fs::remove(dir_ / "train-labels-idx1-ubyte");  // images alone are not a dataset
  DatasetSource source = resolve_dataset(options_);
  EXPECT_EQ(source.kind, "synthetic");
  EXPECT_EQ(source.samples, 60000u);
  options_.default_idx_dir = (dir_ / "missing").string();
  EXPECT_EQ(resolve_dataset(options_).kind, "synthetic");
}

TEST_F(DatasetSourceTest, TheUsersFolderWinsAndIsReadEvenWhenBroken) {
  options_.mnist_dir = (dir_ / "elsewhere").string();
  options_.loader_samples_given = true;
  const DatasetSource source = resolve_dataset(options_);
  EXPECT_EQ(source.kind, "mnist_idx");
  EXPECT_EQ(source.dir, options_.mnist_dir);
  EXPECT_THROW(load_training_set(source, 1), DatasetError);  // missing files: an error, not synthetic data
}

// The set Debian's dataset-fashion-mnist installs, read as shipped (gzipped).
TEST(FashionMnist, TheInstalledSetIsReadDirectlyFromItsGzippedFiles) {
  if (!fs::exists(fs::path(kFashionMnistDir) / "train-images-idx3-ubyte.gz")) {
    GTEST_SKIP() << "dataset-fashion-mnist is not installed (" << kFashionMnistDir << ")";
  }
  const DatasetSource source = resolve_dataset(DataOptions{});
  EXPECT_EQ(source.name, "fashion_mnist");
  EXPECT_EQ(source.kind, "mnist_idx");
  const Dataset train = load_training_set(source, 1);
  ASSERT_EQ(train.size(), 60000u);
  EXPECT_EQ(train.rows, 28u);
  EXPECT_EQ(train.cols, 28u);
  std::size_t per_class[kMnistClasses] = {};
  for (std::uint8_t label : train.labels) ++per_class[label];
  for (std::size_t count : per_class) EXPECT_EQ(count, 6000u);  // Fashion-MNIST is balanced
  const Dataset test = read_mnist_idx(idx_file_in(kFashionMnistDir, "t10k-images-idx3-ubyte"),
                                      idx_file_in(kFashionMnistDir, "t10k-labels-idx1-ubyte"));
  EXPECT_EQ(test.size(), 10000u);
}

}  // namespace
}  // namespace hdbench
