// Compiler: NVRTC compilation of KernelSources to cubins, ptxas resource
// parsing, the on-disk compile cache and parallel batches.
#include "compile/compiler.hpp"

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <mutex>
#include <regex>
#include <set>
#include <sstream>
#include <stdexcept>
#include <thread>

#include <nvrtc.h>
#include <tbb/parallel_for.h>
#include <nlohmann/json.hpp>

#include "db/cache_dir.hpp"
#include "space/value_map.hpp"

#ifndef KTUNE_KERNEL_DIR
#define KTUNE_KERNEL_DIR ""
#endif
#ifndef KTUNE_CUDA_INCLUDE_DIR
#define KTUNE_CUDA_INCLUDE_DIR ""
#endif

namespace fs = std::filesystem;

namespace ktune {
namespace {

// Bumped whenever the cache file layout or the key's ingredients change, so
// that old entries are never misread.
constexpr std::string_view kCacheFormat = "ktune-compile-cache-v1";
constexpr std::string_view kCacheMagic = "KTCUBIN1";

std::string getenv_or_empty(const char* name) {
  const char* v = std::getenv(name);
  return v ? std::string(v) : std::string();
}

bool read_file(const fs::path& path, std::string& out) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return false;
  std::ostringstream ss;
  ss << in.rdbuf();
  out = std::move(ss).str();
  return static_cast<bool>(in) || in.eof();
}

bool looks_like_kernel_dir(const fs::path& dir) {
  std::error_code ec;
  return fs::is_regular_file(dir / "family.hpp", ec);
}

// The first entry of a ';'-separated CMake list that holds cuda_runtime.h.
std::string first_cuda_include(std::string_view list) {
  std::string fallback;
  std::size_t start = 0;
  while (start <= list.size()) {
    std::size_t end = list.find(';', start);
    if (end == std::string_view::npos) end = list.size();
    std::string entry(list.substr(start, end - start));
    std::error_code ec;
    if (!entry.empty() && fs::is_regular_file(fs::path(entry) / "cuda_runtime.h", ec)) return entry;
    if (fallback.empty()) fallback = entry;
    start = end + 1;
  }
  return fallback;
}

// Where cuda_runtime.h and cccl/ live at run time: $CUDA_HOME/include (or
// $CUDA_PATH), else the toolkit we were built against, else the usual place.
std::string cuda_include_dir() {
  static const std::string dir = [] {
    for (const char* var : {"CUDA_HOME", "CUDA_PATH"}) {
      std::string home = getenv_or_empty(var);
      std::error_code ec;
      if (!home.empty() && fs::is_regular_file(fs::path(home) / "include" / "cuda_runtime.h", ec))
        return (fs::path(home) / "include").string();
    }
    std::string built = first_cuda_include(KTUNE_CUDA_INCLUDE_DIR);
    std::error_code ec;
    if (!built.empty() && fs::is_regular_file(fs::path(built) / "cuda_runtime.h", ec)) return built;
    if (fs::is_regular_file("/usr/local/cuda/include/cuda_runtime.h", ec))
      return std::string("/usr/local/cuda/include");
    return built;
  }();
  return dir;
}

std::string nvrtc_version_text() {
  int major = 0, minor = 0;
  if (nvrtcVersion(&major, &minor) != NVRTC_SUCCESS)
    throw std::runtime_error("NVRTC is unusable: nvrtcVersion failed");
  return std::to_string(major) + "." + std::to_string(minor);
}

// NVRTC's automatic precompiled header (CUDA 12.8+). Every candidate of a
// family includes the same headers (the templates, <cuda/ptx>) and differs
// only in what it instantiates after them, and parsing those headers is most
// of a candidate's compile: with the header parsed once per process, a wgmma
// candidate compiles about 40% faster. The PCH lives in NVRTC's in-process
// heap (no files); if it does not fit there NVRTC compiles without it. The
// code is the same with or without it (CompilerPch test), so these options
// stay out of the cache key and a cache built either way serves both.
bool nvrtc_has_automatic_pch() {
  static const bool has = [] {
    int major = 0, minor = 0;
    return nvrtcVersion(&major, &minor) == NVRTC_SUCCESS &&
           (major > 12 || (major == 12 && minor >= 8));
  }();
  return has;
}
std::vector<std::string> precompiled_header_options(const CompilerOptions& options) {
  if (!options.precompiled_headers || !nvrtc_has_automatic_pch()) return {};
  // Without the two message flags NVRTC notes every PCH it makes or skips in
  // the log that also carries ptxas's register report.
  return {"--pch", "--pch-messages=false", "--pch-verbose=false"};
}

// Hash of every *.cuh / *.h under the kernel directory (paths and text): a
// template edit anywhere must invalidate cached cubins that might include it.
// Computed once per process and directory.
std::string templates_hash(const std::string& kernel_dir) {
  static std::mutex mutex;
  static std::map<std::string, std::string> memo;
  std::lock_guard lock(mutex);
  if (auto it = memo.find(kernel_dir); it != memo.end()) return it->second;
  std::vector<fs::path> files;
  std::error_code ec;
  if (fs::is_directory(kernel_dir, ec)) {
    for (auto it = fs::recursive_directory_iterator(kernel_dir, ec);
         !ec && it != fs::recursive_directory_iterator(); it.increment(ec)) {
      if (!it->is_regular_file(ec)) continue;
      auto ext = it->path().extension();
      // .hpp too: NVRTC code includes some (gemm_wgmma_types.hpp), and a
      // cached cubin must not outlive a change to anything it may include.
      if (ext == ".cuh" || ext == ".h" || ext == ".hpp") files.push_back(it->path());
    }
  }
  std::sort(files.begin(), files.end());
  std::uint64_t h = stable_hash("templates");
  std::string text;
  for (const auto& f : files) {
    h = stable_hash(fs::relative(f, kernel_dir, ec).generic_string(), h);
    h = stable_hash(std::string_view("\0", 1), h);
    if (read_file(f, text)) h = stable_hash(text, h);
    h = stable_hash(std::string_view("\0", 1), h);
  }
  char buf[17];
  std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(h));
  return memo[kernel_dir] = buf;
}

