/*! \file
    \brief The host-resident GEMM's executor on the CUDA runtime: per-worker arenas, streams and
    events, the pinned staging ring for pageable operands, the copy-out thread, the pipeline levels,
    and the workers sharing a BlockQueue.
*/
#include "ooc/executor.hpp"

#include "base/device.hpp"
#include "base/cuda_check.hpp"
#include "ooc/block_queue.hpp"
#include "ooc/device_layout.hpp"
#include "registry/registry.hpp"

#include <cuda_runtime.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstring>
#include <deque>
#include <map>
#include <mutex>
#include <optional>
#include <thread>
#include <tuple>
#include <utility>

namespace gemmkit::ooc {

// ---- buffers kept between calls ---------------------------------------------------------------

namespace {

/// One worker's device arena and pinned ring, freed on its own device.
struct WorkerBuffers {
  int device = -1;
  void* arena = nullptr;
  std::size_t arena_bytes = 0;
  void* ring = nullptr;
  std::size_t ring_bytes = 0;

  WorkerBuffers() = default;
  WorkerBuffers(WorkerBuffers const&) = delete;
  WorkerBuffers& operator=(WorkerBuffers const&) = delete;
  ~WorkerBuffers() {
    release_arena();
    release_ring();
  }

  void release_arena() {
    if (arena == nullptr) return;
    int current = -1;
    cudaGetDevice(&current);
    if (current != device) cudaSetDevice(device);
    cudaFree(arena);  // waits for the device: nothing of a finished call is still queued
    if (current != device && current >= 0) cudaSetDevice(current);
    cudaGetLastError();
    arena = nullptr;
    arena_bytes = 0;
  }
  void release_ring() {
    if (ring == nullptr) return;
    cudaFreeHost(ring);
    cudaGetLastError();
    ring = nullptr;
    ring_bytes = 0;
  }
};

}  // namespace

class ExecutorCache {
 public:
  std::vector<std::unique_ptr<WorkerBuffers>> workers;
};

void ExecutorCacheDeleter::operator()(ExecutorCache* cache) const { delete cache; }
ExecutorCachePtr make_executor_cache() { return ExecutorCachePtr(new ExecutorCache); }

namespace {

using Clock = std::chrono::steady_clock;

// ---- small RAII and error plumbing --------------------------------------------------------------

/// The first failure of any worker; the others stop at their next unit.
class Failure {
 public:
  void raise(gk_status status, std::string message) {
    std::lock_guard<std::mutex> const lock(mutex_);
    if (raised_.load()) return;
    status_ = status;
    message_ = std::move(message);
    raised_.store(true);
  }
  bool raised() const { return raised_.load(std::memory_order_relaxed); }
  gk_status status() const { return status_; }
  std::string const& message() const { return message_; }

 private:
  std::mutex mutex_;
  std::atomic<bool> raised_{false};
  gk_status status_ = GK_SUCCESS;
  std::string message_;
};

class Stream {
 public:
  Stream() = default;
  Stream(Stream const&) = delete;
  Stream& operator=(Stream const&) = delete;
  ~Stream() {
    if (stream_ != nullptr) cudaStreamDestroy(stream_);
  }
  cudaError_t create() { return cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking); }
  cudaStream_t get() const { return stream_; }

 private:
  cudaStream_t stream_ = nullptr;
};

class Event {
 public:
  Event() = default;
  Event(Event&& other) noexcept : event_(std::exchange(other.event_, nullptr)) {}
  Event(Event const&) = delete;
  Event& operator=(Event const&) = delete;
  ~Event() {
    if (event_ != nullptr) cudaEventDestroy(event_);
  }
  cudaError_t create(bool timing = false) {
    return cudaEventCreateWithFlags(&event_, timing ? cudaEventDefault : cudaEventDisableTiming);
  }
  cudaEvent_t get() const { return event_; }

