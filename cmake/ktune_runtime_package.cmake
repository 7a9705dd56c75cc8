# The ktune package (ktuneTargets export, ktuneConfig.cmake, version file),
# minimal, kept apart so the top-level install can replace it: included from
# runtime/CMakeLists.txt.
include(CMakePackageConfigHelpers)
set(KTUNE_CMAKE_INSTALL_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/ktune)
install(EXPORT ktuneTargets NAMESPACE ktune:: DESTINATION ${KTUNE_CMAKE_INSTALL_DIR} COMPONENT ktune_runtime)
configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/ktuneConfig.cmake.in
                              ${CMAKE_BINARY_DIR}/package/ktuneConfig.cmake INSTALL_DESTINATION ${KTUNE_CMAKE_INSTALL_DIR})
write_basic_package_version_file(${CMAKE_BINARY_DIR}/package/ktuneConfigVersion.cmake
                                 VERSION ${PROJECT_VERSION} COMPATIBILITY SameMinorVersion)
install(FILES ${CMAKE_BINARY_DIR}/package/ktuneConfig.cmake ${CMAKE_BINARY_DIR}/package/ktuneConfigVersion.cmake
        DESTINATION ${KTUNE_CMAKE_INSTALL_DIR} COMPONENT ktune_runtime)