// 128 bits from two differently seeded FNV-1a passes over the same text.
std::string hash128_hex(std::string_view text) {
  char buf[33];
  std::snprintf(buf, sizeof buf, "%016llx%016llx",
                static_cast<unsigned long long>(stable_hash(text)),
                static_cast<unsigned long long>(stable_hash(text, 0x84222325cbf29ce4ULL)));
  return buf;
}

// ---- ptxas -v report ----------------------------------------------------

struct PtxasEntry {
  int registers = 0;
  int spill_store_bytes = 0;
  int spill_load_bytes = 0;
  int stack_frame_bytes = 0;
  int static_smem_bytes = 0;
};

// Reads ptxas' verbose report, function by function. The lines look like
//   ptxas info    : Compiling entry function '_Z3fooPf' for 'sm_90a'
//   ptxas info    : Function properties for _Z3fooPf
//       8 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
//   ptxas info    : Used 12 registers, used 1 barriers, 4096 bytes smem, 368 bytes cmem[0]
std::map<std::string, PtxasEntry> parse_ptxas_report(const std::string& log) {
  static const std::regex entry_re(R"(Compiling entry function '([^']+)')");
  static const std::regex props_re(R"(Function properties for ([^\s]+))");
  static const std::regex stack_re(
      R"((\d+) bytes stack frame, (\d+) bytes spill stores, (\d+) bytes spill loads)");
  static const std::regex regs_re(R"(Used (\d+) registers)");
  static const std::regex smem_re(R"((\d+) bytes smem)");
  std::map<std::string, PtxasEntry> out;
  std::string current;
  std::istringstream in(log);
  std::string line;
  std::smatch m;
  while (std::getline(in, line)) {
    if (std::regex_search(line, m, entry_re)) {
      current = m[1];
      out[current];
    } else if (std::regex_search(line, m, props_re)) {
      current = m[1];
    } else if (!current.empty() && std::regex_search(line, m, stack_re)) {
      auto it = out.find(current);
      if (it == out.end()) continue;  // a device function's frame: not a kernel
      it->second.stack_frame_bytes = std::stoi(m[1]);
      it->second.spill_store_bytes = std::stoi(m[2]);
      it->second.spill_load_bytes = std::stoi(m[3]);
    } else if (!current.empty() && std::regex_search(line, m, regs_re)) {
      auto it = out.find(current);
      if (it == out.end()) continue;
      it->second.registers = std::stoi(m[1]);
      if (std::regex_search(line, m, smem_re)) it->second.static_smem_bytes = std::stoi(m[1]);
    }
  }
  return out;
}