 private:
  cudaEvent_t event_ = nullptr;
};

/// Copies `height` columns of `width` bytes between pitched host buffers with `threads` CPU threads
/// (the staging stage); long columns are cut so few columns still spread over the threads.
void copy_columns(char* dst, std::size_t dst_pitch, char const* src, std::size_t src_pitch, std::size_t width,
                  std::int64_t height, int threads) {
  std::int64_t const pieces = height >= 4 * threads ? 1 : std::max<std::int64_t>(1, 4 * threads / std::max<std::int64_t>(height, 1));
  std::size_t const piece = (width + std::size_t(pieces) - 1) / std::size_t(pieces);
  std::int64_t const tasks = height * pieces;
#pragma omp parallel for num_threads(threads) schedule(static) if (threads > 1 && tasks > 1)
  for (std::int64_t t = 0; t < tasks; ++t) {
    std::int64_t const j = t / pieces;
    std::size_t const begin = std::size_t(t % pieces) * piece;
    if (begin >= width) continue;
    std::size_t const length = std::min(piece, width - begin);
    std::memcpy(dst + std::size_t(j) * dst_pitch + begin, src + std::size_t(j) * src_pitch + begin, length);
  }
}

/// A 2-D region: `height` columns of `width` bytes, `pitch` bytes apart.
struct Region {
  char* data = nullptr;
  std::size_t pitch = 0;
};

// ---- timeline ---------------------------------------------------------------------------------

/// Timed operations of one worker: GPU ones by event pairs, CPU ones by the host clock, both
/// relative to the worker's origin (an event the host waited for, so the clocks line up).
class WorkerTimeline {
 public:
  WorkerTimeline(bool on, int worker, int device, Clock::time_point run_origin)
      : on_(on), worker_(worker), device_(device), run_origin_(run_origin) {}
  WorkerTimeline(WorkerTimeline const&) = delete;
  WorkerTimeline& operator=(WorkerTimeline const&) = delete;
  ~WorkerTimeline() {
    for (GpuOp& op : gpu_) {
      cudaEventDestroy(op.start);
      cudaEventDestroy(op.end);
    }
    if (origin_ != nullptr) cudaEventDestroy(origin_);
  }

  bool on() const { return on_; }

  /// Records the origin on `stream` and waits for it; host times count from then on.
  void start(cudaStream_t stream) {
    if (!on_) return;
    cudaEventCreate(&origin_);
    cudaEventRecord(origin_, stream);
    cudaEventSynchronize(origin_);
    host_origin_ = Clock::now();
  }

  /// Index of a GPU operation begun on `stream` (-1 when off); `bytes` for a copy.
  int begin(cudaStream_t stream, char const* lane, char const* what, std::int64_t block, std::int64_t bytes = 0) {
    if (!on_) return -1;
    std::lock_guard<std::mutex> const lock(mutex_);
    GpuOp op{nullptr, nullptr, lane, what, block, bytes};
    cudaEventCreate(&op.start);
    cudaEventCreate(&op.end);
    cudaEventRecord(op.start, stream);
    gpu_.push_back(op);
    return int(gpu_.size()) - 1;
  }
  void end(int index, cudaStream_t stream) {
    if (index < 0) return;
    std::lock_guard<std::mutex> const lock(mutex_);
    cudaEventRecord(gpu_[std::size_t(index)].end, stream);
  }

  /// A CPU operation between two host times.
  void host(char const* lane, char const* what, std::int64_t block, Clock::time_point begin, Clock::time_point end) {
    if (!on_) return;
    std::lock_guard<std::mutex> const lock(mutex_);
    host_.push_back({worker_, device_, lane, what, block, ms_since(begin), ms_since(end)});
  }

  /// After the worker's streams are idle: every operation, in the run's time.
  void collect(std::vector<TimelineEvent>* out) {
    if (!on_) return;
    double const shift = std::chrono::duration<double, std::milli>(host_origin_ - run_origin_).count();
    for (GpuOp const& op : gpu_) {
      float start = 0, end = 0;
      if (cudaEventElapsedTime(&start, origin_, op.start) != cudaSuccess ||
          cudaEventElapsedTime(&end, origin_, op.end) != cudaSuccess) {
        cudaGetLastError();
        continue;
      }
      out->push_back({worker_, device_, op.lane, op.what, op.block, shift + start, shift + end, op.bytes});
    }
    for (TimelineEvent e : host_) {
      e.start_ms += shift;
      e.end_ms += shift;
      out->push_back(e);
    }
  }

 private:
  struct GpuOp {
    cudaEvent_t start, end;
    char const* lane;
    char const* what;
    std::int64_t block;
    std::int64_t bytes;
  };
  double ms_since(Clock::time_point t) const { return std::chrono::duration<double, std::milli>(t - host_origin_).count(); }

