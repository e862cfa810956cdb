/*! \file
    \brief `batched` on the GPU: strided batches of small GEMMs through gemmkit's public API, strided
           and pointer-array, against cuBLAS strided-batched and pointer-array batched, with the
           bandwidth bound measured in the same run.

    For each shape and dtype one batch of at least --bytes of A+B+C (packed column-major, nn) is
    allocated on the device and filled there with fresh random values; the pointer arrays of the
    pointer-array forms point into the same storage. A kernel with the GEMM's access mix (read A
    and B, read and write C in place; beta = 0 writes C only) over the same arrays gives the
    bandwidth B from its fastest pass and the bound flops / (bytes / B) (= n*B/16 for square f64
    and n*B/8 for square f32 with beta != 0). Every implementation is checked once on sampled
    problems against the higher-precision host reference (C filled with NaN first when beta = 0),
    runs its warm-up passes, and then each implementation in turn alternates rep by rep with the
    bound's pass on one stream (a pass follows only the bound's and its own), each pass timed with
    CUDA events; the median is reported, B comes from the bound's fastest pass of them all. A peer whose pass
    would outlast --max-pass-ms runs on rotating windows of the batch; gemmkit's strided call and
    the bound always cover the whole batch.

    gemmkit_ptr gets the device arrays of device pointers cuBLAS gets; gemmkit_ptr_host gets host
    arrays of the same pointers, so its time includes what the library does to bring them to the
    device.

    cuBLAS's strided and pointer-array calls are its registered variants (cublas_?gemm,
    cublas_?gemm_pointer_array), forced by id through the same gemmkit calls, so their times include
    gemmkit's argument checks as gemmkit's do. Its grouped call is made directly: gemmkit's grouped
    call runs group by group and cannot hand the whole call to one variant.

    The grouped case (--grouped, and the default run) is one grouped call over groups of different
    square and non-square shapes, each an equal share of --bytes, stored packed in common A, B and C
    allocations with device pointer arrays over all problems: gk_?gemm_grouped against
    cublas?gemmGroupedBatched. Its bound is the call's flops over the time the problems' own bytes
    (A and B read, C read unless beta = 0, C written) take at the B of the stream pass over those
    allocations; samples of every group are checked.
*/
#pragma once

#include "batched_common.hpp"
#include "json_writer.hpp"
#include "machine_info.hpp"

#include <string>

namespace gemmkit::bench {

/// Runs every case on machine.gpu; prints a table (rows as they come) and the goal check, appends
/// JSON lines. `suite` and `section` tag the rows. Needs machine.gpu (a build with CUDA).
BatchedSummary run_batched_gpu(BatchedSettings const& settings, MachineInfo const& machine, std::string const& suite,
                               std::string const& section, JsonLinesFile* json);

}  // namespace gemmkit::bench