// ---- cache files --------------------------------------------------------
// Layout: magic, '\n', header length (decimal), '\n', JSON header, cubin bytes.
// The header carries the cubin's size and hash, so a truncated or altered
// entry is recognised and recompiled rather than loaded.

nlohmann::json resources_to_json(const std::vector<KernelResources>& kernels) {
  nlohmann::json arr = nlohmann::json::array();
  for (const auto& k : kernels)
    arr.push_back({{"name_expression", k.name_expression},
                   {"lowered_name", k.lowered_name},
                   {"registers", k.registers},
                   {"spill_store_bytes", k.spill_store_bytes},
                   {"spill_load_bytes", k.spill_load_bytes},
                   {"stack_frame_bytes", k.stack_frame_bytes},
                   {"static_smem_bytes", k.static_smem_bytes}});
  return arr;
}

std::optional<CompileOutput> read_cache_entry(const fs::path& path, std::string_view key,
                                              std::size_t kernel_count) {
  std::string data;
  if (!read_file(path, data)) return std::nullopt;
  try {
    if (data.compare(0, kCacheMagic.size(), kCacheMagic) != 0) return std::nullopt;
    std::size_t pos = kCacheMagic.size();
    if (pos >= data.size() || data[pos] != '\n') return std::nullopt;
    std::size_t nl = data.find('\n', pos + 1);
    if (nl == std::string::npos) return std::nullopt;
    std::size_t header_len = std::stoull(data.substr(pos + 1, nl - pos - 1));
    if (nl + 1 + header_len > data.size()) return std::nullopt;
    auto header = nlohmann::json::parse(data.substr(nl + 1, header_len));
    std::string_view cubin(data.data() + nl + 1 + header_len, data.size() - nl - 1 - header_len);
    if (header.at("key").get<std::string>() != key) return std::nullopt;
    if (header.at("cubin_size").get<std::size_t>() != cubin.size()) return std::nullopt;
    if (header.at("cubin_hash").get<std::string>() != stable_hash_hex(cubin)) return std::nullopt;
    CompileOutput out;
    out.ok = true;
    out.cache_hit = true;
    out.cubin.assign(cubin.begin(), cubin.end());
    out.log = header.at("log").get<std::string>();
    out.arch = header.value("arch", "");
    for (const auto& k : header.at("kernels")) {
      KernelResources r;
      r.name_expression = k.at("name_expression").get<std::string>();
      r.lowered_name = k.at("lowered_name").get<std::string>();
      r.registers = k.at("registers").get<int>();
      r.spill_store_bytes = k.at("spill_store_bytes").get<int>();
      r.spill_load_bytes = k.at("spill_load_bytes").get<int>();
      r.stack_frame_bytes = k.at("stack_frame_bytes").get<int>();
      r.static_smem_bytes = k.at("static_smem_bytes").get<int>();
      out.kernels.push_back(std::move(r));
    }
    if (out.kernels.size() != kernel_count || out.cubin.empty()) return std::nullopt;
    return out;
  } catch (const std::exception&) {
    return std::nullopt;  // corrupt entry: recompile and overwrite
  }
}

