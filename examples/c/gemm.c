/* A C program on gemmkit: C = A*B for 3x2 times 2x2 row-major matrices, checked by hand.
   Exits 0 when gemmkit's result matches. */
#include <gemmkit/gemmkit.h>

#include <math.h>
#include <stdio.h>

int main(void) {
  const double A[3 * 2] = {1, 2, 3, 4, 5, 6};
  const double B[2 * 2] = {7, 8, 9, 10};
  const double expected[3 * 2] = {25, 28, 57, 64, 89, 100};
  double C[3 * 2] = {0};

  gk_context ctx = NULL;
  gk_status status = gk_create(&ctx);
  if (status == GK_SUCCESS) {
    status = gk_dgemm(ctx, GK_ROW_MAJOR, GK_OP_N, GK_OP_N, 3, 2, 2, 1.0, A, 2, B, 2, 0.0, C, 2);
  }
  if (status != GK_SUCCESS) {
    fprintf(stderr, "gk_dgemm: %s: %s\n", gk_status_string(status), ctx ? gk_last_error(ctx) : "");
    gk_destroy(ctx);
    return 1;
  }
  printf("C = A*B on %s with %s\n", gk_gpu_available() ? "a GPU-capable build" : "the CPU", gk_last_variant(ctx));
  gk_destroy(ctx);
  for (int i = 0; i < 6; ++i) {
    if (fabs(C[i] - expected[i]) > 1e-12) {
      fprintf(stderr, "C[%d] = %g, expected %g\n", i, C[i], expected[i]);
      return 1;
    }
  }
  return 0;
}
