// The transfer area's benchmark files, registered by its family (transfer.cpp).
#pragma once

#include "core/devices.hpp"
#include "core/suite.hpp"
#include "transfer/transfer_options.hpp"

namespace hdbench {

void register_transfer(Suite& suite, const TransferOptions& t);  // transfer.cpp: one-way copies, copy and SM engines
void register_transfer_bidir(Suite& suite, const TransferOptions& t);  // transfer_bidir.cpp: both directions at once
// transfer_all_gpus.cpp: every selected GPU at once (all_to_host, host_to_all), beside each alone
void register_transfer_all_gpus(Suite& suite, const TransferOptions& t, const DeviceSelection& devices);
void register_pinning(Suite& suite, const TransferOptions& t);      // pinning.cpp: cost of pinning, break-even
void register_staged(Suite& suite, const TransferOptions& t);       // staged.cpp: pageable through a pinned ring
void register_host_memcpy(Suite& suite, const TransferOptions& t);  // host_memcpy.cpp: the host-side reference

}  // namespace hdbench
