// Each benchmark family registers its parameter grid against the suite.
#pragma once

#include "suite.hpp"

namespace hdbench {

void register_transfer(Suite& suite);        // transfer.cpp: one-way copies, copy and SM engines
void register_transfer_bidir(Suite& suite);  // transfer_bidir.cpp: both directions at once
void register_pinning(Suite& suite);         // pinning.cpp: cost of pinning, break-even
void register_staged(Suite& suite);          // staged.cpp: pageable through a pinned ring
void register_host_memcpy(Suite& suite);     // host_memcpy.cpp: the host-side reference
void register_streams(Suite& suite);         // streams.cpp: sync, async, pipelined, graphs, default stream
void register_stream_host_costs(Suite& suite);  // stream_host_costs.cpp: launch, call and wait costs
void register_loader(Suite& suite);             // loader.cpp: batch size × workers × pinning, fed to CPU or GPU
void register_mlp(Suite& suite);                // mlp.cpp, mlp_epoch.cpp: training steps, GEMM rates, epochs

}  // namespace hdbench
