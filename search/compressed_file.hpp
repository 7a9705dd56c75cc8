// The text of a file that may be gzip-compressed (a name ending in .gz), so
// that recordings and Kernel Tuner cache files are read as they are shipped.
#pragma once

#include <filesystem>
#include <string>

namespace ktune {

/// The file's bytes; a name ending in ".gz" is decompressed by the system's
/// gzip (`gzip -dc`, an essential tool on every Debian system; no library is
/// linked). Throws std::invalid_argument naming the file when it cannot be
/// opened or does not decompress.
std::string read_possibly_gzipped(const std::filesystem::path& path);

}  // namespace ktune
