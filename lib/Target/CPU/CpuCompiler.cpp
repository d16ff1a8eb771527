//===- CpuCompiler.cpp - compiling a kiln module to native code -*- C++ -*-===//
//
// This file drives a compilation: the front end, then for each segment of
// the graph (GraphSegmentation.h) the kiln lowering, MLIR's bufferization
// and loop nests outlined into kernels, equal kernels shared between
// segments (KernelSharing.h), the rest of the lowering to the LLVM dialect
// (the pass pipelines are written out below so that `mlir-opt` can replay
// them), then LLVM: each segment translated to LLVM IR and optimized at
// the requested level, an entry wrapper added (`kiln_entry(void
// **buffers)`, so the runtime calls every graph the same way), and the
// object files emitted by the TargetMachine of the key's target and CPU
// level.
//
//===----------------------------------------------------------------------===//

#include "kiln/Target/CPU/CpuCompiler.h"

#include "BandRestriction.h"
#include "CheckResults.h"
#include "ContractionTiling.h"
#include "EarlyDeallocation.h"
#include "EightBitFloats.h"
#include "GraphSegmentation.h"
#include "KernelSharing.h"
#include "LoopNestOutlining.h"
#include "RowReductions.h"
#include "RunParallelLowering.h"
#include "kiln/Conversion/Passes.h"
#include "kiln/Dialect/Kiln/IR/KilnOps.h"
#include "kiln/Dialect/Kiln/Transforms/Passes.h"
#include "kiln/Runtime/Executable.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Transforms/Hoisting.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Math/Transforms/Passes.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/Threading.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/InitAllPasses.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Target/LLVMIR/Dialect/All.h"
#include "mlir/Target/LLVMIR/Export.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"
#include "llvm/ADT/ScopeExit.h"
#include "llvm/Bitcode/BitcodeReader.h"
#include "llvm/Bitcode/BitcodeWriter.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/LegacyPassManager.h"
#include "llvm/IR/Module.h"
#include "llvm/Linker/Linker.h"
#include "llvm/MC/MCSubtargetInfo.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Passes/PassBuilder.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Support/ThreadPool.h"
#include "llvm/Support/Threading.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Target/TargetMachine.h"
#include "llvm/TargetParser/Host.h"
#include "llvm/TargetParser/Triple.h"

#include <chrono>
#include <cstdlib>
#include <map>
#include <mutex>

using namespace mlir;
using kiln::BufferSpec;
using kiln::GraphSegment;
using kiln::SegmentedGraph;

