/*! \file
    \brief Compiled as C99 by the CTest test headers.public_c_header_is_c: the C API headers (the API
    and the introspection) must be plain C (no C++ constructs, no missing includes) and warning-free.
*/
#include <gemmkit/gemmkit.h>
#include <gemmkit/introspect.h>

int gemmkit_public_header_is_c(void);

int gemmkit_public_header_is_c(void) {
  gk_context ctx = NULL;
  double a = 1.0, b = 1.0, c = 0.0;
  gk_status s = gk_create(&ctx);
  if (s == GK_SUCCESS) s = gk_dgemm(ctx, GK_COL_MAJOR, GK_OP_N, GK_OP_T, 1, 1, 1, 1.0, &a, 1, &b, 1, 0.0, &c, 1);
  gk_destroy(ctx);
  gk_variant_info info;
  if (gk_variant_count() > 0 && gk_variant_at(0, &info) == GK_SUCCESS && info.id == NULL) s = GK_INTERNAL_ERROR;
  return (int)s + gk_gpu_available();
}
