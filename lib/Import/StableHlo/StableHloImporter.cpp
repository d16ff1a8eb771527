//===- StableHloImporter.cpp - StableHLO text into the kiln dialect -------===//
//
// This file implements the StableHLO importer: MLIR's own parser reads the
// text (func ops, builtin and quant types, locations and their `#loc`
// aliases), with the syntax dialects of StableHloSyntax.h reading the
// `stablehlo` and `chlo` ops; StableHloToKiln.cpp then turns those into kiln
// ops, and the module is verified as kiln's.
//
//===----------------------------------------------------------------------===//

#include "kiln/Import/StableHlo/StableHloImporter.h"

#include "StableHloSyntax.h"
#include "StableHloToKiln.h"

#include "kiln/Dialect/Kiln/IR/KilnOps.h"
#include "kiln/Import/Hlo/InputDiagnostics.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Quant/IR/Quant.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Tools/mlir-translate/Translation.h"
#include "llvm/Support/SourceMgr.h"

#include <cstring>
#include <optional>

using namespace mlir;

/// Where braces nest deeper than `limit` in `text` (strings and `//`
/// comments aside), if they do: MLIR's parser recurses per region and
/// would run out of stack on a hostile file first.
static std::optional<size_t> tooDeeplyNested(llvm::StringRef text,
                                             unsigned limit) {
  unsigned depth = 0;
  for (size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (c == '"') {
      for (++i; i < text.size() && text[i] != '"'; ++i)
        if (text[i] == '\\')
          ++i;
    } else if (c == '/' && i + 1 < text.size() && text[i + 1] == '/') {
      while (i < text.size() && text[i] != '\n')
        ++i;
    } else if (c == '{' || c == '(' || c == '[') {
      if (++depth > limit)
        return i;
    } else if ((c == '}' || c == ')' || c == ']') && depth > 0) {
      --depth;
    }
  }
  return std::nullopt;
}

LogicalResult kiln::checkMlirNesting(llvm::SourceMgr &sourceMgr,
                                     MLIRContext *context) {
  llvm::StringRef text =
      sourceMgr.getMemoryBuffer(sourceMgr.getMainFileID())->getBuffer();
  if (std::optional<size_t> at = tooDeeplyNested(text, 512)) {
    auto [line, column] = sourceMgr.getLineAndColumn(
        llvm::SMLoc::getFromPointer(text.data() + *at),
        sourceMgr.getMainFileID());
    mlir::emitError(FileLineColLoc::get(
        context,
        sourceMgr.getMemoryBuffer(sourceMgr.getMainFileID())
            ->getBufferIdentifier(),
        line, column))
        << "brackets and regions nest deeper than 512 levels";
    return failure();
  }
  return success();
}

OwningOpRef<ModuleOp> kiln::importStableHloText(llvm::SourceMgr &sourceMgr,
                                                MLIRContext *context) {
  if (failed(checkMlirNesting(sourceMgr, context)))
    return nullptr;
  context->loadDialect<KilnDialect, func::FuncDialect, quant::QuantDialect,
                       StableHloSyntaxDialect, ChloSyntaxDialect,
                       CheckSyntaxDialect, ShardySyntaxDialect>();
  // JAX attaches attributes of dialects that kiln does not load (`#mhlo.`)
  // or reads as text (`#sdy.`): opaque attributes, kept, and hashed by
  // their text.
  bool allowed = context->allowsUnregisteredDialects();
  context->allowUnregisteredDialects(true);
  // Not verified as parsed: the module is verified once, as kiln's, after
  // its ops are converted.
  OwningOpRef<ModuleOp> module = parseSourceFile<ModuleOp>(
      sourceMgr, ParserConfig(context, /*verifyAfterParse=*/false));
  context->allowUnregisteredDialects(allowed);
  if (!module)
    return nullptr;
  if (failed(convertStableHloToKiln(*module)) || failed(mlir::verify(*module)))
    return nullptr;
  return module;
}

kiln::GraphFormat kiln::detectGraphFormat(llvm::StringRef text,
                                          GraphFormat fallback) {
  // Past blank lines and `//` comments (a lit test's RUN lines, a dump's
  // banner).
  llvm::StringRef rest = text;
  while (true) {
    rest = rest.ltrim();
    if (!rest.starts_with("//"))
      break;
    rest = rest.drop_until([](char c) { return c == '\n'; });
  }
  if (rest.empty())
    return fallback;
  if (rest.starts_with("HloModule"))
    return GraphFormat::HloText;
  // MLIR text: StableHLO if it has StableHLO's ops or JAX's `mhlo.`
  // attributes (a function that only returns its parameter has no ops;
  // within the first MiB, so that a huge kiln module is not scanned to its
  // end).
  llvm::StringRef head = text.take_front(1 << 20);
  if (head.contains("stablehlo.") || head.contains("chlo.") ||
      head.contains("mhlo."))
    return GraphFormat::StableHlo;
  if (rest.starts_with("module") || rest.starts_with("func.func") ||
      rest.starts_with("#") || rest.starts_with("\"") ||
      rest.starts_with("builtin.module"))
    return GraphFormat::KilnMlir;
  return fallback;
}

void kiln::registerImportStableHloTranslation() {
  TranslateToMLIRRegistration registration(
      "import-stablehlo", "import StableHLO text into the kiln dialect",
      [](llvm::SourceMgr &sourceMgr,
         MLIRContext *context) -> OwningOpRef<Operation *> {
        InputDiagnosticHandler bounded(sourceMgr, context, llvm::errs(),
                                       /*passOn=*/true);
        return importStableHloText(sourceMgr, context);
      },
      [](DialectRegistry &registry) {
        registry.insert<KilnDialect, func::FuncDialect, quant::QuantDialect>();
      });
}
