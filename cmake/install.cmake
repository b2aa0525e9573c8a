# install.cmake - what `cmake --install` puts under the prefix, as libzstd and
# libdeflate do: include/opencomp.h; lib/libopencomp.a and libopencomp.so
# (SONAME libopencomp.so.<OC_SOVERSION>); bin/opencomp; the CMake package
# (opencompConfig.cmake, opencompConfigVersion.cmake, opencompTargets.cmake:
# targets opencomp::opencomp, opencomp::opencomp_static and, with the shared
# library, opencomp::opencomp_shared); and lib/pkgconfig/opencomp.pc.  Both
# the package and the .pc file find the prefix from where they lie, so the
# tree may be installed anywhere (`cmake --install build --prefix DIR`) and
# moved.  tests/package/test_install.sh builds a consumer against it.
include(CMakePackageConfigHelpers)

set(OC_CMAKE_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/opencomp)
set(_oc_targets opencomp_static)
if(TARGET opencomp)
  list(APPEND _oc_targets opencomp)
endif()
install(TARGETS ${_oc_targets} EXPORT opencompTargets
  ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
  LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR} NAMELINK_COMPONENT Development
  RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR}
  INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(FILES ${PROJECT_SOURCE_DIR}/include/opencomp.h DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(FILES ${PROJECT_SOURCE_DIR}/LICENSE DESTINATION ${CMAKE_INSTALL_DATADIR}/doc/opencomp)
if(TARGET opencomp_cli)
  install(TARGETS opencomp_cli RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
endif()
install(EXPORT opencompTargets NAMESPACE opencomp:: DESTINATION ${OC_CMAKE_DIR})

set(OC_CONFIG_CUDA ${OC_CUDA_ENABLED})
configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/opencompConfig.cmake.in
  ${PROJECT_BINARY_DIR}/opencompConfig.cmake INSTALL_DESTINATION ${OC_CMAKE_DIR})
# 0.x: a minor release may change the API, so only the same major.minor matches.
write_basic_package_version_file(${PROJECT_BINARY_DIR}/opencompConfigVersion.cmake
  VERSION ${PROJECT_VERSION} COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/opencompConfig.cmake ${PROJECT_BINARY_DIR}/opencompConfigVersion.cmake
  DESTINATION ${OC_CMAKE_DIR})

# opencomp.pc: prefix relative to the .pc file's own folder (pkg-config's
# ${pcfiledir}), so an installed tree can be moved.  Libs.private lists what
# a static link needs (pkg-config --static).
file(RELATIVE_PATH OC_PC_TO_PREFIX "/oc/${CMAKE_INSTALL_LIBDIR}/pkgconfig" "/oc")
string(REGEX REPLACE "/$" "" OC_PC_TO_PREFIX "${OC_PC_TO_PREFIX}")
set(OC_PC_LIBS_PRIVATE "")
foreach(_lib ${OC_REFERENCE_LIB_NAMES} z)
  string(APPEND OC_PC_LIBS_PRIVATE " -l${_lib}")
endforeach()
if(OC_CUDA_ENABLED)
  string(APPEND OC_PC_LIBS_PRIVATE " -L${CUDAToolkit_LIBRARY_DIR} -lcudart_static -ldl -lrt -lstdc++")
endif()
string(APPEND OC_PC_LIBS_PRIVATE " -pthread -lm")
configure_file(${PROJECT_SOURCE_DIR}/cmake/opencomp.pc.in ${PROJECT_BINARY_DIR}/opencomp.pc @ONLY)
install(FILES ${PROJECT_BINARY_DIR}/opencomp.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
