/*! \file
    \brief The batch GEMMs of libgemmkit_blas (the BLAS/CBLAS drop-in): MKL's and OpenBLAS's
    cblas_?gemm_batch (groups of problems sharing a shape) and cblas_?gemm_batch_strided.

    Include after, or instead of, the CBLAS header of your BLAS (it includes <cblas.h>). Integers are
    32-bit, as in the LP64 interfaces of MKL and OpenBLAS. The problems are independent: no problem's
    C may overlap another's A, B or C. Host matrices run on gemmkit's batched CPU kernels, device
    matrices (with the pointer arrays in host memory for the group form) on its batched GPU kernels.
    A bad argument is reported through cblas_xerbla with its index in the argument list (1 = layout)
    and nothing is written.
*/
#pragma once

#include <cblas.h>

#ifdef __cplusplus
extern "C" {
#endif

/// Group g holds group_size[g] problems that share transa_array[g] ... ldc_array[g], alpha_array[g]
/// and beta_array[g]; problems are numbered across groups and use a_array[p], b_array[p], c_array[p].
void cblas_dgemm_batch(CBLAS_LAYOUT layout, const CBLAS_TRANSPOSE* transa_array, const CBLAS_TRANSPOSE* transb_array,
                       const int* m_array, const int* n_array, const int* k_array, const double* alpha_array,
                       const double** a_array, const int* lda_array, const double** b_array, const int* ldb_array,
                       const double* beta_array, double** c_array, const int* ldc_array, int group_count,
                       const int* group_size);
void cblas_sgemm_batch(CBLAS_LAYOUT layout, const CBLAS_TRANSPOSE* transa_array, const CBLAS_TRANSPOSE* transb_array,
                       const int* m_array, const int* n_array, const int* k_array, const float* alpha_array,
                       const float** a_array, const int* lda_array, const float** b_array, const int* ldb_array,
                       const float* beta_array, float** c_array, const int* ldc_array, int group_count,
                       const int* group_size);

/// Problem i uses a + i*stridea, b + i*strideb, c + i*stridec (a stride of 0 for a or b shares it).
void cblas_dgemm_batch_strided(CBLAS_LAYOUT layout, CBLAS_TRANSPOSE transa, CBLAS_TRANSPOSE transb, int m, int n,
                               int k, double alpha, const double* a, int lda, int stridea, const double* b, int ldb,
                               int strideb, double beta, double* c, int ldc, int stridec, int batch_size);
void cblas_sgemm_batch_strided(CBLAS_LAYOUT layout, CBLAS_TRANSPOSE transa, CBLAS_TRANSPOSE transb, int m, int n,
                               int k, float alpha, const float* a, int lda, int stridea, const float* b, int ldb,
                               int strideb, float beta, float* c, int ldc, int stridec, int batch_size);

#ifdef __cplusplus
}  // extern "C"
#endif
