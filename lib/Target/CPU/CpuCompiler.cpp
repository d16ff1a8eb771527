//===- CpuCompiler.cpp - compiling a kiln module to native code -*- C++ -*-===//
//
// This file drives a compilation: the front end, the kiln lowering, MLIR's
// bufferization and its lowering to the LLVM dialect (one pass pipeline,
// written out below so that `mlir-opt` can replay it), then LLVM: the
// module translated to LLVM IR, an entry wrapper added
// (`kiln_entry(void **buffers)`, so the runtime calls every graph the same
// way), LLVM's optimizer at the requested level, and the object file
// emitted by the TargetMachine of the key's target and CPU level.
//
//===----------------------------------------------------------------------===//

#include "kiln/Target/CPU/CpuCompiler.h"

#include "BandRestriction.h"
#include "CheckResults.h"
#include "ContractionTiling.h"
#include "EarlyDeallocation.h"
#include "LoopNestOutlining.h"
#include "RunParallelLowering.h"
#include "kiln/Conversion/Passes.h"
#include "kiln/Dialect/Kiln/IR/KilnOps.h"
#include "kiln/Dialect/Kiln/Transforms/Passes.h"
#include "kiln/Runtime/Executable.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Transforms/Hoisting.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Math/Transforms/Passes.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Quant/IR/QuantTypes.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/InitAllPasses.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Target/LLVMIR/Dialect/All.h"
#include "mlir/Target/LLVMIR/Export.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/LegacyPassManager.h"
#include "llvm/IR/Module.h"
#include "llvm/MC/MCSubtargetInfo.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Passes/PassBuilder.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Target/TargetMachine.h"
#include "llvm/TargetParser/Host.h"
#include "llvm/TargetParser/Triple.h"

#include <chrono>
#include <mutex>

using namespace mlir;
using kiln::BufferSpec;

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
/// and per result.
constexpr llvm::StringLiteral kBufferizationPipeline =
    "func.func(lower-vector-mask),"
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
constexpr llvm::StringLiteral kLoopsToLLVMPipeline =
    "arith-expand{include-bf16=true},"
    "convert-vector-to-scf{full-unroll=true}, convert-linalg-to-loops,"
    "lower-affine, convert-scf-to-cf, canonicalize, cse,"
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
    auto tensor = dyn_cast<RankedTensorType>(type);
    if (!tensor || !tensor.hasStaticShape() ||
        (!tensor.getElementType().isIntOrFloat() &&
         !isa<ComplexType, quant::QuantizedType>(tensor.getElementType())))
      return entry.emitError() << "a " << what << " of type " << type
                               << " is not compiled by the CPU backend";
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

/// `void kiln_entry(void **buffers)`: loads each buffer pointer and calls
/// the entry with them. Every other function becomes internal, so that the
/// optimizer may inline or drop it.
void addEntryWrapper(llvm::Module &module, llvm::Function *entry,
                     llvm::StringRef name) {
  llvm::LLVMContext &context = module.getContext();
  auto *pointer = llvm::PointerType::get(context, 0);
  auto *type =
      llvm::FunctionType::get(llvm::Type::getVoidTy(context), {pointer}, false);
  for (llvm::Function &function : module)
    if (!function.isDeclaration())
      function.setLinkage(llvm::GlobalValue::InternalLinkage);
  auto *wrapper = llvm::Function::Create(
      type, llvm::GlobalValue::ExternalLinkage, name, module);
  llvm::IRBuilder<> builder(
      llvm::BasicBlock::Create(context, "entry", wrapper));
  llvm::SmallVector<llvm::Value *> args;
  for (unsigned i = 0; i < entry->arg_size(); ++i) {
    llvm::Value *slot =
        builder.CreateConstGEP1_64(pointer, wrapper->getArg(0), i);
    args.push_back(builder.CreateLoad(pointer, slot));
  }
  builder.CreateCall(entry, args);
  builder.CreateRetVoid();
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

} // namespace

