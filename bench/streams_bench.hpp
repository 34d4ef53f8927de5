// The streams family's benchmark files, registered by its family (streams.cpp).
#pragma once

#include "core/suite.hpp"
#include "streams/streams_options.hpp"

namespace hdbench {

void register_streams(Suite& suite,
                      const StreamsOptions& s);  // streams.cpp: sync, async, pipelined, graphs, default stream
void register_stream_host_costs(Suite& suite);   // stream_host_costs.cpp: launch, call and wait costs

}  // namespace hdbench
