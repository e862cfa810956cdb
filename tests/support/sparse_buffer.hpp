/*! \file
    \brief A huge buffer whose untouched pages cost no memory (anonymous, unreserved mapping): operands
    with leading dimensions past 2^31 elements where only a few lines are used.
*/
#pragma once

#include <sys/mman.h>

#include <cstddef>

namespace gemmkit::test {

template <typename T>
class SparseBuffer {
 public:
  explicit SparseBuffer(std::size_t elements) : bytes_(elements * sizeof(T)) {
    void* const p = mmap(nullptr, bytes_, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    data_ = p == MAP_FAILED ? nullptr : static_cast<T*>(p);
  }
  ~SparseBuffer() {
    if (data_ != nullptr) munmap(data_, bytes_);
  }
  SparseBuffer(SparseBuffer const&) = delete;
  SparseBuffer& operator=(SparseBuffer const&) = delete;

  /// nullptr when the system refused the mapping.
  T* data() const { return data_; }

 private:
  std::size_t bytes_;
  T* data_ = nullptr;
};

}  // namespace gemmkit::test
