# cuda.cmake - the CUDA engine: every .cu under src/cuda/ (runtime/, codecs/<algo>/, container/), cudart linked
# statically so the library loads on machines with no GPU or driver.
enable_language(CUDA)
set(CMAKE_CUDA_STANDARD 17)
find_package(CUDAToolkit REQUIRED)
file(GLOB_RECURSE OC_CUDA_SOURCES CONFIGURE_DEPENDS ${CMAKE_CURRENT_SOURCE_DIR}/src/cuda/*.cu)
if(NOT OC_CUDA_SOURCES)
  message(FATAL_ERROR "OC_WITH_CUDA is on but src/cuda has no .cu files")
endif()
# SASS for each architecture of OC_CUDA_ARCHS (native and all resolved by
# cuda_archs.cmake), PTX for the highest.
include(${CMAKE_CURRENT_LIST_DIR}/cuda_archs.cmake)
oc_resolve_cuda_archs(OC_CUDA_ARCHS_RESOLVED)
list(GET OC_CUDA_ARCHS_RESOLVED -1 OC_CUDA_PTX_ARCH)
set(OC_CUDA_ARCH_LIST "")
foreach(a ${OC_CUDA_ARCHS_RESOLVED})
  list(APPEND OC_CUDA_ARCH_LIST "${a}-real")
endforeach()
list(APPEND OC_CUDA_ARCH_LIST "${OC_CUDA_PTX_ARCH}-virtual")
list(APPEND OC_SOURCES ${OC_CUDA_SOURCES})

function(oc_add_cuda_engine target)
  set_target_properties(${target} PROPERTIES CUDA_ARCHITECTURES "${OC_CUDA_ARCH_LIST}"
    CUDA_SEPARABLE_COMPILATION OFF CUDA_RUNTIME_LIBRARY Static)
  string(REPLACE ";" ",sm_" _oc_arch_str "sm_${OC_CUDA_ARCHS_RESOLVED}")
  target_compile_definitions(${target} PRIVATE OC_WITH_CUDA=1 "OC_CUDA_ARCH_STRING=\"${_oc_arch_str}\"")
  target_compile_options(${target} PRIVATE $<$<COMPILE_LANGUAGE:CUDA>:-Werror=all-warnings --expt-relaxed-constexpr -lineinfo>)
  target_link_libraries(${target} PUBLIC CUDA::cudart_static)
  # nvcc's host code (kernel registration, function-local statics) needs the
  # C++ runtime: a C program linking the static library must link it too.
  target_link_libraries(${target} INTERFACE stdc++)
endfunction()

function(oc_link_cuda_runtime target)
  target_link_libraries(${target} PRIVATE CUDA::cudart_static)
endfunction()
