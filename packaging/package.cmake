# SPDX-License-Identifier: BSD-3-Clause
# package.cmake — what an installed nlkit holds beyond the library (libnl/install.cmake) and
# the tools (each part's CMakeLists), and the Debian package made of it all; included by the
# top-level CMakeLists after every other install rule, in builds without sanitizers:
#   share/nlkit/syslog-ng     the syslog-ng fragments (syslog-ng.conf.d/README.md)
#   share/nlkit/prometheus    the scrape configuration and the rules (prometheus/README.md)
#   share/nlkit/examples      nl-detect configurations, the library's example programs
#   share/nlkit/alerts        webhook_sink.py, a webhook receiver to try alerts with
#   lib/systemd/system        nl-detect.service, nl-load.service and nl-load.timer
#   share/doc/nlkit           copyright and changelog.gz, as Debian keeps them
# The package:
#   cmake -S . -B build-deb -DCMAKE_BUILD_TYPE=Release -DCMAKE_INSTALL_PREFIX=/usr
#   cmake --build build-deb -j && (cd build-deb && cpack -G DEB)
# It installs under CMAKE_INSTALL_PREFIX (/usr: then the library goes to Debian's multiarch
# directory and pkg-config and man find everything without PKG_CONFIG_PATH or MANPATH).
include(GNUInstallDirs)
set(NLKIT_PKG_DIR ${PROJECT_SOURCE_DIR}/packaging)
set(NLKIT_SHARE ${CMAKE_INSTALL_DATADIR}/nlkit)

install(FILES ${PROJECT_SOURCE_DIR}/syslog-ng.conf.d/nlkit-host.conf
  ${PROJECT_SOURCE_DIR}/syslog-ng.conf.d/nlkit-relay.conf
  ${PROJECT_SOURCE_DIR}/syslog-ng.conf.d/nlkit-central.conf
  ${PROJECT_SOURCE_DIR}/syslog-ng.conf.d/README.md DESTINATION ${NLKIT_SHARE}/syslog-ng)
install(FILES ${PROJECT_SOURCE_DIR}/prometheus/nlkit.rules.yml
  ${PROJECT_SOURCE_DIR}/prometheus/prometheus.yml ${PROJECT_SOURCE_DIR}/prometheus/README.md
  DESTINATION ${NLKIT_SHARE}/prometheus)
install(FILES ${PROJECT_SOURCE_DIR}/detector/examples/demo.conf
  ${PROJECT_SOURCE_DIR}/detector/examples/history.conf
  ${PROJECT_SOURCE_DIR}/examples/fig2_loop.c ${PROJECT_SOURCE_DIR}/examples/gridftp_sim.c
  ${PROJECT_SOURCE_DIR}/examples/xfer.c ${PROJECT_SOURCE_DIR}/examples/flows_rpc.c
  DESTINATION ${NLKIT_SHARE}/examples)
install(FILES ${PROJECT_SOURCE_DIR}/alerts/webhook_sink.py DESTINATION ${NLKIT_SHARE}/alerts)

# the units name the tools and /etc/nlkit by this build's install directories
set(NLKIT_BINDIR ${CMAKE_INSTALL_FULL_BINDIR})
set(NLKIT_SYSCONFDIR ${CMAKE_INSTALL_FULL_SYSCONFDIR})
set(NLKIT_DATADIR ${CMAKE_INSTALL_FULL_DATADIR}/nlkit)
configure_file(${NLKIT_PKG_DIR}/systemd/nl-detect.service.in nl-detect.service @ONLY)
configure_file(${NLKIT_PKG_DIR}/systemd/nl-load.service.in nl-load.service @ONLY)
install(FILES ${CMAKE_CURRENT_BINARY_DIR}/nl-detect.service
  ${CMAKE_CURRENT_BINARY_DIR}/nl-load.service ${NLKIT_PKG_DIR}/systemd/nl-load.timer
  DESTINATION lib/systemd/system)

# Debian's copyright file (the licence with a line on what it covers) and changelog
set(NLKIT_DEB_MAINTAINER "nlkit authors <nlkit@example.org>" CACHE STRING
  "Maintainer of the Debian package (cpack -G DEB)")
file(READ ${PROJECT_SOURCE_DIR}/LICENSE NLKIT_LICENSE_TEXT)
string(TIMESTAMP NLKIT_DEB_DATE "%a, %d %b %Y %H:%M:%S +0000" UTC)
configure_file(${NLKIT_PKG_DIR}/debian/copyright.in copyright @ONLY)
configure_file(${NLKIT_PKG_DIR}/debian/changelog.in changelog @ONLY)
execute_process(COMMAND gzip -9nf changelog WORKING_DIRECTORY ${CMAKE_CURRENT_BINARY_DIR})
install(FILES ${CMAKE_CURRENT_BINARY_DIR}/copyright ${CMAKE_CURRENT_BINARY_DIR}/changelog.gz
  DESTINATION ${CMAKE_INSTALL_DOCDIR})

# cpack -G DEB: one package, nlkit, with its dependencies found by dpkg-shlibdeps and its
# shlibs file made for libnlkit.so.0
set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME nlkit)
set(CPACK_PACKAGE_VENDOR "the nlkit authors")
set(CPACK_PACKAGE_CONTACT ${NLKIT_DEB_MAINTAINER})
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "NetLogger-style event logging with summaries and anomaly detection")
# (cpack puts the summary first: the lines below are the extended description)
set(CPACK_DEBIAN_PACKAGE_DESCRIPTION "libnlkit logs events as name=value lines and summarizes them
in-process; nl-detect finds anomalies and missing ends in them and alerts,
nl-load archives them in SQLite or PostgreSQL, nl-report, nl-peers, nl-flows
and nl-bottleneck read them. With the syslog-ng fragments, Prometheus rules
and systemd units to run them.")
set(CPACK_PACKAGING_INSTALL_PREFIX ${CMAKE_INSTALL_PREFIX})
set(CPACK_SET_DESTDIR ON) # install-time rules (nlkit.pc) see the real prefix
set(CPACK_STRIP_FILES ON)
set(CPACK_RESOURCE_FILE_LICENSE ${PROJECT_SOURCE_DIR}/LICENSE)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SECTION utils)
set(CPACK_DEBIAN_PACKAGE_PRIORITY optional)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
set(CPACK_DEBIAN_PACKAGE_GENERATE_SHLIBS ON)
set(CPACK_DEBIAN_PACKAGE_CONTROL_STRICT_PERMISSION ON)
# the ldconfig trigger Debian's policy asks of a shared library (cpack's own postinst and
# postrm call ldconfig too, which lintian only warns of)
set(CPACK_DEBIAN_PACKAGE_CONTROL_EXTRA ${NLKIT_PKG_DIR}/debian/triggers)
# man pages gzipped, as Debian's policy wants, after the install into the staging tree
configure_file(${NLKIT_PKG_DIR}/deb_tidy.cmake.in deb_tidy.cmake @ONLY)
set(CPACK_PRE_BUILD_SCRIPTS ${CMAKE_CURRENT_BINARY_DIR}/deb_tidy.cmake)
include(CPack)
