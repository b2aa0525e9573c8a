# cuda_archs.cmake - which GPU architectures the CUDA engine is compiled for.
# Each architecture costs a full compile of every kernel (three took about 7
# minutes for `pip install .`), so `pip install .` builds for this machine's
# GPUs only ("native", pyproject.toml) and plain CMake builds keep the
# portable list.  OC_CUDA_ARCHS holds:
#   a list such as "80;90;100"  SASS for each, PTX of the highest (cuda.cmake)
#   native                      the architectures of this machine's GPUs, asked of
#                               nvidia-smi; the portable list where none answers
#                               (no GPU, no driver: CI), so a build never fails for it
#   all                         the portable list, OC_CUDA_ARCHS_PORTABLE
# oc_resolve_cuda_archs(out) sets `out` to the list.  Also a script, for the
# test: cmake -DOC_CUDA_ARCHS=native -P cmake/cuda_archs.cmake prints
# "archs: <list>" (OC_NVIDIA_SMI names the nvidia-smi to ask, if not on PATH).
set(OC_CUDA_ARCHS_PORTABLE 80 90 100)

function(oc_resolve_cuda_archs out)
  set(archs "${OC_CUDA_ARCHS}")
  if(archs STREQUAL "all")
    set(archs ${OC_CUDA_ARCHS_PORTABLE})
  elseif(archs STREQUAL "native")
    set(archs "")
    if(OC_NVIDIA_SMI)
      set(smi "${OC_NVIDIA_SMI}")
    else()
      find_program(smi nvidia-smi NO_CACHE) # (a variable set, even to "", skips the search)
    endif()
    if(smi)
      execute_process(COMMAND ${smi} --query-gpu=compute_cap --format=csv,noheader
        OUTPUT_VARIABLE caps RESULT_VARIABLE rc ERROR_QUIET TIMEOUT 30)
      if(rc EQUAL 0)
        # one "major.minor" line per GPU: 9.0 -> 90, 10.0 -> 100, 8.6 -> 86
        string(REGEX MATCHALL "[0-9]+\\.[0-9]+" caps "${caps}")
        foreach(c IN LISTS caps)
          string(REPLACE "." "" c "${c}")
          list(APPEND archs ${c})
        endforeach()
        list(REMOVE_DUPLICATES archs)
        list(SORT archs COMPARE NATURAL)
      endif()
    endif()
    if(archs)
      message(STATUS "opencomp: CUDA architectures of this machine's GPUs (OC_CUDA_ARCHS=native): ${archs}")
    else()
      set(archs ${OC_CUDA_ARCHS_PORTABLE})
      message(STATUS "opencomp: OC_CUDA_ARCHS=native but no GPU answered nvidia-smi: the portable list ${archs}")
    endif()
  endif()
  if(NOT archs MATCHES "^[0-9]+[af]?(;[0-9]+[af]?)*$")
    message(FATAL_ERROR "OC_CUDA_ARCHS='${OC_CUDA_ARCHS}': expected native, all, or a list of architectures "
      "such as 80;90;100")
  endif()
  set(${out} "${archs}" PARENT_SCOPE)
endfunction()

if(CMAKE_SCRIPT_MODE_FILE STREQUAL CMAKE_CURRENT_LIST_FILE)
  oc_resolve_cuda_archs(_oc_archs)
  message("archs: ${_oc_archs}")
endif()