namespace {

using Clock = std::chrono::steady_clock;

double secondsSince(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

/// LLVM's targets: what a TargetMachine needs (`kiln cache check` asks
/// one for a target's CPU features, without compiling).
void initializeTargets() {
  static std::once_flag once;
  std::call_once(once, [] {
    llvm::InitializeAllTargetInfos();
    llvm::InitializeAllTargets();
    llvm::InitializeAllTargetMCs();
    llvm::InitializeAllAsmPrinters();
  });
}

/// MLIR's passes by name, for the pipeline texts below, and the targets.
void initializeCompiler() {
  static std::once_flag once;
  std::call_once(once, [] { registerAllPasses(); });
  initializeTargets();
}

/// The structured ops, before tiling: element-wise producers fuse into
/// their consumers (a causal mask into the select that applies it).
/// (Contractions that are matmuls are named ops from the start:
/// linalg-specialize-generic-ops gets transposed operands wrong in MLIR 22.)
constexpr llvm::StringLiteral kStructuredPipeline =
    "canonicalize, linalg-fuse-elementwise-ops, canonicalize, cse";

/// Bufferization: every function's results are written into buffers its
/// caller passes (buffer-results-to-out-params; `HOIST` says whether a
/// result computed in a buffer of its own is computed in the caller's
/// buffer directly, which upstream cannot do when a function returns one
/// value twice), and functions take bare pointers (static shapes, identity
/// layouts), so that the entry's signature is one pointer per parameter
/// and per result. An empty tensor that an op fills and a tensor.insert_slice
/// puts into a larger tensor becomes that slice of it
/// (eliminate-empty-tensors): the band's blocks (BandRestriction.cpp) then
/// write their part of the whole value in place, where each block was
/// computed into a buffer of its own and copied.
constexpr llvm::StringLiteral kBufferizationPipeline =
    "func.func(lower-vector-mask),eliminate-empty-tensors,"
    "one-shot-bufferize{bufferize-function-boundaries "
    "allow-return-allocs-from-loops "
    "function-boundary-type-conversion=identity-layout-map},"
    "buffer-results-to-out-params{hoist-static-allocs=HOIST "
    "modify-public-functions=true},"
    "canonicalize, buffer-deallocation-pipeline,"
    "convert-bufferization-to-memref, convert-complex-to-standard";

/// After bufferization, to the LLVM dialect. bf16 roundings are expanded
/// into integer code first, before the canonicalizer can fold a conversion
/// and a rounding into one. Where LLVM still narrows to bf16 itself (an
/// integer converted to bf16, a bf16 select it forms), it calls
/// __truncsfbf2, which the runtime gives the code (Executable.cpp).
/// Temporaries come from the runtime's pool (BufferPool.h), through MLIR's
/// generic allocation functions.
/// (In two parts: see useOrderedMinMax.)
constexpr llvm::StringLiteral kToLoopsPipeline =
    "arith-expand{include-bf16=true},"
    "convert-vector-to-scf{full-unroll=true}, convert-linalg-to-loops,"
    "lower-affine, convert-scf-to-cf, canonicalize, cse";
constexpr llvm::StringLiteral kLoopsToLLVMPipeline =
    "arith-expand{include-bf16=true}, expand-strided-metadata, lower-affine,"
    "convert-vector-to-llvm, finalize-memref-to-llvm{use-generic-functions},"
    "convert-math-to-libm,"
    "convert-complex-to-llvm,"
    "convert-math-to-llvm, convert-arith-to-llvm, convert-index-to-llvm,"
    "convert-func-to-llvm{use-bare-ptr-memref-call-conv=true},"
    "convert-cf-to-llvm, convert-ub-to-llvm, reconcile-unrealized-casts";

/// Instructions in one block beyond which a function without loops is
/// compiled without optimization (see compileForCpu).
constexpr size_t kLargeStraightLineFunction = 1000;

LogicalResult describeBuffers(func::FuncOp entry, TypeRange types,
                              std::vector<BufferSpec> &buffers,
                              llvm::StringRef what) {
  for (Type type : types) {
    if (!kiln::isBufferType(type))
      return entry.emitError() << "a " << what << " of type " << type
                               << " is not compiled by the CPU backend";
    auto tensor = cast<RankedTensorType>(type);
    BufferSpec buffer;
    llvm::raw_string_ostream(buffer.type) << type;
    buffer.shape.assign(tensor.getShape().begin(), tensor.getShape().end());
    buffer.bytes = tensor.getNumElements() *
                   kiln::getElementBytes(tensor.getElementType());
    buffers.push_back(std::move(buffer));
  }
  return success();
}

std::unique_ptr<llvm::TargetMachine>
createTargetMachine(const kiln::TargetSpec &target, unsigned optLevel,
                    std::string &error) {
  llvm::Triple triple(target.triple);
  const llvm::Target *llvmTarget =
      llvm::TargetRegistry::lookupTarget(triple, error);
  if (!llvmTarget)
    return nullptr;
  llvm::TargetOptions options;
  // Built for this machine's own CPU model (`--target-cpu native`): with
  // the features it really has, which a virtual machine may trim from the
  // model's (a model's `pku` that the host hides would refuse the artifact
  // here).
  std::string features;
  if (target.cpu == llvm::sys::getHostCPUName() &&
      triple.getArch() == llvm::Triple(llvm::sys::getProcessTriple()).getArch())
    for (const auto &feature : llvm::sys::getHostCPUFeatures())
      features += (features.empty() ? "" : ",") +
                  std::string(feature.second ? "+" : "-") +
                  feature.first().str();
  llvm::CodeGenOptLevel level = optLevel == 0   ? llvm::CodeGenOptLevel::None
                                : optLevel == 1 ? llvm::CodeGenOptLevel::Less
                                : optLevel == 2
                                    ? llvm::CodeGenOptLevel::Default
                                    : llvm::CodeGenOptLevel::Aggressive;
  return std::unique_ptr<llvm::TargetMachine>(
      llvmTarget->createTargetMachine(triple, target.cpu, features, options,
                                      llvm::Reloc::PIC_, std::nullopt, level));
}

/// `void kiln_entry(void **buffers)`: loads each parameter's and result's
/// buffer pointer and calls the segments in order, each on its inputs' and
/// outputs' buffers; a temporary comes from the runtime's pool
/// (BufferPool.h) before the segment that writes it and goes back after
/// the last that reads it. Every other function the module defines becomes
/// internal; a segment it does not define is declared, for the loader to
/// link from the segment's own object. The block is not optimized (its
/// time is nothing beside the segments'), so its code generation must be
/// cheap as written: each value is used by the next call.
void addEntry(llvm::Module &module, const kiln::SegmentedGraph &graph,
              llvm::StringRef name) {
  llvm::LLVMContext &context = module.getContext();
  auto *pointer = llvm::PointerType::get(context, 0);
  auto *voidType = llvm::Type::getVoidTy(context);
  auto *int64 = llvm::Type::getInt64Ty(context);
  for (llvm::Function &function : module)
    if (!function.isDeclaration())
      function.setLinkage(llvm::GlobalValue::InternalLinkage);
  auto *wrapper = llvm::Function::Create(
      llvm::FunctionType::get(voidType, {pointer}, false),
      llvm::GlobalValue::ExternalLinkage, name, module);
  llvm::IRBuilder<> builder(
      llvm::BasicBlock::Create(context, "entry", wrapper));
  unsigned graphBuffers = graph.parameters + graph.results;
  llvm::FunctionCallee allocate = module.getOrInsertFunction(
      "_mlir_memref_to_llvm_alloc",
      llvm::FunctionType::get(pointer, {int64}, false));
  llvm::FunctionCallee release = module.getOrInsertFunction(
      "_mlir_memref_to_llvm_free",
      llvm::FunctionType::get(voidType, {pointer}, false));
  std::vector<llvm::SmallVector<unsigned>> freedAfter(graph.segments.size());
  for (auto [temporary, lastReader] :
       llvm::enumerate(graph.temporaryLastReader))
    freedAfter[lastReader].push_back(temporary);
  // Every pointer is loaded just before the call that takes it, so that no
  // value lives across more than one call: the 96-layer kiln-synth model's
  // thousands of pointers, loaded first and each live until its last
  // reader, made the register allocation of this block 6.9 s of its
  // compile, after every segment's (1 s now). A temporary's pointer is
  // kept in a slot of one stack array from its allocation to its release,
  // and the slot is reused after (2,871 slots for that model's training
  // step, whose forward activations live until the backward reads them).
  std::vector<unsigned> slotOf(graph.temporaryBytes.size());
  std::vector<bool> allocated(graph.temporaryBytes.size());
  unsigned slotCount = 0;
  {
    llvm::SmallVector<unsigned> freeSlots;
    for (auto [index, segment] : llvm::enumerate(graph.segments)) {
      for (unsigned output : segment.outputs) {
        if (output < graphBuffers || allocated[output - graphBuffers])
          continue;
        allocated[output - graphBuffers] = true;
        slotOf[output - graphBuffers] =
            freeSlots.empty() ? slotCount++ : freeSlots.pop_back_val();
      }
      for (unsigned temporary : freedAfter[index])
        freeSlots.push_back(slotOf[temporary]);
    }
  }
  llvm::Value *slots = builder.CreateAlloca(
      pointer, builder.getInt64(std::max(slotCount, 1u)), "temporaries");
  auto address = [&](unsigned buffer) {
    return buffer < graphBuffers
               ? builder.CreateConstGEP1_64(pointer, wrapper->getArg(0), buffer)
               : builder.CreateConstGEP1_64(pointer, slots,
                                            slotOf[buffer - graphBuffers]);
  };
  std::fill(allocated.begin(), allocated.end(), false);
  for (auto [index, segment] : llvm::enumerate(graph.segments)) {
    llvm::SmallVector<llvm::Value *> arguments;
    for (unsigned input : segment.inputs)
      arguments.push_back(builder.CreateLoad(pointer, address(input)));
    for (unsigned output : segment.outputs) {
      if (output >= graphBuffers && !allocated[output - graphBuffers]) {
        allocated[output - graphBuffers] = true;
        llvm::Value *buffer = builder.CreateCall(
            allocate,
            {builder.getInt64(graph.temporaryBytes[output - graphBuffers])});
        builder.CreateStore(buffer, address(output));
        arguments.push_back(buffer);
        continue;
      }
      arguments.push_back(builder.CreateLoad(pointer, address(output)));
    }
    // Declared here where the segments are objects of their own.
    llvm::FunctionCallee callee = module.getOrInsertFunction(
        segment.function,
        llvm::FunctionType::get(
            voidType,
            llvm::SmallVector<llvm::Type *>(arguments.size(), pointer), false));
    builder.CreateCall(callee, arguments);
    for (unsigned temporary : freedAfter[index])
      builder.CreateCall(
          release,
          {builder.CreateLoad(pointer, address(graphBuffers + temporary))});
  }
  builder.CreateRetVoid();
}

/// `kiln_buffers`: the buffers the entry reads and writes, as the code was
/// built (the number of parameters, of results, then each one's bytes), so
/// that the loader can hold a manifest to the code it describes
/// (kArtifactBufferRecordSymbol).
void addBufferRecord(llvm::Module &module,
                     const kiln::ArtifactManifest &manifest) {
  llvm::SmallVector<uint64_t> record = {manifest.inputs.size(),
                                        manifest.outputs.size()};
  for (const kiln::BufferSpec &buffer : manifest.inputs)
    record.push_back(buffer.bytes);
  for (const kiln::BufferSpec &buffer : manifest.outputs)
    record.push_back(buffer.bytes);
  llvm::Constant *values =
      llvm::ConstantDataArray::get(module.getContext(), record);
  new llvm::GlobalVariable(module, values->getType(), /*isConstant=*/true,
                           llvm::GlobalValue::ExternalLinkage, values,
                           kiln::kArtifactBufferRecordSymbol);
}

/// A pool of `threads` threads for compiling segments, one per count, kept
/// for the process's life: a context that was lent one keeps pointing at
/// it after its threading is turned off again.
llvm::ThreadPoolInterface &getSegmentThreadPool(unsigned threads) {
  static std::mutex mutex;
  static auto *pools =
      new std::map<unsigned, std::unique_ptr<llvm::DefaultThreadPool>>();
  std::lock_guard<std::mutex> lock(mutex);
  std::unique_ptr<llvm::DefaultThreadPool> &pool = (*pools)[threads];
  if (!pool)
    pool = std::make_unique<llvm::DefaultThreadPool>(
        llvm::hardware_concurrency(threads));
  return *pool;
}

/// Object code (or assembly) of `module` for `machine`; false when LLVM
/// cannot emit that kind of file for its target.
bool emitCode(llvm::Module &module, llvm::TargetMachine &machine,
              llvm::CodeGenFileType kind, std::string &code) {
  llvm::SmallVector<char, 0> buffer;
  llvm::raw_svector_ostream stream(buffer);
  llvm::legacy::PassManager codegen;
  if (machine.addPassesToEmitFile(codegen, stream, nullptr, kind))
    return false;
  codegen.run(module);
  code.assign(buffer.begin(), buffer.end());
  return true;
}

void optimize(llvm::Module &module, llvm::TargetMachine &machine,
              unsigned optLevel) {
  llvm::LoopAnalysisManager loops;
  llvm::FunctionAnalysisManager functions;
  llvm::CGSCCAnalysisManager cgscc;
  llvm::ModuleAnalysisManager modules;
  llvm::PipelineTuningOptions tuning;
  tuning.LoopVectorization = optLevel >= 2;
  tuning.SLPVectorization = optLevel >= 2;
  tuning.LoopUnrolling = false;
  llvm::PassBuilder builder(&machine, tuning);
  builder.registerModuleAnalyses(modules);
  builder.registerCGSCCAnalyses(cgscc);
  builder.registerFunctionAnalyses(functions);
  builder.registerLoopAnalyses(loops);
  builder.crossRegisterProxies(loops, functions, cgscc, modules);
  llvm::OptimizationLevel level = optLevel == 0   ? llvm::OptimizationLevel::O0
                                  : optLevel == 1 ? llvm::OptimizationLevel::O1
                                  : optLevel == 2 ? llvm::OptimizationLevel::O2
                                                  : llvm::OptimizationLevel::O3;
  llvm::ModulePassManager pipeline =
      optLevel == 0 ? builder.buildO0DefaultPipeline(level)
                    : builder.buildPerModuleDefaultPipeline(level);
  pipeline.run(module, modules);
}

/// How many f32 values one vector register of `machine` holds.
unsigned getVectorLanes(llvm::TargetMachine &machine) {
  const llvm::MCSubtargetInfo *info = machine.getMCSubtargetInfo();
  if (info->checkFeatures("+avx512f"))
    return 16;
  if (info->checkFeatures("+avx"))
    return 8;
  return 4;
}

/// The CPU features `machine` builds for (LLVM's names).
std::vector<std::string> getTargetFeatures(llvm::TargetMachine &machine) {
  const llvm::MCSubtargetInfo *info = machine.getMCSubtargetInfo();
  std::vector<std::string> features;
  for (const llvm::SubtargetFeatureKV &feature :
       info->getAllProcessorFeatures())
    if (info->checkFeatures(std::string("+") + feature.Key))
      features.push_back(feature.Key);
  return features;
}

/// HLO's maximum and minimum order -0 below +0. arith-expand would rewrite
/// arith's as a compare and a select, which sees -0 == +0 and picks by
/// operand order; LLVM's maximum and minimum intrinsics order the zeros
/// (and propagate NaN) as HLO does. Only types LLVM takes as they are
/// (scalars, 1-D vectors) are replaced: n-D vectors are unrolled by the
/// vector lowering, and met again after it.
void useOrderedMinMax(ModuleOp module) {
  module.walk([](Operation *op) {
    if (!isa<arith::MaximumFOp, arith::MinimumFOp>(op))
      return;
    auto vector = dyn_cast<VectorType>(op->getResult(0).getType());
    if (vector && (vector.getRank() != 1 || vector.isScalable()))
      return;
    OpBuilder builder(op);
    Value lhs = op->getOperand(0), rhs = op->getOperand(1);
    Value replacement =
        isa<arith::MaximumFOp>(op)
            ? LLVM::MaximumOp::create(builder, op->getLoc(), lhs, rhs)
                  .getResult()
            : LLVM::MinimumOp::create(builder, op->getLoc(), lhs, rhs)
                  .getResult();
    op->getResult(0).replaceAllUsesWith(replacement);
    op->erase();
  });
}

/// Runs the pass pipeline `text` on `module`.
LogicalResult runPipeline(ModuleOp module, llvm::StringRef text,
                          TimingScope *timing) {
  PassManager pm(module.getContext());
  if (timing)
    pm.enableTiming(*timing);
  std::string error;
  llvm::raw_string_ostream errorStream(error);
  if (failed(parsePassPipeline(text, pm, errorStream))) {
    emitError(module.getLoc()) << "a pipeline does not parse: " << error;
    return failure();
  }
  return pm.run(module);
}

/// Lowers `module` (after the front end) to buffers and loop nests, each
/// nest outlined into a function of its own (a kernel), which it returns:
/// kiln to linalg, contractions tiled and vectorized for `vectorLanes` f32
/// lanes, buffers. With `readOnlyInputs`, the public function never writes
/// into its parameters' buffers (a segment's inputs, which later segments
/// may read). Errors are reported at the ops concerned.
FailureOr<SmallVector<func::FuncOp>> lowerToKernels(ModuleOp module,
                                                    unsigned vectorLanes,
                                                    bool readOnlyInputs,
                                                    TimingScope *timing) {
  MLIRContext *context = module.getContext();
  auto runPipeline = [&](llvm::StringRef text) {
    return ::runPipeline(module, text, timing);
  };
  {
    PassManager pm(context);
    if (timing)
      pm.enableTiming(*timing);
    pm.addPass(kiln::createConvertKilnToLinalgPass());
    if (failed(pm.run(module)))
      return failure();
  }
  // What parameters and results said for the framework (shardings,
  // layouts, names) has no meaning in LLVM, which would warn about each,
  // printing the whole function every time.
  module.walk([](func::FuncOp function) {
    function.removeArgAttrsAttr();
    function.removeResAttrsAttr();
  });
  if (readOnlyInputs)
    module.walk([](func::FuncOp function) {
      if (function.isPublic())
        for (unsigned i = 0; i < function.getNumArguments(); ++i)
          function.setArgAttr(
              i, bufferization::BufferizationDialect::kWritableAttrName,
              BoolAttr::get(function.getContext(), false));
    });
  // Every error a user can meet has been reported by now, at its
  // instruction's place in the dump. The conversions that follow carry each
  // op's location into all that it becomes, at a cost that grows faster
  // than the module: they work without them.
  // Block arguments' too: LLVM's translation reads them, and knows only
  // MLIR's own kinds of location (not kiln's HloInstructionLoc).
  Location unknown = UnknownLoc::get(context);
  module.walk([&](Operation *op) {
    if (op != module.getOperation())
      op->setLoc(unknown);
  });
  module.walk([&](Block *block) {
    for (BlockArgument argument : block->getArguments())
      argument.setLoc(unknown);
  });
  if (failed(kiln::restrictToBands(module)) ||
      failed(runPipeline(kStructuredPipeline)))
    return failure();
  kiln::interleaveRowReductions(module);
  if (failed(kiln::tileAndVectorizeContractions(
          module, kiln::getContractionTiles(vectorLanes))))
    return failure();
  bool repeatsResults = false;
  module.walk([&](func::ReturnOp op) {
    llvm::SmallPtrSet<Value, 8> seen;
    for (Value operand : op.getOperands())
      repeatsResults |= !seen.insert(operand).second;
  });
  // One empty tensor per use: CSE made the equal ones one, whose readers'
  // results then all alias it, and one-shot bufferization's conflict
  // checks are quadratic in the size of an alias set.
  module.walk([](tensor::EmptyOp empty) {
    for (OpOperand &use :
         llvm::make_early_inc_range(llvm::drop_begin(empty->getUses()))) {
      OpBuilder builder(use.getOwner());
      use.set(builder.clone(*empty)->getResult(0));
    }
  });
  std::string bufferization = kBufferizationPipeline.str();
  bufferization.replace(bufferization.find("HOIST"), 5,
                        repeatsResults ? "false" : "true");
  if (failed(runPipeline(bufferization)))
    return failure();
  // Temporaries freed after their last use, not at the step's end.
  kiln::deallocateAfterLastUse(module);
  // The register tiles' accumulators stay in registers across the
  // contraction: their loads and stores leave the loop over its depth.
  module.walk([](func::FuncOp function) {
    linalg::hoistRedundantVectorTransfers(function);
  });
  // Copies between strided views (concatenate's and slices' buffers)
  // become loops: memref.copy would call a runtime library otherwise.
  module.walk([](memref::CopyOp copy) {
    auto isIdentity = [](Value value) {
      return cast<MemRefType>(value.getType()).getLayout().isIdentity();
    };
    if (isIdentity(copy.getSource()) && isIdentity(copy.getTarget()))
      return;
    OpBuilder builder(copy);
    linalg::CopyOp::create(builder, copy.getLoc(), copy.getSource(),
                           copy.getTarget());
    copy.erase();
  });
  // copysign (complex numbers' lowering makes them) as bit operations:
  // math-to-libm refuses it.
  module.walk([](math::CopySignOp op) {
    OpBuilder builder(op);
    Location loc = op.getLoc();
    Type type = op.getType();
    unsigned width = getElementTypeOrSelf(type).getIntOrFloatBitWidth();
    Type bits = builder.getIntegerType(width);
    if (auto vector = dyn_cast<VectorType>(type))
      bits = vector.clone(bits);
    auto mask = [&](const APInt &value) -> Value {
      return arith::ConstantOp::create(
          builder, loc, bits,
          isa<VectorType>(bits)
              ? (TypedAttr)DenseElementsAttr::get(cast<ShapedType>(bits), value)
              : (TypedAttr)builder.getIntegerAttr(bits, value));
    };
    Value magnitude = arith::AndIOp::create(
        builder, loc, arith::BitcastOp::create(builder, loc, bits, op.getLhs()),
        mask(APInt::getSignedMaxValue(width)));
    Value sign = arith::AndIOp::create(
        builder, loc, arith::BitcastOp::create(builder, loc, bits, op.getRhs()),
        mask(APInt::getSignMask(width)));
    op.replaceAllUsesWith(
        arith::BitcastOp::create(
            builder, loc, type,
            arith::OrIOp::create(builder, loc, magnitude, sign))
            .getResult());
    op.erase();
  });
  // MLIR's bare-pointer calling convention refuses memrefs without
  // elements. Such a parameter or result is never read or written: the
  // entry takes a one-element buffer in its place (the caller's empty
  // buffer is never touched) and its body uses an empty one of its own.
  module.walk([](func::FuncOp function) {
    if (function.isExternal() || !function.isPublic())
      return;
    Block &body = function.getBody().front();
    OpBuilder builder = OpBuilder::atBlockBegin(&body);
    SmallVector<Type> inputs(function.getArgumentTypes());
    bool changed = false;
    for (BlockArgument argument : body.getArguments()) {
      auto type = dyn_cast<MemRefType>(argument.getType());
      if (!type || !type.hasStaticShape() || type.getNumElements() != 0 ||
          !type.getLayout().isIdentity())
        continue;
      Value empty = memref::AllocaOp::create(builder, function.getLoc(), type);
      argument.replaceAllUsesWith(empty);
      auto placeholder = MemRefType::get({1}, type.getElementType());
      argument.setType(placeholder);
      inputs[argument.getArgNumber()] = placeholder;
      changed = true;
    }
    if (changed)
      function.setType(FunctionType::get(function.getContext(), inputs,
                                         function.getResultTypes()));
  });
  // rsqrt that the complex dialect's lowering makes (complex rsqrt) as
  // 1 / sqrt: math-to-libm would call an `rsqrt` no C library has.
  module.walk([](math::RsqrtOp op) {
    OpBuilder builder(op);
    Location loc = op.getLoc();
    Type type = op.getType();
    auto element = cast<FloatType>(getElementTypeOrSelf(type));
    TypedAttr one = builder.getFloatAttr(element, 1.0);
    if (auto vector = dyn_cast<VectorType>(type))
      one = DenseElementsAttr::get(vector, one);
    Value sqrt =
        math::SqrtOp::create(builder, loc, op.getOperand(), op.getFastmath());
    op.replaceAllUsesWith(
        arith::DivFOp::create(
            builder, loc, arith::ConstantOp::create(builder, loc, one), sqrt)
            .getResult());
    op.erase();
  });
  // 8-bit floats, which LLVM has no type for: their conversions as integer
  // code.
  if (failed(kiln::expandEightBitFloats(module)))
    return failure();
  // exp of f32 as a polynomial, inline: a call of the C library's expf
  // per element keeps LLVM from vectorizing softmax's loops.
  {
    RewritePatternSet patterns(context);
    populateMathPolynomialApproximationPatterns(
        patterns, [](StringRef name) { return name == "math.exp"; });
    if (failed(applyPatternsGreedily(module, std::move(patterns))))
      return failure();
  }
  // The polynomial's fma and floor as LLVM's intrinsics, which are
  // instructions: convert-math-to-libm would make them calls of fmaf and
  // floorf, one per element, which LLVM does not vectorize either.
  module.walk([](Operation *op) {
    if (!isa<math::FmaOp, math::FloorOp>(op))
      return;
    OpBuilder builder(op);
    Value replacement;
    if (auto fma = dyn_cast<math::FmaOp>(op))
      replacement = LLVM::FMAOp::create(builder, op->getLoc(), fma.getA(),
                                        fma.getB(), fma.getC());
    else
      replacement =
          LLVM::FFloorOp::create(builder, op->getLoc(), op->getOperand(0));
    op->getResult(0).replaceAllUsesWith(replacement);
    op->erase();
  });
  useOrderedMinMax(module);
  // LLVM optimizes a function per loop nest in time linear in the graph's
  // size; one function of the whole graph costs it quadratic time.
  return kiln::outlineLoopNests(module);
}

/// The rest of the lowering of `module` after lowerToKernels: loops, then
/// the LLVM dialect.
LogicalResult lowerKernelsToLLVMDialect(ModuleOp module, TimingScope *timing) {
  if (failed(runPipeline(module, kToLoopsPipeline, timing)))
    return failure();
  useOrderedMinMax(module);
  return runPipeline(module, kLoopsToLLVMPipeline, timing);
}

} // namespace

kiln::CpuCompileOptions kiln::getCpuCompileOptions(llvm::StringRef canonical,
                                                   const TargetSpec &target) {
  CpuCompileOptions options;
  options.target = target;
  if (const char *segmentOps = std::getenv("KILN_SEGMENT_OPS"))
    llvm::StringRef(segmentOps).getAsInteger(10, options.segmentOps);
  if (const char *share = std::getenv("KILN_SHARE_KERNELS"))
    options.shareKernels = llvm::StringRef(share) != "0";
  llvm::SmallVector<llvm::StringRef> lines;
  canonical.split(lines, '\n', -1, /*KeepEmpty=*/false);
  for (llvm::StringRef line : lines) {
    auto [name, value] = line.split('=');
    if (name == "opt-level")
      value.getAsInteger(10, options.optLevel);
    else if (name == "fold-causal-mask")
      options.foldCausalMask = value != "false";
    else if (name == "fold-constants")
      options.foldConstants = value != "false";
  }
  return options;
}

std::vector<std::string> kiln::getTargetCpuFeatures(const TargetSpec &target) {
  initializeTargets();
  std::string error;
  std::unique_ptr<llvm::TargetMachine> machine =
      createTargetMachine(target, 2, error);
  return machine ? getTargetFeatures(*machine) : std::vector<std::string>{};
}

void kiln::registerCpuCompilerDialects(DialectRegistry &registry) {
  registerAllDialects(registry);
  registerAllExtensions(registry);
  registerAllToLLVMIRTranslations(registry);
}

FailureOr<kiln::CompiledGraph>
kiln::compileForCpu(ModuleOp module, const CpuCompileOptions &options,
                    EmitKind emit) {
  initializeCompiler();
  MLIRContext *context = module.getContext();
  CompiledGraph compiled;
  ArtifactManifest &manifest = compiled.manifest;
  manifest.targetTriple = options.target.triple;
  manifest.cpu = options.target.cpu;
  if (auto name = module.getSymName())
    manifest.graphName = name->str();
  if (auto alias = module->getAttrOfType<StringAttr>("kiln.input_output_alias"))
    manifest.inputOutputAlias = alias.getValue().str();

  auto fail = [&](const llvm::Twine &message) {
    emitError(module.getLoc()) << message;
    return failure();
  };

  // The front end: what cannot be compiled named first, then inlining,
  // causal masks, constant folding, dead code.
  // One report of MLIR's pass timing for the whole compilation, every
  // segment's passes summed.
  DefaultTimingManager timingManager;
  timingManager.setEnabled(options.timing);
  TimingScope timingRoot = timingManager.getRootScope();
  Clock::time_point start = Clock::now();
  if (failed(lowerRunParallel(module)))
    return failure();
  {
    PassManager pm(context);
    if (options.timing)
      pm.enableTiming(timingRoot);
    pm.addPass(createKilnCheckCompilablePass());
    FrontendPipelineOptions frontend;
    frontend.foldCausalMask = options.foldCausalMask;
    frontend.foldConstants = options.foldConstants;
    buildFrontendPipeline(pm, frontend);
    // Attention's masked blocks are skipped only where masks were folded:
    // --no-fold-causal-mask compiles every block.
    if (options.foldCausalMask)
      pm.addPass(createKilnMarkMaskedContractionsPass());
    if (failed(pm.run(module)))
      return failure();
  }
  func::FuncOp entry = getEntryFunction(module);
  if (!entry)
    return fail("the graph has no public function to compile");
  if (failed(moveChecksToResults(entry, manifest.checks)) ||
      failed(describeBuffers(entry, entry.getArgumentTypes(), manifest.inputs,
                             "parameter")) ||
      failed(describeBuffers(entry, entry.getResultTypes(), manifest.outputs,
                             "result")))
    return failure();
  manifest.graphOutputs = manifest.outputs.size() - 2 * manifest.checks.size();
  compiled.times.frontend = secondsSince(start);
  if (emit == EmitKind::Frontend) {
    llvm::raw_string_ostream(compiled.output) << module;
    return compiled;
  }

  // The TargetMachine first: its vector width chooses the tiles.
  std::string error;
  std::unique_ptr<llvm::TargetMachine> machine =
      createTargetMachine(options.target, options.optLevel, error);
  if (!machine)
    return fail("no LLVM target for " + options.target.triple + ": " + error);

  // A large graph is compiled in segments (GraphSegmentation.h), each
  // lowered, translated and optimized on its own, then linked into one
  // LLVM module with the entry that calls them.
  SegmentedGraph segmented =
      kiln::splitIntoSegments(module, entry, options.segmentOps);
  unsigned vectorLanes = getVectorLanes(*machine);
  size_t segmentCount = segmented.segments.size();
  TimingScope *timing = options.timing ? &timingRoot : nullptr;
  // Each segment is compiled in two steps, with equal loop nests shared
  // between them (KernelSharing.h): lowered to kernels, all segments side
  // by side; then handed to the sharing one at a time in their order (on
  // this thread: no step waits for another inside a pool's task); then
  // lowered the rest of the way, translated and optimized, side by side.
  struct SegmentKernels {
    SmallVector<func::FuncOp> kernels;
    std::vector<std::optional<kiln::KernelKey>> keys;
  };
  std::vector<SegmentKernels> segmentKernels(segmentCount);
  auto segmentModuleOf = [&](size_t index) {
    GraphSegment &segment = segmented.segments[index];
    return segment.module ? *segment.module : module;
  };
  // Lowers segment `index` to its kernels and identifies them; its time
  // goes to `times`.
  auto lowerSegment = [&](size_t index,
                          kiln::CompileTimes &times) -> LogicalResult {
    ModuleOp segmentModule = segmentModuleOf(index);
    Clock::time_point begin = Clock::now();
    FailureOr<SmallVector<func::FuncOp>> kernels = lowerToKernels(
        segmentModule, vectorLanes,
        /*readOnlyInputs=*/static_cast<bool>(segmented.segments[index].module),
        timing);
    if (failed(kernels))
      return failure();
    SegmentKernels &lowered = segmentKernels[index];
    lowered.kernels = std::move(*kernels);
    lowered.keys = options.shareKernels
                       ? kiln::identifyKernels(segmentModule, lowered.kernels)
                       : std::vector<std::optional<kiln::KernelKey>>(
                             lowered.kernels.size());
    times.lowering += secondsSince(begin);
    return success();
  };
  kiln::KernelSharing sharing;
  auto shareKernels = [&] {
    Clock::time_point begin = Clock::now();
    for (size_t index = 0; index < segmentCount; ++index)
      sharing.share(segmentModuleOf(index), segmentKernels[index].kernels,
                    segmentKernels[index].keys);
    sharing.finish();
    segmentKernels.clear();
    compiled.times.lowering += secondsSince(begin);
    compiled.times.kernels = sharing.getKernelCount();
    compiled.times.sharedKernels = sharing.getSharedCount();
  };
  // Lowers the rest of segment `index` (after shareKernels), translates and
  // optimizes it into `llvmContext` (each of its own with several
  // segments: LLVM's contexts are not shared between threads) with
  // `segmentMachine`; its times go to `times`.
  auto compileSegment =
      [&](size_t index, llvm::LLVMContext &llvmContext,
          llvm::TargetMachine &segmentMachine, kiln::CompileTimes &times,
          std::string &text) -> FailureOr<std::unique_ptr<llvm::Module>> {
    GraphSegment &segment = segmented.segments[index];
    ModuleOp segmentModule = segmentModuleOf(index);
    Clock::time_point begin = Clock::now();
    if (failed(lowerKernelsToLLVMDialect(segmentModule, timing)))
      return failure();
    times.lowering += secondsSince(begin);
    if (emit == EmitKind::Mlir) {
      llvm::raw_string_ostream(text) << segmentModule << "\n";
      return std::unique_ptr<llvm::Module>();
    }

    begin = Clock::now();
    std::unique_ptr<llvm::Module> llvmModule =
        translateModuleToLLVMIR(segmentModule, llvmContext, manifest.graphName);
    if (!llvmModule)
      return fail("the lowered module does not translate to LLVM IR");
    // The segment's MLIR is no longer needed.
    segment.module = nullptr;
    llvmModule->setTargetTriple(segmentMachine.getTargetTriple());
    llvmModule->setDataLayout(segmentMachine.createDataLayout());
    llvm::Function *function = llvmModule->getFunction(segment.function);
    if (!function ||
        function->arg_size() != segment.inputs.size() + segment.outputs.size())
      return fail("the lowered function @" + segment.function +
                  " does not take one pointer per input and output");
    for (llvm::Function &other : *llvmModule) {
      if (other.isDeclaration())
        continue;
      // Everything but the segment's function is its own, so that the
      // optimizer may inline or drop it; so is every kernel but those other
      // segments call.
      if (&other != function && !sharing.isExported(other.getName()))
        other.setLinkage(llvm::GlobalValue::InternalLinkage);
      // What is left of a large function once its loop nests are outlined
      // is one block of calls, allocations and copies: optimizing it gains
      // nothing, and LLVM's instruction selection and scheduling of one
      // block take time that grows faster than the block. Such a function
      // is compiled as at -O0.
      if (other.size() == 1 &&
          other.getEntryBlock().size() > kLargeStraightLineFunction) {
        other.addFnAttr(llvm::Attribute::NoInline);
        other.addFnAttr(llvm::Attribute::OptimizeNone);
      }
    }
    times.llvmTranslation += secondsSince(begin);

    begin = Clock::now();
    optimize(*llvmModule, segmentMachine, options.optLevel);
    times.llvmOptimization += secondsSince(begin);
    return llvmModule;
  };

  llvm::LLVMContext llvmContext;
  std::unique_ptr<llvm::Module> linked;
  std::unique_ptr<llvm::Linker> linker;
  auto link = [&](std::unique_ptr<llvm::Module> llvmModule,
                  const GraphSegment &segment) -> LogicalResult {
    // One linker for all segments: a linker reads the whole destination
    // module when it is made.
    if (!linked) {
      linked = std::move(llvmModule);
      linker = std::make_unique<llvm::Linker>(*linked);
      return success();
    }
    if (linker->linkInModule(std::move(llvmModule)))
      return fail("segment @" + segment.function + " does not link");
    return success();
  };

  // Where the segments are objects of their own (an artifact of several),
  // the entry and the buffer record go into a module of their own, whose
  // object comes first; otherwise into the linked graph.
  bool separateObjects = emit == EmitKind::Artifact && segmentCount > 1;
  std::vector<std::string> segmentObjects;
  if (segmentCount == 1) {
    // A graph compiled whole, in this thread and LLVM context.
    if (failed(lowerSegment(0, compiled.times)))
      return failure();
    shareKernels();
    std::string text;
    FailureOr<std::unique_ptr<llvm::Module>> llvmModule =
        compileSegment(0, llvmContext, *machine, compiled.times, text);
    if (failed(llvmModule))
      return failure();
    compiled.output += text;
    if (emit != EmitKind::Mlir &&
        failed(link(std::move(*llvmModule), segmented.segments[0])))
      return failure();
  } else {
    // Several segments: each is compiled in an LLVM context of its own, on
    // up to `threads` threads (MLIR's context runs their passes side by
    // side). For an artifact each becomes an object of its own, and the
    // entry's is the first (the loader links them); for LLVM IR or
    // assembly each is handed over as bitcode and linked into one module.
    // The steps are the same for any number of threads, and segments keep
    // their order, so the code is the same bit for bit.
    struct SegmentResult {
      llvm::SmallVector<char, 0> bitcode;
      std::string object;
      std::string text;
      kiln::CompileTimes times;
    };
    std::vector<SegmentResult> results(segmentCount);
    // Segment `index` into its result: an object, or bitcode to link.
    auto compileSegmentCode = [&](size_t index) -> LogicalResult {
      SegmentResult &result = results[index];
      std::string error;
      std::unique_ptr<llvm::TargetMachine> segmentMachine =
          createTargetMachine(options.target, options.optLevel, error);
      if (!segmentMachine)
        return fail("no LLVM target for " + options.target.triple + ": " +
                    error);
      llvm::LLVMContext segmentContext;
      FailureOr<std::unique_ptr<llvm::Module>> llvmModule = compileSegment(
          index, segmentContext, *segmentMachine, result.times, result.text);
      if (failed(llvmModule))
        return failure();
      if (!*llvmModule)
        return success();
      Clock::time_point begin = Clock::now();
      if (separateObjects) {
        if (!emitCode(**llvmModule, *segmentMachine,
                      llvm::CodeGenFileType::ObjectFile, result.object))
          return fail("LLVM cannot emit code for " + options.target.triple);
        result.times.codeGeneration += secondsSince(begin);
        return success();
      }
      llvm::raw_svector_ostream stream(result.bitcode);
      llvm::WriteBitcodeToFile(**llvmModule, stream);
      result.times.llvmTranslation += secondsSince(begin);
      return success();
    };
    // Pass timing is one report of one thread's scopes.
    // No more threads than segments.
    unsigned threads = std::min<size_t>(
        segmentCount,
        options.timing ? 1
        : options.threads
            ? options.threads
            : llvm::hardware_concurrency().compute_thread_count());
    compiled.times.threads = std::max(1u, threads);
    // Every dialect loaded first, for any number of threads: loading one
    // while passes run on other threads would race, and canonicalization
    // takes its patterns from the loaded dialects, which must not depend
    // on the number of threads.
    context->loadAllAvailableDialects();
    // A context that runs threads already keeps its own pool; one that
    // does not is lent one for the two side-by-side steps.
    bool lent = threads > 1 && !context->isMultithreadingEnabled();
    if (lent)
      context->setThreadPool(getSegmentThreadPool(threads));
    llvm::scope_exit giveBack([&] {
      if (lent)
        context->disableMultithreading();
    });
    auto forEachSegment =
        [&](llvm::function_ref<LogicalResult(size_t)> step) -> LogicalResult {
      if (threads > 1)
        return failableParallelForEach(
            context, llvm::seq<size_t>(0, segmentCount), step);
      for (size_t index = 0; index < segmentCount; ++index)
        if (failed(step(index)))
          return failure();
      return success();
    };
    if (failed(forEachSegment([&](size_t index) {
          return lowerSegment(index, results[index].times);
        })))
      return failure();
    shareKernels();
    if (failed(forEachSegment(compileSegmentCode)))
      return failure();
    for (SegmentResult &result : results) {
      compiled.output += result.text;
      compiled.times.lowering += result.times.lowering;
      compiled.times.llvmTranslation += result.times.llvmTranslation;
      compiled.times.llvmOptimization += result.times.llvmOptimization;
      compiled.times.codeGeneration += result.times.codeGeneration;
    }
    if (separateObjects)
      for (SegmentResult &result : results)
        segmentObjects.push_back(std::move(result.object));
    for (auto [index, result] : llvm::enumerate(results)) {
      if (emit == EmitKind::Mlir || separateObjects)
        continue;
      Clock::time_point begin = Clock::now();
      llvm::Expected<std::unique_ptr<llvm::Module>> llvmModule =
          llvm::parseBitcodeFile(
              llvm::MemoryBufferRef(
                  llvm::StringRef(result.bitcode.data(), result.bitcode.size()),
                  segmented.segments[index].function),
              llvmContext);
      if (!llvmModule)
        return fail(
            "segment @" + segmented.segments[index].function +
            " does not read back: " + llvm::toString(llvmModule.takeError()));
      result.bitcode = {};
      if (failed(link(std::move(*llvmModule), segmented.segments[index])))
        return failure();
      compiled.times.llvmTranslation += secondsSince(begin);
    }
  }
  if (emit == EmitKind::Mlir)
    return compiled;
  start = Clock::now();
  std::unique_ptr<llvm::Module> entryOnly;
  llvm::Module *entryModule = linked.get();
  if (separateObjects) {
    entryOnly = std::make_unique<llvm::Module>(manifest.entry, llvmContext);
    entryOnly->setTargetTriple(machine->getTargetTriple());
    entryOnly->setDataLayout(machine->createDataLayout());
    entryModule = entryOnly.get();
  }
  addEntry(*entryModule, segmented, manifest.entry);
  addBufferRecord(*entryModule, manifest);
  if (emit == EmitKind::Llvm) {
    llvm::raw_string_ostream(compiled.output) << *entryModule;
    return compiled;
  }

  std::string code;
  if (!emitCode(*entryModule, *machine,
                emit == EmitKind::Assembly ? llvm::CodeGenFileType::AssemblyFile
                                           : llvm::CodeGenFileType::ObjectFile,
                code))
    return fail("LLVM cannot emit code for " + options.target.triple);
  compiled.times.codeGeneration += secondsSince(start);
  if (emit == EmitKind::Artifact) {
    compiled.objects.push_back(std::move(code));
    for (std::string &object : segmentObjects)
      compiled.objects.push_back(std::move(object));
  } else {
    compiled.output = std::move(code);
  }
  manifest.requiredFeatures = getTargetFeatures(*machine);
  return compiled;
}