  bool on_;
  int worker_, device_;
  Clock::time_point run_origin_, host_origin_;
  cudaEvent_t origin_ = nullptr;
  std::mutex mutex_;
  std::vector<GpuOp> gpu_;
  std::vector<TimelineEvent> host_;
};

// ---- staging of pageable operands ---------------------------------------------------------------

/// Host -> device through a ring of pinned slots: the CPU packs slab j into a free slot while the
/// DMA engine moves slab j-1 (the seed's load1 next to load2).
class LoadStager {
 public:
  LoadStager(char* ring, std::size_t slot_bytes, int slots, int threads, WorkerTimeline* timeline)
      : ring_(ring), slot_bytes_(slot_bytes), threads_(threads), events_(std::size_t(slots)), timeline_(timeline) {}

  cudaError_t init() {
    for (Event& e : events_) {
      if (cudaError_t err = e.create(); err != cudaSuccess) return err;
    }
    return cudaSuccess;
  }

  /// Queues the copy of `height` columns of `width` bytes from pageable `host` to `device` on
  /// `stream`; returns once the last slab is handed to the DMA engine.
  cudaError_t load(Region host, Region device, std::size_t width, std::int64_t height, cudaStream_t stream,
                   char const* what, std::int64_t block) {
    std::int64_t const per_slab = std::max<std::int64_t>(1, std::int64_t(slot_bytes_ / width));
    for (std::int64_t j = 0; j < height; j += per_slab) {
      std::int64_t const columns = std::min(per_slab, height - j);
      std::size_t const slot = next_++ % events_.size();
      if (cudaError_t e = cudaEventSynchronize(events_[slot].get()); e != cudaSuccess) return e;  // its last DMA is done
      char* staging = ring_ + slot * slot_bytes_;
      Clock::time_point const begin = Clock::now();
      copy_columns(staging, width, host.data + std::size_t(j) * host.pitch, host.pitch, width, columns, threads_);
      timeline_->host("stage", what, block, begin, Clock::now());
      int const mark = timeline_->begin(stream, "h2d", what, block, std::int64_t(width) * columns);
      if (cudaError_t e = cudaMemcpy2DAsync(device.data + std::size_t(j) * device.pitch, device.pitch, staging, width,
                                            width, std::size_t(columns), cudaMemcpyHostToDevice, stream);
          e != cudaSuccess) {
        return e;
      }
      timeline_->end(mark, stream);
      if (cudaError_t e = cudaEventRecord(events_[slot].get(), stream); e != cudaSuccess) return e;
    }
    return cudaSuccess;
  }

 private:
  char* ring_;
  std::size_t slot_bytes_;
  int threads_;
  std::vector<Event> events_;
  std::size_t next_ = 0;
  WorkerTimeline* timeline_;
};

/// A piece of a finished C block to copy to the host.
struct StoreRequest {
  cudaEvent_t ready = nullptr;  ///< recorded after the kernel that completes the piece
  Region device;
  Region host;
  std::size_t width = 0;
  std::int64_t height = 0;
  std::int64_t block_seq = 0;       ///< the worker's count of blocks before this one
  std::int64_t block = 0;           ///< the plan's block index, for the timeline
  cudaEvent_t freed = nullptr;      ///< when set: the block's last piece; recorded after its DMA
};

/// Device -> pageable host: a thread of its own moves C pieces through a pinned ring and copies
/// them out (the seed's store1 then store2), so the worker's thread keeps staging loads meanwhile.
class Storer {
 public:
  Storer(int device, cudaStream_t stream, char* ring, std::size_t slot_bytes, int slots, int threads,
         WorkerTimeline* timeline, Failure* failure)
      : device_(device), stream_(stream), ring_(ring), slot_bytes_(slot_bytes), threads_(threads),
        slots_(std::size_t(slots)), timeline_(timeline), failure_(failure) {}
  Storer(Storer const&) = delete;
  Storer& operator=(Storer const&) = delete;
  ~Storer() { finish(); }

  cudaError_t start() {
    for (Slot& s : slots_) {
      if (cudaError_t e = s.done.create(); e != cudaSuccess) return e;
    }
    thread_ = std::thread([this] { loop(); });
    return cudaSuccess;
  }

