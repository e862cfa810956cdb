/*! \file
    \brief Worker: the set-up before any block starts, kernel selection, the block loop, and one unit's
    panel loads, kernels and copy-back.
*/
#include "ooc/worker.hpp"

#include "base/cuda_check.hpp"
#include "base/device.hpp"
#include "registry/registry.hpp"

#include <algorithm>
#include <utility>

namespace gemmkit::ooc::detail {

bool Worker::set_up(std::size_t budget) {
  if (!check(cudaSetDevice(device_), "cudaSetDevice")) return false;
  GemmProblem const& p = job_.args.problem;
  layout_ = device_layout(job_.plan, p, 0);  // leading dimensions first: the kernels are chosen for them
  // A kernel's workspace (NT and TN pack an operand) must fit in what the buffers leave of the
  // budget; a variant needing more is passed over for one that needs less (1: none at all).
  std::size_t const workspace_limit = budget > layout_.total_bytes ? budget - layout_.total_bytes : 1;
  if (!select_kernels(compute_capability(device_), workspace_limit)) return false;
  layout_ = device_layout(job_.plan, p, workspace_bytes_);
  // Buffers kept from an earlier call serve when large enough and within this call's budget.
  if (buffers_.device != device_ || buffers_.arena_bytes < layout_.total_bytes ||
      buffers_.arena_bytes > std::max(budget, layout_.total_bytes)) {
    buffers_.release_arena();
    buffers_.device = device_;
    if (cudaError_t e = cudaMalloc(&buffers_.arena, layout_.total_bytes); e != cudaSuccess) {
      buffers_.arena = nullptr;
      cudaGetLastError();
      job_.failure.raise(GK_ALLOCATION_FAILED, "device " + std::to_string(device_) + ": " +
                                                   cuda_error_text(e, "cudaMalloc") + " for " +
                                                   std::to_string(layout_.total_bytes) + " bytes of panels and C blocks");
      return false;
    }
    buffers_.arena_bytes = layout_.total_bytes;
  }
  bool const staging = job_.staged_a || job_.staged_b || job_.staged_c;
  // A slot holds at least one whole column of any window it stages.
  Plan const& plan = job_.plan;
  std::size_t const widest = std::size_t(std::max({plan.tile_rows, plan.tile_cols, plan.tile_depth})) * size_of(p.dtype);
  std::size_t const slot = std::max(job_.options.staging_slot_bytes, widest);
  int const slots = job_.options.staging_slots;
  std::size_t const ring_bytes = staging ? 2 * slot * std::size_t(slots) : 0;  // load slots, then store slots
  if (staging && buffers_.ring_bytes < ring_bytes) {
    buffers_.release_ring();
    if (cudaError_t e = cudaHostAlloc(&buffers_.ring, ring_bytes, cudaHostAllocPortable); e != cudaSuccess) {
      buffers_.ring = nullptr;
      cudaGetLastError();
      job_.failure.raise(GK_ALLOCATION_FAILED, cuda_error_text(e, "cudaHostAlloc") + " for the " +
                                                   std::to_string(ring_bytes) + "-byte pinned staging ring");
      return false;
    }
    buffers_.ring_bytes = ring_bytes;
  }
  for (Stream* s : {&compute_, &h2d_, &d2h_}) {
    if (!check(s->create(), "cudaStreamCreate")) return false;
  }
  for (auto* group : {&a_ready_, &a_free_, &b_ready_, &b_free_, &c_loaded_, &c_free_}) {
    for (Event& e : *group) {
      if (!check(e.create(), "cudaEventCreate")) return false;
    }
  }
  for (Event& e : block_done_) {
    if (!check(e.create(), "cudaEventCreate")) return false;
  }
  for (auto* rows : {&piece_ready_, &b_piece_ready_}) {
    for (auto& row : *rows) {
      row.resize(std::size_t(std::max(job_.options.store_sub_blocks, 1)));
      for (Event& e : row) {
        if (!check(e.create(), "cudaEventCreate")) return false;
      }
    }
  }
  char* const arena = static_cast<char*>(buffers_.arena);
  for (int s = 0; s < 2; ++s) {
    a_[s] = arena + layout_.a_offset[s];
    b_[s] = arena + layout_.b_offset[s];
    c_[s] = arena + layout_.c_offset[s];
  }
  workspace_ = workspace_bytes_ > 0 ? arena + layout_.workspace_offset : nullptr;
  char* const ring = static_cast<char*>(buffers_.ring);
  if (staging) {
    stager_.emplace(ring, slot, slots, job_.staging_threads, &timeline_);
    if (!check(stager_->init(), "cudaEventCreate")) return false;
  }
  if (job_.staged_c) {
    storer_.emplace(device_, d2h_.get(), ring + slot * std::size_t(slots), slot, slots, job_.staging_threads,
                    &timeline_, &job_.failure);
    if (!check(storer_->start(), "cudaEventCreate")) return false;
  }
  for (GemmVariant const* v : distinct_kernels()) {
    if (gk_status s = v->initialize(ExecutionContext{compute_.get(), device_}); s != GK_SUCCESS) {
      job_.failure.raise(s, "device " + std::to_string(device_) + ": kernel '" + v->info().id +
                                "' failed to initialize");
      return false;
    }
  }
  return true;
}

void Worker::run() {
  timeline_.start(compute_.get());
  std::int64_t seq = 0;
  // Every wait between a worker's streams is on the device, so without a host-side wait a worker
  // would queue blocks as fast as it can issue them, and the first to start could take every block
  // before the others asked (measured on 2 H200: 4 blocks split 0 and 4, the call at 1-GPU speed).
  // A worker takes block seq only once its block seq - kBlocksAhead has left the compute stream.
  while (!job_.failure.raised()) {
    Event const& slot = block_done_[seq % kBlocksAhead];
    if (seq >= kBlocksAhead && !check(cudaEventSynchronize(slot.get()), "cudaEventSynchronize")) break;
    std::int64_t const block = job_.queue.next(index_);
    if (block < 0) break;
    ++blocks_;
    std::int64_t const first = job_.block_first_unit[std::size_t(block)];
    for (std::int64_t c = 0; c < job_.plan.k_chunks && !job_.failure.raised(); ++c) {
      run_unit(job_.plan.units[std::size_t(first + c)], block, seq);
    }
    if (!check(cudaEventRecord(slot.get(), compute_.get()), "cudaEventRecord")) break;
    ++seq;
  }
  if (storer_) storer_->finish();
  for (Stream* s : {&h2d_, &compute_, &d2h_}) check(cudaStreamSynchronize(s->get()), "cudaStreamSynchronize");
}

std::string Worker::kernel_id() const {
  KernelShape const tile{job_.plan.tile_rows, job_.plan.tile_cols, job_.plan.tile_depth};
  auto const it = kernels_.find(tile);
  std::string id = it != kernels_.end() ? it->second->info().id : std::string();
  if (auto const e = emulation_kernels_.find(tile); e != emulation_kernels_.end()) {
    id = e->second->info().id + " (" + std::to_string(emulated_blocks_) + " kernel calls emulated, " +
         std::to_string(declined_blocks_) + " declined to " + id + ")";
  }
  return id;
}

bool Worker::check(cudaError_t e, char const* what) {
  if (e == cudaSuccess) return true;
  job_.failure.raise(GK_CUDA_ERROR, "device " + std::to_string(device_) + ": " + cuda_error_text(e, what));
  return false;
}

std::vector<KernelShape> Worker::kernel_shapes() const {
  Plan const& plan = job_.plan;
  GemmProblem const& p = job_.args.problem;
  auto sizes = [](std::int64_t total, std::int64_t tile) {
    std::vector<std::int64_t> v{tile};
    if (total % tile != 0) v.push_back(total % tile);
    return v;
  };
  std::vector<KernelShape> shapes;
  for (std::int64_t rows : sizes(p.m, plan.tile_rows)) {
    for (std::int64_t cols : sizes(p.n, plan.tile_cols)) {
      for (std::int64_t depth : sizes(p.k, plan.tile_depth)) {
        shapes.push_back({rows, cols, depth});
        if (level_ >= 4) {
          for (auto [begin, end] : sub_blocks(cols, job_.options.store_sub_blocks)) shapes.push_back({rows, end - begin, depth});
        }
      }
    }
  }
  return shapes;
}

GemmProblem Worker::kernel_problem(KernelShape const& s) const {
  GemmProblem const& p = job_.args.problem;
  GemmProblem kp;
  kp.dtype = p.dtype;
  kp.trans_a = p.trans_a;
  kp.trans_b = p.trans_b;
  kp.m = s.rows, kp.n = s.cols, kp.k = s.depth;
  kp.lda = layout_.lda;
  kp.ldb = layout_.ldb;
  kp.ldc = layout_.ldc;
  return kp;
}

bool Worker::select_kernels(int cc, std::size_t workspace_limit) {
  for (KernelShape const& s : kernel_shapes()) {
    if (kernels_.count(s) != 0) continue;
    GemmProblem const kp = kernel_problem(s);
    GemmVariant const* v = job_.options.forced_kernel;
    if (v != nullptr && v->can_implement(kp) != GK_SUCCESS) {
      job_.failure.raise(GK_NOT_SUPPORTED, "forced kernel '" + v->info().id + "' cannot run the " +
                                               std::to_string(s.rows) + "x" + std::to_string(s.cols) + "x" +
                                               std::to_string(s.depth) + " blocks");
      return false;
    }
    if (v == nullptr) {
      v = job_.options.kernels->select(kp, Platform::kCuda, cc, multiprocessor_count(device_), workspace_limit);
    }
    if (v == nullptr) {
      job_.failure.raise(GK_NOT_SUPPORTED, std::string("no registered CUDA ") + to_string(kp.dtype) +
                                               " kernel for the host-resident blocks on device " +
                                               std::to_string(device_));
      return false;
    }
    workspace_bytes_ = std::max(workspace_bytes_, v->workspace_bytes(kp));
    kernels_[s] = v;
    GemmVariant const* emulation = job_.options.emulation_kernel;
    bool const worth_it = double(kp.m) * double(kp.n) * double(kp.k) >= job_.options.emulation_min_work &&
                          double(kp.k) >= job_.options.emulation_min_k;
    if (emulation != nullptr && worth_it && emulation->can_implement(kp) == GK_SUCCESS) {
      workspace_bytes_ = std::max(workspace_bytes_, emulation->workspace_bytes(kp));
      emulation_kernels_[s] = emulation;
    }
  }
  return true;
}

std::vector<GemmVariant const*> Worker::distinct_kernels() const {
  std::vector<GemmVariant const*> out;
  for (auto const* kernels : {&kernels_, &emulation_kernels_}) {
    for (auto const& [shape, v] : *kernels) {
      if (std::find(out.begin(), out.end(), v) == out.end()) out.push_back(v);
    }
  }
  return out;
}

bool Worker::load_window(bool staged, void const* matrix, std::int64_t ld, std::int64_t row0, std::int64_t col0,
                       std::int64_t rows, std::int64_t cols, char* device, std::int64_t device_ld, char const* what,
                       std::int64_t block) {
  std::size_t const e = size_of(job_.args.problem.dtype);
  Region const host{const_cast<char*>(static_cast<char const*>(matrix)) +
                        (std::size_t(row0) + std::size_t(col0) * std::size_t(ld)) * e,
                    std::size_t(ld) * e};
  Region const target{device, std::size_t(device_ld) * e};
  std::size_t const width = std::size_t(rows) * e;
  cudaStream_t const stream = load_stream();
  if (staged) return check(stager_->load(host, target, width, cols, stream, what, block), "staged H2D");
  int const mark = timeline_.begin(stream, "h2d", what, block, std::int64_t(width) * cols);
  bool const ok = check(cudaMemcpy2DAsync(target.data, target.pitch, host.data, host.pitch, width, std::size_t(cols),
                                          cudaMemcpyHostToDevice, stream),
                        "cudaMemcpy2DAsync H2D");
  timeline_.end(mark, stream);
  return ok;
}

int Worker::panel_slot(std::int64_t (&resident)[2], int& last, std::int64_t key, bool* load) {
  if (reuses_panels()) {
    for (int s = 0; s < 2; ++s) {
      if (resident[s] == key) {
        *load = false;
        last = s;
        return s;
      }
    }
    last = 1 - last;
  } else {
    last = 0;
  }
  resident[last] = key;
  *load = true;
  return last;
}

bool Worker::run_kernel(KernelShape const& shape, char const* A, char const* B, char* C, double beta) {
  GemmVariant const* v = kernels_.at(shape);
  GemmArguments ka;
  ka.problem = kernel_problem(shape);
  ka.alpha = job_.args.alpha;
  ka.beta = beta;
  ka.A = A, ka.B = B, ka.C = C;
  auto const failed = [&](GemmVariant const& kernel, gk_status s) {
    job_.failure.raise(s, "device " + std::to_string(device_) + ": kernel '" + kernel.info().id + "' failed" +
                              (s == GK_CUDA_ERROR ? ": " + cuda_error_text(cudaGetLastError(), "launch") : ""));
    return false;
  };
  if (auto const emulation = emulation_kernels_.find(shape); emulation != emulation_kernels_.end()) {
    ExecutionContext exec{compute_.get(), device_};
    exec.fp64_emulation_bits = job_.options.fp64_emulation_bits;
    exec.fp64_emulation_accurate = job_.options.fp64_emulation_accurate;
    exec.fp64_emulation_may_decline = true;
    std::string declined;
    exec.decline_reason = &declined;
    gk_status const s = emulation->second->run(ka, workspace_, exec);
    if (s == GK_SUCCESS) {
      ++emulated_blocks_;
      return true;
    }
    if (s != GK_NOT_SUPPORTED) return failed(*emulation->second, s);
    ++declined_blocks_;  // the block's inputs leave the emulation, which wrote nothing: the native kernel
  }
  if (gk_status s = v->run(ka, workspace_, ExecutionContext{compute_.get(), device_}); s != GK_SUCCESS) {
    return failed(*v, s);
  }
  return true;
}

bool Worker::store(WorkUnit const& u, int cs, std::int64_t begin, std::int64_t end, Event const& ready, bool last,
                 std::int64_t block, std::int64_t seq) {
  GemmProblem const& p = job_.args.problem;
  std::size_t const e = size_of(p.dtype);
  std::size_t const width = std::size_t(u.rows) * e;
  Region const device{c_[cs] + std::size_t(begin) * std::size_t(layout_.ldc) * e, std::size_t(layout_.ldc) * e};
  Region const host{static_cast<char*>(job_.args.C) + (std::size_t(u.row0) + std::size_t(u.col0 + begin) * std::size_t(p.ldc)) * e,
                    std::size_t(p.ldc) * e};
  job_.c_touched.store(true);
  if (job_.staged_c) {
    storer_->push({ready.get(), device, host, width, end - begin, seq, block, last ? c_free_[cs].get() : nullptr});
    return true;
  }
  cudaStream_t const stream = store_stream();
  if (!wait(stream, compute_.get(), ready)) return false;
  int const mark = timeline_.begin(stream, "d2h", "C out", block, std::int64_t(width) * (end - begin));
  if (!check(cudaMemcpy2DAsync(host.data, host.pitch, device.data, device.pitch, width, std::size_t(end - begin),
                               cudaMemcpyDeviceToHost, stream),
             "cudaMemcpy2DAsync D2H")) {
    return false;
  }
  timeline_.end(mark, stream);
  return !last || check(cudaEventRecord(c_free_[cs].get(), stream), "cudaEventRecord");
}

void Worker::run_unit(WorkUnit const& u, std::int64_t block, std::int64_t seq) {
  GemmArguments const& args = job_.args;
  GemmProblem const& p = args.problem;
  Plan const& plan = job_.plan;
  std::size_t const e = size_of(p.dtype);
  bool const ta = is_transposed(p.trans_a), tb = is_transposed(p.trans_b);
  cudaStream_t const loads = load_stream(), compute = compute_.get();

  // A panel: op(A) rows [row0, +rows) x k [k0, +depth), copied as stored (transposed: k x rows).
  bool load_a = false;
  int const sa = panel_slot(a_key_, a_last_, u.block_row * plan.k_chunks + u.chunk, &load_a);
  if (load_a) {
    bool const loaded =
        wait(loads, compute, a_free_[sa]) &&
        (ta ? load_window(job_.staged_a, args.A, p.lda, u.k0, u.row0, u.depth, u.rows, a_[sa], layout_.lda, "A", block)
            : load_window(job_.staged_a, args.A, p.lda, u.row0, u.k0, u.rows, u.depth, a_[sa], layout_.lda, "A", block));
    if (!loaded || !check(cudaEventRecord(a_ready_[sa].get(), loads), "cudaEventRecord")) return;
    ++panel_loads_;
  }
  // B panel: op(B) k [k0, +depth) x columns [col0, +cols), copied as stored (transposed: cols x k).
  // Where the kernel runs in column pieces (level 4's last chunk) B is loaded piece by piece, after
  // A and C, so the first piece's kernel starts before the whole panel is in (the pipeline's fill).
  bool load_b = false;
  int const sb = panel_slot(b_key_, b_last_, u.block_col * plan.k_chunks + u.chunk, &load_b);
  std::size_t const b_column = std::size_t(tb ? 1 : layout_.ldb) * e;  // bytes from one op(B) column to the next
  bool const in_pieces = u.last_chunk && level_ >= 4;
  auto const pieces = sub_blocks(u.cols, in_pieces ? job_.options.store_sub_blocks : 1);
  bool const b_by_piece = load_b && in_pieces;
  auto load_b_panel = [&] {
    if (!wait(loads, compute, b_free_[sb])) return false;
    for (std::size_t s = 0; s < (b_by_piece ? pieces.size() : 1); ++s) {
      auto const [begin, end] = b_by_piece ? pieces[s] : std::pair<std::int64_t, std::int64_t>{0, u.cols};
      char* const target = b_[sb] + std::size_t(begin) * b_column;
      bool const loaded =
          tb ? load_window(job_.staged_b, args.B, p.ldb, u.col0 + begin, u.k0, end - begin, u.depth, target, layout_.ldb,
                           "B", block)
             : load_window(job_.staged_b, args.B, p.ldb, u.k0, u.col0 + begin, u.depth, end - begin, target, layout_.ldb,
                           "B", block);
      if (!loaded) return false;
      if (b_by_piece && !check(cudaEventRecord(b_piece_ready_[sb][s].get(), loads), "cudaEventRecord")) return false;
    }
    ++panel_loads_;
    return check(cudaEventRecord(b_ready_[sb].get(), loads), "cudaEventRecord");
  };
  if (load_b && !b_by_piece && !load_b_panel()) return;

  // The C block: its slot drained of the block that used it before; loaded when beta != 0.
  int const cs = int(seq % c_slots());
  bool const reads_c = args.beta != 0.0;
  if (u.first_chunk) {
    if (storer_) {
      if (level_ == 1) storer_->wait_written(seq - 1);  // serial: the previous block is out first
      storer_->wait_queued(seq - c_slots());
    }
    cudaStream_t const first_writer = reads_c ? loads : compute;
    if (!wait(first_writer, job_.staged_c ? d2h_.get() : store_stream(), c_free_[cs])) return;
    if (reads_c) {
      if (!load_window(job_.staged_c, args.C, p.ldc, u.row0, u.col0, u.rows, u.cols, c_[cs], layout_.ldc, "C in",
                       block)) {
        return;
      }
      if (!check(cudaEventRecord(c_loaded_[cs].get(), loads), "cudaEventRecord")) return;
      if (!wait(compute, loads, c_loaded_[cs])) return;
    }
  }
  if (b_by_piece && !load_b_panel()) return;
  if (!wait(compute, loads, a_ready_[sa]) || (!b_by_piece && !wait(compute, loads, b_ready_[sb]))) return;

  // beta is applied by the first chunk's kernel on the device (C loaded only when it is read).
  double const beta = u.first_chunk ? (reads_c ? args.beta : 0.0) : 1.0;
  if (in_pieces) {
    for (std::size_t s = 0; s < pieces.size(); ++s) {
      auto const [begin, end] = pieces[s];
      if (b_by_piece && !wait(compute, loads, b_piece_ready_[sb][s])) return;
      int const mark = timeline_.begin(compute, "compute", "kernel", block);
      if (!run_kernel({u.rows, end - begin, u.depth}, a_[sa], b_[sb] + std::size_t(begin) * b_column,
                      c_[cs] + std::size_t(begin) * std::size_t(layout_.ldc) * e, beta)) {
        return;
      }
      timeline_.end(mark, compute);
      Event const& ready = piece_ready_[cs][s];
      if (!check(cudaEventRecord(ready.get(), compute), "cudaEventRecord")) return;
      if (!store(u, cs, begin, end, ready, s + 1 == pieces.size(), block, seq)) return;
    }
  } else {
    int const mark = timeline_.begin(compute, "compute", "kernel", block);
    if (!run_kernel({u.rows, u.cols, u.depth}, a_[sa], b_[sb], c_[cs], beta)) return;
    timeline_.end(mark, compute);
    if (u.last_chunk) {
      Event const& ready = piece_ready_[cs][0];
      if (!check(cudaEventRecord(ready.get(), compute), "cudaEventRecord")) return;
      if (!store(u, cs, 0, u.cols, ready, true, block, seq)) return;
    }
  }
  if (!check(cudaEventRecord(a_free_[sa].get(), compute), "cudaEventRecord")) return;
  check(cudaEventRecord(b_free_[sb].get(), compute), "cudaEventRecord");
}

}  // namespace gemmkit::ooc::detail
