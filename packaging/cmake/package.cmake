# Writes ppgConfig.cmake and ppgConfigVersion.cmake into OUT (scripts/dist.d/10-c.sh):
#   cmake -DPPG_VERSION=0.2.0 -DPPG_SONAME=libppg.so.0.2 -DOUT=dir -P packaging/cmake/package.cmake
# A request for 0.x accepts 0.x.y only (in 0.x each minor version breaks the ABI, as the
# SONAME says), for x >= 1 the same major; a 64-bit project only.
cmake_minimum_required(VERSION 3.16)
foreach(var PPG_VERSION PPG_SONAME OUT)
  if(NOT DEFINED ${var})
    message(FATAL_ERROR "package.cmake: -D${var}=... is required")
  endif()
endforeach()
include(CMakePackageConfigHelpers)
configure_file("${CMAKE_CURRENT_LIST_DIR}/ppgConfig.cmake.in" "${OUT}/ppgConfig.cmake" @ONLY)
if(PPG_VERSION MATCHES "^0\\.")
  set(compatibility SameMinorVersion)
else()
  set(compatibility SameMajorVersion)
endif()
set(CMAKE_SIZEOF_VOID_P 8)
write_basic_package_version_file("${OUT}/ppgConfigVersion.cmake"
  VERSION "${PPG_VERSION}" COMPATIBILITY ${compatibility})