// Atomic: a reader sees either no entry or a complete one, never a torn file,
// even with several processes sharing the cache.
void write_cache_entry(const fs::path& dir, const fs::path& path, std::string_view key,
                       const CompileOutput& out) {
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) return;  // an unwritable cache only costs time
  nlohmann::json header = {{"key", key},
                           {"cubin_size", out.cubin.size()},
                           {"cubin_hash", stable_hash_hex({out.cubin.data(), out.cubin.size()})},
                           {"arch", out.arch},
                           {"log", out.log},
                           {"kernels", resources_to_json(out.kernels)}};
  std::string head = header.dump();
  static std::atomic<unsigned> counter{0};
  fs::path tmp = dir / (path.filename().string() + ".tmp." + std::to_string(::getpid()) + "." +
                        std::to_string(counter++));
  {
    std::ofstream f(tmp, std::ios::binary | std::ios::trunc);
    if (!f) return;
    f << kCacheMagic << '\n' << head.size() << '\n' << head;
    f.write(out.cubin.data(), static_cast<std::streamsize>(out.cubin.size()));
    if (!f) {
      f.close();
      fs::remove(tmp, ec);
      return;
    }
  }
  fs::rename(tmp, path, ec);
  if (ec) fs::remove(tmp, ec);
}

struct ProgramGuard {
  nvrtcProgram prog = nullptr;
  ~ProgramGuard() {
    if (prog) nvrtcDestroyProgram(&prog);
  }
};

std::string program_log(nvrtcProgram prog) {
  std::size_t size = 0;
  if (nvrtcGetProgramLogSize(prog, &size) != NVRTC_SUCCESS || size <= 1) return {};
  std::string log(size, '\0');
  if (nvrtcGetProgramLog(prog, log.data()) != NVRTC_SUCCESS) return {};
  while (!log.empty() && log.back() == '\0') log.pop_back();
  return log;
}

std::string effective_arch(const CompilerOptions& options, const KernelSource& source) {
  std::string arch = options.arch.empty() ? std::string("sm_90a") : options.arch;
  // wgmma / setmaxnreg exist only in the arch-specific target.
  if (source.needs_arch_specific && arch.back() != 'a') arch += 'a';
  return arch;
}

std::vector<std::string> nvrtc_options(const CompilerOptions& options, const KernelSource& source,
                                       const std::string& arch, const std::string& kernel_dir) {
  // --no-source-include: NVRTC otherwise searches the directory of the
  // program, which for an in-memory program is the process' working
  // directory, before -I. Run from a checkout, that compiled the checkout's
  // kernels_templated instead of kernel_dir(), while the results were stored
  // under kernel_dir()'s templates hash.
  std::vector<std::string> opts = {"--gpu-architecture=" + arch, "-std=c++17", "-default-device",
                                   "--ptxas-options=-v", "--no-source-include"};
  fs::path root = fs::path(kernel_dir).parent_path();
  if (!kernel_dir.empty()) opts.push_back("-I" + root.string());
  std::string cuda_inc = cuda_include_dir();
  if (!cuda_inc.empty()) {
    opts.push_back("-I" + cuda_inc);
    opts.push_back("-I" + (fs::path(cuda_inc) / "cccl").string());
  }
  opts.insert(opts.end(), source.options.begin(), source.options.end());
  opts.insert(opts.end(), options.extra.begin(), options.extra.end());
  return opts;
}

