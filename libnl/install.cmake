# SPDX-License-Identifier: BSD-3-Clause
# install.cmake — libnlkit for programs outside this tree, included by the top-level
# CMakeLists:
#   libnlkit.so.0 (the same objects as libnlkit.a, exporting only nl_[a-z]* through
#   nlkit.map),
#   libnlkit.a, include/nlkit/*.h, nlkit.pc and the CMake package nlkit::nlkit.
# Not under sanitizers: their runtimes do not belong in an installed library.
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

set(NLKIT_DIR ${PROJECT_SOURCE_DIR}/libnl)
add_library(nlkit_shared SHARED ${NLKIT_OBJECTS})
set_target_properties(nlkit_shared PROPERTIES OUTPUT_NAME nlkit EXPORT_NAME nlkit
  VERSION ${PROJECT_VERSION} SOVERSION 0)
target_include_directories(nlkit_shared
  PUBLIC $<BUILD_INTERFACE:${PROJECT_SOURCE_DIR}/include> $<BUILD_INTERFACE:${PROJECT_BINARY_DIR}/include>
         $<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}>)
set_target_properties(nlkit_shared PROPERTIES LINKER_LANGUAGE C)
target_link_libraries(nlkit_shared PUBLIC Threads::Threads m PRIVATE PkgConfig::UUID)
target_link_options(nlkit_shared PRIVATE -Wl,--version-script=${NLKIT_DIR}/nlkit.map
  -Wl,--no-undefined)
set_property(TARGET nlkit_shared APPEND PROPERTY LINK_DEPENDS ${NLKIT_DIR}/nlkit.map)

install(TARGETS nlkit_shared EXPORT nlkitTargets
  LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
  INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(FILES $<TARGET_FILE:nlkit> DESTINATION ${CMAKE_INSTALL_LIBDIR})
install(DIRECTORY ${PROJECT_SOURCE_DIR}/include/nlkit DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}
  PATTERN "*.in" EXCLUDE)
install(FILES ${PROJECT_BINARY_DIR}/include/nlkit/nl_version.h
  DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/nlkit)

set(NLKIT_CMAKE_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/nlkit)
install(EXPORT nlkitTargets NAMESPACE nlkit:: DESTINATION ${NLKIT_CMAKE_DIR})
configure_package_config_file(${NLKIT_DIR}/nlkitConfig.cmake.in
  ${CMAKE_CURRENT_BINARY_DIR}/nlkitConfig.cmake INSTALL_DESTINATION ${NLKIT_CMAKE_DIR})
write_basic_package_version_file(${CMAKE_CURRENT_BINARY_DIR}/nlkitConfigVersion.cmake
  COMPATIBILITY SameMajorVersion)
install(FILES ${CMAKE_CURRENT_BINARY_DIR}/nlkitConfig.cmake
  ${CMAKE_CURRENT_BINARY_DIR}/nlkitConfigVersion.cmake DESTINATION ${NLKIT_CMAKE_DIR})

# pkg-config: written at install time (nlkit_pc.cmake) with the prefix installed to, so
# that `cmake --install --prefix P` and cpack's /usr both give plain absolute paths
install(CODE "set(NLKIT_PC_IN \"${NLKIT_DIR}/nlkit.pc.in\")
  set(NLKIT_PC_LIBDIR \"${CMAKE_INSTALL_LIBDIR}\")
  set(NLKIT_PC_INCLUDEDIR \"${CMAKE_INSTALL_INCLUDEDIR}\")
  set(PROJECT_VERSION \"${PROJECT_VERSION}\")
  include(\"${NLKIT_DIR}/nlkit_pc.cmake\")")

# lnav (a log viewer many already use): the nlkit format and the views for lnav 0.11;
# `lnav -i` installs them for a user (lnav/README.md)
install(FILES ${PROJECT_SOURCE_DIR}/lnav/nlkit_log.json ${PROJECT_SOURCE_DIR}/lnav/nlkit.sql
        DESTINATION ${CMAKE_INSTALL_DATADIR}/nlkit/lnav)

# Library man pages; every other function documented on a page is a link to it
install(FILES ${NLKIT_DIR}/man/nl_open.3 ${NLKIT_DIR}/man/nl_write.3
        ${NLKIT_DIR}/man/nl_summarize.3 ${NLKIT_DIR}/man/nl_stats.3
        ${NLKIT_DIR}/man/nl_traceparent.3 DESTINATION ${CMAKE_INSTALL_MANDIR}/man3)
set(NLKIT_MAN_LINKS
  "nl_open:nl_open_ex nl_open_strerror nl_strerror nl_flush nl_close"
  "nl_write:nl_writel nl_write_line"
  "nl_summarize:nl_summary_file nl_pair nl_pair_start nl_pair_end"
  "nl_stats:nl_dropped nl_is_active nl_set_level nl_get_level nl_level_file nl_const_set nl_const_std nl_guid nl_guid_new nl_set_guid"
  "nl_traceparent:nl_set_traceparent")
foreach(entry IN LISTS NLKIT_MAN_LINKS)
  string(REPLACE ":" ";" parts "${entry}")
  list(GET parts 0 page)
  list(GET parts 1 names)
  string(REPLACE " " ";" names "${names}")
  foreach(name IN LISTS names)
    install(CODE "file(CREATE_LINK ${page}.3
      \"\$ENV{DESTDIR}\${CMAKE_INSTALL_PREFIX}/${CMAKE_INSTALL_MANDIR}/man3/${name}.3\" SYMBOLIC)")
  endforeach()
endforeach()
