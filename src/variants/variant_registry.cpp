/*! \file
    \brief Assembles the process-wide registry from the CPU, CUDA and host-resident registrations and the
    selection table compiled in from selection_table.csv.
*/
#include "variants/variants.hpp"
#include "variants/peer_variants.hpp"

#include "variants/selection_table_data.hpp"

namespace gemmkit {

Registry const& variant_registry() {
  // Filled in place: the host-resident variants keep a pointer to the registry they select from.
  static Registry registry;
  static bool const filled = [] {
    register_cpu_variants(registry);
    register_cuda_variants(registry);
    register_peer_variants(registry);  // none unless the program links gemmkit_peers
    register_host_resident_variants(registry);
    registry.set_rules(parse_selection_table(kSelectionTableCsv));
    return true;
  }();
  (void)filled;
  return registry;
}

}  // namespace gemmkit
