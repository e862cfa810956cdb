#!/usr/bin/env bash
# Stages Open MPI 4.1 and ScaLAPACK 2.2 (this machine's Debian packages) for the device machine, which
# has no apt: `apt-get download` + `dpkg -x`, pruned to what one node's shared-memory runs and a C
# build need, packed as .deps/mpi/mpi.tar.xz (7 MB, 27 MB unpacked; the device tool carries .deps with
# the working tree under 64 MiB). bench/scalapack/device.sh unpacks it into /tmp/mpi there.
# libscalapack loads liblapack.so.3 and libblas.so.3: the tree has Debian's OpenBLAS ones
# (openblas-pthread/, small: they call into libopenblas.so.0, which is not in it but comes from
# .deps/openblas: scripts/stage-device-deps.sh, run that one first, it empties .deps). Debian's
# liblapack.so.3 holds LAPACK alone: were it all of OpenBLAS (a link to libopenblas.so.0), its
# dgemm_ would come before libblas.so.3's in libscalapack's lookup and the libblas.so.3 of
# gemmkit's as-libblas/ folder would never be called.
# Kept: mpirun/orterun, orted, mpicc (opal_wrapper), ompi_info; libmpi and its C headers; the MCA
# components that do not need InfiniBand, UCX, libfabric or PSM (pml ob1, btl self/vader/tcp, ...);
# PMIx, hwloc, libevent, munge, udev; libscalapack-openmpi; libgfortran5 and libquadmath0.
# Dropped: Fortran and Java bindings, OpenSHMEM, static libraries, docs and man pages.
# Every ELF file left is checked: what it links must be in the tree or be glibc, libgcc_s,
# libstdc++, zlib or the BLAS names above.
set -euo pipefail
cd "$(dirname "$0")/.."
dest=.deps/mpi
packages=(openmpi-bin openmpi-common libopenmpi3 libopenmpi-dev libscalapack-openmpi2.2 libpmix2 libhwloc15
          libevent-core-2.1-7 libevent-pthreads-2.1-7 libmunge2 libudev1 libgfortran5 libquadmath0
          libopenblas0-pthread)
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
(cd "$work" && apt-get download "${packages[@]}") >"$work/apt.log" 2>&1 || { cat "$work/apt.log" >&2; exit 1; }
root="$work/root"
for deb in "$work"/*.deb; do dpkg -x "$deb" "$root"; done
(cd "$work" && for deb in *.deb; do echo "$deb"; done) >"$work/packages.txt"

lib="$root/usr/lib/x86_64-linux-gnu"
components="$lib/openmpi/lib/openmpi3"
# Of OpenBLAS, the libblas.so.3 and liblapack.so.3 interfaces only (libopenblas.so.0 is .deps/openblas's).
find "$lib/openblas-pthread" -mindepth 1 -not -name 'libblas.so.3' -not -name 'liblapack.so.3' -delete
rm -rf "$root"/usr/share/{doc,man,lintian,gcc} "$root"/usr/share/openmpi/amca-param-sets \
       "$root"/usr/bin/{mpijavac,mpijavac.pl,aggregate_profile,profile2mat,oshmem_info} \
       "$lib"/fortran "$lib"/openmpi/lib/*.mod "$lib"/openmpi/lib/pkgconfig "$lib"/pkgconfig \
       "$lib"/openmpi/include/*.mod "$lib"/openmpi/include/mpif*.h "$lib"/openmpi/include/openmpi/mpp \
       "$lib"/openmpi/lib/mpi.jar "$lib"/openmpi/lib/openmpi3/mca_*.la
find "$root" -name '*.a' -delete
find "$root" \( -name '*mpifh*' -o -name '*usempi*' -o -name '*oshmem*' -o -name '*java*' -o -name 'libmca_common_verbs*' \
  -o -name '*ucx*' -o -name '*ofi*' -o -name '*psm*' -o -name '*openib*' -o -name '*usnic*' -o -name 'mca_btl_uct*' \
  -o -name 'shmem*' -o -name 'osh*' \) -exec rm -rf {} +
# OpenSHMEM's frameworks go with liboshmem.
rm -f "$components"/mca_{atomic,memheap,scoll,spml,sshmem}_*.so
# netlink reachability (libnl) only ranks TCP interfaces between hosts; "weighted" stays.
rm -f "$components"/mca_reachable_netlink.so
# The headers a program includes (mpi.h with its extensions and C++ bindings), not Open MPI's own.
include="$lib/openmpi/include"
rm -rf "$include"/{mpp,openshmem,pshmem.h,pshmemx.h}
find "$include/openmpi" -mindepth 1 -maxdepth 1 -not -name mpiext -not -name ompi -exec rm -rf {} +
find "$include/openmpi/ompi" -mindepth 1 -maxdepth 1 -not -name mpi -exec rm -rf {} +
find "$include/openmpi/ompi/mpi" -mindepth 1 -maxdepth 1 -not -name cxx -exec rm -rf {} +
# Dangling symbolic links (to what was dropped) go too.
find "$root" -xtype l -delete

# Names a plain Open MPI install has: mpirun and mpicc (Debian calls them mpirun.openmpi and
# mpicc.openmpi, through update-alternatives), and the development link to libscalapack.
ln -s orterun "$root/usr/bin/mpirun"
ln -s orterun "$root/usr/bin/mpiexec"
ln -s opal_wrapper "$root/usr/bin/mpicc"
ln -sf libscalapack-openmpi.so.2.2 "$lib/libscalapack-openmpi.so"
cp "$work/packages.txt" "$root/PACKAGES"

# What the ELF files link must be inside the tree or on any image with a C++ compiler.
base='^(libc|libm|libdl|librt|libpthread|libgcc_s|libstdc\+\+|libz|ld-linux-x86-64|linux-vdso|libresolv|libutil)\.so'
blas='^(libblas|liblapack|libopenblas)\.so'
declare -A present=()
while IFS= read -r -d '' file; do present["$(basename "$file")"]=1; done < <(find "$root" \( -type f -o -type l \) -print0)
missing=0 glibc=""
while IFS= read -r -d '' file; do
  head -c 4 "$file" | grep -q $'\x7fELF' || continue
  glibc+="$(objdump -T "$file" 2>/dev/null | grep -o 'GLIBC_[0-9.]*' | sort -uV | tail -1 || true) "
  for needed in $(readelf -d "$file" 2>/dev/null | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p'); do
    [[ -n "${present[$needed]+x}" || "$needed" =~ $base || "$needed" =~ $blas ]] && continue
    echo "stage-device-mpi: ${file#"$root"/} needs $needed, which is not staged" >&2
    missing=1
  done
done < <(find "$root" -type f -print0)
[[ "$missing" == 0 ]] || exit 1
glibc="$(tr ' ' '\n' <<<"$glibc" | sort -uV | tail -1)"
echo "stage-device-mpi: the newest glibc symbol version used is $glibc (the device's glibc must be at least that)"

rm -rf "$dest" && mkdir -p "$dest"
tar -C "$root" -cf - . | xz -T0 -9 >"$dest/mpi.tar.xz"
echo "stage-device-mpi: $dest/mpi.tar.xz $(du -sh "$dest/mpi.tar.xz" | cut -f1) ($(du -sh "$root" | cut -f1) unpacked);" \
     ".deps $(du -sh .deps | cut -f1) in all"