kiln::CpuCompileOptions kiln::getCpuCompileOptions(llvm::StringRef canonical,
                                                   const TargetSpec &target) {
  CpuCompileOptions options;
  options.target = target;
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
  Clock::time_point start = Clock::now();
  if (failed(lowerRunParallel(module)))
    return failure();
  {
    PassManager pm(context);
    if (options.timing)
      pm.enableTiming();
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
  std::string entryName = entry.getName().str();
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

  // MLIR: kiln to linalg, contractions tiled and vectorized, buffers, then
  // the LLVM dialect.
  start = Clock::now();
  {
    llvm::raw_string_ostream errorStream(error);
    auto runPipeline = [&](llvm::StringRef text) -> LogicalResult {
      PassManager pm(context);
      if (options.timing)
        pm.enableTiming();
      if (failed(parsePassPipeline(text, pm, errorStream))) {
        emitError(module.getLoc()) << "a pipeline does not parse: " << error;
        return failure();
      }
      return pm.run(module);
    };
    {
      PassManager pm(context);
      if (options.timing)
        pm.enableTiming();
      pm.addPass(createConvertKilnToLinalgPass());
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
    if (failed(restrictToBands(module)) ||
        failed(runPipeline(kStructuredPipeline)) ||
        failed(tileAndVectorizeContractions(
            module, getContractionTiles(getVectorLanes(*machine)))))
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
    deallocateAfterLastUse(module);
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
                ? (TypedAttr)DenseElementsAttr::get(cast<ShapedType>(bits),
                                                    value)
                : (TypedAttr)builder.getIntegerAttr(bits, value));
      };
      Value magnitude = arith::AndIOp::create(
          builder, loc,
          arith::BitcastOp::create(builder, loc, bits, op.getLhs()),
          mask(APInt::getSignedMaxValue(width)));
      Value sign = arith::AndIOp::create(
          builder, loc,
          arith::BitcastOp::create(builder, loc, bits, op.getRhs()),
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
        Value empty =
            memref::AllocaOp::create(builder, function.getLoc(), type);
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
    // LLVM optimizes a function per loop nest in time linear in the graph's
    // size; one function of the whole graph costs it quadratic time.
    outlineLoopNests(module);
    if (failed(runPipeline(kLoopsToLLVMPipeline)))
      return failure();
  }
  compiled.times.lowering = secondsSince(start);
  if (emit == EmitKind::Mlir) {
    llvm::raw_string_ostream(compiled.output) << module;
    return compiled;
  }

  // LLVM: translate, wrap, optimize, emit. Errors are reported by now;
  // the dump's locations, which MLIR would carry into LLVM's metadata op by
  // op, are dropped first.
  start = Clock::now();
  Location unknown = UnknownLoc::get(context);
  module.walk([&](Operation *op) { op->setLoc(unknown); });
  llvm::LLVMContext llvmContext;
  std::unique_ptr<llvm::Module> llvmModule =
      translateModuleToLLVMIR(module, llvmContext, manifest.graphName);
  if (!llvmModule)
    return fail("the lowered module does not translate to LLVM IR");
  llvmModule->setTargetTriple(machine->getTargetTriple());
  llvmModule->setDataLayout(machine->createDataLayout());
  llvm::Function *entryFunction = llvmModule->getFunction(entryName);
  if (!entryFunction || entryFunction->arg_size() !=
                            manifest.inputs.size() + manifest.outputs.size())
    return fail("the lowered entry @" + entryName +
                " does not take one pointer per parameter and result");
  addEntryWrapper(*llvmModule, entryFunction, manifest.entry);
  // What is left of a large graph's entry once its loop nests are outlined
  // is one block of calls, allocations and copies, thousands of them:
  // optimizing it gains nothing, and LLVM's instruction selection and
  // scheduling of one block take time that grows faster than the block.
  // Such a function is compiled as at -O0.
  for (llvm::Function &function : *llvmModule)
    if (!function.isDeclaration() && function.size() == 1 &&
        function.getEntryBlock().size() > kLargeStraightLineFunction) {
      function.addFnAttr(llvm::Attribute::NoInline);
      function.addFnAttr(llvm::Attribute::OptimizeNone);
    }
  compiled.times.llvmTranslation = secondsSince(start);

  start = Clock::now();
  optimize(*llvmModule, *machine, options.optLevel);
  compiled.times.llvmOptimization = secondsSince(start);
  if (emit == EmitKind::Llvm) {
    llvm::raw_string_ostream(compiled.output) << *llvmModule;
    return compiled;
  }

  start = Clock::now();
  llvm::SmallVector<char, 0> buffer;
  {
    llvm::raw_svector_ostream stream(buffer);
    llvm::legacy::PassManager codegen;
    if (machine->addPassesToEmitFile(codegen, stream, nullptr,
                                     emit == EmitKind::Assembly
                                         ? llvm::CodeGenFileType::AssemblyFile
                                         : llvm::CodeGenFileType::ObjectFile))
      return fail("LLVM cannot emit code for " + options.target.triple);
    codegen.run(*llvmModule);
  }
  compiled.times.codeGeneration = secondsSince(start);
  compiled.output.assign(buffer.begin(), buffer.end());
  manifest.requiredFeatures = getTargetFeatures(*machine);
  return compiled;
}
