# SPDX-License-Identifier: BSD-3-Clause
# nlkit_pc.cmake — writes nlkit.pc during `cmake --install` or cpack (install.cmake's
# install(CODE) sets NLKIT_PC_IN, NLKIT_PC_LIBDIR, NLKIT_PC_INCLUDEDIR, PROJECT_VERSION).
# At install time CMAKE_INSTALL_PREFIX is the prefix installed to, so the file holds plain
# absolute paths (/usr/include, not /usr/lib/pkgconfig/../../include) for any --prefix, and
# the run path only outside /usr, where the loader would not look.
string(REGEX REPLACE "(.)/+$" "\\1" NLKIT_PC_PREFIX "${CMAKE_INSTALL_PREFIX}")
foreach(dir LIBDIR INCLUDEDIR)
  if(IS_ABSOLUTE "${NLKIT_PC_${dir}}")
    set(NLKIT_PC_${dir}_PC "${NLKIT_PC_${dir}}")
  else()
    set(NLKIT_PC_${dir}_PC "\${prefix}/${NLKIT_PC_${dir}}")
  endif()
endforeach()
if(NLKIT_PC_PREFIX STREQUAL "/usr")
  set(NLKIT_PC_RPATH "")
else()
  set(NLKIT_PC_RPATH "-Wl,-rpath,\${libdir} ")
endif()
if(IS_ABSOLUTE "${NLKIT_PC_LIBDIR}")
  set(pc "$ENV{DESTDIR}${NLKIT_PC_LIBDIR}/pkgconfig/nlkit.pc")
else()
  set(pc "$ENV{DESTDIR}${NLKIT_PC_PREFIX}/${NLKIT_PC_LIBDIR}/pkgconfig/nlkit.pc")
endif()
message(STATUS "Installing: ${pc}")
configure_file("${NLKIT_PC_IN}" "${pc}" @ONLY)