  void push(StoreRequest const& request) {
    {
      std::lock_guard<std::mutex> const lock(mutex_);
      queue_.push_back(request);
    }
    changed_.notify_all();
  }

  /// Waits until every block up to `seq` has its copies queued on the stream and its freed event recorded.
  void wait_queued(std::int64_t seq) {
    std::unique_lock<std::mutex> lock(mutex_);
    changed_.wait(lock, [&] { return queued_seq_ >= seq || stopped_ || failure_->raised(); });
  }
  /// Waits until every block up to `seq` is in the caller's memory.
  void wait_written(std::int64_t seq) {
    std::unique_lock<std::mutex> lock(mutex_);
    changed_.wait(lock, [&] { return written_seq_ >= seq || stopped_ || failure_->raised(); });
  }

  /// Copies out what is queued, then ends the thread.
  void finish() {
    if (!thread_.joinable()) return;
    {
      std::lock_guard<std::mutex> const lock(mutex_);
      closing_ = true;
    }
    changed_.notify_all();
    thread_.join();
  }

 private:
  struct Slot {
    Event done;
    bool pending = false;
    Region host;
    std::size_t width = 0;
    std::int64_t columns = 0, block_seq = 0, block = 0;
    bool last_of_block = false;
  };

  void loop() {
    cudaSetDevice(device_);
    for (;;) {
      std::optional<StoreRequest> request;
      {
        std::unique_lock<std::mutex> lock(mutex_);
        if (queue_.empty()) {
          lock.unlock();
          drain();  // nothing new: finish the pieces in flight before sleeping
          lock.lock();
          changed_.wait(lock, [&] { return !queue_.empty() || closing_; });
          if (queue_.empty()) break;
        }
        request = queue_.front();
        queue_.pop_front();
      }
      bool const skipped = failure_->raised();  // after a failure anywhere, only the bookkeeping
      if (!skipped) handle(*request);
      if (request->freed != nullptr) {
        std::lock_guard<std::mutex> const lock(mutex_);
        queued_seq_ = request->block_seq;
        if (skipped) written_seq_ = request->block_seq;
      }
      changed_.notify_all();
    }
    drain();
    std::lock_guard<std::mutex> const lock(mutex_);
    stopped_ = true;
    changed_.notify_all();
  }

  void handle(StoreRequest const& r) {
    if (!check(cudaStreamWaitEvent(stream_, r.ready, 0), "cudaStreamWaitEvent")) return;
    std::int64_t const per_slab = std::max<std::int64_t>(1, std::int64_t(slot_bytes_ / r.width));
    for (std::int64_t j = 0; j < r.height; j += per_slab) {
      Slot& slot = slots_[next_++ % slots_.size()];
      if (slot.pending) complete(slot);
      slot.columns = std::min(per_slab, r.height - j);
      slot.host = {r.host.data + std::size_t(j) * r.host.pitch, r.host.pitch};
      slot.width = r.width;
      slot.block_seq = r.block_seq;
      slot.block = r.block;
      slot.last_of_block = r.freed != nullptr && j + per_slab >= r.height;
      char* staging = ring_ + std::size_t(&slot - slots_.data()) * slot_bytes_;
      int const mark = timeline_->begin(stream_, "d2h", "C out", r.block, std::int64_t(r.width) * slot.columns);
      if (!check(cudaMemcpy2DAsync(staging, r.width, r.device.data + std::size_t(j) * r.device.pitch, r.device.pitch,
                                   r.width, std::size_t(slot.columns), cudaMemcpyDeviceToHost, stream_),
                 "cudaMemcpy2DAsync D2H")) {
        return;
      }
      timeline_->end(mark, stream_);
      if (!check(cudaEventRecord(slot.done.get(), stream_), "cudaEventRecord")) return;
      slot.pending = true;
    }
    if (r.freed != nullptr) check(cudaEventRecord(r.freed, stream_), "cudaEventRecord");
  }

  /// Waits for a slot's DMA and copies it out to the caller's C.
  void complete(Slot& slot) {
    slot.pending = false;
    if (!check(cudaEventSynchronize(slot.done.get()), "cudaEventSynchronize")) return;
    char const* staging = ring_ + std::size_t(&slot - slots_.data()) * slot_bytes_;
    Clock::time_point const begin = Clock::now();
    copy_columns(slot.host.data, slot.host.pitch, staging, slot.width, slot.width, slot.columns, threads_);
    timeline_->host("unstage", "C out", slot.block, begin, Clock::now());
    if (slot.last_of_block) {
      std::lock_guard<std::mutex> const lock(mutex_);
      written_seq_ = std::max(written_seq_, slot.block_seq);
    }
    changed_.notify_all();
  }