// `front_end_only`: the options hold -fdevice-syntax-only; no cubin to read.
CompileOutput compile_uncached(const KernelSource& source, const std::vector<std::string>& opts,
                               const std::string& arch, bool front_end_only = false) {
  using clock = std::chrono::steady_clock;
  auto start = clock::now();
  CompileOutput out;
  out.arch = arch;
  ProgramGuard guard;
  const char* name = source.program_name.empty() ? "kernel.cu" : source.program_name.c_str();
  nvrtcResult rc =
      nvrtcCreateProgram(&guard.prog, source.source.c_str(), name, 0, nullptr, nullptr);
  if (rc != NVRTC_SUCCESS) {
    out.log = std::string("nvrtcCreateProgram failed: ") + nvrtcGetErrorString(rc);
    return out;
  }
  for (const auto& k : source.kernels) {
    rc = nvrtcAddNameExpression(guard.prog, k.c_str());
    if (rc != NVRTC_SUCCESS) {
      out.log = "nvrtcAddNameExpression(" + k + ") failed: " + nvrtcGetErrorString(rc);
      return out;
    }
  }
  std::vector<const char*> argv;
  argv.reserve(opts.size());
  for (const auto& o : opts) argv.push_back(o.c_str());
  rc = nvrtcCompileProgram(guard.prog, static_cast<int>(argv.size()), argv.data());
  out.log = program_log(guard.prog);
  if (rc != NVRTC_SUCCESS) {
    out.log = std::string(nvrtcGetErrorString(rc)) + "\n" + out.log;
    out.compile_seconds = std::chrono::duration<double>(clock::now() - start).count();
    return out;
  }
  std::size_t cubin_size = 0;
  if (!front_end_only) {
    rc = nvrtcGetCUBINSize(guard.prog, &cubin_size);
    if (rc != NVRTC_SUCCESS || cubin_size == 0) {
      out.log += "\nno cubin produced (is --gpu-architecture a real sm_XX target?)";
      return out;
    }
    out.cubin.resize(cubin_size);
    if (nvrtcGetCUBIN(guard.prog, out.cubin.data()) != NVRTC_SUCCESS) {
      out.cubin.clear();
      out.log += "\nnvrtcGetCUBIN failed";
      return out;
    }
  }
  auto report = parse_ptxas_report(out.log);
  for (const auto& k : source.kernels) {
    KernelResources r;
    r.name_expression = k;
    const char* lowered = nullptr;
    if (nvrtcGetLoweredName(guard.prog, k.c_str(), &lowered) != NVRTC_SUCCESS || !lowered) {
      out.cubin.clear();
      out.log += "\nno lowered name for kernel '" + k + "' (is it a __global__ instantiation?)";
      return out;
    }
    r.lowered_name = lowered;
    if (auto it = report.find(r.lowered_name); it != report.end()) {
      r.registers = it->second.registers;
      r.spill_store_bytes = it->second.spill_store_bytes;
      r.spill_load_bytes = it->second.spill_load_bytes;
      r.stack_frame_bytes = it->second.stack_frame_bytes;
      r.static_smem_bytes = it->second.static_smem_bytes;
    }
    out.kernels.push_back(std::move(r));
  }
  out.ok = true;
  out.compile_seconds = std::chrono::duration<double>(clock::now() - start).count();
  return out;
}

}  // namespace

nlohmann::json kernel_resources_json(const KernelResources& k) {
  return {{"name", k.name_expression},
          {"registers", k.registers},
          {"spill_store_bytes", k.spill_store_bytes},
          {"spill_load_bytes", k.spill_load_bytes},
          {"stack_frame_bytes", k.stack_frame_bytes},
          {"static_smem_bytes", k.static_smem_bytes}};
}

Compiler::Compiler(CompilerOptions options) : options_(std::move(options)) {
  nvrtc_version_text();  // fail early if NVRTC cannot even report its version
}

