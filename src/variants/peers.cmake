# gemmkit_peers: the batched CPU peers as registered variants (peer_variants.hpp), an object
# library linked by gemmkit-bench and the tests only. It stays out of libgemmkit: LIBXSMM is a
# static library, Eigen and the plain loop are built for this machine's ISA, and an installed
# library should pull in neither. Its register_peer_variants replaces the library's weak no-op.
# Included from src/CMakeLists.txt after the variants layer (it reads that layer's include folders).
add_library(gemmkit_peers OBJECT variants/peer_cpu_batched.cpp variants/peer_native_batched.cpp)
target_include_directories(gemmkit_peers PRIVATE ${GEMMKIT_LAYER_INCLUDE_DIRS_variants} ${PROJECT_SOURCE_DIR}/include)
target_include_directories(gemmkit_peers SYSTEM PRIVATE ${GEMMKIT_CBLAS_INCLUDE_DIR})
target_compile_options(gemmkit_peers PRIVATE $<$<COMPILE_LANGUAGE:CXX>:-Wall -Wextra>)
find_package(OpenMP REQUIRED COMPONENTS CXX)
target_link_libraries(gemmkit_peers PUBLIC OpenMP::OpenMP_CXX ${CMAKE_DL_LIBS})

# LIBXSMM (Debian libxsmm-dev ships static libraries only). Its BLAS fallback needs dgemm_/sgemm_,
# which OpenBLAS (already linked by gemmkit) provides: it is named again after LIBXSMM.
find_path(GEMMKIT_LIBXSMM_INCLUDE_DIR libxsmm.h)
find_library(GEMMKIT_LIBXSMM_LIBRARY NAMES xsmm)
if(GEMMKIT_LIBXSMM_INCLUDE_DIR AND GEMMKIT_LIBXSMM_LIBRARY)
  find_package(Threads REQUIRED)
  target_include_directories(gemmkit_peers SYSTEM PRIVATE ${GEMMKIT_LIBXSMM_INCLUDE_DIR})
  target_link_libraries(gemmkit_peers PUBLIC ${GEMMKIT_LIBXSMM_LIBRARY} ${GEMMKIT_OPENBLAS_LIBRARY}
                        Threads::Threads rt m ${CMAKE_DL_LIBS})
  set_property(SOURCE variants/peer_cpu_batched.cpp APPEND PROPERTY COMPILE_DEFINITIONS GEMMKIT_HAVE_LIBXSMM=1)
  message(STATUS "gemmkit peers: LIBXSMM ${GEMMKIT_LIBXSMM_LIBRARY}")
else()
  message(STATUS "gemmkit peers: no LIBXSMM (apt-get install libxsmm-dev): batched runs without it")
endif()

# Eigen 3.4, header-only. BLIS needs nothing at build time: it is loaded with dlopen at run time,
# because it exports the same BLAS/CBLAS symbols as OpenBLAS.
find_package(Eigen3 3.4 QUIET NO_MODULE)
if(TARGET Eigen3::Eigen)
  target_link_libraries(gemmkit_peers PRIVATE Eigen3::Eigen)
  set_property(SOURCE variants/peer_native_batched.cpp APPEND PROPERTY COMPILE_DEFINITIONS GEMMKIT_HAVE_EIGEN=1)
  message(STATUS "gemmkit peers: Eigen ${Eigen3_VERSION}")
else()
  message(STATUS "gemmkit peers: no Eigen 3.4 (apt-get install libeigen3-dev): batched runs without it")
endif()

# Eigen and the plain loop are compiled the way a user building for this machine would: -O3 and
# the machine's own ISA (gemmkit picks its ISA at run time; OpenBLAS, BLIS and LIBXSMM do too).
option(GEMMKIT_BENCH_NATIVE_PEERS "Build the Eigen and plain-loop peers with -march=native" ON)
include(CheckCXXCompilerFlag)
check_cxx_compiler_flag(-march=native GEMMKIT_BENCH_HAS_MARCH_NATIVE)
set(GEMMKIT_NATIVE_FLAGS -O3)
if(GEMMKIT_BENCH_NATIVE_PEERS AND GEMMKIT_BENCH_HAS_MARCH_NATIVE)
  list(APPEND GEMMKIT_NATIVE_FLAGS -march=native)
endif()
string(JOIN " " native_flags_text ${GEMMKIT_NATIVE_FLAGS})
# GCC 12 warns about Eigen's AVX-512 transposes (-Wmaybe-uninitialized, a known false positive).
set_property(SOURCE variants/peer_native_batched.cpp APPEND PROPERTY COMPILE_OPTIONS ${GEMMKIT_NATIVE_FLAGS}
             -Wno-maybe-uninitialized)
set_property(SOURCE variants/peer_native_batched.cpp APPEND PROPERTY COMPILE_DEFINITIONS
             "GEMMKIT_PEERS_NATIVE_FLAGS=\"${native_flags_text}\"")
