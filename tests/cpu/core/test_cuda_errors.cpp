#include <gtest/gtest.h>

#include <stdexcept>
#include <string>
#include <string_view>

#include "core/cuda.hpp"

namespace hdbench {
namespace {

bool contains(const std::string& text, std::string_view part) { return text.find(part) != std::string::npos; }

int g_calls = 0;

cudaError_t fake_call(cudaError_t result) {
  ++g_calls;
  return result;
}

TEST(DescribeCudaError, CarriesTheValuesInvolved) {
  const std::string text =
      describe_cuda_error(cudaErrorMemoryAllocation, "cudaMalloc(&p, n)", "x.cpp", 42, "4096 bytes of device memory");
  EXPECT_TRUE(contains(text, "cudaMalloc(&p, n) [4096 bytes of device memory] at x.cpp:42")) << text;
  try {
    HDBENCH_CUDA_CHECK_DETAIL(fake_call(cudaErrorInvalidValue), std::string("size 7"));
    FAIL() << "no throw";
  } catch (const CudaError& error) {
    EXPECT_EQ(error.code(), cudaErrorInvalidValue);
    EXPECT_TRUE(contains(error.what(), "[size 7]")) << error.what();
  }
}

TEST(DescribeCudaError, NamesErrorCallPlaceAndHint) {
  const std::string text = describe_cuda_error(cudaErrorMemoryAllocation, "cudaMalloc(&p, n)", "x.cpp", 42);
  EXPECT_TRUE(contains(text, "cudaErrorMemoryAllocation")) << text;
  EXPECT_TRUE(contains(text, cudaGetErrorString(cudaErrorMemoryAllocation))) << text;
  EXPECT_TRUE(contains(text, "cudaMalloc(&p, n)")) << text;
  EXPECT_TRUE(contains(text, "x.cpp:42")) << text;
  EXPECT_TRUE(contains(text, "what to do: ")) << text;
  EXPECT_TRUE(contains(text, "--hdbench_sizes")) << text;  // the hint for running out of memory
}

TEST(DescribeCudaError, EveryErrorGetsAHint) {
  for (cudaError_t code :
       {cudaErrorInsufficientDriver, cudaErrorNoDevice, cudaErrorInvalidDevice, cudaErrorHostMemoryAlreadyRegistered,
        cudaErrorIllegalAddress, cudaErrorNotSupported, cudaErrorInvalidValue, cudaErrorUnknown}) {
    const std::string text = describe_cuda_error(code, "call()", "f.cpp", 1);
    EXPECT_TRUE(contains(text, cudaGetErrorName(code))) << text;
    const std::size_t hint = text.find("what to do: ");
    ASSERT_NE(hint, std::string::npos) << text;
    EXPECT_GT(text.size(), hint + std::string_view("what to do: ").size() + 10) << text;
  }
  EXPECT_TRUE(contains(describe_cuda_error(cudaErrorInsufficientDriver, "c", "f", 1), "driver"));
  EXPECT_TRUE(contains(describe_cuda_error(cudaErrorInvalidDevice, "c", "f", 1), "--hdbench_device"));
  EXPECT_TRUE(contains(describe_cuda_error(cudaErrorIllegalAddress, "c", "f", 1), "compute-sanitizer"));
}

TEST(CudaCheck, FailingCallThrowsWithCodeAndText) {
  g_calls = 0;
  try {
    HDBENCH_CUDA_CHECK(fake_call(cudaErrorNotSupported));
    FAIL() << "no exception";
  } catch (const CudaError& error) {
    EXPECT_EQ(error.code(), cudaErrorNotSupported);
    const std::string text = error.what();
    EXPECT_TRUE(contains(text, "cudaErrorNotSupported")) << text;
    EXPECT_TRUE(contains(text, "fake_call(cudaErrorNotSupported)")) << text;
    EXPECT_TRUE(contains(text, "test_cuda_errors.cpp:")) << text;
    EXPECT_TRUE(contains(text, "what to do")) << text;
  }
  EXPECT_EQ(g_calls, 1);  // the call is evaluated once
}

TEST(CudaCheck, RealFailingCallThrows) {
  // No device has index -1, with or without a driver.
  try {
    HDBENCH_CUDA_CHECK(cudaSetDevice(-1));
    FAIL() << "no exception";
  } catch (const CudaError& error) {
    EXPECT_NE(error.code(), cudaSuccess);
    EXPECT_TRUE(contains(error.what(), "cudaSetDevice(-1)")) << error.what();
    EXPECT_TRUE(contains(error.what(), cudaGetErrorName(error.code()))) << error.what();
  }
}

TEST(CudaCheck, CudaErrorIsARuntimeError) {
  EXPECT_THROW(HDBENCH_CUDA_CHECK(fake_call(cudaErrorInvalidValue)), std::runtime_error);
  EXPECT_THROW(throw_cuda_error(cudaErrorUnknown, "call", "f.cpp", 3), CudaError);
}

TEST(CudaCheck, SuccessDoesNotThrow) {
  g_calls = 0;
  EXPECT_NO_THROW(HDBENCH_CUDA_CHECK(cudaSuccess));
  EXPECT_NO_THROW(HDBENCH_CUDA_CHECK(fake_call(cudaSuccess)));
  EXPECT_EQ(g_calls, 1);
  // A statement like any other: fits an unbraced if/else.
  bool reached = false;
  if (g_calls == 1)
    HDBENCH_CUDA_CHECK(cudaSuccess);
  else
    reached = true;
  EXPECT_FALSE(reached);
}

TEST(CudaCheck, NoThrowVariantLogs) {
  ::testing::internal::CaptureStderr();
  HDBENCH_CUDA_CHECK_NOTHROW(fake_call(cudaErrorInvalidValue));
  HDBENCH_CUDA_CHECK_NOTHROW(fake_call(cudaSuccess));
  const std::string log = ::testing::internal::GetCapturedStderr();
  EXPECT_TRUE(contains(log, "hdbench: CUDA error cudaErrorInvalidValue")) << log;
  EXPECT_TRUE(contains(log, "fake_call(cudaErrorInvalidValue)")) << log;
  EXPECT_FALSE(contains(log, "fake_call(cudaSuccess)")) << log;
}

}  // namespace
}  // namespace hdbench