std::string Compiler::kernel_dir() {
  std::string env = getenv_or_empty("KTUNE_KERNEL_DIR");
  if (!env.empty()) return env;
  std::error_code ec;
  fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  if (!ec) {
    // build/bin/ktune -> build/bin -> build -> repo: up to three levels; an
    // install keeps them in <prefix>/share/ktune beside <prefix>/bin.
    fs::path dir = exe.parent_path();
    for (int level = 0; level <= 3 && !dir.empty(); ++level) {
      if (looks_like_kernel_dir(dir / "kernels_templated"))
        return (dir / "kernels_templated").string();
      if (looks_like_kernel_dir(dir / "share/ktune/kernels_templated"))
        return (dir / "share/ktune/kernels_templated").string();
      if (dir == dir.parent_path()) break;
      dir = dir.parent_path();
    }
  }
  return KTUNE_KERNEL_DIR;
}

std::string Compiler::templates_dir() const {
  return options_.kernel_dir.empty() ? kernel_dir() : options_.kernel_dir;
}

std::string Compiler::cache_key(const KernelSource& source) const {
  const std::string dir = templates_dir();
  const std::string arch = effective_arch(options_, source);
  std::string text;
  text.reserve(source.source.size() + 512);
  auto add = [&text](std::string_view part) {
    text += part;
    text.push_back('\0');
  };
  add(kCacheFormat);
  add("nvrtc " + nvrtc_version_text());
  add(arch);
  add(templates_hash(dir));
  add(source.program_name);
  add(source.source);
  for (const auto& k : source.kernels) add("kernel " + k);
  // Include paths (the templates' folder, the CUDA toolkit's headers) differ
  // between machines but not the code: the templates' text and the NVRTC
  // version stand for them, so a cache filled here stays valid where carried.
  const std::string cuda_inc = cuda_include_dir();
  const std::set<std::string> machine_paths = {"-I" + cuda_inc,
                                               "-I" + (fs::path(cuda_inc) / "cccl").string()};
  for (const auto& o : nvrtc_options(options_, source, arch, ""))
    if (!machine_paths.contains(o)) add(o);
  return hash128_hex(text);
}

CompileOutput Compiler::compile(const KernelSource& source) const {
  const std::string dir = templates_dir();
  const std::string arch = effective_arch(options_, source);
  std::string key;
  fs::path entry;
  if (!options_.cache_dir.empty()) {
    key = cache_key(source);
    entry = fs::path(options_.cache_dir) / (key + ".cubin");
    if (auto hit = read_cache_entry(entry, key, source.kernels.size())) {
      hit->cache_key = key;
      return std::move(*hit);
    }
  }
  CompileOutput out;
  try {
    std::vector<std::string> opts = nvrtc_options(options_, source, arch, dir);
    const std::vector<std::string> pch = precompiled_header_options(options_);
    opts.insert(opts.end(), pch.begin(), pch.end());
    out = compile_uncached(source, opts, arch);
  } catch (const std::exception& e) {
    out.ok = false;
    out.log = std::string("compiler failure: ") + e.what();
  }
  out.cache_key = key;
  if (out.ok && !key.empty()) write_cache_entry(options_.cache_dir, entry, key, out);
  return out;
}

CompileOutput Compiler::check_front_end(const KernelSource& source) const {
  const std::string arch = effective_arch(options_, source);
  std::vector<std::string> opts = nvrtc_options(options_, source, arch, templates_dir());
  opts.push_back("-fdevice-syntax-only");
  try {
    return compile_uncached(source, opts, arch, true);
  } catch (const std::exception& e) {
    CompileOutput out;
    out.log = std::string("compiler failure: ") + e.what();
    return out;
  }
}

std::vector<CompileOutput> Compiler::compile_all(std::span<const KernelSource> sources) const {
  std::vector<CompileOutput> outputs(sources.size());
  tbb::parallel_for(std::size_t{0}, sources.size(),
                    [&](std::size_t i) { outputs[i] = compile(sources[i]); });
  return outputs;
}

std::string Compiler::nvrtc_version() { return nvrtc_version_text(); }

std::string default_compile_cache_dir() { return default_cache_dir(); }

}  // namespace ktune