  /// Completes the pieces in flight, oldest first.
  void drain() {
    for (std::size_t i = 0; i < slots_.size(); ++i) {
      Slot& slot = slots_[(next_ + i) % slots_.size()];
      if (slot.pending) complete(slot);
    }
  }

  bool check(cudaError_t e, char const* what) {
    if (e == cudaSuccess) return true;
    failure_->raise(GK_CUDA_ERROR, "device " + std::to_string(device_) + ": " + cuda_error_text(e, what));
    changed_.notify_all();  // the worker may be waiting on this thread's progress
    return false;
  }

  int device_;
  cudaStream_t stream_;
  char* ring_;
  std::size_t slot_bytes_;
  int threads_;
  std::vector<Slot> slots_;
  std::size_t next_ = 0;
  WorkerTimeline* timeline_;
  Failure* failure_;
  std::thread thread_;
  std::mutex mutex_;
  std::condition_variable changed_;
  std::deque<StoreRequest> queue_;
  std::int64_t queued_seq_ = -1, written_seq_ = -1;
  bool closing_ = false, stopped_ = false;
};

// ---- the shared job and one worker --------------------------------------------------------------

/// What every worker reads.
struct Job {
  GemmArguments const& args;
  ExecutorOptions const& options;
  Plan const& plan;
  std::vector<std::int64_t> const& block_first_unit;  ///< the plan's blocks in order: index of their first unit
  bool staged_a, staged_b, staged_c;
  int staging_threads;
  BlockQueue& queue;
  Failure& failure;
  std::atomic<bool>& c_touched;  ///< some copy into the caller's C was queued
  Clock::time_point origin;
};

/// The kernel problem of a (sub-)block: rows x cols x depth on the worker's buffers.
struct KernelShape {
  std::int64_t rows, cols, depth;
  bool operator<(KernelShape const& o) const {
    return std::tie(rows, cols, depth) < std::tie(o.rows, o.cols, o.depth);
  }
};

class Worker {
 public:
  Worker(Job const& job, int index, WorkerBuffers& buffers)
      : job_(job), index_(index), device_(job.options.devices[std::size_t(index)]), buffers_(buffers),
        level_(int(job.options.level)),
        timeline_(job.options.timeline != nullptr, index, device_, job.origin) {}

