// The one list of families. Adding a family: its folder in lib/ (options, axes,
// derivations, code), its file in bench/ (benchmarks and a Family), and one line here.
#include "families.hpp"

namespace hdbench {

std::unique_ptr<Family> make_transfer_family(const DeviceSelection& devices);  // transfer.cpp
std::unique_ptr<Family> make_streams_family();                                 // streams.cpp
std::unique_ptr<Family> make_loader_family(const DataOptions& data);           // loader.cpp
std::unique_ptr<Family> make_mlp_family(const DataOptions& data);              // mlp.cpp
std::unique_ptr<Family> make_dataparallel_family();                            // dataparallel.cpp
std::unique_ptr<Family> make_p2p_family(const DeviceSelection& devices);       // p2p.cpp
std::unique_ptr<Family> make_device_local_family();                            // device_local.cpp
std::unique_ptr<Family> make_latency_family();                                 // latency.cpp
std::unique_ptr<Family> make_managed_family();                                 // managed.cpp
std::unique_ptr<Family> make_batch_copy_family();                              // batch_copy.cpp
std::unique_ptr<Family> make_strided_family();                                 // strided.cpp

std::vector<std::unique_ptr<Family>> make_families(const DataOptions& data, const DeviceSelection& devices) {
  std::vector<std::unique_ptr<Family>> families;  // in run order
  families.push_back(make_transfer_family(devices));
  families.push_back(make_device_local_family());
  families.push_back(make_latency_family());
  families.push_back(make_managed_family());
  families.push_back(make_batch_copy_family());
  families.push_back(make_strided_family());
  families.push_back(make_streams_family());
  families.push_back(make_loader_family(data));
  families.push_back(make_mlp_family(data));
  families.push_back(make_dataparallel_family());
  families.push_back(make_p2p_family(devices));
  return families;
}

}  // namespace hdbench
