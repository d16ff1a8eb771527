//===- CpuBench.cpp - kiln-bench cpu: compiled code's speed -----*- C++ -*-===//
//
// This file measures the CPU backend's compiled code. Every figure is
// printed beside a baseline measured in the same run: a square f32
// dot_general against OpenBLAS's cblas_sgemm (libopenblas.so.0 opened with
// dlopen, its threads set to one) and against a naive triple loop compiled
// into this tool, with the machine's peak FMA throughput (16 independent
// vector FMA chains, measured); causal attention compiled with the mask
// folded against the same graph with --no-fold-causal-mask. Compile times
// are printed too. One core: compiled code is single-threaded.
//
//===----------------------------------------------------------------------===//

#include "CpuBench.h"
#include "BenchTable.h"

#include "kiln/Cache/Target.h"
#include "kiln/Import/LoadGraph.h"
#include "kiln/InitAllDialects.h"
#include "kiln/Interpreter/Evaluator.h"
#include "kiln/Interpreter/HostTensor.h"
#include "kiln/Runtime/Executable.h"
#include "kiln/Target/CPU/CpuCompiler.h"

#include "mlir/IR/MLIRContext.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"

#include <chrono>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <dlfcn.h>
#include <functional>
#include <immintrin.h>
#include <random>

using namespace kiln;
using kiln::bench::CpuBenchOptions;
using Clock = std::chrono::steady_clock;

