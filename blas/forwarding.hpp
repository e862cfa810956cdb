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

}  // namespace gemmkit::blas
