# shellcheck shell=bash
# Sourced from the repository root (bash): makes the Open MPI + ScaLAPACK that
# scripts/stage-device-mpi.sh packed into .deps/mpi/mpi.tar.xz usable from wherever it is unpacked,
# for machines without them (the device machine). Unpacks once into $GEMMKIT_MPI_ROOT (/tmp/mpi);
# $GEMMKIT_MPI_ROOT/blas/ gets the BLAS names libscalapack loads: Debian's OpenBLAS libblas.so.3 and
# liblapack.so.3 from the tree, and libopenblas.so.0 from .deps/openblas (unpacked there from its
# .xz when the repository holds only that), else the system's. Exports what the relocated tree
# needs: PATH, LD_LIBRARY_PATH, OPAL_PREFIX, OPAL_SYSCONFDIR, and PMIx's PMIX_PREFIX, PMIX_PKGLIBDIR
# and PMIX_PKGDATADIR (else they look under /usr and /etc). Afterwards
#   mpicc x.c -L"$GEMMKIT_MPI_LIB" -lscalapack-openmpi -Wl,-rpath-link,"$GEMMKIT_MPI_BLAS"
# and mpirun work. Returns nonzero when something is missing.
gemmkit_mpi_env() {
  local root="${GEMMKIT_MPI_ROOT:-/tmp/mpi}"
  local packed=.deps/mpi/mpi.tar.xz
  [[ -f "$packed" ]] || { echo "mpi-env: no $packed (run scripts/stage-device-mpi.sh where apt works)" >&2; return 1; }
  local stamp
  stamp="$(stat -c %s-%Y "$packed")"
  if [[ "$(cat "$root/.staged" 2>/dev/null)" != "$stamp" ]]; then
    rm -rf "$root" && mkdir -p "$root" && tar -xJf "$packed" -C "$root" && echo "$stamp" >"$root/.staged" || return 1
  fi
  local lib="$root/usr/lib/x86_64-linux-gnu"
  mkdir -p "$root/blas"
  local openblas=.deps/openblas/lib/libopenblas.so.0
  if [[ -f "$openblas" ]]; then
    ln -sf "$PWD/$openblas" "$root/blas/libopenblas.so.0"
  elif [[ -f "$openblas.xz" ]]; then
    [[ -f "$root/blas/libopenblas.so.0" && ! -L "$root/blas/libopenblas.so.0" ]] ||
      { rm -f "$root/blas/libopenblas.so.0" && xz -dc "$openblas.xz" >"$root/blas/libopenblas.so.0"; } || return 1
  else
    openblas="$(/sbin/ldconfig -p 2>/dev/null | awk '/libopenblas\.so\.0 .*x86-64/ {print $NF; exit}')"
    [[ -n "$openblas" ]] || { echo "mpi-env: no libopenblas.so.0 (.deps/openblas or the system)" >&2; return 1; }
    ln -sf "$openblas" "$root/blas/libopenblas.so.0"
  fi
  ln -sf "$lib/openblas-pthread/libblas.so.3" "$root/blas/libblas.so.3"
  ln -sf "$lib/openblas-pthread/liblapack.so.3" "$root/blas/liblapack.so.3"
  export GEMMKIT_MPI_ROOT="$root" GEMMKIT_MPI_LIB="$lib" GEMMKIT_MPI_BLAS="$root/blas"
  export PATH="$root/usr/bin:$PATH"
  export LD_LIBRARY_PATH="$lib:$lib/openmpi/lib:$lib/pmix2/lib:$root/blas${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
  export OPAL_PREFIX="$root/usr" OPAL_SYSCONFDIR="$root/etc/openmpi"
  export PMIX_PREFIX="$lib/pmix2" PMIX_PKGLIBDIR="$lib/pmix2/lib/pmix" PMIX_PKGDATADIR="$lib/pmix2/share/pmix"
}