  /// Device, buffers, streams, events and kernels: everything that can fail before C is touched.
  bool set_up(std::size_t budget) {
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

  /// Takes blocks from the queue until it is empty or some worker failed; then waits for its device.
  void run() {
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

  void collect_timeline(std::vector<TimelineEvent>* out) { timeline_.collect(out); }
  std::int64_t blocks() const { return blocks_; }
  std::int64_t panel_loads() const { return panel_loads_; }
  std::string kernel_id() const {
    auto const it = kernels_.find({job_.plan.tile_rows, job_.plan.tile_cols, job_.plan.tile_depth});
    return it != kernels_.end() ? it->second->info().id : std::string();
  }

 private:
  /// Streams per level: 1 runs everything on one; 2 gives the copy-back its own; 3 and 4 the loads too.
  cudaStream_t load_stream() const { return level_ >= 3 ? h2d_.get() : compute_.get(); }
  cudaStream_t store_stream() const { return level_ >= 2 ? d2h_.get() : compute_.get(); }
  int c_slots() const { return level_ >= 2 ? 2 : 1; }
  bool reuses_panels() const { return level_ >= 3; }

  bool check(cudaError_t e, char const* what) {
    if (e == cudaSuccess) return true;
    job_.failure.raise(GK_CUDA_ERROR, "device " + std::to_string(device_) + ": " + cuda_error_text(e, what));
    return false;
  }

  /// Waits on `event` unless the two streams are one (then stream order already holds).
  bool wait(cudaStream_t stream, cudaStream_t producer, Event const& event) {
    return stream == producer || check(cudaStreamWaitEvent(stream, event.get(), 0), "cudaStreamWaitEvent");
  }

  /// The shapes the plan's units (and level 4's sub-blocks) give the kernel.
  std::vector<KernelShape> kernel_shapes() const {
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

  GemmProblem kernel_problem(KernelShape const& s) const {
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

  bool select_kernels(int cc, std::size_t workspace_limit) {
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
    }
    return true;
  }

  std::vector<GemmVariant const*> distinct_kernels() const {
    std::vector<GemmVariant const*> out;
    for (auto const& [shape, v] : kernels_) {
      if (std::find(out.begin(), out.end(), v) == out.end()) out.push_back(v);
    }
    return out;
  }

  /// Host -> device of the stored window rows [row0, +rows) x columns [col0, +cols) of a caller's
  /// matrix (leading dimension ld) into a device buffer (leading dimension device_ld): straight
  /// from pinned memory, else through the ring (which times its own slabs).
  bool load_window(bool staged, void const* matrix, std::int64_t ld, std::int64_t row0, std::int64_t col0,
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

  /// Panel slot for `key`: the resident one when the level reuses panels, else the slot the
  /// previous unit did not use (level >= 3) or slot 0. *load says whether it must be loaded.
  int panel_slot(std::int64_t (&resident)[2], int& last, std::int64_t key, bool* load) {
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

  bool run_kernel(KernelShape const& shape, char const* A, char const* B, char* C, double beta) {
    GemmVariant const* v = kernels_.at(shape);
    GemmArguments ka;
    ka.problem = kernel_problem(shape);
    ka.alpha = job_.args.alpha;
    ka.beta = beta;
    ka.A = A, ka.B = B, ka.C = C;
    if (gk_status s = v->run(ka, workspace_, ExecutionContext{compute_.get(), device_}); s != GK_SUCCESS) {
      job_.failure.raise(s, "device " + std::to_string(device_) + ": kernel '" + v->info().id + "' failed" +
                                (s == GK_CUDA_ERROR ? ": " + cuda_error_text(cudaGetLastError(), "launch") : ""));
      return false;
    }
    return true;
  }

  /// Queues the copy-back of columns [begin, end) of the C block in slot `cs`, once `ready` is recorded.
  bool store(WorkUnit const& u, int cs, std::int64_t begin, std::int64_t end, Event const& ready, bool last,
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

  void run_unit(WorkUnit const& u, std::int64_t block, std::int64_t seq) {
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

  Job const& job_;
  int index_, device_;
  WorkerBuffers& buffers_;
  int level_;
  WorkerTimeline timeline_;
  std::map<KernelShape, GemmVariant const*> kernels_;
  std::size_t workspace_bytes_ = 0;
  DeviceLayout layout_;
  Stream compute_, h2d_, d2h_;
  Event a_ready_[2], a_free_[2], b_ready_[2], b_free_[2], c_loaded_[2], c_free_[2];
  /// Blocks a worker keeps queued ahead of its compute stream: the next block's loads overlap the
  /// current block's kernels (the panels are double-buffered), and no more is taken from the queue.
  static constexpr int kBlocksAhead = 2;
  Event block_done_[kBlocksAhead];
  std::vector<Event> piece_ready_[2];
  std::vector<Event> b_piece_ready_[2];  ///< level 4: a B panel's column pieces, loaded one by one
  char* a_[2] = {};
  char* b_[2] = {};
  char* c_[2] = {};
  void* workspace_ = nullptr;
  std::int64_t a_key_[2] = {-1, -1}, b_key_[2] = {-1, -1};
  int a_last_ = 1, b_last_ = 1;
  std::int64_t blocks_ = 0, panel_loads_ = 0;
  std::optional<LoadStager> stager_;
  std::optional<Storer> storer_;  // declared last: joined before the streams and events it uses go
};

// ---- the call -----------------------------------------------------------------------------------

/// True when [pointer, pointer + bytes) is page-locked host memory the DMA engines can use.
bool is_pinned(void const* pointer, std::size_t bytes) {
  for (char const* at : {static_cast<char const*>(pointer), static_cast<char const*>(pointer) + bytes - 1}) {
    cudaPointerAttributes attributes{};
    if (cudaPointerGetAttributes(&attributes, at) != cudaSuccess) {
      cudaGetLastError();
      return false;
    }
    if (attributes.type != cudaMemoryTypeHost) return false;
  }
  return true;
}

/// Bytes spanned by a column-major rows x cols matrix with leading dimension ld.
std::size_t span_bytes(std::int64_t rows, std::int64_t cols, std::int64_t ld, std::size_t element) {
  return (std::size_t(cols - 1) * std::size_t(ld) + std::size_t(rows)) * element;
}

/// Which operands go through the pinned ring: all when asked (kPageable), else those the runtime
/// does not know as page-locked.
struct Staging {
  bool a = false, b = false, c = false;
  bool any() const { return a || b || c; }
};
Staging staging_for(GemmArguments const& args, HostMemory memory) {
  GemmProblem const& p = args.problem;
  std::size_t const e = size_of(p.dtype);
  if (memory == HostMemory::kPageable) return {true, true, true};
  if (memory == HostMemory::kPinned) return {};
  return {!is_pinned(args.A, span_bytes(p.a_rows(), p.a_cols(), p.lda, e)),
          !is_pinned(args.B, span_bytes(p.b_rows(), p.b_cols(), p.ldb, e)),
          !is_pinned(args.C, span_bytes(p.m, p.n, p.ldc, e))};
}

/// CPU threads per worker that pack pageable panels (and as many copying C out).
int staging_threads_for(ExecutorOptions const& options) {
  unsigned const cores = std::max(1u, std::thread::hardware_concurrency());
  std::size_t const workers = std::max<std::size_t>(options.devices.size(), 1);
  return options.staging_threads > 0 ? options.staging_threads
                                     : int(std::clamp<unsigned>(cores / unsigned(2 * workers), 1u, 8u));
}

}  // namespace

int pipeline_host_threads(GemmArguments const& args, ExecutorOptions const& options) {
  int const workers = int(options.devices.size());
  Staging const staged = staging_for(args, options.host_memory);
  int const per_worker = (staged.a || staged.b ? staging_threads_for(options) : 0) + (staged.c ? staging_threads_for(options) : 0);
  return workers * (1 + per_worker);
}

gk_status execute(GemmArguments const& args, ExecutorOptions const& options, ExecutorCache* cache, std::string* error,
                  ExecutionReport* report) {
  GemmProblem const& p = args.problem;
  auto fail = [&](gk_status status, std::string message) {
    *error = std::move(message);
    return status;
  };
  if (p.batch != 1 || p.pointer_array || p.m <= 0 || p.n <= 0 || p.k <= 0) {
    return fail(GK_INTERNAL_ERROR, "the host-resident executor runs single problems with m, n, k > 0");
  }
  if (options.kernels == nullptr) return fail(GK_INTERNAL_ERROR, "no kernel registry for the host-resident GEMM");
  if (options.devices.empty()) return fail(GK_INVALID_ARGUMENT, "no devices to run the host-resident GEMM on");
  int const count = device_count();
  for (int d : options.devices) {
    if (d < 0 || d >= count) {
      return fail(GK_INVALID_ARGUMENT, "device " + std::to_string(d) + " does not exist (" + std::to_string(count) + " usable)");
    }
  }
  int const level = int(options.level);
  if (level < 1 || level > 4) return fail(GK_INVALID_ARGUMENT, "pipeline level " + std::to_string(level) + " is not 1..4");
  if (options.staging_slots < 1 || options.staging_slot_bytes < (std::size_t(1) << 16)) {
    return fail(GK_INVALID_ARGUMENT, "the staging ring needs at least one slot of 64 KiB");
  }

  std::size_t const e = size_of(p.dtype);
  Staging const staging = staging_for(args, options.host_memory);
  bool const staged_a = staging.a, staged_b = staging.b, staged_c = staging.c;

  ExecutorCache local_cache;
  ExecutorCache& buffers = cache != nullptr ? *cache : local_cache;
  std::size_t const workers = options.devices.size();
  while (buffers.workers.size() < workers) buffers.workers.push_back(std::make_unique<WorkerBuffers>());

  int caller_device = -1;
  cudaGetDevice(&caller_device);
  // Budget per worker: the caller's, else 90% of what the device has free (counting what this
  // cache already holds there), shared by the workers on that device.
  std::size_t budget = options.device_budget;
  if (budget == 0) {
    budget = SIZE_MAX;
    for (std::size_t w = 0; w < workers; ++w) {
      int const d = options.devices[w];
      std::size_t free_bytes = 0, total = 0;
      if (cudaSetDevice(d) != cudaSuccess || cudaMemGetInfo(&free_bytes, &total) != cudaSuccess) {
        std::string const text = cuda_error_text(cudaGetLastError(), "cudaMemGetInfo");
        if (caller_device >= 0) cudaSetDevice(caller_device);
        return fail(GK_CUDA_ERROR, "device " + std::to_string(d) + ": " + text);
      }
      std::size_t held = 0;
      std::size_t sharing = 0;
      for (std::size_t v = 0; v < workers; ++v) {
        if (options.devices[v] != d) continue;
        ++sharing;
        if (buffers.workers[v]->device == d) held += buffers.workers[v]->arena_bytes;
      }
      budget = std::min(budget, std::size_t(double(free_bytes + held) * 0.9) / sharing);
    }
  }
  if (caller_device >= 0) cudaSetDevice(caller_device);

  PlanRequest request;
  request.m = p.m, request.n = p.n, request.k = p.k;
  request.element_bytes = int(e);
  request.device_budget = planning_budget(budget);
  request.reads_c = args.beta != 0.0;
  request.granule = options.granule;
  request.store_sub_blocks = level >= 4 ? std::max(options.store_sub_blocks, 1) : 1;
  request.workers = int(workers);
  request.rates = executor_rates(planning_machine(), int(e), staged_a || staged_b, staged_c);
  Plan const plan = options.forced_tile > 0 ? plan_forced_tile(request, options.forced_tile) : make_plan(request);
  if (!plan.error.empty()) return fail(GK_ALLOCATION_FAILED, "host-resident plan: " + plan.error);

  std::vector<std::int64_t> block_first_unit;
  for (std::size_t u = 0; u < plan.units.size(); ++u) {
    if (plan.units[u].first_chunk) block_first_unit.push_back(std::int64_t(u));
  }
  BlockQueue queue(std::int64_t(block_first_unit.size()), int(workers));
  Failure failure;
  std::atomic<bool> c_touched{false};
  int const staging_threads = staging_threads_for(options);
  Job const job{args,     options,        plan,    block_first_unit, staged_a, staged_b, staged_c, staging_threads,
                queue,    failure,        c_touched, Clock::now()};

  // Every worker sets up (allocations included) before any starts, so a failure there leaves C as it was.
  std::vector<std::unique_ptr<Worker>> pool;
  for (std::size_t w = 0; w < workers; ++w) pool.push_back(std::make_unique<Worker>(job, int(w), *buffers.workers[w]));
  std::mutex gate_mutex;
  std::condition_variable gate;
  std::size_t ready = 0;
  auto body = [&](std::size_t w) {
    bool const ok = pool[w]->set_up(budget);
    {
      std::unique_lock<std::mutex> lock(gate_mutex);
      ++ready;
      gate.notify_all();
      gate.wait(lock, [&] { return ready == workers; });
    }
    if (ok && !failure.raised()) pool[w]->run();
  };
  std::vector<std::thread> threads;
  for (std::size_t w = 1; w < workers; ++w) threads.emplace_back(body, w);
  body(0);  // the caller's thread serves the first device (its thread-local handles persist)
  for (std::thread& t : threads) t.join();
  if (caller_device >= 0) cudaSetDevice(caller_device);

  if (options.timeline != nullptr) {
    for (auto& worker : pool) worker->collect_timeline(options.timeline);
  }
  if (report != nullptr) {
    report->plan = plan;
    report->staged_a = staged_a, report->staged_b = staged_b, report->staged_c = staged_c;
    report->blocks_per_worker.clear();
    report->panel_loads_per_worker.clear();
    for (auto& worker : pool) {
      report->blocks_per_worker.push_back(worker->blocks());
      report->panel_loads_per_worker.push_back(worker->panel_loads());
    }
    report->kernel = pool.front()->kernel_id();
  }
  pool.clear();  // streams and events go before the error is read back
  if (failure.raised()) {
    std::string message = failure.message();
    if (c_touched.load()) message += "; C is partly updated (the blocks copied back before the failure)";
    return fail(failure.status(), message);
  }
  return GK_SUCCESS;
}

}  // namespace gemmkit::ooc
