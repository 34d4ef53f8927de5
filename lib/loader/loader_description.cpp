#include "loader/loader_description.hpp"

namespace hdbench {

FamilyDescription loader_description() {
  FamilyDescription d{.name = "loader", .nvtx = kLoaderNvtx};
  d.params = {
      {"consumer",
       ParamType::string,
       "`host`: the batch is checksummed on the CPU; `gpu`: copied with `cudaMemcpyAsync` on a copy stream into one "
       "of two device buffers and checksummed by a kernel on a compute stream that waits for the copy's event",
       {kEveryRun}},
      {"pinning",
       ParamType::string,
       "`pageable`; `pin_thread`: workers collate into pageable slots and one pin thread copies each batch into a "
       "pinned slot, as PyTorch's `pin_memory=True`; `direct`: workers collate straight into pinned slots",
       {kEveryRun}},
      {"batch", ParamType::integer, "samples per batch", {kEveryRun}},
      {"workers",
       ParamType::integer,
       "0: the consumer's thread builds each batch when asked, as PyTorch's `num_workers=0`",
       {kEveryRun}},
      {"prefetch_depth",
       ParamType::integer,
       "ready batches kept ahead per worker; the ring holds `workers × prefetch_depth + 1` slots",
       {kEveryRun}},
      {"sample_cost_us", ParamType::number, "CPU time burnt per sample, standing in for decoding", {kEveryRun}},
      {"shuffle", ParamType::boolean, "samples shuffled per epoch (true) or read in order"},
      {"augment", ParamType::string, "`none`, `crop_flip`"},
      {"build", ParamType::string,
       "`whole`: one worker builds a batch, as a PyTorch worker does; `split`: the batch is cut in parts, one a "
       "worker but none under 64 samples, that any worker takes in batch order, and the name gains `/split`; a batch "
       "with fewer than two parts' worth of samples, or fewer than two workers, is built `whole` whatever was asked, "
       "in one case; reports from before this param built whole batches"},
      {"implementation", ParamType::string, "`hdbench`, or `pytorch` in the PyTorch baseline's reports"},
      {"dataset", ParamType::string, "`synthetic`, `mnist_idx`"},
      {"dataset_name", ParamType::string, "`synthetic`, `fashion_mnist`, `mnist_dir`; see `options`"},
      {"dataset_dir", ParamType::string, "the IDX folder (IDX only)"},
      {"samples", ParamType::integer, "synthetic set size"},
      {"device", ParamType::integer, "the GPU's index (`gpu` consumer)"},
  };
  d.counters = {
      {"samples/s",
       "samples of one epoch over the median epoch time; an epoch runs from `start_epoch` to the last batch consumed "
       "(for `gpu`, to the device finishing it), so it includes filling the pipeline",
       Better::higher,
       {kEveryRun}},
      {"batch_GB/s",
       "`samples/s` × bytes per sample as collated (784 floats + an int32 label = 3140 bytes): for `gpu`, the rate "
       "into the device",
       Better::higher},
      {"epoch_ms", "median epoch time", Better::lower},
      {"cv_percent", "coefficient of variation of the epoch times", Better::lower},
      {"samples", "how many epochs the figures come from; with one there is no noise figure"},
      {"stall_us_per_batch",
       "time the consumer waited in `next()` per batch (with 0 workers: the time to build the batch)", Better::lower},
      {"worker_busy_percent", "time the workers spent building, over workers × the timed epochs' time"},
      {"queue_occupancy_batches",
       "ready batches waiting when the consumer asked for one, on average (0 with 0 workers)"},
      {"consumer_us_per_batch",
       "the consumer's own time per batch (the epochs' time less its waits in `next()` and, `gpu`, the epochs' "
       "drains)",
       Better::lower},
      {"epoch_drain_us",
       "`gpu`: the end of an epoch, its last batch issued, waiting for the device to finish the copies and kernels "
       "already queued: how far the copies lag the host (a copy-bound epoch ends with a long one), per epoch",
       Better::lower},
      {"consumer_bound_samples/s",
       "the rate the consumer's own time per batch alone allows: when `samples/s` is near it and the queue is full, "
       "the consumer is the bound and more workers cannot help",
       Better::higher},
      {"idle_wakeups_per_batch", "wake-ups of a waiting worker (or the pin thread) that found nothing to do, per batch",
       Better::lower},
      {"threads_per_core",
       "the loader's threads (workers, the consumer, the pin thread) over the host's logical cores: above 1, a "
       "worker descheduled in the middle of the batch the consumer waits for holds up every batch after it, and more "
       "workers cost time (the sampler thread, idle but for one shuffle an epoch, is not counted)"},
      {"copy_alone_samples/s",
       "`gpu`: the H2D copy of one batch from host memory of the run's kind, back to back with nothing else running, "
       "the fastest of 5 trials of 16 copies (pinned: queued behind a spin gate, so the host's issuing is not timed), "
       "the copy alone, beside `build_bound_samples/s`, the collation alone",
       Better::higher},
      {"fraction_of_copy_alone", "`gpu`: `samples/s` as a share of `copy_alone_samples/s`", Better::higher},
      {"pinned_MiB_held", "page-locked memory the loader's slots hold (MiB = 2^20 bytes)"},
      {"host_MiB_held", "all slot memory (MiB = 2^20 bytes)"},
      {"cpu_us_per_sample", "CPU time (the builders' thread clocks) per sample built", Better::lower},
      {"pin_us_per_batch", "`pin_thread`: the pin thread's memcpy per batch", Better::lower},
      {"first_batch_us",
       "from `start_epoch` to the epoch's first batch reaching the consumer, averaged over epochs: the pipeline's "
       "fill, paid once an epoch (with `whole` builds, one worker's time for a whole batch)",
       Better::lower},
      {"fence_wait_us_per_batch",
       "time builders (and the pin thread) waited in slot fences per batch: for `gpu`, a slot being reused waits for "
       "the copy that last read it, so this is slot reuse waiting on the copy engine (0 for `host`, which has no "
       "fence)",
       Better::lower},
      {"parts_per_batch", "batch parts built per batch delivered (1 for `whole`)"},
      {"build_bound_samples/s", "the floor: min(workers or 1, cores) / the CPU time per sample", Better::higher},
      {"fraction_of_build_bound",
       "the mean epoch's rate (samples over the mean epoch time) as a share of `build_bound_samples/s`, whose CPU "
       "time per sample is the mean over the same epochs (the PyTorch baseline leaves it out above 1, where a "
       "worker process's CPU time counted more than its builds)",
       Better::higher},
      {"link_bound_samples/s", "`gpu`: the PCIe link's theoretical rate over the bytes per sample", Better::higher},
      {"items_per_second", "Google's own rate counter (samples / mean epoch time)", Better::higher},
  };
  for (CounterDescription& c : stopping_rule_counters()) d.counters.push_back(std::move(c));
  d.noise_groups = {"consumer"};
  return d;
}

}  // namespace hdbench
