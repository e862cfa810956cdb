# `cmake --install`: headers, the shared and static libraries, gemmkitConfig.cmake with the imported
# targets gemmkit::gemmkit (shared) and gemmkit::gemmkit_static, gemmkit.pc, gemmkit-bench, and the
# BLAS drop-in libgemmkit_blas.
include(CMakePackageConfigHelpers)
set(GEMMKIT_CMAKE_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/gemmkit)

install(TARGETS gemmkit gemmkit_static EXPORT gemmkitTargets
        LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
        RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR}
        INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(DIRECTORY ${PROJECT_SOURCE_DIR}/include/gemmkit DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
# The BLAS drop-in, with the folder of its libblas.so.3 / libcblas.so.3 names (LD_LIBRARY_PATH, or
# the targets of Debian's update-alternatives).
install(TARGETS gemmkit_blas LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR})
install(CODE "
  set(blas_dir \"\$ENV{DESTDIR}\${CMAKE_INSTALL_PREFIX}/${CMAKE_INSTALL_LIBDIR}/gemmkit-blas\")
  file(MAKE_DIRECTORY \"\${blas_dir}\")
  foreach(name libblas.so.3 libcblas.so.3)
    file(CREATE_LINK ../libgemmkit_blas.so.0 \"\${blas_dir}/\${name}\" SYMBOLIC)
  endforeach()")
install(EXPORT gemmkitTargets NAMESPACE gemmkit:: DESTINATION ${GEMMKIT_CMAKE_DIR})

set(GEMMKIT_CONFIG_WITH_CUDA ${GEMMKIT_WITH_CUDA})
set(GEMMKIT_CONFIG_WITH_OPENMP ${OpenMP_CXX_FOUND})
configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/gemmkitConfig.cmake.in
                              ${PROJECT_BINARY_DIR}/gemmkitConfig.cmake INSTALL_DESTINATION ${GEMMKIT_CMAKE_DIR})
write_basic_package_version_file(${PROJECT_BINARY_DIR}/gemmkitConfigVersion.cmake COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/gemmkitConfig.cmake ${PROJECT_BINARY_DIR}/gemmkitConfigVersion.cmake
        DESTINATION ${GEMMKIT_CMAKE_DIR})

# pkg-config: relocatable (paths from the .pc file's own folder); Libs.private is what a static link
# adds (pkg-config --static).
get_filename_component(openblas_dir ${GEMMKIT_OPENBLAS_LIBRARY} DIRECTORY)
set(GEMMKIT_PC_LIBS_PRIVATE "-L${openblas_dir} -lopenblas")
if(OpenMP_CXX_FOUND)
  string(APPEND GEMMKIT_PC_LIBS_PRIVATE " ${OpenMP_CXX_FLAGS}")
endif()
if(GEMMKIT_WITH_CUDA)
  string(APPEND GEMMKIT_PC_LIBS_PRIVATE " -L${CUDAToolkit_LIBRARY_DIR} -lcublas -lcudart")
endif()
string(APPEND GEMMKIT_PC_LIBS_PRIVATE " -ldl -lstdc++ -lm")
file(RELATIVE_PATH GEMMKIT_PC_PREFIX_FROM_PCDIR /prefix/${CMAKE_INSTALL_LIBDIR}/pkgconfig /prefix)
configure_file(${PROJECT_SOURCE_DIR}/cmake/gemmkit.pc.in ${PROJECT_BINARY_DIR}/gemmkit.pc @ONLY)
install(FILES ${PROJECT_BINARY_DIR}/gemmkit.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
