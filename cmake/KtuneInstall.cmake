# Install rules and the CMake package (find_package(ktune)): headers under
# include/ktune, libraries, the ktune binary, the shipped database and the
# templates under share/ktune. Included after every room, so the package
# exports whatever the rooms put in the ktuneTargets export set (ktune::db
# here; ktune::runtime from runtime/ when it is built).
include(CMakePackageConfigHelpers)

set(KTUNE_INSTALL_CMAKEDIR ${CMAKE_INSTALL_LIBDIR}/cmake/ktune)
set(KTUNE_INSTALL_HEADERS ${CMAKE_INSTALL_INCLUDEDIR}/ktune)

# ktune::db, CUDA-free: the store and the runtime lookup with the value types
# they speak. The headers that name SQLiteCpp (schema, store_impl) stay inside.
install(TARGETS ktune_values ktune_db EXPORT ktuneTargets
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
        LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR})
install(FILES space/value.hpp space/value_map.hpp space/result.hpp space/device_spec.hpp
        DESTINATION ${KTUNE_INSTALL_HEADERS}/space)
install(DIRECTORY db/ DESTINATION ${KTUNE_INSTALL_HEADERS}/db
        FILES_MATCHING PATTERN "*.hpp" PATTERN "schema.hpp" EXCLUDE PATTERN "store_impl.hpp" EXCLUDE)

if(TARGET ktune)
  install(TARGETS ktune RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
  # Where an installed ktune looks: share/ktune beside bin/ (cli/db_paths.hpp,
  # compile/compiler.cpp).
  install(FILES ${PROJECT_SOURCE_DIR}/tuning_db/ktune.db DESTINATION ${CMAKE_INSTALL_DATADIR}/ktune)
  install(DIRECTORY kernels_templated/ DESTINATION ${CMAKE_INSTALL_DATADIR}/ktune/kernels_templated
          FILES_MATCHING PATTERN "*.cuh" PATTERN "*.h" PATTERN "*.hpp")
endif()

# The package needs CUDA only where the runtime component is installed.
if(TARGET ktune_runtime)
  set(KTUNE_PACKAGE_NEEDS_CUDA ON)
else()
  set(KTUNE_PACKAGE_NEEDS_CUDA OFF)
endif()

install(EXPORT ktuneTargets NAMESPACE ktune:: DESTINATION ${KTUNE_INSTALL_CMAKEDIR})
configure_package_config_file(${CMAKE_CURRENT_LIST_DIR}/ktuneConfig.cmake.in
                              ${CMAKE_CURRENT_BINARY_DIR}/ktuneConfig.cmake
                              INSTALL_DESTINATION ${KTUNE_INSTALL_CMAKEDIR})
write_basic_package_version_file(${CMAKE_CURRENT_BINARY_DIR}/ktuneConfigVersion.cmake
                                 VERSION ${PROJECT_VERSION} COMPATIBILITY SameMinorVersion)
install(FILES ${CMAKE_CURRENT_BINARY_DIR}/ktuneConfig.cmake ${CMAKE_CURRENT_BINARY_DIR}/ktuneConfigVersion.cmake
        DESTINATION ${KTUNE_INSTALL_CMAKEDIR})
