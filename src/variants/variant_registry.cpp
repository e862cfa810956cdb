/*! \file
    \brief Assembles the process-wide registry from the CPU and CUDA registrations and the
    selection table compiled in from selection_table.csv.
*/
#include "variants/variants.hpp"
#include "variants/peer_variants.hpp"

#include "variants/selection_table_data.hpp"

namespace gemmkit {

Registry const& variant_registry() {
  static Registry const registry = [] {
    Registry r;
    register_cpu_variants(r);
    register_cuda_variants(r);
    register_peer_variants(r);  // none unless the program links gemmkit_peers
    r.set_rules(parse_selection_table(kSelectionTableCsv));
    return r;
  }();
  return registry;
}

}  // namespace gemmkit