namespace {

double seconds(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

/// 64-byte aligned floats, zero-filled.
struct Buffer {
  float *data = nullptr;
  size_t count = 0;
  explicit Buffer(size_t n) : count(n) {
    data =
        static_cast<float *>(std::aligned_alloc(64, ((n * 4 + 63) / 64) * 64));
    std::fill(data, data + n, 0.0f);
  }
  ~Buffer() { std::free(data); }
  Buffer(const Buffer &) = delete;
  void randomize(unsigned seed) {
    std::mt19937 generator(seed);
    std::uniform_real_distribution<float> unit(-1, 1);
    for (size_t i = 0; i < count; ++i)
      data[i] = unit(generator);
  }
};

/// Compiles MLIR text for the bench's target; the executable, or null with
/// the error printed.
std::unique_ptr<Executable> compileText(const std::string &text,
                                        const CpuBenchOptions &options,
                                        bool foldCausalMask,
                                        double &compileSeconds) {
  mlir::MLIRContext context(mlir::MLIRContext::Threading::DISABLED);
  mlir::DialectRegistry registry;
  registerAllDialects(registry);
  registerCpuCompilerDialects(registry);
  context.appendDialectRegistry(registry);
  auto start = Clock::now();
  mlir::OwningOpRef<mlir::ModuleOp> module =
      loadGraphBuffer(llvm::MemoryBuffer::getMemBufferCopy(text, "bench.mlir"),
                      &context, llvm::errs());
  if (!module)
    return nullptr;
  llvm::Expected<TargetSpec> target = resolveTarget("", options.cpu);
  if (!target) {
    llvm::errs() << llvm::toString(target.takeError()) << "\n";
    return nullptr;
  }
  CpuCompileOptions compileOptions;
  compileOptions.target = *target;
  compileOptions.foldCausalMask = foldCausalMask;
  mlir::FailureOr<CompiledGraph> compiled =
      compileForCpu(*module, compileOptions);
  if (mlir::failed(compiled))
    return nullptr;
  compileSeconds = seconds(start);
  auto executable =
      Executable::load(writeArtifact(compiled->manifest, compiled->objects));
  if (!executable) {
    llvm::errs() << llvm::toString(executable.takeError()) << "\n";
    return nullptr;
  }
  return std::move(*executable);
}

/// The best time of `repeat` runs of `body`.
template <typename Body> double best(int repeat, Body body) {
  double fastest = 1e30;
  for (int i = 0; i < repeat; ++i) {
    auto start = Clock::now();
    body();
    fastest = std::min(fastest, seconds(start));
  }
  return fastest;
}

/// The best times of two bodies run in turns, `repeat` times each: a
/// neighbour's load on a shared machine comes and goes, and timing the
/// two in turns keeps a burst of it from landing on one side only.
template <typename BodyA, typename BodyB>
std::pair<double, double> bestInTurns(int repeat, BodyA bodyA, BodyB bodyB) {
  double fastestA = 1e30, fastestB = 1e30;
  for (int i = 0; i < repeat; ++i) {
    auto start = Clock::now();
    bodyA();
    fastestA = std::min(fastestA, seconds(start));
    start = Clock::now();
    bodyB();
    fastestB = std::min(fastestB, seconds(start));
  }
  return {fastestA, fastestB};
}

/// Peak single-precision FMA throughput of one core, in FLOP/s: 12
/// independent chains of 8-wide (AVX2) FMAs, the most an x86-64-v3 core
/// issues (with their two operands, all in the 16 vector registers: 16
/// chains spilled, and measured two thirds of the peak); with AVX-512, 16
/// chains 16-wide.
__attribute__((target("avx2,fma"))) double measurePeakAvx2() {
  __m256 accumulators[12];
  for (auto &a : accumulators)
    a = _mm256_set1_ps(1.0f);
  __m256 x = _mm256_set1_ps(0.999999f), y = _mm256_set1_ps(1e-7f);
  const long iterations = 20000000;
  auto start = Clock::now();
  for (long i = 0; i < iterations; ++i)
    for (auto &a : accumulators)
      a = _mm256_fmadd_ps(a, x, y);
  double elapsed = seconds(start);
  float sink = 0;
  for (auto &a : accumulators)
    sink += _mm256_cvtss_f32(a);
  asm volatile("" ::"x"(sink));
  return iterations * 12.0 * 8 * 2 / elapsed;
}

__attribute__((target("avx512f"))) double measurePeakAvx512() {
  __m512 accumulators[16];
  for (auto &a : accumulators)
    a = _mm512_set1_ps(1.0f);
  __m512 x = _mm512_set1_ps(0.999999f), y = _mm512_set1_ps(1e-7f);
  const long iterations = 20000000;
  auto start = Clock::now();
  for (long i = 0; i < iterations; ++i)
    for (auto &a : accumulators)
      a = _mm512_fmadd_ps(a, x, y);
  double elapsed = seconds(start);
  float sink = 0;
  for (auto &a : accumulators)
    sink += _mm512_cvtss_f32(a);
  asm volatile("" ::"x"(sink));
  return iterations * 16.0 * 16 * 2 / elapsed;
}

/// C = A * B, row-major, the textbook loop order.
void naiveMatmul(const float *a, const float *b, float *c, int n) {
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j) {
      float sum = 0;
      for (int k = 0; k < n; ++k)
        sum += a[i * n + k] * b[k * n + j];
      c[i * n + j] = sum;
    }
}

using SgemmFn = void (*)(int, int, int, int, int, int, float, const float *,
                         int, const float *, int, float, float *, int);

/// Causal attention over S x D of one element type (f32 or bf16).
std::string attentionGraph(int s, int d, llvm::StringRef element = "f32") {
  bool bf16 = element == "bf16";
  // Scores, a causal mask spelled as torch-xla spells it (iota compare,
  // select), softmax, and the weighted sum of the values.
  return llvm::formatv(R"(
func.func @main(%q: tensor<{0}x{1}x{2}>, %k: tensor<{0}x{1}x{2}>, %v: tensor<{0}x{1}x{2}>) -> tensor<{0}x{1}x{2}> {{
  %s = kiln.dot_general %q, %k {{lhs_contracting_dims = array<i64: 1>, rhs_contracting_dims = array<i64: 1>} : (tensor<{0}x{1}x{2}>, tensor<{0}x{1}x{2}>) -> tensor<{0}x{0}x{2}>
  %r = kiln.iota {{iota_dimension = 0 : i64} : tensor<{0}x{0}xi32>
  %c = kiln.iota {{iota_dimension = 1 : i64} : tensor<{0}x{0}xi32>
  %m = kiln.compare %r, %c {{direction = "GE"} : (tensor<{0}x{0}xi32>, tensor<{0}x{0}xi32>) -> tensor<{0}x{0}xi1>
  %ninf = kiln.constant dense<{3}> : tensor<{2}>
  %nb = kiln.broadcast_in_dim %ninf {{dimensions = array<i64>} : (tensor<{2}>) -> tensor<{0}x{0}x{2}>
  %masked = kiln.select %m, %s, %nb : (tensor<{0}x{0}xi1>, tensor<{0}x{0}x{2}>, tensor<{0}x{0}x{2}>) -> tensor<{0}x{0}x{2}>
  %init = kiln.constant dense<{4}> : tensor<{2}>
  %max = kiln.reduce(%masked, %init) attributes {{dimensions = array<i64: 1>} {{
  ^bb0(%a: tensor<{2}>, %b: tensor<{2}>):
    %x = kiln.maximum %a, %b : (tensor<{2}>, tensor<{2}>) -> tensor<{2}>
    kiln.return %x : tensor<{2}>
  } : (tensor<{0}x{0}x{2}>, tensor<{2}>) -> tensor<{0}x{2}>
  %mb = kiln.broadcast_in_dim %max {{dimensions = array<i64: 0>} : (tensor<{0}x{2}>) -> tensor<{0}x{0}x{2}>
  %sh = kiln.subtract %masked, %mb : (tensor<{0}x{0}x{2}>, tensor<{0}x{0}x{2}>) -> tensor<{0}x{0}x{2}>
  %e = kiln.exponential %sh : (tensor<{0}x{0}x{2}>) -> tensor<{0}x{0}x{2}>
  %zero = kiln.constant dense<0.0> : tensor<{2}>
  %sum = kiln.reduce(%e, %zero) attributes {{dimensions = array<i64: 1>} {{
  ^bb0(%a: tensor<{2}>, %b: tensor<{2}>):
    %x = kiln.add %a, %b : (tensor<{2}>, tensor<{2}>) -> tensor<{2}>
    kiln.return %x : tensor<{2}>
  } : (tensor<{0}x{0}x{2}>, tensor<{2}>) -> tensor<{0}x{2}>
  %sb = kiln.broadcast_in_dim %sum {{dimensions = array<i64: 0>} : (tensor<{0}x{2}>) -> tensor<{0}x{0}x{2}>
  %p = kiln.divide %e, %sb : (tensor<{0}x{0}x{2}>, tensor<{0}x{0}x{2}>) -> tensor<{0}x{0}x{2}>
  %o = kiln.dot_general %p, %v {{lhs_contracting_dims = array<i64: 1>, rhs_contracting_dims = array<i64: 0>} : (tensor<{0}x{0}x{2}>, tensor<{0}x{1}x{2}>) -> tensor<{0}x{1}x{2}>
  return %o : tensor<{0}x{1}x{2}>
}
)",
                       s, d, element,
                       bf16 ? "-3.38953139e+38" : "-3.40282347e+38",
                       bf16 ? "0xFF80" : "0xFF800000")
      .str();
}

/// A Llama MLP block of one element type: (silu(x W1) * (x W3)) W2, x of
/// S x H, W1 and W3 of H x I, W2 of I x H.
std::string mlpGraph(int s, int h, int i, llvm::StringRef element) {
  return llvm::formatv(R"(
func.func @main(%x: tensor<{0}x{1}x{3}>, %w1: tensor<{1}x{2}x{3}>, %w3: tensor<{1}x{2}x{3}>, %w2: tensor<{2}x{1}x{3}>) -> tensor<{0}x{1}x{3}> {{
  %a = kiln.dot_general %x, %w1 {{lhs_contracting_dims = array<i64: 1>, rhs_contracting_dims = array<i64: 0>} : (tensor<{0}x{1}x{3}>, tensor<{1}x{2}x{3}>) -> tensor<{0}x{2}x{3}>
  %g = kiln.logistic %a : (tensor<{0}x{2}x{3}>) -> tensor<{0}x{2}x{3}>
  %silu = kiln.multiply %a, %g : (tensor<{0}x{2}x{3}>, tensor<{0}x{2}x{3}>) -> tensor<{0}x{2}x{3}>
  %b = kiln.dot_general %x, %w3 {{lhs_contracting_dims = array<i64: 1>, rhs_contracting_dims = array<i64: 0>} : (tensor<{0}x{1}x{3}>, tensor<{1}x{2}x{3}>) -> tensor<{0}x{2}x{3}>
  %h = kiln.multiply %silu, %b : (tensor<{0}x{2}x{3}>, tensor<{0}x{2}x{3}>) -> tensor<{0}x{2}x{3}>
  %o = kiln.dot_general %h, %w2 {{lhs_contracting_dims = array<i64: 1>, rhs_contracting_dims = array<i64: 0>} : (tensor<{0}x{2}x{3}>, tensor<{2}x{1}x{3}>) -> tensor<{0}x{1}x{3}>
  return %o : tensor<{0}x{1}x{3}>
}
)",
                       s, h, i, element)
      .str();
}

/// The MLP block in f32 by textbook loops.
void naiveMlp(const std::vector<float> &x, const std::vector<float> &w1,
              const std::vector<float> &w3, const std::vector<float> &w2,
              std::vector<float> &out, int s, int h, int i) {
  std::vector<float> hidden(size_t(s) * i);
  for (int r = 0; r < s; ++r)
    for (int c = 0; c < i; ++c) {
      float a = 0, b = 0;
      for (int k = 0; k < h; ++k) {
        a += x[size_t(r) * h + k] * w1[size_t(k) * i + c];
        b += x[size_t(r) * h + k] * w3[size_t(k) * i + c];
      }
      hidden[size_t(r) * i + c] = a / (1 + std::exp(-a)) * b;
    }
  for (int r = 0; r < s; ++r)
    for (int c = 0; c < h; ++c) {
      float sum = 0;
      for (int k = 0; k < i; ++k)
        sum += hidden[size_t(r) * i + k] * w2[size_t(k) * h + c];
      out[size_t(r) * h + c] = sum;
    }
}

/// Causal attention in f32 by textbook loops: every score, masked, a
/// softmax per row, the weighted sum.
void naiveAttention(const std::vector<float> &q, const std::vector<float> &k,
                    const std::vector<float> &v, std::vector<float> &out, int s,
                    int d) {
  std::vector<float> row(s);
  for (int r = 0; r < s; ++r) {
    float max = -INFINITY;
    for (int c = 0; c < s; ++c) {
      float dot = 0;
      for (int e = 0; e < d; ++e)
        dot += q[size_t(r) * d + e] * k[size_t(c) * d + e];
      row[c] = c <= r ? dot : -3.40282347e+38f;
      max = std::max(max, row[c]);
    }
    float sum = 0;
    for (int c = 0; c < s; ++c)
      sum += row[c] = std::exp(row[c] - max);
    for (int e = 0; e < d; ++e) {
      float acc = 0;
      for (int c = 0; c < s; ++c)
        acc += row[c] / sum * v[size_t(c) * d + e];
      out[size_t(r) * d + e] = acc;
    }
  }
}

/// Seeded values in [-1, 1) of `type`'s float element type, as its values.
interp::HostTensor randomFloats(mlir::Type type, unsigned seed) {
  interp::HostTensor tensor(type);
  std::mt19937 generator(seed);
  std::uniform_real_distribution<double> unit(-1, 1);
  for (double &value : tensor.floats)
    value = interp::roundToFloat(unit(generator), tensor.elementType());
  return tensor;
}

/// The raw bytes compiled code takes for a tensor of f32 or bf16.
std::vector<char> toBytes(const interp::HostTensor &tensor) {
  bool bf16 = tensor.elementType().isBF16();
  std::vector<char> bytes(tensor.floats.size() * (bf16 ? 2 : 4));
  for (size_t i = 0; i < tensor.floats.size(); ++i) {
    float value = tensor.floats[i];
    uint32_t bits;
    std::memcpy(&bits, &value, 4);
    if (bf16) {
      // Already a bf16 value: its high half is exact.
      uint16_t high = bits >> 16;
      std::memcpy(&bytes[i * 2], &high, 2);
    } else {
      std::memcpy(&bytes[i * 4], &bits, 4);
    }
  }
  return bytes;
}

/// The largest |got - want| over the largest |want|.
double relativeError(llvm::ArrayRef<double> got, llvm::ArrayRef<double> want) {
  double worst = 0, scale = 0;
  for (size_t i = 0; i < want.size(); ++i) {
    worst = std::max(worst, std::fabs(got[i] - want[i]));
    scale = std::max(scale, std::fabs(want[i]));
  }
  return scale > 0 ? worst / scale : worst;
}

} // namespace

int kiln::bench::runCpuBench(const CpuBenchOptions &options) {
  llvm::raw_ostream &os = llvm::outs();
  int n = options.size;
  double flops = 2.0 * n * n * n;
  os << llvm::formatv("kiln-bench cpu: one core, best of {0} runs; target "
                      "CPU {1}\n",
                      options.repeat,
                      options.cpu.empty() ? getDefaultCpu("x86_64")
                                          : options.cpu);

  double peak = __builtin_cpu_supports("avx512f") ? measurePeakAvx512()
                                                  : measurePeakAvx2();
  double peakAvx2 = measurePeakAvx2();
  os << llvm::formatv("peak FMA throughput: {0:f1} GFLOP/s (AVX2, the "
                      "default target's width: {1:f1} GFLOP/s)\n",
                      peak / 1e9, peakAvx2 / 1e9);

  // dot_general f32 n x n x n.
  std::string dot = llvm::formatv(R"(
func.func @main(%a: tensor<{0}x{0}xf32>, %b: tensor<{0}x{0}xf32>) -> tensor<{0}x{0}xf32> {{
  %0 = kiln.dot_general %a, %b {{lhs_contracting_dims = array<i64: 1>, rhs_contracting_dims = array<i64: 0>} : (tensor<{0}x{0}xf32>, tensor<{0}x{0}xf32>) -> tensor<{0}x{0}xf32>
  return %0 : tensor<{0}x{0}xf32>
}
)",
                                  n)
                        .str();
  double compileSeconds = 0;
  std::unique_ptr<Executable> executable =
      compileText(dot, options, true, compileSeconds);
  if (!executable)
    return 1;
  Buffer a(size_t(n) * n), b(size_t(n) * n), c(size_t(n) * n),
      reference(size_t(n) * n);
  a.randomize(1);
  b.randomize(2);
  void *buffers[] = {a.data, b.data, c.data};
  // OpenBLAS picks its kernels by CPU model and falls back to generic
  // ones on a model it does not know (Debian's 0.3.21 on a recent Xeon: 26
  // GFLOP/s): the baseline is its best kernel for what this core has,
  // unless OPENBLAS_CORETYPE says otherwise.
  setenv("OPENBLAS_CORETYPE",
         __builtin_cpu_supports("avx512f") ? "SkylakeX" : "Haswell",
         /*overwrite=*/0);
  SgemmFn sgemm = nullptr;
  void *library = dlopen("libopenblas.so.0", RTLD_NOW);
  if (library) {
    sgemm = reinterpret_cast<SgemmFn>(dlsym(library, "cblas_sgemm"));
    auto setThreads = reinterpret_cast<void (*)(int)>(
        dlsym(library, "openblas_set_num_threads"));
    if (setThreads)
      setThreads(1);
  }
  // kiln and OpenBLAS in turns (CblasRowMajor = 101, CblasNoTrans = 111).
  auto [kilnSeconds, blasSeconds] = bestInTurns(
      options.repeat, [&] { executable->call(buffers); },
      [&] {
        if (sgemm)
          sgemm(101, 111, 111, n, n, n, 1.0f, a.data, n, b.data, n, 0.0f,
                reference.data, n);
      });
  os << llvm::formatv("dot_general f32 {0}x{0}x{0}: kiln {1:f1} ms, {2:f2} "
                      "GFLOP/s, {3:f1}% of peak ({4:f1}% of AVX2 peak); "
                      "compiled in {5:f3} s\n",
                      n, kilnSeconds * 1e3, flops / kilnSeconds / 1e9,
                      100 * flops / kilnSeconds / peak,
                      100 * flops / kilnSeconds / peakAvx2, compileSeconds);
  if (sgemm) {
    double worst = 0;
    for (size_t i = 0; i < c.count; ++i)
      worst = std::max<double>(worst, std::fabs(c.data[i] - reference.data[i]));
    os << llvm::formatv("  OpenBLAS sgemm (1 thread): {0:f1} ms, {1:f2} "
                        "GFLOP/s; kiln = {2:f1}% of OpenBLAS (largest "
                        "difference {3:e})\n",
                        blasSeconds * 1e3, flops / blasSeconds / 1e9,
                        100 * blasSeconds / kilnSeconds, worst);
    recordFigure(
        {"compiled code",
         llvm::formatv("dot_general f32 {0}^3, one core", n).str(),
         llvm::formatv("{0:f1} GFLOP/s", flops / kilnSeconds / 1e9).str(),
         llvm::formatv("OpenBLAS sgemm: {0:f1} GFLOP/s",
                       flops / blasSeconds / 1e9)
             .str(),
         llvm::formatv("{0:f0}% of OpenBLAS", 100 * blasSeconds / kilnSeconds)
             .str()});
  } else {
    os << "  OpenBLAS: libopenblas.so.0 or its cblas_sgemm not found "
          "(apt-get install libopenblas-dev)\n";
  }
  double naiveSeconds =
      best(1, [&] { naiveMatmul(a.data, b.data, reference.data, n); });
  recordFigure(
      {"compiled code",
       llvm::formatv("dot_general f32 {0}^3 against peak", n).str(),
       llvm::formatv("{0:f1} GFLOP/s", flops / kilnSeconds / 1e9).str(),
       llvm::formatv("peak FMA, measured: {0:f1} GFLOP/s (AVX2: "
                     "{1:f1})",
                     peak / 1e9, peakAvx2 / 1e9)
           .str(),
       llvm::formatv("{0:f0}% of peak ({1:f0}% of AVX2's)",
                     100 * flops / kilnSeconds / peak,
                     100 * flops / kilnSeconds / peakAvx2)
           .str()});
  os << llvm::formatv("  naive loop (this tool, -O3): {0:f1} ms, {1:f2} "
                      "GFLOP/s; kiln = {2:f1}x the naive loop\n",
                      naiveSeconds * 1e3, flops / naiveSeconds / 1e9,
                      naiveSeconds / kilnSeconds);

  // Causal attention, the mask folded or not.
  int s = options.sequence, d = options.headDim;
  std::string attention = attentionGraph(s, d);
  double foldedCompile = 0, unfoldedCompile = 0;
  std::unique_ptr<Executable> folded =
      compileText(attention, options, true, foldedCompile);
  std::unique_ptr<Executable> unfolded =
      compileText(attention, options, false, unfoldedCompile);
  if (!folded || !unfolded)
    return 1;
  Buffer q(size_t(s) * d), k(size_t(s) * d), v(size_t(s) * d),
      out(size_t(s) * d), outUnfolded(size_t(s) * d);
  q.randomize(3);
  k.randomize(4);
  v.randomize(5);
  void *foldedBuffers[] = {q.data, k.data, v.data, out.data};
  void *unfoldedBuffers[] = {q.data, k.data, v.data, outUnfolded.data};
  auto [foldedSeconds, unfoldedSeconds] = bestInTurns(
      options.repeat, [&] { folded->call(foldedBuffers); },
      [&] { unfolded->call(unfoldedBuffers); });
  double worst = 0;
  for (size_t i = 0; i < out.count; ++i)
    worst =
        std::max<double>(worst, std::fabs(out.data[i] - outUnfolded.data[i]));
  os << llvm::formatv("causal attention f32 S={0} D={1}: mask folded {2:f1} "
                      "ms, --no-fold-causal-mask {3:f1} ms: {4:f2}x (largest "
                      "difference {5:e}); compiled in {6:f3} s and {7:f3} s\n",
                      s, d, foldedSeconds * 1e3, unfoldedSeconds * 1e3,
                      unfoldedSeconds / foldedSeconds, worst, foldedCompile,
                      unfoldedCompile);
  recordFigure(
      {"causal mask",
       llvm::formatv("causal attention f32 S={0} D={1}, mask folded", s, d)
           .str(),
       llvm::formatv("{0:f1} ms", foldedSeconds * 1e3).str(),
       llvm::formatv("--no-fold-causal-mask: {0:f1} ms", unfoldedSeconds * 1e3)
           .str(),
       llvm::formatv("{0:f2}x faster", unfoldedSeconds / foldedSeconds).str()});
  return 0;
}

int kiln::bench::runBlockBench(const CpuBenchOptions &options) {
  llvm::raw_ostream &os = llvm::outs();
  int s = options.sequence, d = options.headDim, h = options.hidden,
      inner = options.intermediate;
  os << llvm::formatv("kiln-bench blocks: one core, best of {0} runs; target "
                      "CPU {1}; against textbook loops in f32 (this tool, -O3) "
                      "and kiln's evaluator (one run)\n",
                      options.repeat,
                      options.cpu.empty() ? getDefaultCpu("x86_64")
                                          : options.cpu);
  mlir::MLIRContext context(mlir::MLIRContext::Threading::DISABLED);
  mlir::DialectRegistry registry;
  registerAllDialects(registry);
  registerCpuCompilerDialects(registry);
  context.appendDialectRegistry(registry);
  struct Block {
    std::string name;
    double flops;
    std::function<std::string(llvm::StringRef)> graph;
    std::function<void(llvm::ArrayRef<std::vector<float>>,
                       std::vector<float> &)>
        naive;
  };
  std::vector<Block> blocks = {
      {llvm::formatv("Llama MLP S={0} H={1} I={2}", s, h, inner).str(),
       3 * 2.0 * s * h * inner,
       [&](llvm::StringRef element) { return mlpGraph(s, h, inner, element); },
       [&](llvm::ArrayRef<std::vector<float>> in, std::vector<float> &out) {
         naiveMlp(in[0], in[1], in[2], in[3], out, s, h, inner);
       }},
      {llvm::formatv("causal attention S={0} D={1}", s, d).str(),
       2 * 2.0 * s * s * d,
       [&](llvm::StringRef element) { return attentionGraph(s, d, element); },
       [&](llvm::ArrayRef<std::vector<float>> in, std::vector<float> &out) {
         naiveAttention(in[0], in[1], in[2], out, s, d);
       }}};
  for (const Block &block : blocks) {
    double naiveSeconds = 0;
    for (llvm::StringRef element : {"f32", "bf16"}) {
      std::string text = block.graph(element);
      mlir::OwningOpRef<mlir::ModuleOp> module = loadGraphBuffer(
          llvm::MemoryBuffer::getMemBufferCopy(text, "block.mlir"), &context,
          llvm::errs());
      if (!module)
        return 1;
      double compileSeconds = 0;
      std::unique_ptr<Executable> executable =
          compileText(text, options, true, compileSeconds);
      if (!executable)
        return 1;
      interp::Evaluator evaluator(*module);
      mlir::func::FuncOp entry = evaluator.getEntry();
      std::vector<interp::HostTensor> inputs;
      std::vector<std::vector<char>> inputBytes;
      std::vector<std::vector<float>> naiveInputs;
      for (auto [index, type] : llvm::enumerate(entry.getArgumentTypes())) {
        inputs.push_back(randomFloats(type, 100 + index));
        inputBytes.push_back(toBytes(inputs.back()));
        naiveInputs.emplace_back(inputs.back().floats.begin(),
                                 inputs.back().floats.end());
      }
      std::vector<std::vector<char>> outputBytes;
      for (const BufferSpec &output : executable->getManifest().outputs)
        outputBytes.emplace_back(output.bytes);
      std::vector<void *> buffers;
      for (auto &bytes : inputBytes)
        buffers.push_back(bytes.data());
      for (auto &bytes : outputBytes)
        buffers.push_back(bytes.data());
      double kilnSeconds =
          best(options.repeat, [&] { executable->call(buffers.data()); });
      auto start = Clock::now();
      mlir::FailureOr<std::vector<interp::HostTensor>> expected =
          evaluator.call(entry, inputs);
      double evaluatorSeconds = seconds(start);
      llvm::Expected<std::vector<interp::HostTensor>> compiled =
          executable->run(inputs, &context);
      if (mlir::failed(expected) || !compiled) {
        if (!compiled)
          llvm::errs() << llvm::toString(compiled.takeError()) << "\n";
        return 1;
      }
      double error =
          relativeError((*compiled)[0].floats, (*expected)[0].floats);
      // The textbook loops once, in f32, for both element types.
      std::vector<float> naiveOut((*expected)[0].floats.size());
      std::string naiveError;
      if (element == "f32") {
        naiveSeconds = best(1, [&] { block.naive(naiveInputs, naiveOut); });
        std::vector<double> naiveValues(naiveOut.begin(), naiveOut.end());
        naiveError =
            llvm::formatv("; the loops' error {0:e1}",
                          relativeError(naiveValues, (*expected)[0].floats))
                .str();
      }
      os << llvm::formatv(
          "{0} {1}: kiln {2:f1} ms ({3:f1} GFLOP/s), textbook f32 loops {4:f1} "
          "ms ({5:f1}x kiln), evaluator {6:f1} ms ({7:f0}x kiln); error "
          "against the evaluator {8:e1} of its largest output{9}; compiled in "
          "{10:f3} s\n",
          block.name, element, kilnSeconds * 1e3,
          block.flops / kilnSeconds / 1e9, naiveSeconds * 1e3,
          naiveSeconds / kilnSeconds, evaluatorSeconds * 1e3,
          evaluatorSeconds / kilnSeconds, error, naiveError, compileSeconds);
      recordFigure({"blocks",
                    llvm::formatv("{0} {1}", block.name, element).str(),
                    llvm::formatv("{0:f1} ms", kilnSeconds * 1e3).str(),
                    llvm::formatv("textbook f32 loops {0:f1} ms, evaluator "
                                  "{1:f1} ms",
                                  naiveSeconds * 1e3, evaluatorSeconds * 1e3)
                        .str(),
                    llvm::formatv("{0:f1}x the loops, error {1:e1}",
                                  naiveSeconds / kilnSeconds, error)
                        .str()});
    }
  }
  return 0;
}
