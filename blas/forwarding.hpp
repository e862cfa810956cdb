/*! \file
    \brief The CPU BLAS libgemmkit_blas sits on: the library, and its routines by name.
*/
#pragma once

namespace gemmkit::blas {

/// The routine `name` of the CPU BLAS (GEMMKIT_BLAS_CPU_LIB, OpenBLAS by default), loaded at the
/// first use. Never one of libgemmkit_blas's own entry points: a CPU BLAS that would hand a call
/// back to this library is refused. Exits the process with a message when the library cannot be
/// loaded or lacks the routine, as a program linked against a BLAS without it would fail to start.
void* cpu_routine(char const* name);

/// The same routine, or nullptr when the CPU BLAS lacks it (OpenBLAS 0.3.21 has no batch GEMMs).
void* cpu_routine_if_present(char const* name);

/// Whether `address` is code of libgemmkit_blas itself (one of its entry points).
bool in_this_library(void const* address);

}  // namespace gemmkit::blas
