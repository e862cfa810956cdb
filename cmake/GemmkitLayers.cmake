# The library's layers, lowest first. A layer's sources see only its own folders and the folders of
# the layers below it: each layer's include path is a folder of links to exactly those (and to their
# generated headers), so an include that runs back up does not compile. The test
# layers.includes_run_down checks headers no source of their own layer includes.
set(GEMMKIT_LAYERS base model registry kernels ooc variants api)
set(GEMMKIT_LAYER_FOLDERS_base base)          # problem, status, device runtime facade, NVML
set(GEMMKIT_LAYER_FOLDERS_model model)        # the performance model and machine descriptions
set(GEMMKIT_LAYER_FOLDERS_registry registry)  # GemmVariant, the registry and table selection
set(GEMMKIT_LAYER_FOLDERS_kernels cpu cuda)   # gemmkit's own kernels
set(GEMMKIT_LAYER_FOLDERS_ooc ooc)            # the host-resident pipeline, over a registry it is given
set(GEMMKIT_LAYER_FOLDERS_variants variants)  # registration of kernels, peers and the pipeline; the table
set(GEMMKIT_LAYER_FOLDERS_api api)            # the C API: argument checks, contexts, dispatch

# Sets <out_var> to the include folders a source of `layer` may use.
function(gemmkit_layer_include_dirs layer out_var)
  set(view ${PROJECT_BINARY_DIR}/layers/${layer})
  set(generated_view ${PROJECT_BINARY_DIR}/layers/${layer}-generated)
  file(REMOVE_RECURSE ${view} ${generated_view})
  file(MAKE_DIRECTORY ${view} ${generated_view})
  set(reached OFF)
  foreach(visible IN LISTS GEMMKIT_LAYERS)
    if(reached)
      break()
    endif()
    foreach(folder IN LISTS GEMMKIT_LAYER_FOLDERS_${visible})
      file(CREATE_LINK ${PROJECT_SOURCE_DIR}/src/${folder} ${view}/${folder} SYMBOLIC)
      file(MAKE_DIRECTORY ${PROJECT_BINARY_DIR}/generated/${folder})
      file(CREATE_LINK ${PROJECT_BINARY_DIR}/generated/${folder} ${generated_view}/${folder} SYMBOLIC)
    endforeach()
    if(visible STREQUAL layer)
      set(reached ON)
    endif()
  endforeach()
  set(${out_var} ${view} ${generated_view} PARENT_SCOPE)
endfunction()

# One OBJECT library per layer: gemmkit_layer_<layer>; GEMMKIT_LAYER_INCLUDE_DIRS_<layer> keeps its
# include folders for targets that see the layers as that layer does (gemmkit_internal).
function(gemmkit_add_layer layer)
  add_library(gemmkit_layer_${layer} OBJECT ${ARGN})
  gemmkit_layer_include_dirs(${layer} dirs)
  set(GEMMKIT_LAYER_INCLUDE_DIRS_${layer} ${dirs} PARENT_SCOPE)
  target_include_directories(gemmkit_layer_${layer} PRIVATE ${dirs} ${PROJECT_SOURCE_DIR}/include)
  target_include_directories(gemmkit_layer_${layer} SYSTEM PRIVATE ${GEMMKIT_CBLAS_INCLUDE_DIR})
  target_compile_options(gemmkit_layer_${layer} PRIVATE $<$<COMPILE_LANGUAGE:CXX>:-Wall -Wextra>)
  if(OpenMP_CXX_FOUND)
    target_link_libraries(gemmkit_layer_${layer} PRIVATE OpenMP::OpenMP_CXX)
  endif()
  if(GEMMKIT_WITH_CUDA)
    target_link_libraries(gemmkit_layer_${layer} PRIVATE CUDA::cudart CUDA::cublas)
    target_compile_definitions(gemmkit_layer_${layer} PRIVATE GEMMKIT_WITH_CUDA=1)
  endif()
endfunction()
