#ifndef TINE_CORE_VERSION_HPP
#define TINE_CORE_VERSION_HPP

/// \file version.hpp
/// tine's version, the one source of it: CMakeLists.txt reads it from here (and generates tine.pc
/// and tineConfigVersion.cmake from it), tools/release.sh names the archive after it and refuses
/// to run when MODULE.bazel says otherwise.

/// The major version: incremented for changes that break users' code.
#define TINE_VERSION_MAJOR 0
/// The minor version.
#define TINE_VERSION_MINOR 1
/// The patch version.
#define TINE_VERSION_PATCH 0
/// One integer to compare against: major * 10000 + minor * 100 + patch.
#define TINE_VERSION (TINE_VERSION_MAJOR * 10000 + TINE_VERSION_MINOR * 100 + TINE_VERSION_PATCH)
/// The version as text, "MAJOR.MINOR.PATCH".
#define TINE_VERSION_STRING "0.1.0"

namespace tine {

/// The version as numbers, for code that prefers values to macros.
struct version_info {
  int major;  ///< TINE_VERSION_MAJOR
  int minor;  ///< TINE_VERSION_MINOR
  int patch;  ///< TINE_VERSION_PATCH
};

/// This version of tine.
inline constexpr version_info version{TINE_VERSION_MAJOR, TINE_VERSION_MINOR, TINE_VERSION_PATCH};

}  // namespace tine

#endif  // TINE_CORE_VERSION_HPP
